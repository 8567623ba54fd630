import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { BASE, type FleetWorld, fleetWorld, HOST, json, NO_RUN, RUN } from "./_app_fixture.ts";
import { dashboardFile } from "./assets.ts";
import { allowedHosts, SECURITY_HEADERS } from "./guard.ts";

// The guard in front of every route of the app, in this process: the Host header (DNS
// rebinding), the bearer token and the dashboard's open files, the content type and origin of a
// mutation, and a sandboxed client. The served bundle is test/fleet-api.test.ts.

const TOKEN = "correct-horse-battery-staple";
const hosts = () => allowedHosts("127.0.0.1", 8080, []);
/** Which client ports the sandbox check was asked about, and with which server port. */
const asked: [number, number][] = [];
const SANDBOXED_PORT = 40001;

let open: FleetWorld;
let guarded: FleetWorld;
beforeAll(async () => {
  const fromSandbox = (remote: number, server: number) => {
    asked.push([remote, server]);
    return remote === SANDBOXED_PORT;
  };
  open = await fleetWorld({ guard: { hosts, token: null, fromSandbox } });
  guarded = await fleetWorld({ guard: { hosts, token: TOKEN } });
});
afterAll(() => {
  open.dispose();
  guarded.dispose();
});

const error = (code: string, message: string, hint: string, exit: number) => ({
  v: 1,
  type: "error",
  code,
  message,
  hint,
  exit,
});
const MISDIRECTED_HINT = "use the address the server listens on (its Host header must match)";
const misdirected = (host: string) =>
  error(
    "ERR_MISDIRECTED",
    `this server does not answer to host ${JSON.stringify(host)}`,
    MISDIRECTED_HINT,
    77,
  );
const FORBIDDEN_HINT =
  "send mutations as application/json, from the server's own origin or without an Origin";
const forbidden = (message: string) => error("ERR_FORBIDDEN", message, FORBIDDEN_HINT, 77);
const UNAUTHORIZED = error(
  "ERR_UNAUTHORIZED",
  "missing or wrong bearer token",
  "send Authorization: Bearer <the token in the server's --token-file>",
  77,
);

/** A request to `path` with exactly these headers (no Host unless given). */
function request(w: FleetWorld, path: string, init: RequestInit & { headers: Record<string, string> }) {
  return w.fetch(new Request(`${BASE}${path}`, init));
}

describe("Host", () => {
  it.each([["evil.example:80"], ["evil.example:8080"], ["127.0.0.1:8081"], ["127.0.0.1"], [""]])(
    "%j is 421, with every security header",
    async (host) => {
      const res = await request(open, "/api/fleet", { headers: { host } });
      expect(Object.fromEntries(res.headers)).toEqual({
        ...SECURITY_HEADERS,
        "content-type": "application/json",
      });
      expect(await json(res)).toEqual({ status: 421, body: misdirected(host) });
    },
  );

  it("a Host of over 200 characters is cut in the message", async () => {
    const host = `${"a".repeat(300)}:8080`;
    const res = await json(await request(open, "/healthz", { headers: { host } }));
    expect(res).toEqual({ status: 421, body: misdirected("a".repeat(200)) });
  });

  it.each(["127.0.0.1:8080", "localhost:8080", "LOCALHOST:8080", "[::1]:8080"])(
    "%s is served",
    async (host) => {
      expect((await request(open, "/healthz", { headers: { host } })).status).toBe(200);
    },
  );

  it("comes first: an unknown route, a mutation, a page or the token with a foreign Host is 421", async () => {
    const foreign = { host: "evil.example:8080" };
    const statuses = [
      (await request(open, "/api/nope", { headers: foreign })).status,
      (await request(open, `/api/runs/${RUN}/kill`, { method: "POST", headers: foreign })).status,
      (await request(guarded, "/", { headers: foreign })).status,
      (await request(guarded, "/api/fleet", { headers: { ...foreign, authorization: `Bearer ${TOKEN}` } }))
        .status,
    ];
    expect(statuses).toEqual([421, 421, 421, 421]);
  });
});

