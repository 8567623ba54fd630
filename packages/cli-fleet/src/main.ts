#!/usr/bin/env -S deno run -A
import { VERSION } from "@ariel/core";
import { MONITOR_ARG, runCli, runMonitor } from "@ariel/core/host";
import { command } from "./command.ts";

// No top-level await: scripts/build.mjs bundles this CLI as CommonJS.
// `--ariel-run-monitor ROOT SOCKET` (hidden): a spawn or respawn through the API may start the
// workspace's run monitor, which is this very CLI.
const [first, root, socket] = process.argv.slice(2);
const done =
  first === MONITOR_ARG && root !== undefined && socket !== undefined
    ? runMonitor(root, socket)
    : runCli(command, { version: VERSION });
void done.then((code) => {
  process.exitCode = code;
});
