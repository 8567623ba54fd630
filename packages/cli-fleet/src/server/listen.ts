import { ArielError } from "@ariel/core";

/** A server that listens; `close` stops it and ends its open streams. */
export interface RunningServer {
  host: string;
  port: number;
  url: string;
  close(): Promise<void>;
}

/** What the server knows of the connection a request came on (its client's port, for the guard). */
type Fetch = (req: Request, peer: { remotePort?: number }) => Promise<Response>;

interface DenoServeApi {
  serve(
    options: { hostname: string; port: number; signal: AbortSignal; onListen: (a: { port: number }) => void },
    handler: (req: Request, info: { remoteAddr?: { port?: number } }) => Promise<Response>,
  ): { finished: Promise<void>; addr: { port: number } };
}

function urlOf(host: string, port: number): string {
  return `http://${host.includes(":") ? `[${host}]` : host}:${port}/`;
}

function listenError(host: string, port: number, e: unknown): ArielError {
  const code = (e as { code?: string }).code ?? (e as Error).name;
  return new ArielError("ERR_UNAVAILABLE", `cannot listen on ${host}:${port}: ${code}`, {
    hint:
      code === "EADDRINUSE" || code === "AddrInUse"
        ? "another server uses that port; pass --addr HOST:PORT"
        : "check the address",
    context: { host, port },
  });
}

/** Serve `fetch` on host:port (0: any free port) with Deno.serve on Deno, @hono/node-server on Node. */
export async function listen(fetch: Fetch, host: string, port: number): Promise<RunningServer> {
  const deno = (globalThis as { Deno?: DenoServeApi }).Deno;
  if (deno && typeof deno.serve === "function") {
    const stop = new AbortController();
    let server: ReturnType<DenoServeApi["serve"]>;
    try {
      await new Promise<void>((resolve, reject) => {
        try {
          server = deno.serve(
            { hostname: host, port, signal: stop.signal, onListen: () => resolve() },
            (req, info) =>
              fetch(req, { ...(info?.remoteAddr?.port ? { remotePort: info.remoteAddr.port } : {}) }),
          );
        } catch (e) {
          reject(e);
        }
      });
    } catch (e) {
      throw listenError(host, port, e);
    }
    const actual = server!.addr.port;
    return {
      host,
      port: actual,
      url: urlOf(host, actual),
      close: async () => {
        stop.abort();
        await Promise.race([server.finished, new Promise((r) => setTimeout(r, 1000))]);
      },
    };
  }
  const { serve } = await import("@hono/node-server");
  return new Promise((resolve, reject) => {
    const handler = (req: Request, env?: { incoming?: { socket?: { remotePort?: number } } }) => {
      const remotePort = env?.incoming?.socket?.remotePort;
      return fetch(req, remotePort ? { remotePort } : {});
    };
    const server = serve({ fetch: handler, hostname: host, port }, (info) => {
      resolve({
        host,
        port: info.port,
        url: urlOf(host, info.port),
        close: () =>
          new Promise<void>((done) => {
            const s = server as import("node:http").Server;
            s.close(() => done());
            s.closeAllConnections?.();
          }),
      });
    });
    server.once("error", (e) => reject(listenError(host, port, e)));
  });
}
