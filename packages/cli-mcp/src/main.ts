#!/usr/bin/env -S deno run -A
import { VERSION } from "@ariel/core";
import { cliMain } from "@ariel/core/host";
import { command } from "./command.ts";

// The exit status is decided here, at the top of the CLI, and nowhere else.
void cliMain(command, { version: VERSION }).then((code) => {
  process.exitCode = code;
});
