/**
 * SHA-256 through Web Crypto (`crypto.subtle`), so the same code runs on Node, Deno and browsers.
 *
 * @example
 * ```ts
 * await sha256Hex("abc"); // "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad"
 * await workspaceHash("/some/repo/root"); // "ae89cb2b620ea8fc"
 * ```
 */

const HEX = Array.from({ length: 256 }, (_, i) => i.toString(16).padStart(2, "0"));

/** Lower-case hex of some bytes. */
export function toHex(bytes: Uint8Array): string {
  let s = "";
  for (const b of bytes) s += HEX[b];
  return s;
}

/** Lower-case hex SHA-256 of a string (as UTF-8) or of bytes. */
export async function sha256Hex(data: string | Uint8Array): Promise<string> {
  const bytes = typeof data === "string" ? new TextEncoder().encode(data) : data;
  // Copy into a fresh ArrayBuffer: subtle.digest rejects views over a SharedArrayBuffer.
  const digest = await crypto.subtle.digest("SHA-256", new Uint8Array(bytes));
  return toHex(new Uint8Array(digest));
}

/**
 * A workspace's identity: the first 16 hex digits of sha256(utf8(canonicalRoot)), byte-compatible
 * with the caliban/prospero rule. Pass the canonical (realpath) root.
 */
export async function workspaceHash(root: string): Promise<string> {
  return (await sha256Hex(root)).slice(0, 16);
}
