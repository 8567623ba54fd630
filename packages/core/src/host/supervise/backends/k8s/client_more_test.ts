/**
 * More of the Kubernetes API client, against small API servers on 127.0.0.1 that record each
 * request: the exact path (under the server's own path), headers (accept, the bearer token,
 * content type and byte length) and body of every operation, what each answer parses to, the
 * exact errors (HTTP statuses: ERR_REFUSED, or ERR_BACKEND_UNAVAILABLE for 401/403; connections
 * refused or cut: ERR_BACKEND_UNAVAILABLE and isUnreachable), never with the token or a password,
 * TLS (the cluster's CA, a client certificate, insecure-skip-tls-verify), the watch (lines split
 * and blank, bookmarks, ERROR events, 410, reconnects after 100 ms, abort) and clientFor's cache.
 */
import { execFileSync } from "node:child_process";
import { getEventListeners } from "node:events";
import { readFileSync } from "node:fs";
import { createServer, type IncomingMessage, type Server, type ServerResponse } from "node:http";
import { createServer as createTlsServer } from "node:https";
import type { AddressInfo } from "node:net";
import { join } from "node:path";
import type { TLSSocket } from "node:tls";
import { afterAll, afterEach, beforeAll, describe, expect, it, vi } from "vitest";
import { ArielError } from "../../../../errors.ts";
import type { JobManifest } from "../../../../k8s/job.ts";
import { removeDir, tempDir, writeFile } from "../../../_fixture.ts";
import { clientFor, isUnreachable, KubeClient, type WatchEvent } from "./client.ts";
import type { ClusterAccess } from "./kubeconfig.ts";

const TOKEN = "s3cret-bearer-t0ken";
const PASSWORD = "pa55word";

/** One request as the server saw it. */
interface Seen {
  method: string;
  url: string;
  headers: Record<string, string | undefined>;
  body: string;
  /** The CN of the client certificate presented (TLS only), else null. */
  peer: string | null;
  closed: boolean;
}

type Answer = (req: IncomingMessage, res: ServerResponse, n: number) => void;

const servers: Server[] = [];
const dirs: string[] = [];
afterEach(async () => {
  vi.useRealTimers();
  for (const s of servers.splice(0)) {
    s.closeAllConnections();
    await new Promise((r) => s.close(r));
  }
  for (const d of dirs.splice(0)) removeDir(d);
});

const HEADERS = ["accept", "authorization", "content-type", "content-length", "transfer-encoding"];

/** An API server on 127.0.0.1 (TLS when `tls` is given) answering with `answer`, recording each request. */
async function serve(answer: Answer, tls?: { cert: string; key: string }) {
  const seen: Seen[] = [];
  const handler = (req: IncomingMessage, res: ServerResponse) => {
    let body = "";
    req.setEncoding("utf8");
    req.on("data", (c: string) => {
      body += c;
    });
    req.on("end", () => {
      const peer = tls
        ? String((req.socket as TLSSocket).getPeerCertificate().subject?.CN ?? "") || null
        : null;
      const headers = Object.fromEntries(HEADERS.map((h) => [h, req.headers[h] as string | undefined]));
      const s: Seen = { method: req.method ?? "", url: req.url ?? "", headers, body, peer, closed: false };
      seen.push(s);
      res.on("close", () => {
        s.closed = true;
      });
      answer(req, res, seen.length);
    });
  };
  const server = tls
    ? createTlsServer({ ...tls, requestCert: true, rejectUnauthorized: false }, handler)
    : createServer(handler);
  servers.push(server);
  await new Promise<void>((r) => server.listen(0, "127.0.0.1", r));
  const port = (server.address() as AddressInfo).port;
  return { origin: `${tls ? "https" : "http"}://127.0.0.1:${port}`, port, seen };
}

/** The requests seen, without whether their answer is closed yet. */
function requests(seen: Seen[]): Omit<Seen, "closed">[] {
  return seen.map((s) => ({ method: s.method, url: s.url, headers: s.headers, body: s.body, peer: s.peer }));
}

function send(res: ServerResponse, status: number, body: unknown): void {
  res.writeHead(status, { "content-type": "application/json" });
  res.end(typeof body === "string" ? body : JSON.stringify(body));
}

