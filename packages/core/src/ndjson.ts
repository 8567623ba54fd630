/**
 * NDJSON: one JSON object per line. Writing is {@link serializeRecord}; reading is strict, because
 * its input comes from pipes: {@link parseNdjson} / {@link parseNdjsonLines} reject what could
 * smuggle something past a consumer (prototype keys, duplicate keys, silently rounded integers, a
 * BOM, huge lines, invalid UTF-8) and name the 1-based line of every problem. They never throw anything but an ArielError
 * (ERR_INVALID_INPUT, exit 65).
 *
 * @example
 * ```ts
 * serializeRecord({ v: 1, type: "source", name: "api" }); // '{"v":1,"type":"source","name":"api"}'
 * parseNdjson('{"v":1}\r\n\n{"v":2}\n'); // [{ line: 1, record: { v: 1 } }, { line: 3, record: { v: 2 } }]
 * for await (const { line, record } of parseNdjsonLines(stdinChunks)) ...
 * ```
 */
import { ArielError } from "./errors.ts";

/** One record as a single line of JSON (without the newline). */
export function serializeRecord(value: Record<string, unknown>): string {
  return JSON.stringify(value);
}

/** Longest accepted line, in UTF-8 bytes, without its line ending. */
export const MAX_LINE_BYTES = 1024 * 1024;

/** One parsed line: its 1-based number and the object on it. */
export interface NdjsonEntry {
  line: number;
  record: Record<string, unknown>;
}

/** One raw line: its 1-based number and its text without the line ending (CR stripped). */
export interface TextLine {
  line: number;
  text: string;
}

function invalid(line: number, what: string, hint?: string): ArielError {
  return new ArielError("ERR_INVALID_INPUT", `line ${line}: ${what}`, {
    ...(hint ? { hint } : {}),
    context: { line },
  });
}

/** Text from the input, made safe to print: non-printable and non-ASCII characters escaped. */
function printable(text: string): string {
  return text.replace(/[^\x20-\x7e]/g, (c) => `\\u${c.charCodeAt(0).toString(16).padStart(4, "0")}`);
}

const encoder = new TextEncoder();

function byteLength(text: string): number {
  if (text.length * 3 <= MAX_LINE_BYTES) return text.length; // cannot be too long: skip encoding
  return encoder.encode(text).length;
}

function tooLong(line: number): ArielError {
  return invalid(line, `longer than ${MAX_LINE_BYTES} bytes`, "split the input into one record per line");
}

function checkLength(text: string, line: number): void {
  if (text.length > MAX_LINE_BYTES || byteLength(text) > MAX_LINE_BYTES) throw tooLong(line);
}

function stripCr(text: string): string {
  return text.endsWith("\r") ? text.slice(0, -1) : text;
}

const SCAN_NUMBERS = /\d{16}|\d[eE]/;
const TOKENS = /"(?:[^"\\]|\\.)*"|-?\d+(?:\.\d+)?(?:[eE][+-]?\d+)?/g;

/** The first number literal in valid JSON `text` that a double cannot hold exactly as an integer. */
function unsafeNumber(text: string): string | null {
  if (!SCAN_NUMBERS.test(text)) return null;
  for (const m of text.matchAll(TOKENS)) {
    const tok = m[0];
    if (tok.charCodeAt(0) === 34) continue; // a string
    const n = Number(tok);
    if (!Number.isFinite(n) || (Number.isInteger(n) && !Number.isSafeInteger(n))) return tok;
  }
  return null;
}

const MAYBE_POLLUTING = /__proto__|prototype|\\u/;

