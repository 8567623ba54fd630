/**
 * SHA-256 through Web Crypto (`crypto.subtle`), so the same code runs on Node, Deno and browsers.
 *
 * @example
 * ```ts
 * await sha256Hex("abc"); // "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad"
 * await workspaceHash("/some/repo/root"); // "ae89cb2b620ea8fc"
 * ```
 */

/** A workspace hash ({@link workspaceHash}) as a regular expression source, for patterns that embed one. */
export const WORKSPACE_HASH_SOURCE = "[0-9a-f]{16}";

/** A whole workspace hash: 16 lower-case hex digits. */
export const WORKSPACE_HASH_PATTERN: RegExp = new RegExp(`^${WORKSPACE_HASH_SOURCE}$`);

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
 *
 * Hashed in JavaScript ({@link sha256Sync}), not through Web Crypto: every ariel-spawn and
 * ariel-worktree start computes it, and `crypto.subtle` loads Node's whole crypto module
 * (~0.09× of `node -e 0`) for a digest of one short path.
 */
export async function workspaceHash(root: string): Promise<string> {
  return toHex(sha256Sync(new TextEncoder().encode(root))).slice(0, 16);
}

const K = new Uint32Array([
  0x428a2f98, 0x71374491, 0xb5c0fbcf, 0xe9b5dba5, 0x3956c25b, 0x59f111f1, 0x923f82a4, 0xab1c5ed5, 0xd807aa98,
  0x12835b01, 0x243185be, 0x550c7dc3, 0x72be5d74, 0x80deb1fe, 0x9bdc06a7, 0xc19bf174, 0xe49b69c1, 0xefbe4786,
  0x0fc19dc6, 0x240ca1cc, 0x2de92c6f, 0x4a7484aa, 0x5cb0a9dc, 0x76f988da, 0x983e5152, 0xa831c66d, 0xb00327c8,
  0xbf597fc7, 0xc6e00bf3, 0xd5a79147, 0x06ca6351, 0x14292967, 0x27b70a85, 0x2e1b2138, 0x4d2c6dfc, 0x53380d13,
  0x650a7354, 0x766a0abb, 0x81c2c92e, 0x92722c85, 0xa2bfe8a1, 0xa81a664b, 0xc24b8b70, 0xc76c51a3, 0xd192e819,
  0xd6990624, 0xf40e3585, 0x106aa070, 0x19a4c116, 0x1e376c08, 0x2748774c, 0x34b0bcb5, 0x391c0cb3, 0x4ed8aa4a,
  0x5b9cca4f, 0x682e6ff3, 0x748f82ee, 0x78a5636f, 0x84c87814, 0x8cc70208, 0x90befffa, 0xa4506ceb, 0xbef9a3f7,
  0xc67178f2,
]);

/** SHA-256 (FIPS 180-4) of some bytes, synchronously; meant for short inputs. */
export function sha256Sync(data: Uint8Array): Uint8Array {
  const bitLength = data.length * 8;
  const padded = new Uint8Array((((data.length + 8) >> 6) + 1) << 6);
  padded.set(data);
  padded[data.length] = 0x80;
  const view = new DataView(padded.buffer);
  view.setUint32(padded.length - 8, Math.floor(bitLength / 0x100000000));
  view.setUint32(padded.length - 4, bitLength >>> 0);
  const h = new Uint32Array([
    0x6a09e667, 0xbb67ae85, 0x3c6ef372, 0xa54ff53a, 0x510e527f, 0x9b05688c, 0x1f83d9ab, 0x5be0cd19,
  ]);
  const w = new Uint32Array(64);
  for (let off = 0; off < padded.length; off += 64) {
    for (let i = 0; i < 16; i++) w[i] = view.getUint32(off + i * 4);
    for (let i = 16; i < 64; i++) {
      const a = w[i - 15] as number;
      const b = w[i - 2] as number;
      const s0 = ((a >>> 7) | (a << 25)) ^ ((a >>> 18) | (a << 14)) ^ (a >>> 3);
      const s1 = ((b >>> 17) | (b << 15)) ^ ((b >>> 19) | (b << 13)) ^ (b >>> 10);
      w[i] = (w[i - 16] as number) + s0 + (w[i - 7] as number) + s1;
    }
    let [a, b, c, d, e, f, g, hh] = h as unknown as number[];
    for (let i = 0; i < 64; i++) {
      const e0 = e as number;
      const a0 = a as number;
      const S1 = ((e0 >>> 6) | (e0 << 26)) ^ ((e0 >>> 11) | (e0 << 21)) ^ ((e0 >>> 25) | (e0 << 7));
      const ch = (e0 & (f as number)) ^ (~e0 & (g as number));
      const t1 = ((hh as number) + S1 + ch + (K[i] as number) + (w[i] as number)) | 0;
      const S0 = ((a0 >>> 2) | (a0 << 30)) ^ ((a0 >>> 13) | (a0 << 19)) ^ ((a0 >>> 22) | (a0 << 10));
      const maj = (a0 & (b as number)) ^ (a0 & (c as number)) ^ ((b as number) & (c as number));
      const t2 = (S0 + maj) | 0;
      hh = g;
      g = f;
      f = e;
      e = ((d as number) + t1) | 0;
      d = c;
      c = b;
      b = a;
      a = (t1 + t2) | 0;
    }
    h[0] = (h[0] as number) + (a as number);
    h[1] = (h[1] as number) + (b as number);
    h[2] = (h[2] as number) + (c as number);
    h[3] = (h[3] as number) + (d as number);
    h[4] = (h[4] as number) + (e as number);
    h[5] = (h[5] as number) + (f as number);
    h[6] = (h[6] as number) + (g as number);
    h[7] = (h[7] as number) + (hh as number);
  }
  const out = new Uint8Array(32);
  const ov = new DataView(out.buffer);
  for (let i = 0; i < 8; i++) ov.setUint32(i * 4, h[i] as number);
  return out;
}
