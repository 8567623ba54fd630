import { ArielError } from "@ariel/core";
import type { CommandSpec } from "@ariel/core/host";

/** ariel-spawn (not built yet). */
export const command: CommandSpec = {
  name: "ariel-spawn",
  description: "not implemented yet",
  flags: { json: { type: "boolean", description: "NDJSON records on stdout" } },
  run() {
    throw new ArielError("ERR_USAGE", "ariel-spawn is not implemented yet");
  },
};
