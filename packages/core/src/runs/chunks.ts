/** One line of a run's output, at its byte offset in the stream's file (the sequence number). */
export interface OutputLine {
  seq: number;
  data: string;
}

const NL = 0x0a;
const decoder = new TextDecoder();

/**
 * How many bytes of `bytes` end on a whole UTF-8 character: a character cut at the end (its
 * lead byte there, some of its continuation bytes still to come) is left out.
 *
 * @example
 * ```ts
 * utf8Whole(new Uint8Array([0x61, 0xe2, 0xa0])); // 1: "a", then 2 of the 3 bytes of "⠋"
 * ```
 */
export function utf8Whole(bytes: Uint8Array): number {
  for (let back = 1; back <= Math.min(3, bytes.length); back++) {
    const b = bytes[bytes.length - back]!;
    if ((b & 0xc0) === 0x80) continue; // a continuation byte: look further back
    const need = b >= 0xf0 ? 4 : b >= 0xe0 ? 3 : b >= 0xc0 ? 2 : 1;
    return need > back ? bytes.length - back : bytes.length;
  }
  return bytes.length;
}

/**
 * Split `bytes`, read at byte offset `base` of an output file, into whole lines. A last line
 * without its newline is torn (the child is still writing it): it is held back, and `next` is
 * where the next read starts, unless `final` says nothing more will come.
 *
 * @example
 * ```ts
 * splitOutput(new TextEncoder().encode("a\nb"), 10, false);
 * // { lines: [{ seq: 10, data: "a\n" }], next: 12 }
 * ```
 */
export function splitOutput(
  bytes: Uint8Array,
  base: number,
  final: boolean,
): { lines: OutputLine[]; next: number } {
  const lines: OutputLine[] = [];
  let start = 0;
  for (let i = 0; i < bytes.length; i++) {
    if (bytes[i] !== NL) continue;
    lines.push({ seq: base + start, data: decoder.decode(bytes.subarray(start, i + 1)) });
    start = i + 1;
  }
  if (final && start < bytes.length) {
    lines.push({ seq: base + start, data: decoder.decode(bytes.subarray(start)) });
    start = bytes.length;
  }
  return { lines, next: base + start };
}

/**
 * {@link splitOutput} of one read of at most `limit` bytes: a read that filled `limit` and holds
 * no newline is a piece of a line longer than one read, taken as a line of its own (cut at a
 * whole UTF-8 character), so such a line never stops the output that follows it.
 *
 * @example
 * ```ts
 * splitRead(new TextEncoder().encode("abcd"), 0, false, 4); // { lines: [{ seq: 0, data: "abcd" }], next: 4 }
 * ```
 */
export function splitRead(
  bytes: Uint8Array,
  base: number,
  final: boolean,
  limit: number,
): { lines: OutputLine[]; next: number } {
  const out = splitOutput(bytes, base, final);
  if (out.lines.length > 0 || bytes.length < limit) return out;
  const whole = utf8Whole(bytes) || bytes.length;
  return { lines: [{ seq: base, data: decoder.decode(bytes.subarray(0, whole)) }], next: base + whole };
}

/**
 * Where the last `n` lines of a file's tail start, given its last `bytes` read at `base`; the
 * start of `bytes` when it holds fewer lines (the caller reads more, or takes it).
 *
 * @example
 * ```ts
 * tailStart(new TextEncoder().encode("a\nb\nc\n"), 0, 2); // 2
 * ```
 */
export function tailStart(bytes: Uint8Array, base: number, n: number): number {
  if (n <= 0) return base + bytes.length;
  let seen = 0;
  const end = bytes.length > 0 && bytes[bytes.length - 1] === NL ? bytes.length - 1 : bytes.length;
  for (let i = end - 1; i >= 0; i--) {
    if (bytes[i] === NL && ++seen === n) return base + i + 1;
  }
  return base;
}