/** A port nothing listens on (it did a moment ago). */
async function closedPort(): Promise<number> {
  const s = createServer();
  await new Promise<void>((r) => s.listen(0, "127.0.0.1", r));
  const port = (s.address() as AddressInfo).port;
  await new Promise((r) => s.close(r));
  return port;
}

function access(server: string, over: Partial<ClusterAccess> = {}): ClusterAccess {
  return { server, ca: null, insecure: false, token: TOKEN, cert: null, key: null, namespace: null, ...over };
}

/** What a rejection says, whole, and whether the token or the password shows anywhere in it. */
async function failure(p: Promise<unknown>) {
  const e = (await within(
    p.then(
      () => null,
      (x: unknown) => x,
    ),
  )) as unknown;
  if (!(e instanceof ArielError)) return e;
  const text = JSON.stringify([e.message, e.hint, e.stack, e.toRecord()]);
  const secret = text.includes(TOKEN) || text.includes(PASSWORD);
  return {
    code: e.code,
    message: e.message,
    hint: e.hint,
    exit: e.exit,
    unreachable: isUnreachable(e),
    secret,
  };
}

/** The real timers, kept from before any test fakes them. */
const realSetTimeout = globalThis.setTimeout;
const realClearTimeout = globalThis.clearTimeout;

/** Resolves with `p`'s value, or with "still waiting" after `ms` (a bound, not a timing assert). */
function within<T>(p: Promise<T>, ms = 3000): Promise<T | "still waiting"> {
  let timer: ReturnType<typeof setTimeout> | undefined;
  const bound = new Promise<"still waiting">((r) => {
    timer = realSetTimeout(() => r("still waiting"), ms);
  });
  return Promise.race([p, bound]).finally(() => realClearTimeout(timer));
}

/** Polls `f` until it holds, within a bound (real time; setImmediate, so faked timers do not stop it). */
async function until(f: () => boolean, ms = 3000): Promise<boolean> {
  for (const end = Date.now() + ms; !f() && Date.now() < end; ) await new Promise((r) => setImmediate(r));
  return f();
}

async function text(p: Promise<AsyncIterable<Buffer>>): Promise<string> {
  let s = "";
  for await (const chunk of await p) s += chunk.toString();
  return s;
}

const refused = (message: string) => ({
  code: "ERR_REFUSED",
  message,
  hint: "nothing was changed",
  exit: 3,
  unreachable: false,
  secret: false,
});
const denied = (message: string) => ({
  code: "ERR_BACKEND_UNAVAILABLE",
  message,
  hint: "plan with --dry-run -o yaml, or drop --backend k8s",
  exit: 69,
  unreachable: false,
  secret: false,
});
const unreachable = (origin: string, why: string) => ({
  code: "ERR_BACKEND_UNAVAILABLE",
  message: `cannot reach the Kubernetes API at ${origin}: ${why}`,
  hint: "check the cluster and the kubeconfig's server",
  exit: 69,
  unreachable: true,
  secret: false,
});

/** A Job manifest as the caller planned it (a non-ASCII annotation: its length is in bytes). */
const JOB = {
  apiVersion: "batch/v1",
  kind: "Job",
  metadata: { name: "j1", namespace: "agents", annotations: { note: "café ☕" } },
  spec: {},
} as unknown as JobManifest;
const JOB_TEXT =
  '{"apiVersion":"batch/v1","kind":"Job","metadata":{"name":"j1","namespace":"agents","annotations":{"note":"café ☕"}},"spec":{}}';

/** What every operation is answered in the request tests. */
const ANSWER = { metadata: { name: "x", resourceVersion: "3" }, items: [{ metadata: { name: "p" } }] };

const AUTH = { accept: "application/json", authorization: `Bearer ${TOKEN}` };

const DELETE_OPTIONS = '{"kind":"DeleteOptions","apiVersion":"v1","propagationPolicy":"Foreground"}';

