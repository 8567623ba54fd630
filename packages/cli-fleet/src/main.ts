#!/usr/bin/env -S deno run -A
import { VERSION } from "@ariel/core";
import { runCli } from "@ariel/core/host";
import { command } from "./command.ts";

// No top-level await: scripts/build.mjs bundles this CLI as CommonJS.
void runCli(command, { version: VERSION }).then((code) => {
  process.exitCode = code;
});
