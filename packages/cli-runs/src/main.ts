#!/usr/bin/env -S deno run -A
import { VERSION } from "@ariel/core";
import { cliMain, runCliOrMonitor } from "@ariel/core/host";
import { command } from "./command.ts";

// The exit status is decided here, at the top of the CLI, and nowhere else.
void cliMain(command, { version: VERSION, orMonitor: runCliOrMonitor }).then((code) => {
  process.exitCode = code;
  // Deno cannot cancel a read of a piped stdin (attach forwards stdin to an --interactive run):
  // its reader thread would keep the process alive until the writer sends more or closes the
  // pipe. Deno writes stdout and stderr synchronously, so ending here loses no output.
  if ("Deno" in globalThis) process.exit(code);
});
