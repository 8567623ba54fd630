/**
 * Run a CLI to completion and return its exit status: the one place where errors become exit
 * statuses. Library code throws {@link ArielError}; only here is it turned into a status.
 */

import { CONTRACT_SUMMARY } from "../../contract_summary.ts";
import { ArielError, ERROR_CODES, EXIT, toArielError } from "../../errors.ts";
import { Output, StdoutClosed, type TextSink } from "../output.ts";
import { checkDryRunFlags } from "./common_args.ts";
import type { ArgsDef, CommandDef, ParsedArgs } from "./define.ts";
import { renderHelp } from "./help.ts";
import { parseCommandLine } from "./parse.ts";
import { Reporter } from "./reporter.ts";
import { listCommands, routeCommand } from "./route.ts";
import { processTerminal, type Terminal } from "./terminal.ts";

export interface RunCliOptions {
  version: string;
  argv?: readonly string[];
  stdout?: NodeJS.WriteStream | TextSink;
  stderr?: TextSink;
  /** What a command that reads its input reads (default: this process's stdin). */
  stdin?: AsyncIterable<Uint8Array | string>;
  env?: NodeJS.ProcessEnv;
  cwd?: string;
  signal?: AbortSignal;
  /** The terminal (default: this process's stdout and stderr, as given). */
  term?: Terminal;
}

/** A closed stderr (`2>&1 | head -1`) must not crash the run with an unhandled 'error' event. */
function quietErrors(stream: TextSink): void {
  const s = stream as Partial<NodeJS.WriteStream>;
  if (typeof s.on === "function" && s.listenerCount?.("error") === 0) s.on("error", () => {});
}

/**
 * A CLI's whole `main.ts`: {@link runCli} on the process's arguments; the CLI's top level makes
 * the returned status the process's exit status (without exiting at once, so pending output
 * drains). `orMonitor` (`runCliOrMonitor`, for
 * the CLIs that may be a workspace's run monitor) is passed in rather than imported here, so a
 * CLI without it does not bundle the monitor. No top-level await: the CLIs are bundled as CommonJS.
 *
 * @example
 * ```ts
 * const status = await cliMain(command, { version: VERSION, orMonitor: runCliOrMonitor });
 * ```
 */
export function cliMain(
  def: CommandDef,
  options: {
    version: string;
    orMonitor?: (argv: readonly string[], cli: () => Promise<number>) => Promise<number>;
  },
): Promise<number> {
  const cli = () => runCli(def, { version: options.version });
  return options.orMonitor ? options.orMonitor(process.argv.slice(2), cli) : cli();
}

/** An AbortController that aborts when `signal` does (at once when it already has). */
function followedBy(signal: AbortSignal | undefined): AbortController {
  const controller = new AbortController();
  if (signal?.aborted) controller.abort(signal.reason);
  else signal?.addEventListener("abort", () => controller.abort(signal.reason), { once: true });
  return controller;
}

/**
 * Run `def` (a command, or a group of sub-commands) on `argv`. Never throws: usage errors give
 * 64, ArielErrors their own status, a closed stdout 0, anything else ERR_INTERNAL (70).
 *
 * @example
 * ```ts
 * const status = await runCli(command, { version: VERSION }); // 0, 1, 3, 64, …
 * ```
 */
