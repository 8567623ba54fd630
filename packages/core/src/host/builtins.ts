import type * as NodeCrypto from "node:crypto";

let crypto: typeof NodeCrypto | undefined;

/**
 * node:crypto, loaded on first use: a static import would load it (~0.09× of `node -e 0`) at
 * every CLI start, also on the paths that never hash nor draw a random name. Node ≥ 20.16 and
 * Deno have `process.getBuiltinModule`; older Node runs the CommonJS bundles, where `require`
 * is defined.
 */
export function nodeCrypto(): typeof NodeCrypto {
  crypto ??= process.getBuiltinModule?.("node:crypto") ?? (require("node:crypto") as typeof NodeCrypto);
  return crypto;
}
