import { expect, it } from "vitest";

/**
 * One test per row of a table of `[input, expected]` pairs for a function of one argument:
 * `fn(input)` deep-equals `expected`. `title` is it.each's, formatted with the row.
 */
export function eachMaps<I, O>(fn: (input: I) => O, rows: readonly (readonly [I, O])[], title: string): void {
  it.each(rows.map((row) => [row[0], row[1]] as [I, O]))(title, (input, expected) => {
    expect(fn(input)).toEqual(expected);
  });
}