export async function runCli(def: CommandDef, options: RunCliOptions): Promise<number> {
  const argv = options.argv ?? process.argv.slice(2);
  const stderr = options.stderr ?? process.stderr;
  const stdout = options.stdout ?? process.stdout;
  const env = options.env ?? process.env;
  quietErrors(stderr);
  const term = options.term ?? processTerminal(env, stdout, stderr);
  const controller = followedBy(options.signal);
  const out = new Output(stdout, () => controller.abort(new StdoutClosed()));
  const dd = argv.indexOf("--");
  const wantsJson = (dd === -1 ? argv : argv.slice(0, dd)).includes("--json");
  let log = new Reporter(def.meta.name, wantsJson, stderr, term);
  let commandPath = def.meta.name;
  try {
    const route = await routeCommand(def, argv);
    if (route.kind === "contract") {
      out.write(CONTRACT_SUMMARY);
      return EXIT.OK;
    }
    if (route.kind === "help") {
      const commands = route.group ? await listCommands(route.def) : [];
      out.write(renderHelp(route.def, route.path, options.version, commands));
      return EXIT.OK;
    }
    const cmd = route.kind === "command" ? route.def : def;
    const path = route.kind === "command" ? route.path : def.meta.name;
    commandPath = path;
    const parsed = parseCommandLine(cmd.args ?? {}, route.argv, { commandPath: path, rest: cmd.rest });
    log = new Reporter(def.meta.name, parsed.values.json === true, stderr, term);
    if (parsed.help) {
      const commands = route.kind === "group" ? await listCommands(def) : [];
      out.write(renderHelp(cmd, path, options.version, commands));
      return EXIT.OK;
    }
    if (parsed.version) {
      out.write(`${options.version}\n`);
      return EXIT.OK;
    }
    if (route.kind === "group" || !cmd.run) {
      if (log.json) {
        throw new ArielError("ERR_USAGE", `${path} needs a command`, {
          hint: `run ${def.meta.name} help to see the commands`,
        });
      }
      // `ariel-worktree` alone: what it can do, on stderr (stdout is for data), as a usage error.
      log.raw(renderHelp(def, def.meta.name, options.version, await listCommands(def)));
      return EXIT.USAGE;
    }
    checkDryRunFlags(parsed.values);
    const status = await cmd.run({
      args: parsed.values as ParsedArgs<ArgsDef>,
      rest: parsed.rest,
      out,
      log,
      stderr,
      // A getter: process.stdin makes its stream (and loads tty or net) when first read, which
      // only a command that reads its input should pay for.
      get stdin() {
        return options.stdin ?? process.stdin;
      },
      term,
      signal: controller.signal,
      env,
      cwd: options.cwd ?? process.cwd(),
      commandPath: path,
    });
    if (out.failure) throw out.failure;
    return status;
  } catch (e) {
    if (out.failure) {
      log.error(out.failure);
      return out.failure.exit;
    }
    if (e instanceof StdoutClosed || out.closed) return EXIT.OK;
    let err = inSandbox(toArielError(e), e, env);
    if (err.code === "ERR_USAGE" && err.hint === ERROR_CODES.ERR_USAGE.hint) {
      // The generic hint, made exact: which --help to run.
      err = new ArielError(err.code, err.message, {
        hint: `run ${commandPath} --help to see the flags`,
        exit: err.exit,
        context: err.context,
      });
    }
    const stack = err.code === "ERR_INTERNAL" && e instanceof Error ? e.stack : undefined;
    // With --json stderr stays NDJSON: the stack travels as a field of the error record.
    if (stack && log.json) {
      err = new ArielError(err.code, err.message, {
        hint: err.hint,
        exit: err.exit,
        context: { ...err.context, stack },
      });
    }
    log.error(err);
    if (stack && !log.json) log.raw(`${stack}\n`);
    return err.exit;
  } finally {
    await log.flush();
  }
}

/**
 * Inside a sandboxed run (`ARIEL_SANDBOX=1`, set by the sandbox) ariel's state dir is an empty
 * read-only directory: a command that must write it fails on the file system. That is the
 * sandbox holding, not a bug: ERR_SANDBOXED (3) with its hint, instead of ERR_INTERNAL.
 */
function inSandbox(err: ArielError, e: unknown, env: Record<string, string | undefined>): ArielError {
  const code = (e as NodeJS.ErrnoException | null)?.code;
  if (err.code !== "ERR_INTERNAL" || env.ARIEL_SANDBOX !== "1") return err;
  if (!["EROFS", "ENOENT", "EACCES", "EPERM", "EBUSY"].includes(code ?? "")) return err;
  return new ArielError(
    "ERR_SANDBOXED",
    `not from inside a sandboxed run: ${err.message.replace(/^internal error: /, "")}`,
    {
      context: { errno: code },
    },
  );
}
