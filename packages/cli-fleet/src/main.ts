#!/usr/bin/env -S deno run -A
import { VERSION } from "@ariel/core";
import { cliMain, runCliOrMonitor } from "@ariel/core/host";
import { command } from "./command.ts";

// A spawn or respawn through the API may start the workspace's run monitor, which is this very
// CLI started again with the monitor's hidden argument.
// The exit status is decided here, at the top of the CLI, and nowhere else.
void cliMain(command, { version: VERSION, orMonitor: runCliOrMonitor }).then((code) => {
  process.exitCode = code;
});
