/**
 * Messages on stderr. With --json every warning and error is one NDJSON record (serialized
 * here, synchronously: `v` and `type` first). Without it, each message is a line
 * `ariel-x: warning: …` written through consola, which is loaded on the first message only
 * (start-up stays near `node -e 0` for the commands that print none) and created on stderr.
 * On a colour terminal the level word is coloured; in a pipe the lines are plain and stable.
 *
 * Everything written here is ariel's own text, which may quote a child's (git's message, a
 * hook's): credentials in URLs are redacted from every message, hint, context value and stack.
 * A child's own output that ariel-spawn passes through never comes here.
 *
 * @example
 * ```ts
 * const log = new Reporter("ariel-x", false, process.stderr, PIPE_TERMINAL);
 * log.warn("WARN_X", "something odd", { path: "/a" }); // ariel-x: warning: something odd
 * await log.flush();
 * ```
 */
import type { ConsolaInstance, LogObject } from "consola/core";
import type { ArielError } from "../../errors.ts";
import { redactText, redactValues } from "../../fingerprint.ts";
import { serializeRecord } from "../../ndjson.ts";
import type { TextSink } from "../output.ts";
import { PIPE_TERMINAL, type Terminal } from "./terminal.ts";

/** A message for a person: its level word (none for a plain note) and text. */
interface Line {
  kind: "warning" | "error" | "hint" | "note";
  text: string;
}

const COLOR: Record<Line["kind"], [string, string]> = {
  warning: ["\u001b[33m", "\u001b[39m"],
  error: ["\u001b[31m", "\u001b[39m"],
  hint: ["\u001b[2m", "\u001b[22m"],
  note: ["", ""],
};

/** The record fields that context keys never overwrite. */
const RESERVED = new Set(["v", "type", "code", "message", "hint", "exit"]);

/**
 * A `warning` record: `v`, `type`, `code`, `message`, `hint` (when the context has one, as a
 * string), then the rest of the context (whose keys never overwrite those).
 */
export function warningRecord(
  code: string,
  message: string,
  context: Record<string, unknown> = {},
): Record<string, unknown> {
  const rec: Record<string, unknown> = { v: 1, type: "warning", code, message };
  if (typeof context.hint === "string") rec.hint = context.hint;
  for (const [k, v] of Object.entries(context)) if (!RESERVED.has(k)) rec[k] = v;
  return rec;
}

export class Reporter {
  readonly prog: string;
  readonly json: boolean;
  readonly sink: TextSink;
  readonly term: Terminal;
  #consola: ConsolaInstance | undefined;
  #queue: Line[] = [];
  #loading: Promise<void> | undefined;

  constructor(prog: string, json: boolean, sink: TextSink = process.stderr, term: Terminal = PIPE_TERMINAL) {
    this.prog = prog;
    this.json = json;
    this.sink = sink;
    this.term = term;
  }

  /** A warning; a string `context.hint` says what to do about it (a `hint:` line, or the record's field). */
  warn(code: string, message: string, context: Record<string, unknown> = {}): void {
    if (this.json) {
      this.#write(`${serializeRecord(redactValues(warningRecord(code, message, context)))}
`);
      return;
    }
    this.#say({ kind: "warning", text: redactText(message) });
    if (typeof context.hint === "string") this.#say({ kind: "hint", text: redactText(context.hint) });
  }

  /** A note for a person (nothing with --json: stderr then holds records only). */
  info(message: string): void {
    if (!this.json) this.#say({ kind: "note", text: redactText(message) });
  }

  error(err: ArielError): void {
    if (this.json) {
      this.#write(`${serializeRecord(redactValues(err.toRecord()))}\n`);
      return;
    }
    this.#say({ kind: "error", text: `${redactText(err.message)} [${err.code}]` });
    if (err.hint) this.#say({ kind: "hint", text: redactText(err.hint) });
  }

  /** Text as it is (a stack trace), after the messages before it. */
  raw(text: string): void {
    this.#say({ kind: "note", text: "" }, redactText(text));
  }

  /** Resolves once every message so far has been written. */
  async flush(): Promise<void> {
    while (this.#loading) await this.#loading;
  }

  #say(line: Line, raw?: string): void {
    const entry = raw === undefined ? line : { ...line, raw };
    if (this.#consola && this.#queue.length === 0) {
      this.#emit(this.#consola, entry);
      return;
    }
    this.#queue.push(entry);
    this.#loading ??= this.#load();
  }

  async #load(): Promise<void> {
    try {
      const { createConsola } = await import("consola/core");
      this.#consola = createConsola({
        level: 3,
        throttle: 0,
        stdout: this.sink as unknown as NodeJS.WriteStream,
        stderr: this.sink as unknown as NodeJS.WriteStream,
        reporters: [{ log: (obj: LogObject) => this.#write(this.#format(obj)) }],
      });
    } catch {
      // Without consola (a broken install) the lines are still written, plain.
    }
    const queued = this.#queue;
    this.#queue = [];
    this.#loading = undefined;
    for (const entry of queued) {
      if (this.#consola) this.#emit(this.#consola, entry);
      else this.#write(this.#line(entry));
    }
  }

  #emit(c: ConsolaInstance, entry: Line & { raw?: string }): void {
    if (entry.raw !== undefined) {
      this.#write(entry.raw);
      return;
    }
    const level = entry.kind === "error" ? c.error : entry.kind === "warning" ? c.warn : c.info;
    level({ message: entry.text, tag: entry.kind === "hint" ? "hint" : "" });
  }

  #format(obj: LogObject): string {
    const kind: Line["kind"] =
      obj.tag === "hint" ? "hint" : obj.type === "error" ? "error" : obj.type === "warn" ? "warning" : "note";
    return this.#line({ kind, text: obj.args.map(String).join(" ") });
  }

  #line(entry: Line & { raw?: string }): string {
    if (entry.raw !== undefined) return entry.raw;
    if (entry.kind === "note") return `${this.prog}: ${entry.text}\n`;
    const [on, off] = this.term.color ? COLOR[entry.kind] : ["", ""];
    return `${this.prog}: ${on}${entry.kind}:${off} ${entry.text}\n`;
  }

  #write(text: string): void {
    try {
      this.sink.write(text);
    } catch {
      // A closed stderr loses the messages; the exit status still tells.
    }
  }
}
