import { ArielError, type RunView } from "@ariel/core";
import type { KnownWorkspace } from "@ariel/core/host";

/** What the API asks of runs when it changes something. The runs code implements it; there is no second copy here. */
export interface RunControl {
  spawn(ws: KnownWorkspace, body: Record<string, unknown>): Promise<RunView>;
  kill(ws: KnownWorkspace, runId: string, body: Record<string, unknown>): Promise<RunView>;
  respawn(ws: KnownWorkspace, runId: string, body: Record<string, unknown>): Promise<RunView>;
  input(ws: KnownWorkspace, runId: string, body: Record<string, unknown>): Promise<void>;
}

function unavailable(what: string): never {
  throw new ArielError("ERR_UNAVAILABLE", `${what} needs background runs, which this build does not have`, {
    hint: "use ariel-spawn in a terminal for now",
  });
}

/** A RunControl for a build without background runs: every mutation is 503 with a clear error. */
export const noRunControl: RunControl = {
  spawn: async () => unavailable("starting a run"),
  kill: async () => unavailable("killing a run"),
  respawn: async () => unavailable("respawning a run"),
  input: async () => unavailable("writing to a run"),
};

/** The RunControl of this build. */
export function runControl(): RunControl {
  return noRunControl;
}