/** The path of the first prototype-polluting key in `value`, or null. Iterative: no depth limit. */
function pollutingKey(value: unknown): string | null {
  const stack: [unknown, string][] = [[value, ""]];
  while (stack.length > 0) {
    const [v, path] = stack.pop()!;
    if (v === null || typeof v !== "object") continue;
    if (Array.isArray(v)) {
      for (let i = 0; i < v.length; i++) stack.push([v[i], `${path}[${i}]`]);
      continue;
    }
    for (const key of Object.keys(v)) {
      const child = (v as Record<string, unknown>)[key];
      const p = path === "" ? key : `${path}.${key}`;
      if (key === "__proto__") return p;
      if (key === "constructor" && child !== null && typeof child === "object" && "prototype" in child) {
        return `${p}.prototype`;
      }
      if (key === "prototype" && path.endsWith("constructor")) return p;
      stack.push([child, p]);
    }
  }
  return null;
}

/**
 * The first key that appears twice in one object of valid JSON `text` (JSON.parse would keep the
 * last silently), as a path (`a.b`, `list[2].k`), or null. Keys compare after unescaping, so
 * `"a"` and `"\u0061"` are the same key.
 */
export function duplicateKey(text: string): string | null {
  // One frame per open object or array: an object's keys so far, the path to it, the key or
  // index being read.
  type Frame = { keys: Set<string> | null; path: string; key: string; index: number };
  const stack: Frame[] = [];
  const childPath = (f: Frame) =>
    f.keys ? (f.path === "" ? f.key : `${f.path}.${f.key}`) : `${f.path}[${f.index}]`;
  let expectKey = false;
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    if (c === 34 /* " */) {
      let j = i + 1;
      let escaped = false;
      for (; j < text.length; j++) {
        const d = text.charCodeAt(j);
        if (d === 92 /* \ */) {
          escaped = true;
          j++;
        } else if (d === 34) break;
      }
      const top = stack[stack.length - 1];
      if (expectKey && top?.keys) {
        const key = escaped ? (JSON.parse(text.slice(i, j + 1)) as string) : text.slice(i + 1, j);
        if (top.keys.has(key)) return top.path === "" ? key : `${top.path}.${key}`;
        top.keys.add(key);
        top.key = key;
        expectKey = false;
      }
      i = j;
    } else if (c === 123 /* { */ || c === 91 /* [ */) {
      const parent = stack[stack.length - 1];
      const path = parent ? childPath(parent) : "";
      stack.push({ keys: c === 123 ? new Set() : null, path, key: "", index: 0 });
      expectKey = c === 123;
    } else if (c === 125 /* } */ || c === 93 /* ] */) {
      stack.pop();
    } else if (c === 44 /* , */) {
      const top = stack[stack.length - 1];
      if (top?.keys) expectKey = true;
      else if (top) top.index++;
    }
  }
  return null;
}

/** Parse one line (already without its line ending); null for a blank line. */
export function parseNdjsonLine(text: string, line: number): Record<string, unknown> | null {
  checkLength(text, line);
  if (text.charCodeAt(0) === 0xfeff) throw invalid(line, "starts with a UTF-8 byte order mark (BOM)");
  if (text === "" || (text.charCodeAt(0) <= 32 && text.trim() === "")) return null;
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch (e) {
    const detail =
      e instanceof SyntaxError ? printable(e.message.split("\n")[0]!.slice(0, 160)) : "cannot be parsed";
    throw invalid(line, `invalid JSON: ${detail}`);
  }
  if (value === null || typeof value !== "object" || Array.isArray(value)) {
    const kind = value === null ? "null" : Array.isArray(value) ? "an array" : `a ${typeof value}`;
    throw invalid(line, `expected a JSON object, got ${kind}`);
  }
  const big = unsafeNumber(text);
  if (big !== null) {
    throw invalid(
      line,
      `number ${big.slice(0, 40)} cannot be represented exactly`,
      "integers must lie within +-9007199254740991; quote larger ones as strings",
    );
  }
  // The walk only matters when such a key could be there (also \u-escaped in the text).
  const key = MAYBE_POLLUTING.test(text) ? pollutingKey(value) : null;
  if (key !== null) throw invalid(line, `forbidden key ${JSON.stringify(key.slice(0, 100))}`);
  const twice = duplicateKey(text);
  if (twice !== null) {
    const err = invalid(
      line,
      `duplicate key ${printable(JSON.stringify(twice.slice(0, 100)))}`,
      "give each key once: JSON readers disagree on which value wins",
    );
    err.context.key = twice.slice(0, 100);
    throw err;
  }
  return value as Record<string, unknown>;
}

