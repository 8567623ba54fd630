/**
 * Words joined into one line a POSIX shell reads back as the same words, and safe to print on a
 * terminal: a word of `[A-Za-z0-9_./:=@%+,-]` only stays bare, one with other printable ASCII is
 * single-quoted, and one with control or non-ASCII characters is written `$'…'` with escapes
 * (bash, zsh and ksh read it back), so nothing the user typed can drive the terminal. Used for
 * the command lines that hints suggest.
 *
 * @example
 * ```ts
 * shellWords(["--source", "x", "--", "echo", "hi there"]); // "--source x -- echo 'hi there'"
 * shellWords(["\u001b[31m"]);                               // "$'\\x1b[31m'"
 * ```
 */
export function shellWords(words: readonly string[]): string {
  return words.map(shellWord).join(" ");
}

function shellWord(w: string): string {
  if (w !== "" && /^[A-Za-z0-9_./:=@%+,-]+$/.test(w)) return w;
  if (/^[\x20-\x7e]*$/.test(w)) return `'${w.replace(/'/g, `'\\''`)}'`;
  const escaped = w.replace(/[^\x20-\x7e]|[\\']/g, (c) => {
    if (c === "\\" || c === "'") return `\\${c}`;
    const n = c.charCodeAt(0);
    return n < 0x100 ? `\\x${n.toString(16).padStart(2, "0")}` : `\\u${n.toString(16).padStart(4, "0")}`;
  });
  return `$'${escaped}'`;
}
