import { hostname } from "node:os";
import { join } from "node:path";
import { workspaceHash } from "@ariel/core";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { removeDir, tempDir, writeFile } from "../../../core/src/host/_fixture.ts";
import { at, type FleetWorld, fleetWorld, json, NO_RUN, RUN } from "./_app_fixture.ts";
import { dashboardFile } from "./assets.ts";
import type { RunControl } from "./control.ts";
import { CSP, SECURITY_HEADERS } from "./guard.ts";

// The fleet's HTTP app in this process (no socket): every read route over a real workspace and
// its run history, and how every error is answered. The served bundle is test/fleet-api.test.ts.

let w: FleetWorld;
const NOW = Date.parse(at(30));
beforeEach(async () => {
  w = await fleetWorld({ now: () => NOW });
});
afterEach(() => w.dispose());

/** Every header of a response (the security headers and the content type among them). */
const headersOf = (res: Response) => Object.fromEntries(res.headers);

/** The security headers with the given content type (and more). */
const withType = (type: string, more: Record<string, string> = {}) => ({
  ...SECURITY_HEADERS,
  "content-type": type,
  ...more,
});

/** The workspace record of the world: one source besides the root, its one run exited. */
const workspaceRecord = (w: FleetWorld) => ({
  v: 1,
  type: "workspace",
  root: w.ws,
  hash: w.known.hash,
  origin: "flag",
  health: "ok",
  sources: 2,
  tasks: { active: 0, cleaning: 0, closed: 0, unknown: 0 },
  runs: { starting: 0, running: 0, exited: 1, failed: 0, killed: 0, lost: 0, crashed: 0 },
  kept: 0,
  sandboxed: 0,
  problems: 0,
  skipped: 0,
});

/** The view of the world's finished run (its credential gone from its last line). */
const runView = (w: FleetWorld) => ({
  v: 1,
  type: "run",
  runId: RUN,
  workspace: { root: w.ws, hash: w.known.hash },
  kind: "foreground",
  name: null,
  group: null,
  state: "exited",
  sources: ["api"],
  task: null,
  branch: null,
  argv: ["make", "test"],
  startedAt: at(0),
  endedAt: at(6),
  status: 0,
  respawnOf: null,
  lastSeq: 7,
  lastLine: "https://example.com/r.git",
  kept: null,
});

describe("read routes", () => {
  it("GET /healthz: the health reply, JSON, with every security header", async () => {
    const res = await w.get("/healthz");
    expect(headersOf(res)).toEqual(withType("application/json"));
    expect(await json(res)).toEqual({ status: 200, body: { v: 1, type: "health", ok: true } });
  });

  it("GET /readyz: how many workspaces, and how many registry entries could not be read", async () => {
    const body = { v: 1, type: "ready", ready: true, workspaces: 1, problems: 0 };
    expect(await json(await w.get("/readyz"))).toEqual({ status: 200, body });
  });

  it("GET /api/fleet: the snapshot at the app's clock; /api/workspaces: its workspaces", async () => {
    const fleet = {
      v: 1,
      type: "fleet",
      host: hostname(),
      generatedAt: at(30),
      workspaces: [workspaceRecord(w)],
    };
    expect(await json(await w.get("/api/fleet"))).toEqual({ status: 200, body: fleet });
    expect(await json(await w.get("/api/workspaces"))).toEqual({ status: 200, body: [workspaceRecord(w)] });
  });

  it("GET /api/workspaces/{hash}: one workspace's view", async () => {
    const res = await w.get(`/api/workspaces/${w.known.hash}`);
    expect(await json(res)).toEqual({ status: 200, body: workspaceRecord(w) });
  });

  it("GET …/sources: the root and the source api, each a checkout on main", async () => {
    const head = (await json(await w.get(`/api/workspaces/${w.known.hash}/sources`))).body as {
      head: string;
    }[];
    const source = (name: string, path: string) => ({
      name,
      path,
      kind: "checkout",
      gitDir: `${path}/.git`,
      head: head[0]!.head,
      branch: "main",
    });
    expect(head).toEqual([source(".", w.ws), source("api", `${w.ws}/api`)]);
    expect(head[0]!.head).toMatch(/^[0-9a-f]{40}$/);
  });

  it("GET …/tasks: none yet", async () => {
    expect(await json(await w.get(`/api/workspaces/${w.known.hash}/tasks`))).toEqual({
      status: 200,
      body: [],
    });
  });

  it.each([
    ["", [RUN]],
    ["?state=exited", [RUN]],
    ["?state=running", []],
    ["?state=", []],
  ])("GET …/runs%s: the run views in that state", async (query, ids) => {
    const res = await json(await w.get(`/api/workspaces/${w.known.hash}/runs${query}`));
    expect(res).toEqual({ status: 200, body: ids.map(() => runView(w)) });
  });

  it("GET /api/runs/{id}: the run's view, found in any workspace of the fleet", async () => {
    expect(await json(await w.get(`/api/runs/${RUN}`))).toEqual({ status: 200, body: runView(w) });
  });
});

