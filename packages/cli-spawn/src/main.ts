#!/usr/bin/env -S deno run -A
import { VERSION } from "@ariel/core";
import { runCli, runCliOrMonitor } from "@ariel/core/host";
import { command } from "./command.ts";

// No top-level await: scripts/build.mjs bundles this CLI as CommonJS.
void runCliOrMonitor(process.argv.slice(2), () => runCli(command, { version: VERSION })).then((code) => {
  process.exitCode = code;
});