/** Each operation: the call, the request the server must see (on a server at `/k8s/`), its headers, the result. */
const REQUESTS: [
  string,
  (c: KubeClient) => Promise<unknown>,
  Record<string, string>,
  Record<string, string>,
  unknown,
][] = [
  [
    "create Job: POST, a JSON body and its length in bytes",
    (c: KubeClient) => c.createJob(JOB),
    { method: "POST", url: "/k8s/apis/batch/v1/namespaces/agents/jobs", body: JOB_TEXT },
    { ...AUTH, "content-type": "application/json", "content-length": "129" },
    ANSWER,
  ],
  [
    "get Job: GET, no body",
    (c: KubeClient) => c.getJob("agents", "j1"),
    { method: "GET", url: "/k8s/apis/batch/v1/namespaces/agents/jobs/j1", body: "" },
    AUTH,
    ANSWER,
  ],
  [
    "delete Job: DELETE with DeleteOptions and the propagation",
    (c: KubeClient) => c.deleteJob("agents", "j1", "Foreground"),
    { method: "DELETE", url: "/k8s/apis/batch/v1/namespaces/agents/jobs/j1", body: DELETE_OPTIONS },
    { ...AUTH, "content-type": "application/json", "content-length": "75" },
    true,
  ],
  [
    "list Pods: the selector encoded",
    (c: KubeClient) => c.listPods("agents", "ariel.dev/run=r1,app in (a,b)"),
    {
      method: "GET",
      url: "/k8s/api/v1/namespaces/agents/pods?labelSelector=ariel.dev%2Frun%3Dr1%2Capp%20in%20(a%2Cb)",
      body: "",
    },
    AUTH,
    { items: [{ metadata: { name: "p" } }], resourceVersion: "3" },
  ],
  [
    "read pod log: the container encoded, no option asked",
    (c: KubeClient) => text(c.podLog("agents", "p1", "run/main", { follow: false, sinceTime: null })),
    { method: "GET", url: "/k8s/api/v1/namespaces/agents/pods/p1/log?container=run%2Fmain", body: "" },
    AUTH,
    JSON.stringify(ANSWER),
  ],
];

describe("requests: the path under the server's own, the headers, the body; and the result", () => {
  it.each(REQUESTS)("%s", async (_name, call, request, headers, result) => {
    const api = await serve((_req, res) => send(res, 200, ANSWER));
    expect(await call(new KubeClient(access(`${api.origin}/k8s/`)))).toEqual(result);
    expect(requests(api.seen)).toEqual([{ ...request, headers, peer: null }]);
  });

  it("no token: no authorization header; a server at the root: the path alone", async () => {
    const api = await serve((_req, res) => send(res, 200, ANSWER));
    const c = new KubeClient(access(api.origin, { token: null }));
    expect(await c.getJob("ns-1", "j2")).toEqual(ANSWER);
    expect(api.seen.map((s) => [s.url, s.headers])).toEqual([
      ["/apis/batch/v1/namespaces/ns-1/jobs/j2", { accept: "application/json" }],
    ]);
  });
});

describe("results: what an answer parses to", () => {
  it.each([
    ["no items", 200, { metadata: { resourceVersion: "8" } }, { items: [], resourceVersion: "8" }],
    [
      "no resourceVersion",
      200,
      { metadata: {}, items: [{ metadata: { name: "p" } }] },
      { items: [{ metadata: { name: "p" } }], resourceVersion: "" },
    ],
    [
      "a number for resourceVersion",
      200,
      { metadata: { resourceVersion: 9 }, items: [] },
      { items: [], resourceVersion: "9" },
    ],
    ["404: no pods", 404, { message: "not found" }, { items: [], resourceVersion: "" }],
  ])("list Pods, %s", async (_name, status, body, want) => {
    const api = await serve((_req, res) => send(res, status, body));
    expect(await new KubeClient(access(api.origin)).listPods("agents", "a=b")).toEqual(want);
  });

  it.each([
    ["get Job", get],
    ["create Job", create],
    ["list Pods", list],
  ])("%s answered 200 with a body that is not JSON: ERR_BACKEND_UNAVAILABLE", async (op, call) => {
    const api = await serve((_req, res) => send(res, 200, "<html>proxy</html>"));
    expect(await failure(call(new KubeClient(access(api.origin))))).toEqual({
      code: "ERR_BACKEND_UNAVAILABLE",
      message: `Kubernetes API: ${op} answered HTTP 200 with a body that is not JSON`,
      hint: "plan with --dry-run -o yaml, or drop --backend k8s",
      exit: 69,
      unreachable: false,
      secret: false,
    });
  });

  it("get Job 404: null; delete Job 404: false, 202: true", async () => {
    const api = await serve((_req, res, n) => send(res, n === 3 ? 202 : 404, { message: "gone" }));
    const c = new KubeClient(access(api.origin));
    expect([
      await c.getJob("agents", "j1"),
      await c.deleteJob("agents", "j1", "Background"),
      await c.deleteJob("agents", "j1", "Background"),
    ]).toEqual([null, false, true]);
  });
});

