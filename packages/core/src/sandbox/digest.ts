/**
 * A fast digest of bytes for telling whether a file changed (a sandbox's copy of an index or
 * HEAD against the real one): two 32-bit FNV-1a lanes and the length. Not a security hash, and
 * used where none is needed; no hashing module to load on a spawn's path.
 *
 * @example
 * ```ts
 * contentDigest([new TextEncoder().encode("ref: refs/heads/main\n")]).length; // 24
 * ```
 */
export function contentDigest(parts: readonly Uint8Array[]): string {
  let a = 0x811c9dc5;
  let b = 0x01000193 ^ 0x5bd1e995;
  let n = 0;
  for (const p of parts) {
    for (let i = 0; i < p.length; i++) {
      const x = p[i] as number;
      a = Math.imul(a ^ x, 0x01000193);
      b = Math.imul(b ^ x, 0x5bd1e995) ^ (b >>> 15);
    }
    n += p.length;
  }
  const hex = (v: number) => (v >>> 0).toString(16).padStart(8, "0");
  return `${hex(a)}${hex(b)}${hex(n)}`;
}
