import type * as NodeChildProcess from "node:child_process";
import type * as NodeCrypto from "node:crypto";
import { closeSync, openSync, readSync } from "node:fs";
import type * as NodeHttp from "node:http";
import type * as NodeHttps from "node:https";
import type * as NodeNet from "node:net";
import type * as NodeZlib from "node:zlib";

let crypto: typeof NodeCrypto | undefined;
let childProcess: typeof NodeChildProcess | undefined;
let http: typeof NodeHttp | undefined;
let https: typeof NodeHttps | undefined;
let net: typeof NodeNet | undefined;
let zlib: typeof NodeZlib | undefined;

/** node:zlib, loaded on first use: only a sandbox's sync reads git objects. */
export function nodeZlib(): typeof NodeZlib {
  zlib ??= process.getBuiltinModule?.("node:zlib") ?? (require("node:zlib") as typeof NodeZlib);
  return zlib;
}

/** node:net, loaded on first use: only a port lease's bind check needs it. */
export function nodeNet(): typeof NodeNet {
  net ??= process.getBuiltinModule?.("node:net") ?? (require("node:net") as typeof NodeNet);
  return net;
}

// Node ≥ 20.16 and Deno have `process.getBuiltinModule`; older Node runs the CommonJS bundles,
// where `require` is defined.

/**
 * node:crypto, loaded on first use: a static import would load it (~0.09× of `node -e 0`) at
 * every CLI start, also on the paths that never hash nor draw a random name.
 */
export function nodeCrypto(): typeof NodeCrypto {
  crypto ??= process.getBuiltinModule?.("node:crypto") ?? (require("node:crypto") as typeof NodeCrypto);
  return crypto;
}

/**
 * node:child_process, loaded on first use (with node:net and the stream stack it is ~0.09× of
 * `node -e 0`): `ariel-spawn -n` and `ariel-worktree --help` never start a child.
 */
export function nodeChildProcess(): typeof NodeChildProcess {
  childProcess ??=
    process.getBuiltinModule?.("node:child_process") ??
    (require("node:child_process") as typeof NodeChildProcess);
  return childProcess;
}

/**
 * node:http and node:https, loaded on first use: only the Kubernetes client needs them, and a
 * static import loads node:tls, node:crypto and the HTTP stack (~0.15× of `node -e 0`) at every
 * start of every CLI that bundles the k8s backend (ariel-spawn, ariel-runs, ariel-fleet).
 */
export function nodeHttp(): typeof NodeHttp {
  http ??= process.getBuiltinModule?.("node:http") ?? (require("node:http") as typeof NodeHttp);
  return http;
}

/** node:https on first use (see nodeHttp). */
export function nodeHttps(): typeof NodeHttps {
  https ??= process.getBuiltinModule?.("node:https") ?? (require("node:https") as typeof NodeHttps);
  return https;
}

/**
 * `n` bytes from the kernel's CSPRNG. Read from /dev/urandom where there is one (three system
 * calls, no module to load: every ariel-spawn run draws its run id), else node:crypto.
 */
export function randomBytes(n: number): Uint8Array {
  const out = new Uint8Array(n);
  let fd: number | undefined;
  try {
    fd = openSync("/dev/urandom", "r");
    let got = 0;
    while (got < n) {
      const k = readSync(fd, out, got, n - got, null);
      if (k <= 0) throw new Error("short read");
      got += k;
    }
    return out;
  } catch {
    return new Uint8Array(nodeCrypto().randomBytes(n));
  } finally {
    if (fd !== undefined) closeSync(fd);
  }
}

/** `n` random bytes as lowercase hex (temp file names, lock nonces): no node:crypto load. */
export function randomHex(n: number): string {
  let out = "";
  for (const b of randomBytes(n)) out += b.toString(16).padStart(2, "0");
  return out;
}