describe("the dashboard", () => {
  it.each([
    ["/", "index.html", "text/html; charset=utf-8"],
    ["/app.js", "app.js", "text/javascript; charset=utf-8"],
    ["/app.css", "app.css", "text/css; charset=utf-8"],
    ["/favicon.svg", "favicon.svg", "image/svg+xml"],
    ["/xterm.js", "xterm.js", "text/javascript; charset=utf-8"],
    ["/xterm.css", "xterm.css", "text/css; charset=utf-8"],
  ])("GET %s: the file %s as it is, with its type and the strict CSP", async (path, name, type) => {
    const res = await w.get(path);
    expect([res.status, headersOf(res), await res.text()]).toEqual([
      200,
      withType(type),
      dashboardFile(name),
    ]);
    expect(res.headers.get("content-security-policy")).toBe(CSP);
  });

  it("without a token the page has no data-auth", async () => {
    const html = await (await w.get("/")).text();
    expect([html.includes('<html lang="en">'), html.includes("data-auth")]).toEqual([true, false]);
  });
});

/** The error record of `code` as the app answers it: v and type first, then the rest. */
function errorBody(code: string, message: string, hint: string, exit: number, context = {}) {
  return { v: 1, type: "error", code, message, hint, exit, ...context };
}

const noWorkspace = (hash: string) =>
  errorBody(
    "ERR_WORKSPACE_NOT_FOUND",
    `no workspace "${hash}" in the fleet`,
    "GET /api/workspaces lists them",
    66,
    {
      workspace: hash,
    },
  );
const noRun = (id: string) =>
  errorBody(
    "ERR_RUN_NOT_FOUND",
    `no run "${id}" in the fleet`,
    "run ariel-runs list --all to see the runs",
    66,
    {
      runId: id,
    },
  );
const pathEscape = (what: string, value: string) =>
  errorBody(
    "ERR_PATH_ESCAPE",
    `${what} ${JSON.stringify(value)} is not a plain name`,
    "paths must stay inside the workspace root",
    77,
    { [what]: value },
  );
const NO_ROUTE = errorBody("ERR_NOINPUT", "no such route", "the API reference is in docs/fleet.md", 66);
const UNKNOWN = "0123456789abcdef";

