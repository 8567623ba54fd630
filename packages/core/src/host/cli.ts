import { parseArgs } from "node:util";
import { ArielError, EXIT, toArielError } from "../errors.ts";
import { redactText, redactValues } from "../fingerprint.ts";
import { quoteValue } from "../names.ts";
import { serializeRecord } from "../ndjson.ts";
import { Output, StdoutClosed, type TextSink } from "./output.ts";

/**
 * The shared command-line shell of every ariel CLI: strict flag parsing (node:util parseArgs),
 * --help/--version, the structured error record on stderr, and the exit status decided in one
 * place. Library code throws {@link ArielError}; only `runCli` turns it into a status.
 */

export interface FlagSpec {
  type: "boolean" | "string";
  /** One-letter short form, e.g. "C" for -C. */
  short?: string;
  /** Other long names, e.g. ["repo-root"]. */
  aliases?: readonly string[];
  /** Repeatable (collects an array). */
  multiple?: boolean;
  description: string;
  /** Shown as --flag=<HINT>. */
  valueHint?: string;
}

export interface CommandSpec {
  name: string;
  description: string;
  /** Usage line(s) after the name, e.g. "[OPTIONS] -- CMD [ARGS...]". */
  usage?: string;
  flags: Record<string, FlagSpec>;
  /** Accept positionals (and everything after `--` as `rest`). */
  positionals?: boolean;
  /** Sub-commands (ariel-worktree add|list|...). */
  subCommands?: Record<string, CommandSpec>;
  run?: (ctx: RunContext) => Promise<number> | number;
}

export type FlagValues = Record<string, string | boolean | string[] | undefined>;

export interface RunContext {
  /** Parsed flags by their long name (aliases folded in). */
  flags: FlagValues;
  positionals: string[];
  /** Everything after a literal `--`. */
  rest: string[];
  /** Data channel (stdout). */
  out: Output;
  /** Messages channel (stderr). */
  log: Reporter;
  /** Aborted when stdout closes or a terminating signal arrives. */
  signal: AbortSignal;
  env: NodeJS.ProcessEnv;
  cwd: string;
  /** The full command path, e.g. "ariel-worktree add". */
  commandPath: string;
}

export interface RunCliOptions {
  version: string;
  argv?: readonly string[];
  stdout?: NodeJS.WriteStream | TextSink;
  stderr?: TextSink;
  env?: NodeJS.ProcessEnv;
  cwd?: string;
  signal?: AbortSignal;
}

/**
 * Messages on stderr: NDJSON records with --json, else one plain line each
 * (`ariel-discover: warning: ...`). Everything written here is ariel's own text, which may quote
 * a child's (git's message, a hook's): credentials in URLs are redacted from every line of it.
 * A child's own output that ariel-spawn passes through never comes here.
 */
export class Reporter {
  readonly prog: string;
  readonly json: boolean;
  readonly sink: TextSink;

  constructor(prog: string, json: boolean, sink: TextSink = process.stderr) {
    this.prog = prog;
    this.json = json;
    this.sink = sink;
  }

  warn(code: string, message: string, context: Record<string, unknown> = {}): void {
    if (this.json)
      this.sink.write(
        `${serializeRecord(redactValues({ ...context, v: 1, type: "warning", code, message }))}\n`,
      );
    else this.sink.write(`${this.prog}: warning: ${redactText(message)}\n`);
  }

  info(message: string): void {
    if (!this.json) this.sink.write(`${this.prog}: ${redactText(message)}\n`);
  }

  error(err: ArielError): void {
    if (this.json) {
      this.sink.write(`${serializeRecord(redactValues(err.toRecord()))}\n`);
      return;
    }
    this.sink.write(`${this.prog}: error: ${redactText(err.message)} [${err.code}]\n`);
    if (err.hint) this.sink.write(`${this.prog}: hint: ${redactText(err.hint)}\n`);
  }
}

function flagLine(name: string, f: FlagSpec): string {
  const names = [...(f.short ? [`-${f.short}`] : []), `--${name}`, ...(f.aliases ?? []).map((a) => `--${a}`)];
  const value = f.type === "string" ? ` ${f.valueHint ?? "VALUE"}` : "";
  return `${names.join(", ")}${value}`;
}

/** Plain-text help for a command (no colours: it is often piped). */
export function renderHelp(spec: CommandSpec, commandPath: string, version: string): string {
  const lines = [`${commandPath} ${version}: ${spec.description}`, ""];
  const usage = spec.usage ?? (spec.subCommands ? "<command> [OPTIONS]" : "[OPTIONS]");
  lines.push(`Usage: ${commandPath} ${usage}`, "");
  if (spec.subCommands) {
    lines.push("Commands:");
    const w = Math.max(...Object.keys(spec.subCommands).map((k) => k.length));
    for (const [k, sub] of Object.entries(spec.subCommands))
      lines.push(`  ${k.padEnd(w)}  ${sub.description}`);
    lines.push("");
  }
  const flags: [string, string][] = Object.entries(spec.flags).map(([n, f]) => [
    flagLine(n, f),
    f.description,
  ]);
  flags.push(["-h, --help", "show this help"], ["-V, --version", "print the version"]);
  const w = Math.max(...flags.map(([l]) => l.length));
  lines.push("Options:");
  for (const [l, d] of flags) lines.push(`  ${l.padEnd(w)}  ${d}`);
  lines.push("", "Exit status and error codes: docs/contract.md");
  return `${lines.join("\n")}\n`;
}

/** Control and non-ASCII characters as \u escapes, so user input cannot drive the terminal. */
function printable(text: string): string {
  return text.replace(/[^\x20-\x7e]/g, (c) => `\\u${c.charCodeAt(0).toString(16).padStart(4, "0")}`);
}

