/**
 * Compare two strings by their UTF-8 bytes (which is Unicode code point order), as `sort` and
 * git do; JavaScript's `<` compares UTF-16 code units, which differs for characters above U+FFFF.
 *
 * @example
 * ```ts
 * ["b", "a", "\u{1F600}", "\uFF01"].sort(compareBytewise); // ["a", "b", "\uFF01", "\u{1F600}"]
 * ```
 */
export function compareBytewise(a: string, b: string): number {
  const n = Math.min(a.length, b.length);
  for (let i = 0; i < n; i++) {
    let x = a.charCodeAt(i);
    let y = b.charCodeAt(i);
    if (x === y) continue;
    // Lift surrogates above U+E000..U+FFFF so code units compare in code point order.
    if (x >= 0xd800) x = x < 0xe000 ? x + 0x2000 : x - 0x800;
    if (y >= 0xd800) y = y < 0xe000 ? y + 0x2000 : y - 0x800;
    return x - y;
  }
  return a.length - b.length;
}
