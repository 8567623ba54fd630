import { request } from "node:http";
import { createServer, type Server } from "node:net";
import { networkInterfaces } from "node:os";
import { ArielError } from "@ariel/core";
import { afterEach, describe, expect, it } from "vitest";
import { listen, type RunningServer } from "./listen.ts";

// `listen` on Node (@hono/node-server) over a real loopback socket, and on a stand-in Deno.serve:
// the port and url it gives, the requests it serves with the client's port, close, and its errors.

const open: RunningServer[] = [];
const blockers: Server[] = [];
afterEach(async () => {
  for (const s of open.splice(0)) await s.close();
  for (const b of blockers.splice(0)) await new Promise((r) => b.close(r));
  delete (globalThis as { Deno?: unknown }).Deno;
});

type Peer = { remotePort?: number };

/** A fetch that answers with the path and the peer it was given, and records the peers. */
function echo(peers: Peer[]) {
  return async (req: Request, peer: Peer) => {
    peers.push(peer);
    return new Response(`${new URL(req.url).pathname} ${JSON.stringify(peer)}`);
  };
}

/** GET `url` with node's http: status, body, and the client socket's own port. */
function get(url: string): Promise<{ status: number; body: string; localPort: number }> {
  return new Promise((resolve, reject) => {
    const req = request(url, { agent: false }, (res) => {
      let body = "";
      res.setEncoding("utf8");
      res.on("data", (c: string) => {
        body += c;
      });
      res.on("end", () => resolve({ status: res.statusCode!, body, localPort: req.socket!.localPort! }));
    });
    req.on("error", reject);
    req.end();
  });
}

/** The error code of connecting to `port` on loopback, or "connected". */
function connect(port: number): Promise<string> {
  return new Promise((resolve) => {
    const req = request({ host: "127.0.0.1", port, path: "/", agent: false }, (res) => {
      res.resume();
      resolve("connected");
    });
    req.on("error", (e: NodeJS.ErrnoException) => resolve(e.code ?? "error"));
    req.end();
  });
}

function occupied(): Promise<{ port: number }> {
  return new Promise((resolve) => {
    const s = createServer();
    blockers.push(s);
    s.listen(0, "127.0.0.1", () => resolve({ port: (s.address() as { port: number }).port }));
  });
}

describe("listen on Node", () => {
  it("port 0 gives a free port and its url, and serves requests with the client's port", async () => {
    const peers: Peer[] = [];
    const s = await listen(echo(peers), "127.0.0.1", 0);
    open.push(s);
    expect(s.port).toBeGreaterThan(0);
    expect([s.host, s.url]).toEqual(["127.0.0.1", `http://127.0.0.1:${s.port}/`]);
    const r = await get(`${s.url}api/x`);
    expect([r.status, r.body]).toEqual([200, `/api/x ${JSON.stringify({ remotePort: r.localPort })}`]);
    expect(peers).toEqual([{ remotePort: r.localPort }]);
  });

  // A machine without IPv6 loopback (some containers) cannot listen on ::1 at all.
  const ipv6 = Object.values(networkInterfaces()).some((l) => l?.some((a) => a.address === "::1"));
  it.skipIf(!ipv6)("an IPv6 host is bracketed in the url", async () => {
    const s = await listen(echo([]), "::1", 0);
    open.push(s);
    expect(s.url).toBe(`http://[::1]:${s.port}/`);
    expect((await get(`${s.url}v6`)).body.startsWith("/v6 ")).toBe(true);
  });

  it("close stops serving, ends open streams and frees the port", async () => {
    let streams = 0;
    const s = await listen(
      async () => {
        streams++;
        return new Response(new ReadableStream({ start: (c) => c.enqueue(new TextEncoder().encode("x")) }));
      },
      "127.0.0.1",
      0,
    );
    // A stream that never ends: close must not wait for it.
    const reading = new Promise<string>((resolve) => {
      request(s.url, { agent: false }, (res) => {
        res.on("data", () => undefined);
        res.on("close", () => resolve("closed"));
      })
        .on("error", () => resolve("closed"))
        .end();
    });
    for (let i = 0; i < 200 && streams === 0; i++) await new Promise((r) => setTimeout(r, 10));
    expect(streams).toBe(1);
    await s.close();
    expect(await reading).toBe("closed");
    expect(await connect(s.port)).toBe("ECONNREFUSED");
    const again = await listen(echo([]), "127.0.0.1", s.port);
    open.push(again);
    expect(again.port).toBe(s.port);
    expect((await get(`${again.url}back`)).body.startsWith("/back ")).toBe(true);
  });

  it("a port in use is ERR_UNAVAILABLE with the address and a hint to pick another", async () => {
    const { port } = await occupied();
    const e = await listen(echo([]), "127.0.0.1", port).catch((x: unknown) => x);
    expect(e).toBeInstanceOf(ArielError);
    const err = e as ArielError;
    expect([err.code, err.message, err.hint, err.context]).toEqual([
      "ERR_UNAVAILABLE",
      `cannot listen on 127.0.0.1:${port}: EADDRINUSE`,
      "another server uses that port; pass --addr HOST:PORT",
      { host: "127.0.0.1", port },
    ]);
  });

  it("an address not of this machine is ERR_UNAVAILABLE with a hint to check it", async () => {
    const e = (await listen(echo([]), "192.0.2.1", 0).catch((x: unknown) => x)) as ArielError;
    expect([e.code, e.message, e.hint, e.context]).toEqual([
      "ERR_UNAVAILABLE",
      "cannot listen on 192.0.2.1:0: EADDRNOTAVAIL",
      "check the address",
      { host: "192.0.2.1", port: 0 },
    ]);
  });
});

