#!/usr/bin/env -S deno run -A
import { VERSION } from "@ariel/core";
import { runCli, runCliOrMonitor } from "@ariel/core/host";
import { command } from "./command.ts";

// No top-level await: scripts/build.mjs bundles this CLI as CommonJS.
// A spawn or respawn through the API may start the workspace's run monitor, which is this very
// CLI started again with the monitor's hidden argument.
void runCliOrMonitor(process.argv.slice(2), () => runCli(command, { version: VERSION })).then((code) => {
  process.exitCode = code;
});