/** Parse a whole NDJSON text. Blank lines are skipped; LF or CRLF line endings. */
export function parseNdjson(text: string): NdjsonEntry[] {
  const out: NdjsonEntry[] = [];
  const lines = text.split("\n");
  if (lines[lines.length - 1] === "") lines.pop();
  for (let i = 0; i < lines.length; i++) {
    const record = parseNdjsonLine(stripCr(lines[i]!), i + 1);
    if (record !== null) out.push({ line: i + 1, record });
  }
  return out;
}

function concatBytes(parts: readonly Uint8Array[], total: number): Uint8Array {
  if (parts.length === 1) return parts[0]!;
  const out = new Uint8Array(total);
  let at = 0;
  for (const p of parts) {
    out.set(p, at);
    at += p.length;
  }
  return out;
}

/**
 * The lines of a text or of a stream of chunks (strings or UTF-8 bytes), numbered from 1, with
 * CR stripped. A line over {@link MAX_LINE_BYTES} is rejected as soon as it is seen, without
 * buffering the rest of it. Bytes are split at LF before they are decoded (LF never occurs inside
 * a multi-byte UTF-8 sequence), so invalid UTF-8 is reported on the line that holds it.
 */
export async function* readLines(
  input: string | AsyncIterable<string | Uint8Array> | Iterable<string | Uint8Array>,
): AsyncGenerator<TextLine> {
  const decoder = new TextDecoder("utf-8", { fatal: true, ignoreBOM: true });
  const chunks = typeof input === "string" ? [input] : input;
  let carry: Uint8Array[] = [];
  let carried = 0;
  let line = 1;
  const decode = (bytes: Uint8Array): string => {
    try {
      return decoder.decode(bytes);
    } catch {
      throw invalid(line, "invalid UTF-8");
    }
  };
  for await (const chunk of chunks) {
    const bytes = typeof chunk === "string" ? encoder.encode(chunk) : chunk;
    let start = 0;
    for (let nl = bytes.indexOf(10, start); nl !== -1; nl = bytes.indexOf(10, start)) {
      const part = bytes.subarray(start, nl);
      const whole = carried === 0 ? part : concatBytes([...carry, part], carried + part.length);
      carry = [];
      carried = 0;
      if (whole.length > MAX_LINE_BYTES + 1) throw tooLong(line); // + 1: a CR before the LF
      const text = stripCr(decode(whole));
      checkLength(text, line);
      yield { line, text };
      line++;
      start = nl + 1;
    }
    if (start < bytes.length) {
      // Copied: a stream may reuse its buffer for the next chunk.
      carry.push(bytes.slice(start));
      carried += bytes.length - start;
      // Reject an over-long line while it is still arriving, not after buffering all of it.
      if (carried > MAX_LINE_BYTES + 1) throw tooLong(line);
    }
  }
  if (carried > 0) {
    let text: string;
    try {
      text = decoder.decode(concatBytes(carry, carried), { stream: true });
    } catch {
      throw invalid(line, "invalid UTF-8");
    }
    try {
      text = stripCr(text + decoder.decode());
    } catch {
      throw invalid(line, "invalid UTF-8 (truncated at the end)");
    }
    checkLength(text, line);
    yield { line, text };
  }
}

/**
 * Parse NDJSON from a text or a stream of chunks, yielding each object with its 1-based line.
 * Blank lines are skipped.
 */
export async function* parseNdjsonLines(
  input: string | AsyncIterable<string | Uint8Array> | Iterable<string | Uint8Array>,
): AsyncGenerator<NdjsonEntry> {
  for await (const { line, text } of readLines(input)) {
    const record = parseNdjsonLine(text, line);
    if (record !== null) yield { line, record };
  }
}