describe("a bearer token", () => {
  it.each([
    ["no token", {}, 401],
    ["a wrong token", { authorization: `Bearer ${TOKEN}r` }, 401],
    ["a shorter token", { authorization: "Bearer correct" }, 401],
    ["another scheme", { authorization: `Basic ${TOKEN}` }, 401],
    ["two words", { authorization: `Bearer ${TOKEN} x` }, 401],
    ["the token", { authorization: `Bearer ${TOKEN}` }, 200],
    ["the token, the scheme in lower case, two spaces", { authorization: `bearer  ${TOKEN}` }, 200],
  ])("%s: %s on every API route", async (_n, headers: Record<string, string>, status) => {
    for (const path of ["/api/fleet", "/healthz", "/readyz", `/api/runs/${RUN}/events`]) {
      const res = await guarded.get(path, headers);
      const body = await res.text();
      expect([path, res.status, status === 401 ? JSON.parse(body) : null]).toEqual([
        path,
        status,
        status === 401 ? UNAUTHORIZED : null,
      ]);
    }
  });

  it("an unknown route without the token is 401, not 404 (nothing is told without it)", async () => {
    expect(await json(await guarded.get("/api/nope"))).toEqual({ status: 401, body: UNAUTHORIZED });
  });

  it("the dashboard's files are served without it (they hold no data); the page says it needs one", async () => {
    for (const name of ["app.js", "app.css", "favicon.svg", "xterm.js", "xterm.css"]) {
      const res = await guarded.get(`/${name}`);
      expect([name, res.status, await res.text()]).toEqual([name, 200, dashboardFile(name)]);
    }
    const page = await guarded.get("/");
    const html = dashboardFile("index.html")!.replace(
      '<html lang="en">',
      '<html lang="en" data-auth="bearer">',
    );
    expect([page.status, await page.text()]).toEqual([200, html]);
    expect(html).toContain('data-auth="bearer"');
  });

  it("only a GET or HEAD of them: a POST there needs the token, and /index.html is no open file", async () => {
    const post = await request(guarded, "/", {
      method: "POST",
      headers: { host: HOST, "content-type": "application/json" },
    });
    const head = await request(guarded, "/app.css", { method: "HEAD", headers: { host: HOST } });
    expect([await json(post), head.status]).toEqual([{ status: 401, body: UNAUTHORIZED }, 200]);
    expect((await guarded.get("/index.html")).status).toBe(401);
    expect((await guarded.get("/app.js/")).status).toBe(401);
  });
});

describe("a mutation", () => {
  const kill = (headers: Record<string, string>) =>
    // (Bytes, not a string: a string body would bring its own text/plain content type.)
    request(open, `/api/runs/${NO_RUN}/kill`, {
      method: "POST",
      body: new TextEncoder().encode("{}"),
      headers: { host: HOST, ...headers },
    });

  it.each([
    [
      "a form content type",
      { "content-type": "application/x-www-form-urlencoded" },
      'a POST must be application/json, not "application/x-www-form-urlencoded"',
    ],
    [
      "text/plain",
      { "content-type": "text/plain;charset=utf-8" },
      'a POST must be application/json, not "text/plain"',
    ],
    ["no content type", {}, 'a POST must be application/json, not ""'],
    [
      "a foreign Origin",
      { "content-type": "application/json", origin: "http://evil.example" },
      'a POST from origin "http://evil.example" is refused',
    ],
    [
      "a null Origin",
      { "content-type": "application/json", origin: "null" },
      'a POST from origin "null" is refused',
    ],
    [
      "the https Origin of the host",
      { "content-type": "application/json", origin: `https://${HOST}` },
      `a POST from origin "https://${HOST}" is refused`,
    ],
    [
      "a cross-site fetch",
      { "content-type": "application/json", "sec-fetch-site": "cross-site" },
      "a cross-site POST is refused",
    ],
  ])("with %s is 403 and reaches no run", async (_n, headers: Record<string, string>, message) => {
    expect(await json(await kill(headers))).toEqual({ status: 403, body: forbidden(message) });
  });

  it.each([
    ["no Origin (curl)", { "content-type": "application/json" }],
    [
      "the server's own Origin, a charset",
      { "content-type": "Application/JSON; charset=utf-8", origin: BASE },
    ],
    ["a same-origin fetch", { "content-type": "application/json", "sec-fetch-site": "same-origin" }],
  ])("with %s passes the guard (the run is then not found)", async (_n, headers: Record<string, string>) => {
    const res = await json(await kill(headers));
    expect([res.status, (res.body as { code: string }).code]).toEqual([404, "ERR_RUN_NOT_FOUND"]);
  });

  it("a GET needs no content type and may come from any Origin (it changes nothing)", async () => {
    const res = await open.get("/healthz", { "content-type": "text/plain", origin: "http://evil.example" });
    expect(res.status).toBe(200);
  });
});

describe("a sandboxed client", () => {
  it("is 403 whatever it asks; the check is asked with the client's and the server's port", async () => {
    const sandboxed = { remotePort: SANDBOXED_PORT };
    const message = "a sandboxed run may not use the fleet's API";
    const hint = "the fleet starts and feeds runs outside any sandbox; use it from outside (docs/sandbox.md)";
    for (const path of ["/healthz", "/api/fleet", "/"]) {
      const res = await open.fetch(new Request(`${BASE}${path}`, { headers: { host: HOST } }), sandboxed);
      expect([path, await json(res)]).toEqual([
        path,
        { status: 403, body: error("ERR_FORBIDDEN", message, hint, 77) },
      ]);
    }
    const other = await open.fetch(new Request(`${BASE}/healthz`, { headers: { host: HOST } }), {
      remotePort: 40002,
    });
    expect(other.status).toBe(200);
    expect((await open.get("/healthz")).status).toBe(200);
    // (Each client port is asked once while its answer is fresh: a set, not a count, is pinned.)
    expect([...new Set(asked.map((x) => x.join(":")))]).toEqual([`${SANDBOXED_PORT}:8080`, "40002:8080"]);
  });
});
