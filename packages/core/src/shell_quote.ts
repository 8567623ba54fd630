/**
 * Quote a word for a POSIX shell, so a command ariel prints for the user to run next (a hint, a
 * summary line) can be pasted as it is. Words made only of safe characters are left bare.
 *
 * @example
 * ```ts
 * shellQuote("t1");           // "t1"
 * shellQuote("/my work/ws");  // "'/my work/ws'"
 * shellQuote("it's");         // "'it'\\''s'"
 * ```
 */
export function shellQuote(word: string): string {
  if (word !== "" && /^[A-Za-z0-9_./:=@%+,-]+$/.test(word)) return word;
  return `'${word.replace(/'/g, `'\\''`)}'`;
}

/** A command line from words, each quoted by {@link shellQuote}. */
export function shellCommand(words: readonly string[]): string {
  return words.map(shellQuote).join(" ");
}
