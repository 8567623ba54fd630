#!/usr/bin/env -S deno run -A
import { VERSION } from "@ariel/core";
import { cliMain, runCliOrMonitor } from "@ariel/core/host";
import { command } from "./command.ts";

// The exit status is decided here, at the top of the CLI, and nowhere else. The bundle is also
// the run monitor a new run (n) may start, as every CLI that starts runs is.
void cliMain(command, { version: VERSION, orMonitor: runCliOrMonitor }).then((code) => {
  process.exitCode = code;
  // The terminal is given back; stdin, left in flowing mode by an attach, must not hold the process.
  process.stdin.destroy?.();
});
