/**
 * Words joined into one line a POSIX shell reads back as the same words: a word with anything
 * but `[A-Za-z0-9_./:=@%+,-]` is single-quoted. Used for the command lines that hints suggest.
 *
 * @example
 * ```ts
 * shellWords(["--source", "x", "--", "echo", "hi there"]); // "--source x -- echo 'hi there'"
 * ```
 */
export function shellWords(words: readonly string[]): string {
  return words
    .map((w) => (w !== "" && /^[A-Za-z0-9_./:=@%+,-]+$/.test(w) ? w : `'${w.replace(/'/g, `'\\''`)}'`))
    .join(" ");
}