const create = (c: KubeClient) => c.createJob(JOB);
const get = (c: KubeClient) => c.getJob("agents", "j1");
const del = (c: KubeClient) => c.deleteJob("agents", "j1", "Background");
const list = (c: KubeClient) => c.listPods("agents", "a=b");
const log = (c: KubeClient) => c.podLog("agents", "p1", "run");
const waiting = 'container "run" in pod "p1" is waiting to start: ContainerCreating';

/** Each operation answered with an HTTP error: the status, the body, the error. */
const HTTP_ERRORS: [
  string,
  (c: KubeClient) => Promise<unknown>,
  number,
  unknown,
  ReturnType<typeof refused>,
][] = [
  [
    "create Job 404 (a POST's 404 is no 'gone')",
    create,
    404,
    { message: 'namespaces "agents" not found' },
    refused('Kubernetes API: create Job failed with HTTP 404: namespaces "agents" not found'),
  ],
  ["get Job 500 without a message", get, 500, {}, refused("Kubernetes API: get Job failed with HTTP 500")],
  [
    "get Job 300",
    get,
    300,
    { message: "moved" },
    refused("Kubernetes API: get Job failed with HTTP 300: moved"),
  ],
  [
    "get Job 502, not JSON",
    get,
    502,
    "<html>bad gateway</html>",
    refused("Kubernetes API: get Job failed with HTTP 502"),
  ],
  [
    "delete Job 403",
    del,
    403,
    { message: "forbidden" },
    denied("Kubernetes API: delete Job failed with HTTP 403: forbidden"),
  ],
  [
    "list Pods 401, not JSON",
    list,
    401,
    "Unauthorized",
    denied("Kubernetes API: list Pods failed with HTTP 401"),
  ],
  [
    "read pod log 400",
    log,
    400,
    { message: waiting },
    refused(`Kubernetes API: read pod log failed with HTTP 400: ${waiting}`),
  ],
  ["read pod log 300", log, 300, "", refused("Kubernetes API: read pod log failed with HTTP 300")],
  [
    "read pod log 404",
    log,
    404,
    { message: 'pods "p1" not found' },
    refused('Kubernetes API: read pod log failed with HTTP 404: pods "p1" not found'),
  ],
  [
    "read pod log 403",
    log,
    403,
    { message: "forbidden" },
    denied("Kubernetes API: read pod log failed with HTTP 403: forbidden"),
  ],
];

describe("HTTP errors: the operation, the status, the API's message; 401 and 403 are access", () => {
  it.each(HTTP_ERRORS)("%s", async (_name, call, status, body, want) => {
    const api = await serve((_req, res) => send(res, status, body));
    expect(await failure(call(new KubeClient(access(api.origin))))).toEqual(want);
  });
});

describe("unreachable: refused or cut connections; the origin only, no password", () => {
  it.each([
    ["create Job", (c: KubeClient) => c.createJob(JOB)],
    ["get Job", (c: KubeClient) => c.getJob("agents", "j1")],
    ["delete Job", (c: KubeClient) => c.deleteJob("agents", "j1", "Foreground")],
    ["list Pods", (c: KubeClient) => c.listPods("agents", "a=b")],
    ["read pod log", (c: KubeClient) => c.podLog("agents", "p1", "run")],
  ])("%s: connection refused", async (_name, call) => {
    const port = await closedPort();
    const c = new KubeClient(access(`http://bot:${PASSWORD}@127.0.0.1:${port}/k8s/`));
    expect(await failure(call(c))).toEqual(
      unreachable(`http://127.0.0.1:${port}`, `connect ECONNREFUSED 127.0.0.1:${port}`),
    );
  });

  it("an answer cut halfway", async () => {
    const api = await serve((_req, res) => {
      res.writeHead(200, { "content-type": "application/json" });
      res.write('{"metadata":', () => setTimeout(() => res.socket?.destroy(), 20));
    });
    expect(await failure(new KubeClient(access(api.origin)).getJob("agents", "j1"))).toEqual(
      unreachable(api.origin, "aborted"),
    );
  });

  it.each([
    ["an ArielError of the same code", new ArielError("ERR_BACKEND_UNAVAILABLE", "cannot reach")],
    ["an Error", new Error("cannot reach")],
    ["null", null],
    ["a string", "ERR_BACKEND_UNAVAILABLE"],
  ])("isUnreachable: not %s", (_name, e) => {
    expect(isUnreachable(e)).toBe(false);
  });
});

