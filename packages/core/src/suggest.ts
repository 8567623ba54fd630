/**
 * "Did you mean": the closest of some known words to what the user typed, by edit distance.
 * Used for unknown flags, sub-commands, source names and `--allow` reasons (docs/contract.md).
 *
 * @example
 * ```ts
 * closest("lst", ["add", "list", "remove"]); // "list"
 * closest("frobnicate", ["add", "list"]);    // undefined: nothing within 2 edits
 * didYouMean("--jsno", ["--json", "--task"]); // 'did you mean "--json"?'
 * ```
 */
import { quoteValue } from "./names.ts";

/** Largest edit distance still offered as a suggestion. */
export const SUGGEST_MAX_DISTANCE = 2;

/**
 * Optimal string alignment distance (Levenshtein plus adjacent transpositions, so "jsno" is
 * one edit from "json").
 */
export function editDistance(a: string, b: string): number {
  if (a === b) return 0;
  const rows: number[][] = [];
  for (let i = 0; i <= a.length; i++) {
    const row = new Array<number>(b.length + 1).fill(0);
    row[0] = i;
    rows.push(row);
  }
  const first = rows[0] as number[];
  for (let j = 0; j <= b.length; j++) first[j] = j;
  for (let i = 1; i <= a.length; i++) {
    const row = rows[i] as number[];
    const prev = rows[i - 1] as number[];
    for (let j = 1; j <= b.length; j++) {
      const cost = a[i - 1] === b[j - 1] ? 0 : 1;
      let d = Math.min((prev[j] ?? 0) + 1, (row[j - 1] ?? 0) + 1, (prev[j - 1] ?? 0) + cost);
      if (i > 1 && j > 1 && a[i - 1] === b[j - 2] && a[i - 2] === b[j - 1]) {
        d = Math.min(d, ((rows[i - 2] as number[])[j - 2] ?? 0) + 1);
      }
      row[j] = d;
    }
  }
  return (rows[a.length] as number[])[b.length] ?? 0;
}

/**
 * The candidate nearest to `word` within {@link SUGGEST_MAX_DISTANCE} edits (the first one on a
 * tie, so the caller's order decides), or undefined. The edits must also change less than half
 * of the longer word: "-x" is not a typo of "-C", but "ad" is one of "add".
 */
export function closest(word: string, candidates: Iterable<string>): string | undefined {
  let best: string | undefined;
  let bestDistance = SUGGEST_MAX_DISTANCE + 1;
  for (const c of candidates) {
    if (c === word) continue;
    const d = editDistance(word, c);
    if (d < bestDistance && d * 2 < Math.max(word.length, c.length)) {
      best = c;
      bestDistance = d;
    }
  }
  return best;
}

/** `did you mean "x"?` for the closest candidate, or undefined when none is close. */
export function didYouMean(word: string, candidates: Iterable<string>): string | undefined {
  const c = closest(word, candidates);
  return c === undefined ? undefined : `did you mean ${quoteValue(c)}?`;
}
