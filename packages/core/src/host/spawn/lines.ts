/** Longest line kept whole; a longer one is cut into pieces of this size (marked partial). */
export const MAX_LINE_CHARS = 1024 * 1024;

/** One line of a child's output, without its newline; `partial` when no newline ended it. */
export interface OutputLine {
  line: string;
  partial: boolean;
}

/**
 * Splits a byte stream into lines, decoding UTF-8 across chunk boundaries.
 *
 * @example
 * ```ts
 * const s = new LineSplitter();
 * s.push(new TextEncoder().encode("a\nb")); // [{ line: "a", partial: false }]
 * s.end();                                   // [{ line: "b", partial: true }]
 * ```
 */
export class LineSplitter {
  #decoder = new TextDecoder("utf-8");
  #pending = "";

  push(chunk: Uint8Array): OutputLine[] {
    return this.#split(this.#decoder.decode(chunk, { stream: true }));
  }

  /** Flush what is left: the undecoded tail and a last line without a newline. */
  end(): OutputLine[] {
    const lines = this.#split(this.#decoder.decode());
    if (this.#pending !== "") lines.push({ line: this.#pending, partial: true });
    this.#pending = "";
    return lines;
  }

  #split(text: string): OutputLine[] {
    const lines: OutputLine[] = [];
    const buf = this.#pending + text;
    let start = 0;
    let nl = buf.indexOf("\n");
    while (nl !== -1) {
      lines.push({ line: buf.slice(start, nl), partial: false });
      start = nl + 1;
      nl = buf.indexOf("\n", start);
    }
    while (buf.length - start > MAX_LINE_CHARS) {
      lines.push({ line: buf.slice(start, start + MAX_LINE_CHARS), partial: true });
      start += MAX_LINE_CHARS;
    }
    this.#pending = buf.slice(start);
    return lines;
  }
}