function parse(
  spec: CommandSpec,
  argv: readonly string[],
): { flags: FlagValues; positionals: string[]; rest: string[] } {
  const options: Record<string, { type: "boolean" | "string"; short?: string; multiple?: boolean }> = {};
  const aliasOf = new Map<string, string>();
  for (const [name, f] of Object.entries(spec.flags)) {
    options[name] = {
      type: f.type,
      ...(f.short ? { short: f.short } : {}),
      ...(f.multiple ? { multiple: true } : {}),
    };
    for (const a of f.aliases ?? []) {
      options[a] = { type: f.type, ...(f.multiple ? { multiple: true } : {}) };
      aliasOf.set(a, name);
    }
  }
  options.help = { type: "boolean", short: "h" };
  options.version = { type: "boolean", short: "V" };
  const dd = argv.indexOf("--");
  const head = dd === -1 ? argv : argv.slice(0, dd);
  const rest = dd === -1 ? [] : argv.slice(dd + 1);
  type Token = { kind: string; name?: string; value?: string | undefined };
  let parsed: { positionals: string[]; tokens: Token[] };
  try {
    parsed = parseArgs({
      args: [...head],
      options,
      strict: true,
      tokens: true,
      allowPositionals: spec.positionals ?? false,
    });
  } catch (e) {
    const msg = (e as Error).message.split("\n")[0] ?? "bad arguments";
    // `--task -x`: parseArgs refuses a separate value starting with '-'; say how to give it.
    const amb = /^Option '(-[^' ]*)' argument is ambiguous\.?$/.exec(msg);
    if (amb) {
      const flag = amb[1] ?? "";
      const at = head.indexOf(flag);
      const value = at >= 0 ? (head[at + 1] ?? "-VALUE") : "-VALUE";
      throw new ArielError("ERR_USAGE", printable(`Option '${flag}' argument is ambiguous`), {
        hint: printable(
          `to pass a value starting with '-', write ${flag.startsWith("--") ? `${flag}=` : flag}${value}`,
        ),
      });
    }
    // parseArgs quotes the offending argument verbatim: escape what a terminal would interpret.
    throw new ArielError("ERR_USAGE", printable(msg.replace(/\. To specify a positional.*$/, "")));
  }
  // Walk the tokens, not parsed.values: values keeps only the last of a repeated flag and
  // loses the command-line order between a flag and its aliases.
  const flags: FlagValues = {};
  for (const t of parsed.tokens) {
    if (t.kind !== "option" || t.name === undefined) continue;
    const name = aliasOf.get(t.name) ?? t.name;
    const f = spec.flags[name];
    if (f?.type === "string" && f.multiple) {
      const prev = flags[name];
      flags[name] = [...(Array.isArray(prev) ? prev : []), t.value ?? ""];
    } else if (f?.type === "string") {
      if (flags[name] !== undefined) throw new ArielError("ERR_USAGE", `--${name} given twice`);
      flags[name] = t.value ?? "";
    } else flags[name] = true;
  }
  return { flags, positionals: parsed.positionals, rest };
}

/**
 * Run a CLI to completion and return its exit status. Never throws: usage errors give 64,
 * ArielErrors their own status, a closed stdout 0, anything else ERR_INTERNAL (70).
 */
export async function runCli(spec: CommandSpec, options: RunCliOptions): Promise<number> {
  const argv = options.argv ?? process.argv.slice(2);
  const stderr = options.stderr ?? process.stderr;
  // A closed stderr (`2>&1 | head -1`) must not crash the run with an unhandled 'error' event:
  // the messages are lost either way, the exit status must not be.
  const errStream = stderr as Partial<NodeJS.WriteStream>;
  if (typeof errStream.on === "function" && errStream.listenerCount?.("error") === 0) {
    errStream.on("error", () => {});
  }
  const controller = new AbortController();
  if (options.signal?.aborted) controller.abort(options.signal.reason);
  else
    options.signal?.addEventListener("abort", () => controller.abort(options.signal?.reason), { once: true });
  const out = new Output(options.stdout ?? process.stdout, () => controller.abort(new StdoutClosed()));
  const dd = argv.indexOf("--");
  const wantsJson = (dd === -1 ? argv : argv.slice(0, dd)).includes("--json");
  let log = new Reporter(spec.name, wantsJson, stderr);
  try {
    let cmd = spec;
    let path = spec.name;
    let args = argv;
    if (spec.subCommands) {
      const first = args[0];
      if (first === undefined) {
        stderr.write(renderHelp(spec, path, options.version));
        return EXIT.USAGE;
      }
      if (first === "-h" || first === "--help") {
        out.write(renderHelp(spec, path, options.version));
        return EXIT.OK;
      }
      if (first === "-V" || first === "--version") {
        out.write(`${options.version}\n`);
        return EXIT.OK;
      }
      const sub = spec.subCommands[first];
      if (!sub) throw new ArielError("ERR_USAGE", `unknown command ${quoteValue(first)}`);
      cmd = sub;
      path = `${spec.name} ${first}`;
      args = args.slice(1);
    }
    const { flags, positionals, rest } = parse(cmd, args);
    log = new Reporter(spec.name, flags.json === true, stderr);
    if (flags.help) {
      out.write(renderHelp(cmd, path, options.version));
      return EXIT.OK;
    }
    if (flags.version) {
      out.write(`${options.version}\n`);
      return EXIT.OK;
    }
    if (!cmd.run) throw new ArielError("ERR_USAGE", `${path} needs a command`);
    const status = await cmd.run({
      flags,
      positionals,
      rest,
      out,
      log,
      signal: controller.signal,
      env: options.env ?? process.env,
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
    let err = toArielError(e);
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
    if (stack && !log.json) stderr.write(`${redactText(stack)}\n`);
    return err.exit;
  }
}
