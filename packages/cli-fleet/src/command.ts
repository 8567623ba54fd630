import { defineCommand } from "@ariel/core/host";
import { COMMON_ARGS } from "./commands/_common.ts";

/**
 * ariel-fleet: one view over every workspace (docs/fleet.md). Each sub-command is loaded when it
 * is run, so `status` does not pay for the HTTP server.
 */
export const command = defineCommand({
  meta: {
    name: "ariel-fleet",
    description: "one view over every workspace: status, events, and an HTTP API with a dashboard",
    examples: [
      ["ariel-fleet status", "every registered workspace: health, sources, tasks and runs by state"],
      ["ariel-fleet events --follow --json", "every workspace's events as NDJSON, live"],
      ["ariel-fleet serve", "the API and the dashboard on http://127.0.0.1:7878/"],
      ["ariel-fleet help serve", "show the help of serve"],
    ],
  },
  args: COMMON_ARGS,
  subCommands: {
    status: () => import("./commands/status.ts").then((m) => m.statusCommand),
    events: () => import("./commands/events.ts").then((m) => m.eventsCommand),
    serve: () => import("./commands/serve.ts").then((m) => m.serveCommand),
  },
});
