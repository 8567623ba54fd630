import type { CommandSpec } from "@ariel/core/host";
import { eventsCommand } from "./commands/events.ts";
import { serveCommand } from "./commands/serve.ts";
import { statusCommand } from "./commands/status.ts";

/** ariel-fleet: one view over every workspace (docs/fleet.md). */
export const command: CommandSpec = {
  name: "ariel-fleet",
  description: "one view over every workspace: status, events, and an HTTP API with a dashboard",
  flags: {},
  subCommands: { status: statusCommand, events: eventsCommand, serve: serveCommand },
};