type DenoHandler = (req: Request, info: { remoteAddr?: { port?: number } }) => Promise<Response>;

/** A stand-in Deno.serve on port 4242: what it was given, and its handler. */
function fakeDeno(fail?: Error) {
  const seen: { options?: { hostname: string; port: number; signal: AbortSignal }; handler?: DenoHandler } =
    {};
  let finish!: () => void;
  const finished = new Promise<void>((r) => {
    finish = r;
  });
  (globalThis as { Deno?: unknown }).Deno = {
    serve(
      options: { hostname: string; port: number; signal: AbortSignal; onListen: () => void },
      handler: DenoHandler,
    ) {
      if (fail) throw fail;
      seen.options = options;
      seen.handler = handler;
      options.signal.addEventListener("abort", () => finish());
      setTimeout(() => options.onListen(), 0);
      return { finished, addr: { port: 4242 } };
    },
  };
  return seen;
}

describe("listen on Deno", () => {
  it("serves with Deno.serve: its port, the url, the client's port; close aborts it", async () => {
    const seen = fakeDeno();
    const peers: Peer[] = [];
    const s = await listen(echo(peers), "::1", 0);
    expect([s.host, s.port, s.url]).toEqual(["::1", 4242, "http://[::1]:4242/"]);
    expect([seen.options!.hostname, seen.options!.port, seen.options!.signal.aborted]).toEqual([
      "::1",
      0,
      false,
    ]);
    const res = await seen.handler!(new Request("http://[::1]:4242/a"), { remoteAddr: { port: 5555 } });
    expect(await res.text()).toBe('/a {"remotePort":5555}');
    await seen.handler!(new Request("http://[::1]:4242/b"), {});
    await seen.handler!(new Request("http://[::1]:4242/c"), { remoteAddr: {} });
    expect(peers).toEqual([{ remotePort: 5555 }, {}, {}]);
    await s.close();
    expect(seen.options!.signal.aborted).toBe(true);
  });

  it("a port Deno cannot take is ERR_UNAVAILABLE with the error's name", async () => {
    fakeDeno(Object.assign(new Error("in use"), { name: "AddrInUse" }));
    const e = (await listen(echo([]), "127.0.0.1", 8080).catch((x: unknown) => x)) as ArielError;
    expect([e.code, e.message, e.hint, e.context]).toEqual([
      "ERR_UNAVAILABLE",
      "cannot listen on 127.0.0.1:8080: AddrInUse",
      "another server uses that port; pass --addr HOST:PORT",
      { host: "127.0.0.1", port: 8080 },
    ]);
  });
});