/** Whether openssl is there to make the TLS tests' throwaway certificates (no key is kept in the repository). */
const HAS_OPENSSL = (() => {
  try {
    execFileSync("openssl", ["version"], { stdio: "ignore" });
    return true;
  } catch {
    return false;
  }
})();

describe.skipIf(!HAS_OPENSSL)("TLS: the cluster's CA, a client certificate, insecure-skip-tls-verify", () => {
  let pems: Record<"serverCert" | "serverKey" | "clientCert" | "clientKey", string>;
  let dir: string;
  beforeAll(() => {
    dir = tempDir("ariel-kube-tls-");
    const server = selfSigned(dir, "127.0.0.1", ["-addext", "subjectAltName=IP:127.0.0.1"]);
    const client = selfSigned(dir, "ariel-client");
    pems = { serverCert: server.cert, serverKey: server.key, clientCert: client.cert, clientKey: client.key };
  });
  afterAll(() => removeDir(dir));

  const tlsApi = () =>
    serve(
      (req, res) => send(res, 200, { metadata: { name: "j1" }, auth: req.headers.authorization ?? null }),
      { cert: pems.serverCert, key: pems.serverKey },
    );

  it("the CA verifies the server; the token is sent, no client certificate", async () => {
    const api = await tlsApi();
    const c = new KubeClient(access(api.origin, { ca: pems.serverCert }));
    expect(await c.getJob("agents", "j1")).toEqual({ metadata: { name: "j1" }, auth: `Bearer ${TOKEN}` });
    expect(api.seen.map((s) => s.peer)).toEqual([null]);
  });

  it("a client certificate and key are presented", async () => {
    const api = await tlsApi();
    const c = new KubeClient(
      access(api.origin, { ca: pems.serverCert, cert: pems.clientCert, key: pems.clientKey }),
    );
    expect(await c.getJob("agents", "j1")).toEqual({ metadata: { name: "j1" }, auth: `Bearer ${TOKEN}` });
    expect(api.seen.map((s) => s.peer)).toEqual(["ariel-client"]);
  });

  it("no CA: a self-signed server is not trusted, nothing reaches it", async () => {
    const api = await tlsApi();
    expect(await failure(new KubeClient(access(api.origin)).getJob("agents", "j1"))).toEqual(
      unreachable(api.origin, "self-signed certificate"),
    );
    expect(api.seen).toEqual([]);
  });

  it("insecure-skip-tls-verify: no CA needed", async () => {
    const api = await tlsApi();
    const c = new KubeClient(access(api.origin, { insecure: true, token: null }));
    expect(await c.getJob("agents", "j1")).toEqual({ metadata: { name: "j1" }, auth: null });
  });
});

/** A throwaway self-signed EC certificate and its key for CN `cn` (made by openssl), as PEM text. */
function selfSigned(dir: string, cn: string, extra: string[] = []): { cert: string; key: string } {
  const [cert, key] = [join(dir, `${cn}.crt`), join(dir, `${cn}.key`)];
  const curve = ["-newkey", "ec", "-pkeyopt", "ec_paramgen_curve:prime256v1"];
  execFileSync(
    "openssl",
    [
      "req",
      "-x509",
      ...curve,
      "-nodes",
      "-days",
      "2",
      "-subj",
      `/CN=${cn}`,
      ...extra,
      "-keyout",
      key,
      "-out",
      cert,
    ],
    {
      stdio: "ignore",
    },
  );
  return { cert: readFileSync(cert, "utf8"), key: readFileSync(key, "utf8") };
}

