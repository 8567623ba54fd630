import { ArielError } from "@ariel/core";
import type { CommandSpec } from "@ariel/core/host";

/** ariel-worktree (not built yet). */
export const command: CommandSpec = {
  name: "ariel-worktree",
  description: "not implemented yet",
  flags: { json: { type: "boolean", description: "NDJSON records on stdout" } },
  run() {
    throw new ArielError("ERR_USAGE", "ariel-worktree is not implemented yet");
  },
};
