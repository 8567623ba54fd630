#!/usr/bin/env -S deno run -A
import { VERSION } from "@ariel/core";
import { cliMain } from "@ariel/core/host";
import { command } from "./command.ts";

cliMain(command, { version: VERSION });