const ev = (type: string, name: string, rv: number | string) =>
  `${JSON.stringify({ type, object: { metadata: { name, resourceVersion: String(rv) } } })}\n`;
const WATCH =
  "/api/v1/namespaces/agents/pods?watch=1&allowWatchBookmarks=true&labelSelector=ariel.dev%2Frun%3Dr";

/** watchPods("agents", "ariel.dev/run=r", `rv`) until `stopAfter` events: the events, the URLs asked. */
async function watch(api: Awaited<ReturnType<typeof serve>>, rv: string, stopAfter: number) {
  const ac = new AbortController();
  const seen: string[] = [];
  const listeners: number[] = [];
  const done = new KubeClient(access(api.origin)).watchPods(
    "agents",
    "ariel.dev/run=r",
    rv,
    (e: WatchEvent) => {
      seen.push(`${e.type} ${e.object.metadata.name} ${e.object.metadata.resourceVersion}`);
      listeners.push(getEventListeners(ac.signal, "abort").length);
      if (seen.length === stopAfter) ac.abort();
    },
    ac.signal,
  );
  return { ended: await within(done), seen, listeners, urls: api.seen.map((s) => s.url) };
}

describe("watchPods: one stream", () => {
  it("lines across chunks, blank ones skipped; a bookmark moves on silently, an ERROR is skipped; abort closes the stream", async () => {
    const api = await serve((_req, res) => {
      res.writeHead(200);
      const deleted = ev("DELETED", "p1", 9);
      const error = '{"type":"ERROR","object":{"code":500}}\n';
      res.write(
        `\n${ev("ADDED", "p1", 6)}\n${ev("MODIFIED", "p1", 7)}${ev("BOOKMARK", "", 8)}${error}${deleted.slice(0, 20)}`,
      );
      // The last chunk: a line of blanks before the last event (nothing after it to carry that on).
      setTimeout(() => res.write(`${deleted.slice(20)} \t\n${ev("MODIFIED", "p1", 10)}`), 20);
    });
    expect(await watch(api, "5", 4)).toEqual({
      ended: undefined,
      seen: ["ADDED p1 6", "MODIFIED p1 7", "DELETED p1 9", "MODIFIED p1 10"],
      listeners: [1, 1, 1, 1],
      urls: [`${WATCH}&resourceVersion=5`],
    });
    expect(await until(() => api.seen[0]?.closed === true)).toBe(true);
  });

  it("aborted while a 410 ERROR ends the stream: returns, lists nothing", async () => {
    const api = await serve((_req, res) => {
      res.writeHead(200);
      res.end(`${ev("MODIFIED", "p1", 6)}{"type":"ERROR","object":{"code":410}}\n`);
    });
    expect(await watch(api, "5", 1)).toEqual({
      ended: undefined,
      seen: ["MODIFIED p1 6"],
      listeners: [1],
      urls: [`${WATCH}&resourceVersion=5`],
    });
  });
});