describe("errors: the CLI's error record with an HTTP status", () => {
  it.each([
    ["an unknown workspace", `/api/workspaces/${UNKNOWN}`, 404, noWorkspace(UNKNOWN)],
    ["a malformed workspace", "/api/workspaces/zz/runs", 404, noWorkspace("zz")],
    ["an unknown workspace's sources", `/api/workspaces/${UNKNOWN}/sources`, 404, noWorkspace(UNKNOWN)],
    ["an unknown workspace's tasks", `/api/workspaces/${UNKNOWN}/tasks`, 404, noWorkspace(UNKNOWN)],
    ["an unknown run", `/api/runs/${NO_RUN}`, 404, noRun(NO_RUN)],
    ["a malformed run", "/api/runs/nope", 404, noRun("nope")],
    ["an unknown run's events", `/api/runs/${NO_RUN}/events`, 404, noRun(NO_RUN)],
    ["an unknown run's stream", `/api/runs/${NO_RUN}/stream`, 404, noRun(NO_RUN)],
    ["an unknown route", "/api/nope", 404, NO_ROUTE],
    ["a static path escape", "/..%2F..%2Fetc%2Fpasswd", 404, NO_ROUTE],
    ["../ in a run id", "/api/runs/..%2F..%2Fetc%2Fpasswd", 403, pathEscape("run", "../../etc/passwd")],
    ["../ in a run's events", "/api/runs/..%2Fx/events", 403, pathEscape("run", "../x")],
    ["../ in a run's stream", "/api/runs/%2e%2e%2f%2e%2e%2fx/stream", 403, pathEscape("run", "../../x")],
    [
      "../ in a workspace",
      "/api/workspaces/..%2F..%2Fetc/sources",
      403,
      pathEscape("workspace", "../../etc"),
    ],
    ["a backslash", "/api/workspaces/a%5Cb/tasks", 403, pathEscape("workspace", "a\\b")],
    ["a NUL", "/api/runs/x%00y", 403, pathEscape("run", "x\0y")],
    ["an absolute run id", "/api/runs/%2Fetc%2Fpasswd", 403, pathEscape("run", "/etc/passwd")],
    ["a bare ..", "/api/workspaces/../tasks", 404, NO_ROUTE],
  ])("%s: %s is %s", async (_n, path, status, body) => {
    const res = await w.get(path);
    expect(headersOf(res)).toEqual(withType("application/json"));
    const text = await res.text();
    expect([res.status, JSON.parse(text), text.endsWith("}\n")]).toEqual([status, body, true]);
    expect(Object.keys(JSON.parse(text)).slice(0, 2)).toEqual(["v", "type"]);
  });
});

describe("405", () => {
  it.each([
    ["DELETE", "/api/fleet", "/api/fleet"],
    ["POST", "/api/fleet", "/api/fleet"],
    ["PUT", `/api/runs/${RUN}`, "/api/runs/:id"],
    ["GET", `/api/runs/${RUN}/kill`, "/api/runs/:id/kill"],
    ["GET", "/api/workspaces/0123456789abcdef/tasks/t1/land", "/api/workspaces/:hash/tasks/:task/land"],
    ["POST", "/healthz", "/healthz"],
  ])("%s %s: a known path with another method is 405", async (method, path, pattern) => {
    const res = await w.fetch(
      new Request(`http://127.0.0.1:8080${path}`, {
        method,
        headers: { host: "127.0.0.1:8080", "content-type": "application/json" },
      }),
    );
    const body = errorBody(
      "ERR_USAGE",
      `${method} is not allowed on ${pattern}`,
      "run with --help to see the flags",
      64,
    );
    expect([headersOf(res), await json(res)]).toEqual([withType("application/json"), { status: 405, body }]);
  });
});

/** A RunControl that answers each call with a fixed value and records what it was asked. */
function recordingControl(calls: unknown[][]): RunControl {
  const view = { v: 1, type: "run", runId: "20261202T110001Z-cccccc" } as never;
  const record = <T>(call: unknown[], answer: T): T => {
    calls.push(call);
    return answer;
  };
  return {
    spawn: async (ws, body) => record(["spawn", ws.hash, body], [view]),
    kill: async (ws, run, body) => record(["kill", ws.hash, run.runId, body], view),
    respawn: async (ws, run, body) => record(["respawn", ws.hash, run.runId, body], view),
    input: async (ws, run, body) => record(["input", ws.hash, run.runId, body], undefined),
    settled: async () => {},
  };
}

describe("mutations: the control's answer with its status", () => {
  const view = { v: 1, type: "run", runId: "20261202T110001Z-cccccc" };

  it("spawn 201, kill 202, respawn 201, input 200: each with the workspace, the run and the body", async () => {
    const calls: unknown[][] = [];
    const x = await fleetWorld({ control: recordingControl(calls) });
    try {
      const hash = x.known.hash;
      expect(await json(await x.post(`/api/workspaces/${hash}/runs`, '{"argv":["true"]}'))).toEqual({
        status: 201,
        body: [view],
      });
      expect(await json(await x.post(`/api/runs/${RUN}/kill`, '{"graceMs":5}'))).toEqual({
        status: 202,
        body: view,
      });
      expect(await json(await x.post(`/api/runs/${RUN}/respawn`, ""))).toEqual({ status: 201, body: view });
      const ok = { v: 1, type: "ok", runId: RUN };
      expect(await json(await x.post(`/api/runs/${RUN}/input`, ' {"data":"x"} '))).toEqual({
        status: 200,
        body: ok,
      });
      expect(calls).toEqual([
        ["spawn", hash, { argv: ["true"] }],
        ["kill", hash, RUN, { graceMs: 5 }],
        ["respawn", hash, RUN, {}],
        ["input", hash, RUN, { data: "x" }],
      ]);
    } finally {
      x.dispose();
    }
  });
});

