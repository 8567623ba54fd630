import { createHash, timingSafeEqual } from "node:crypto";
import { ArielError } from "@ariel/core";
import { clientInSandbox } from "@ariel/core/host";
import type { MiddlewareHandler } from "hono";
import { HttpRefusal } from "./http_error.ts";

/**
 * The strict Content-Security-Policy of every response: our own script, style and API only; inline
 * styles too, because the terminal of tty runs (`@xterm/xterm`) sizes its cells with `<style>`
 * elements it writes (no script is ever inline; decision 0078).
 */
export const CSP =
  "default-src 'none'; script-src 'self'; style-src 'self' 'unsafe-inline'; img-src 'self'; connect-src 'self'; " +
  "base-uri 'none'; form-action 'none'; frame-ancestors 'none'";

/** Headers on every response, errors included. */
export const SECURITY_HEADERS: Readonly<Record<string, string>> = {
  "content-security-policy": CSP,
  "x-content-type-options": "nosniff",
  "x-frame-options": "DENY",
  "referrer-policy": "no-referrer",
  "cross-origin-opener-policy": "same-origin",
  "cross-origin-resource-policy": "same-origin",
  "permissions-policy": "camera=(), microphone=(), geolocation=()",
  "cache-control": "no-store",
};

const LOOPBACK = new Set(["127.0.0.1", "::1", "localhost"]);

/** Whether a bind host only accepts connections from this machine. */
export function isLoopback(host: string): boolean {
  return LOOPBACK.has(host) || /^127\.\d+\.\d+\.\d+$/.test(host);
}

/** Whether a bind host is a wildcard (every address of this machine). */
export function isWildcard(host: string): boolean {
  return host === "0.0.0.0" || host === "::";
}

/**
 * The `Host` values a request to this server may carry: the bound address with the port; on
 * loopback also its other loopback names; for a wildcard bind every name in `localNames` (this
 * machine's addresses and host name).
 *
 * @example
 * ```ts
 * allowedHosts("127.0.0.1", 7878, []); // 127.0.0.1:7878, localhost:7878, [::1]:7878
 * ```
 */
export function allowedHosts(host: string, port: number, localNames: readonly string[]): Set<string> {
  const fmt = (h: string) => (h.includes(":") ? `[${h}]:${port}` : `${h}:${port}`);
  const names = isLoopback(host)
    ? [host, "127.0.0.1", "localhost", "::1"]
    : isWildcard(host)
      ? [...localNames, "127.0.0.1", "localhost", "::1"]
      : [host];
  return new Set(names.map((n) => fmt(n.toLowerCase())));
}

/** Constant-time equality of two secrets (their digests are compared, so lengths leak nothing). */
export function sameSecret(a: string, b: string): boolean {
  const da = createHash("sha256").update(a).digest();
  const db = createHash("sha256").update(b).digest();
  return timingSafeEqual(da, db);
}

/** What the server knows of a request's connection (the Hono env of the request). */
export interface Peer {
  /** The client's port (a TCP connection), when the runtime says it. */
  remotePort?: number;
}

/** How long the answer for one client port is kept: a connection's requests ask once. */
const PEER_TTL_MS = 5_000;
const peers = new Map<number, { sandboxed: boolean; at: number }>();

/** Whether the client at `remotePort` is a sandbox's process, asked once per connection. */
function sandboxedPeer(remotePort: number, serverPort: number, ask: typeof clientInSandbox): boolean {
  const now = Date.now();
  const had = peers.get(remotePort);
  if (had && now - had.at < PEER_TTL_MS) return had.sandboxed;
  const sandboxed = ask(remotePort, serverPort);
  if (peers.size > 1024) peers.clear();
  peers.set(remotePort, { sandboxed, at: now });
  return sandboxed;
}

export interface GuardOptions {
  /** Allowed Host header values (filled in once the port is known). */
  hosts: () => ReadonlySet<string>;
  /** The bearer token, when the server was given a --token-file. */
  token: string | null;
  /**
   * Paths a GET may have without the token: the dashboard's own files, which hold no data (the
   * page asks for the token and sends it with every API request; a browser cannot send a header
   * when it opens a page).
   */
  open?: ReadonlySet<string>;
  /** Whether a client port is a sandbox's process (default: the kernel's socket table, Linux). */
  fromSandbox?: typeof clientInSandbox;
}

/**
 * A request from inside a sandbox (docs/sandbox.md) is refused, whatever it asks: the API starts
 * runs outside any sandbox and serves every run's output, and on loopback it needs no token.
 */
function refuseSandboxed(host: string, options: GuardOptions, peer: Peer): void {
  if (peer.remotePort === undefined) return;
  const serverPort = Number(/:(\d+)$/.exec(host)?.[1] ?? 0);
  if (!sandboxedPeer(peer.remotePort, serverPort, options.fromSandbox ?? clientInSandbox)) return;
  throw new ArielError("ERR_FORBIDDEN", "a sandboxed run may not use the fleet's API", {
    hint: "the fleet starts and feeds runs outside any sandbox; use it from outside (docs/sandbox.md)",
  });
}

/**
 * Every request: `Host` must name this server (DNS rebinding, 421); with a
 * token, `Authorization: Bearer` must match (401), except a GET of the dashboard's files. Every mutation (anything but GET/HEAD): only
 * `application/json`, and never from a foreign `Origin` or a cross-site fetch (403).
 */
export function guard(options: GuardOptions): MiddlewareHandler {
  return async (c, next) => {
    check(c.req.raw, options, (c.env ?? {}) as Peer);
    await next();
  };
}

function check(req: Request, options: GuardOptions, peer: Peer): void {
  const host = req.headers.get("host") ?? "";
  if (!options.hosts().has(host.toLowerCase())) {
    throw new HttpRefusal(
      421,
      new ArielError(
        "ERR_MISDIRECTED",
        `this server does not answer to host ${JSON.stringify(host.slice(0, 200))}`,
      ),
    );
  }
  refuseSandboxed(host, options, peer);
  const page =
    (req.method === "GET" || req.method === "HEAD") && options.open?.has(new URL(req.url).pathname);
  if (options.token !== null && !page) {
    const auth = req.headers.get("authorization") ?? "";
    const m = /^Bearer +(\S+)$/i.exec(auth);
    if (!m || !sameSecret(m[1]!, options.token)) {
      throw new HttpRefusal(401, new ArielError("ERR_UNAUTHORIZED", "missing or wrong bearer token"));
    }
  }
  if (req.method === "GET" || req.method === "HEAD") return;
  const type = (req.headers.get("content-type") ?? "").split(";")[0]!.trim().toLowerCase();
  if (type !== "application/json") {
    throw new ArielError(
      "ERR_FORBIDDEN",
      `a ${req.method} must be application/json, not ${JSON.stringify(type.slice(0, 100))}`,
    );
  }
  const origin = req.headers.get("origin");
  if (origin !== null && origin !== `http://${host}`) {
    throw new ArielError(
      "ERR_FORBIDDEN",
      `a ${req.method} from origin ${JSON.stringify(origin.slice(0, 200))} is refused`,
    );
  }
  if (req.headers.get("sec-fetch-site") === "cross-site") {
    throw new ArielError("ERR_FORBIDDEN", `a cross-site ${req.method} is refused`);
  }
}