describe("watchPods: reopening", () => {
  it("a stream that ends or is cut reopens from the last resourceVersion (a bookmark's too), an ERROR that is not 410 lists nothing", async () => {
    const api = await serve((req, res, n) => {
      if (n === 2) return req.socket.destroy();
      res.writeHead(200);
      if (n === 1) res.end(`${ev("MODIFIED", "p1", 6)}{"type":"ERROR","object":{"code":500}}\n`);
      else if (n === 3) res.end(ev("BOOKMARK", "", 8));
      else res.write(ev("MODIFIED", "p1", 9));
    });
    expect(await watch(api, "5", 2)).toEqual({
      ended: undefined,
      seen: ["MODIFIED p1 6", "MODIFIED p1 9"],
      listeners: [1, 1],
      urls: [5, 6, 6, 8].map((rv) => `${WATCH}&resourceVersion=${rv}`),
    });
  });

  it("a line that is no event (a proxy's page, an object without metadata): the stream is dropped and reopened from the last resourceVersion", async () => {
    const api = await serve((_req, res, n) => {
      res.writeHead(200);
      if (n === 1) res.write(`${ev("MODIFIED", "p1", 6)}<html>oops</html>\n${ev("MODIFIED", "p1", 7)}`);
      else if (n === 2) res.write('{"type":"ADDED","object":{}}\n');
      else res.write(ev("MODIFIED", "p1", 9));
    });
    expect(await watch(api, "5", 2)).toEqual({
      ended: undefined,
      seen: ["MODIFIED p1 6", "MODIFIED p1 9"],
      listeners: [1, 1],
      urls: [5, 6, 6].map((rv) => `${WATCH}&resourceVersion=${rv}`),
    });
  });

  it("410 Gone as the answer: relists, every pod MODIFIED, then watches from the list's resourceVersion", async () => {
    const api = await serve((req, res) => {
      const rv = new URL(req.url ?? "", "http://x").searchParams.get("resourceVersion");
      if (!req.url?.includes("watch=1"))
        return send(res, 200, {
          metadata: { resourceVersion: "30" },
          items: [
            { metadata: { name: "p2", resourceVersion: "20" } },
            { metadata: { name: "p3", resourceVersion: "21" } },
          ],
        });
      if (rv === "old")
        return send(res, 410, { kind: "Status", code: 410, message: "too old resource version" });
      res.writeHead(200);
      res.write(ev("ADDED", "p4", 31));
    });
    expect(await watch(api, "old", 3)).toEqual({
      ended: undefined,
      seen: ["MODIFIED p2 20", "MODIFIED p3 21", "ADDED p4 31"],
      listeners: [0, 0, 1],
      urls: [
        `${WATCH}&resourceVersion=old`,
        "/api/v1/namespaces/agents/pods?labelSelector=ariel.dev%2Frun%3Dr",
        `${WATCH}&resourceVersion=30`,
      ],
    });
  });
});

describe("watchPods: the pause before reopening", () => {
  it("reopens 100 ms after a stream ends, not before", async () => {
    vi.useFakeTimers({ toFake: ["setTimeout"] });
    const api = await serve((_req, res, n) => {
      res.writeHead(200);
      if (n === 1) res.end();
      else res.write(ev("ADDED", "p1", 6));
    });
    const w = watch(api, "5", 1);
    expect(await until(() => api.seen[0]?.closed === true && vi.getTimerCount() === 1)).toBe(true);
    vi.advanceTimersByTime(99);
    expect([api.seen.length, vi.getTimerCount()]).toEqual([1, 1]);
    vi.advanceTimersByTime(1);
    vi.useRealTimers();
    expect(await w).toEqual({
      ended: undefined,
      seen: ["ADDED p1 6"],
      listeners: [1],
      urls: [`${WATCH}&resourceVersion=5`, `${WATCH}&resourceVersion=5`],
    });
  });
});

describe("clientFor: one client per kubeconfig file", () => {
  function kubeconfig(dir: string, name: string, server: string): string {
    const f = join(dir, name);
    writeFile(
      f,
      `current-context: c\ncontexts: [{name: c, context: {cluster: k, user: u}}]\nclusters: [{name: k, cluster: {server: '${server}'}}]\nusers: [{name: u, user: {token: ${TOKEN}}}]\n`,
    );
    return f;
  }

  it("the same file: the same client, which uses its server and token; another file: another", async () => {
    const api = await serve((_req, res) => send(res, 200, ANSWER));
    const dir = tempDir("ariel-kube-for-");
    dirs.push(dir);
    const [a, b] = [kubeconfig(dir, "a", api.origin), kubeconfig(dir, "b", api.origin)];
    const first = clientFor(a);
    expect([clientFor(a) === first, clientFor(b) === first]).toEqual([true, false]);
    expect(await (await first).getJob("agents", "j1")).toEqual(ANSWER);
    expect(api.seen.map((s) => s.headers.authorization)).toEqual([`Bearer ${TOKEN}`]);
  });

  it("a file that cannot be read: ERR_NOINPUT, and the same answer again (not read twice)", async () => {
    const dir = tempDir("ariel-kube-for-");
    dirs.push(dir);
    const f = join(dir, "absent");
    const first = clientFor(f);
    expect(await failure(first)).toEqual({
      code: "ERR_NOINPUT",
      message: `cannot read the kubeconfig ${f}`,
      hint: "pass --kubeconfig FILE or set KUBECONFIG",
      exit: 66,
      unreachable: false,
      secret: false,
    });
    kubeconfig(dir, "absent", "http://127.0.0.1:1");
    expect(clientFor(f)).toBe(first);
  });
});