describe("mutations: the body is a JSON object of 64 KiB at most", () => {
  const bad = (message: string) =>
    errorBody("ERR_INVALID_INPUT", message, "check the input record against docs/schema", 65);
  it.each([
    ["an array", "[1]", bad("request body must be a JSON object")],
    ["null", "null", bad("request body must be a JSON object")],
    ["a number", "3", bad("request body must be a JSON object")],
    ["a string", '"x"', bad("request body must be a JSON object")],
    ["not JSON", "{argv", bad("request body is not JSON")],
    ["over 64 KiB", `{"argv":["${"x".repeat(64 * 1024)}"]}`, bad("request body over 65536 bytes")],
  ])("a body that is %s is 400 and reaches no control", async (_n, text, body) => {
    for (const path of [
      `/api/workspaces/${w.known.hash}/runs`,
      `/api/runs/${RUN}/kill`,
      `/api/workspaces/${w.known.hash}/tasks/t1/land`,
    ]) {
      expect([path, await json(await w.post(path, text))]).toEqual([path, { status: 400, body }]);
    }
  });

  it("a body of exactly 64 KiB is read", async () => {
    const calls: unknown[][] = [];
    const x = await fleetWorld({ control: recordingControl(calls) });
    try {
      const text = `{"data":"${"x".repeat(64 * 1024 - 11)}"}`;
      expect(text.length).toBe(64 * 1024);
      expect((await x.post(`/api/runs/${RUN}/input`, text)).status).toBe(200);
      expect(calls).toHaveLength(1);
    } finally {
      x.dispose();
    }
  });
});

describe("an internal error", () => {
  it("an error that is no ArielError is 500 ERR_INTERNAL, told to onInternalError; an ArielError is not", async () => {
    const seen: unknown[] = [];
    const boom = new Error("disk on fire\nsecond line");
    const control = { ...recordingControl([]), spawn: () => Promise.reject(boom) };
    const x = await fleetWorld({ control, onInternalError: (e) => seen.push(e) });
    try {
      const res = await x.post(`/api/workspaces/${x.known.hash}/runs`, "{}");
      const hint = "this is a bug in ariel; please report it with the stack trace";
      expect(await json(res)).toEqual({
        status: 500,
        body: errorBody("ERR_INTERNAL", "internal error: disk on fire", hint, 70),
      });
      expect((await x.get(`/api/runs/${NO_RUN}`)).status).toBe(404);
      expect(seen).toEqual([boom]);
    } finally {
      x.dispose();
    }
  });
});

describe("the registry: a workspace whose root is gone, an entry that cannot be read", () => {
  it("readyz counts both; the gone one is in the fleet with health gone and nothing in it", async () => {
    const gone = tempDir("ariel-fleet-app-gone-");
    const hash = await workspaceHash(gone);
    const entries = join(w.state, "workspaces");
    writeFile(join(entries, `${hash}.json`), JSON.stringify({ v: 1, root: gone, hash, firstSeen: at(0) }));
    writeFile(join(entries, "bad.json"), "{");
    removeDir(gone);
    const ready = { v: 1, type: "ready", ready: true, workspaces: 2, problems: 1 };
    expect(await json(await w.get("/readyz"))).toEqual({ status: 200, body: ready });
    const listed = (await json(await w.get("/api/workspaces"))).body as { hash: string; health: string }[];
    const mine = listed.find((x) => x.hash === hash)!;
    expect([listed.length, mine.health, mine.hash]).toEqual([2, "gone", hash]);
    for (const route of ["sources", "tasks"]) {
      expect([route, await json(await w.get(`/api/workspaces/${hash}/${route}`))]).toEqual([
        route,
        { status: 200, body: [] },
      ]);
    }
  });
});
