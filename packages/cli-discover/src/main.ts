#!/usr/bin/env -S deno run -A
import { VERSION } from "@ariel/core";
import { runCli } from "@ariel/core/host";
import { command } from "./command.ts";

process.exitCode = await runCli(command, { version: VERSION });
