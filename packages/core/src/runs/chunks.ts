/** One line of a run's output, at its byte offset in the stream's file (the sequence number). */
export interface OutputLine {
  seq: number;
  data: string;
}

const NL = 0x0a;
const decoder = new TextDecoder();

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
