/**
 * ariel-fleet serve's HTTP API against a real server on 127.0.0.1 (an ephemeral port) over real
 * workspaces and real run histories: every route, every error status, SSE replay and resume,
 * concurrent streams, and the guard (Host, Origin, content type, token, path escapes).
 */
import { chmodSync, mkdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { dirname, join } from "node:path";
import { Ajv2020, type ValidateFunction } from "ajv/dist/2020.js";
import { afterAll, beforeAll, describe, expect, it, vi } from "vitest";
import {
  finishedRun,
  heldTicker,
  httpRequest,
  type LiveRun,
  liveRun,
  monitorGone,
  readSse,
  register,
  type Server,
  type SseMessage,
  seqs,
  serve,
  stateHome,
  ticker,
  workspace,
} from "./fleet_helpers.ts";
import { REPO_ROOT, records, runAriel } from "./helpers/cli.ts";
import { removeDir, tempDir } from "./helpers/git.ts";

const NO_RUN = "20200101T000000Z-aaaaaa";
let state: { dir: string; env: Record<string, string> };
let rootA: string;
let rootB: string;
let gone: string;
let hashA: string;
let hashB: string;
let hashGone: string;
let doneRun: string;
let server: Server;
const dirs: string[] = [];

async function get(path: string, headers: Record<string, string> = {}) {
  const res = await httpRequest(`${server.url}${path.replace(/^\//, "")}`, { headers });
  return { status: res.status, headers: res.headers, body: res.text === "" ? null : JSON.parse(res.text) };
}

async function post(path: string, body: string, headers: Record<string, string> = {}) {
  const res = await httpRequest(`${server.url}${path.replace(/^\//, "")}`, { method: "POST", body, headers });
  return { status: res.status, body: JSON.parse(res.text) };
}

beforeAll(async () => {
  state = stateHome();
  rootA = workspace(["api"]);
  rootB = workspace();
  gone = tempDir("ariel-fleet-gone-");
  dirs.push(state.dir, rootA, rootB, gone);
  hashA = await register(state.dir, rootA);
  hashB = await register(state.dir, rootB);
  hashGone = await register(state.dir, gone);
  removeDir(gone);
  doneRun = await finishedRun(rootA, [
    "sh",
    "-c",
    "echo one; echo two >&2; echo https://user:s3cret@example.com/r.git",
  ]);
  server = await serve([], state.env);
});

afterAll(async () => {
  await server?.stop();
  for (const d of dirs) removeDir(d);
});

describe("read routes", () => {
  it("GET /healthz and /readyz", async () => {
    expect((await get("/healthz")).body).toEqual({ v: 1, type: "health", ok: true });
    expect((await get("/readyz")).body).toEqual({
      v: 1,
      type: "ready",
      ready: true,
      workspaces: 3,
      problems: 0,
    });
  });

  it("docs/fleet.md shows the bodies /healthz and /readyz answer (its API table is made from the routes)", async () => {
    const doc = readFileSync(join(REPO_ROOT, "docs/fleet.md"), "utf8");
    const row = (path: string) => doc.split("\n").find((l) => l.startsWith(`| GET    | \`${path}\``)) ?? "";
    expect(row("/healthz")).toContain(`\`${JSON.stringify((await get("/healthz")).body)}\``);
    expect(row("/readyz")).toContain('`{"v":1,"type":"ready","ready":true,"workspaces":N,"problems":N}`');
  });

  it("GET /api/fleet: every registered workspace, the gone one kept", async () => {
    const { status, body } = await get("/api/fleet");
    expect(status).toBe(200);
    expect(body.type).toBe("fleet");
    const byHash = Object.fromEntries(body.workspaces.map((w: { hash: string }) => [w.hash, w]));
    expect(byHash[hashA]).toMatchObject({
      root: rootA,
      health: "ok",
      sources: 2,
      runs: { exited: 1, running: 0 },
      tasks: { active: 0 },
    });
    expect(byHash[hashB]).toMatchObject({ root: rootB, health: "ok", sources: 1, runs: { exited: 0 } });
    expect(byHash[hashGone]).toMatchObject({ root: gone, health: "gone", sources: 0 });
    expect((await get("/api/workspaces")).body).toEqual(body.workspaces);
  });

  it("GET /api/workspaces/{hash} and its sources, tasks, runs", async () => {
    expect((await get(`/api/workspaces/${hashA}`)).body).toMatchObject({ hash: hashA, health: "ok" });
    const sources = (await get(`/api/workspaces/${hashA}/sources`)).body;
    expect(sources.map((s: { name: string }) => s.name)).toEqual([".", "api"]);
    expect((await get(`/api/workspaces/${hashA}/tasks`)).body).toEqual([]);
    const runs = (await get(`/api/workspaces/${hashA}/runs`)).body;
    expect(runs.map((r: { runId: string; state: string }) => [r.runId, r.state])).toEqual([
      [doneRun, "exited"],
    ]);
    expect((await get(`/api/workspaces/${hashA}/runs?state=running`)).body).toEqual([]);
    expect((await get(`/api/workspaces/${hashGone}/sources`)).body).toEqual([]);
  });

  it("GET /api/runs/{id} and its events from a seq", async () => {
    const run = (await get(`/api/runs/${doneRun}`)).body;
    expect(run).toMatchObject({
      runId: doneRun,
      workspace: { root: rootA, hash: hashA },
      state: "exited",
      status: 0,
      lastSeq: 7,
      task: null,
      branch: null,
    });
    const all = (await get(`/api/runs/${doneRun}/events`)).body;
    expect(all.map((e: { seq: number; event: string }) => `${e.seq}:${e.event}`)).toEqual([
      "1:run.started",
      "2:run.state",
      "3:output",
      "4:output",
      "5:output",
      "6:run.exited",
      "7:run.state",
    ]);
    // its last line: that of the last output event of its history (stderr's may come last)
    const last = all.findLast((e: { event: string }) => e.event === "output").data.trimEnd();
    expect([run.lastLine, ["two", "https://example.com/r.git"].includes(last)]).toEqual([last, true]);
    const after = (await get(`/api/runs/${doneRun}/events?from=3`)).body;
    expect(after.map((e: { seq: number }) => e.seq)).toEqual(all.slice(3).map((e: { seq: number }) => e.seq));
  });

  it("never shows a credential of a URL", async () => {
    const text = JSON.stringify((await get(`/api/runs/${doneRun}/events`)).body);
    expect(text).toContain("https://example.com/r.git");
    expect(text).not.toContain("s3cret");
  });

  it("serves the dashboard and its files with a strict CSP", async () => {
    const res = await fetch(server.url);
    expect(res.status).toBe(200);
    expect(res.headers.get("content-type")).toBe("text/html; charset=utf-8");
    expect(await res.text()).toContain('<script src="/app.js" defer></script>');
    const js = await fetch(`${server.url}app.js`);
    expect([js.status, js.headers.get("content-type")]).toEqual([200, "text/javascript; charset=utf-8"]);
    await js.body?.cancel();
    expect(res.headers.get("content-security-policy")).toContain("default-src 'none'; script-src 'self'");
  });
});

describe("errors", () => {
  it.each([
    ["an unknown workspace", `/api/workspaces/0123456789abcdef`, 404, "ERR_WORKSPACE_NOT_FOUND"],
    ["a malformed workspace", `/api/workspaces/zz/runs`, 404, "ERR_WORKSPACE_NOT_FOUND"],
    ["an unknown run", `/api/runs/${NO_RUN}`, 404, "ERR_RUN_NOT_FOUND"],
    ["a malformed run", `/api/runs/nope`, 404, "ERR_RUN_NOT_FOUND"],
    ["a bad from", `/api/runs/RUN/events?from=-1`, 400, "ERR_USAGE"],
    ["a bad cursor", `/api/events/stream?from=x%3By`, 400, "ERR_USAGE"],
    ["a bad since", `/api/events/stream?since=yesterday`, 400, "ERR_USAGE"],
    ["an unknown event filter", `/api/events/stream?event=nope`, 400, "ERR_USAGE"],
    ["an unknown route", `/api/nope`, 404, "ERR_NOINPUT"],
  ])("%s", async (_n, path, status, code) => {
    const res = await get(path.replace("RUN", doneRun));
    expect([res.status, res.body.code, res.body.v, res.body.type]).toEqual([status, code, 1, "error"]);
    expect(Object.keys(res.body).slice(0, 2)).toEqual(["v", "type"]);
    expect(res.headers.get("content-security-policy")).toContain("default-src 'none'");
  });

  it("a known path with another method is 405", async () => {
    const res = await fetch(`${server.url}api/fleet`, {
      method: "DELETE",
      headers: { "content-type": "application/json" },
    });
    expect([res.status, (await res.json()).code]).toEqual([405, "ERR_USAGE"]);
  });

  it.each([
    ["kill", `/api/runs/RUN/kill`],
    ["respawn", `/api/runs/RUN/respawn`],
    ["input", `/api/runs/RUN/input`],
  ])("POST %s of an unknown run is 404", async (_n, path) => {
    const res = await post(path.replace("RUN", NO_RUN), "{}", { "content-type": "application/json" });
    expect([res.status, res.body.code]).toEqual([404, "ERR_RUN_NOT_FOUND"]);
  });

  it("a body that is not a JSON object is 400", async () => {
    const res = await post(`/api/workspaces/${hashA}/runs`, "[1]", { "content-type": "application/json" });
    expect([res.status, res.body.code]).toEqual([400, "ERR_INVALID_INPUT"]);
  });
});

describe("guard", () => {
  it("a foreign Host is 421 (DNS rebinding), the loopback names are fine", async () => {
    const { request } = await import("node:http");
    const status = (host: string) =>
      new Promise<number>((resolve, reject) => {
        const req = request(
          { host: "127.0.0.1", port: server.port, path: "/api/fleet", headers: { host } },
          (res) => {
            res.resume();
            resolve(res.statusCode ?? 0);
          },
        );
        req.on("error", reject);
        req.end();
      });
    expect(await status("evil.example:80")).toBe(421);
    expect(await status(`evil.example:${server.port}`)).toBe(421);
    expect(await status(`localhost:${server.port}`)).toBe(200);
    expect(await status(`127.0.0.1:${server.port}`)).toBe(200);
  });

  it.each([
    ["a form content type", { "content-type": "application/x-www-form-urlencoded" }],
    ["text/plain", { "content-type": "text/plain" }],
    ["no content type", {}],
    ["a foreign Origin", { "content-type": "application/json", origin: "http://evil.example" }],
    ["a null Origin", { "content-type": "application/json", origin: "null" }],
    ["a cross-site fetch", { "content-type": "application/json", "sec-fetch-site": "cross-site" }],
  ])("a mutation with %s is 403 and reaches no run", async (_n, headers) => {
    const res = await post(`/api/runs/${doneRun}/kill`, "{}", headers as Record<string, string>);
    expect([res.status, res.body.code]).toEqual([403, "ERR_FORBIDDEN"]);
  });

  it("a mutation from the server's own origin, or curl's (no Origin), passes the guard", async () => {
    const variants: Record<string, string>[] = [
      { "content-type": "application/json" },
      { "content-type": "application/json; charset=utf-8", origin: server.url.replace(/\/$/, "") },
    ];
    for (const headers of variants) {
      const res = await post(`/api/runs/${NO_RUN}/kill`, "{}", headers);
      expect([res.status, res.body.code]).toEqual([404, "ERR_RUN_NOT_FOUND"]);
    }
  });

  it.each([
    ["../ in a run id", "/api/runs/..%2F..%2Fetc%2Fpasswd", 403],
    ["../ in a run's events", "/api/runs/..%2Fx/events", 403],
    ["../ in a run's stream", "/api/runs/%2e%2e%2f%2e%2e%2fx/stream", 403],
    ["../ in a workspace", "/api/workspaces/..%2F..%2Fetc/sources", 403],
    ["a backslash", "/api/workspaces/a%5Cb/tasks", 403],
    ["a NUL", "/api/runs/x%00y", 403],
    ["a static path", "/..%2F..%2Fetc%2Fpasswd", 404],
    ["a file beside the dashboard", "/app.js%2F..%2F..%2Fpackage.json", 404],
    ["an absolute run id", "/api/runs/%2Fetc%2Fpasswd", 403],
  ])("a path escape (%s) is refused", async (_n, path, status) => {
    const res = await fetch(`${server.url}${path.slice(1)}`);
    const text = await res.text();
    expect(res.status).toBe(status);
    expect(text).not.toContain("root:");
  });
});

describe("run streams", () => {
  it("a finished run's stream replays every event with its seq as id, then ends", async () => {
    const r = await readSse(`${server.url}api/runs/${doneRun}/stream`);
    expect(r.ended).toBe(true);
    expect(seqs(r.messages)).toEqual([1, 2, 3, 4, 5, 6, 7]);
    expect(r.messages.at(-1)?.event).toBe("end");
    expect((await readSse(`${server.url}api/runs/${doneRun}/stream`, { "last-event-id": "7" })).status).toBe(
      204,
    );
    expect(seqs((await readSse(`${server.url}api/runs/${doneRun}/stream?from=5`)).messages)).toEqual([6, 7]);
  });

  describe("a live run", () => {
    let live: LiveRun;
    let go: string;
    beforeAll(async () => {
      go = join(tempDir("ariel-fleet-go-"), "go");
      dirs.push(dirname(go));
      // Held after line 40 until the test lets it go: live for the first two reads, on any machine.
      live = await liveRun(rootB, heldTicker(80, 40, 40, go));
    });
    afterAll(async () => {
      live.child.kill("SIGKILL");
      await live.done;
    });

    it("resumes after a dropped connection with no gap and no duplicate (Last-Event-ID, then ?from=)", async () => {
      const url = `${server.url}api/runs/${live.runId}/stream`;
      const first = await readSse(url, {}, (_m, all) => all.filter((m) => m.event === "output").length >= 3);
      expect(first.ended).toBe(false);
      const lastId = first.messages.at(-1)!.id!;
      const second = await readSse(url, { "last-event-id": lastId }, (_m, all) => all.length >= 5);
      expect(second.ended).toBe(false);
      writeFileSync(go, "");
      const third = await readSse(`${url}?from=${second.messages.at(-1)!.id}`);
      expect(third.ended).toBe(true);
      const got = [...seqs(first.messages), ...seqs(second.messages), ...seqs(third.messages)];
      expect(got).toEqual(Array.from({ length: got.length }, (_, i) => i + 1));
      const lines = [...first.messages, ...second.messages, ...third.messages]
        .filter((m) => m.event === "output")
        .map((m) => JSON.parse(m.data).data);
      expect(lines).toEqual(Array.from({ length: 80 }, (_, i) => `line ${i + 1}\n`));
    });
  });

  it("20 concurrent clients on one live run each get every event once, in order", async () => {
    const live = await liveRun(rootB, ticker(30, 30));
    try {
      const results = await Promise.all(
        Array.from({ length: 20 }, () => readSse(`${server.url}api/runs/${live.runId}/stream`)),
      );
      const expected = seqs(results[0]!.messages);
      expect(expected).toEqual(Array.from({ length: expected.length }, (_, i) => i + 1));
      for (const r of results) {
        expect(r.ended).toBe(true);
        expect(seqs(r.messages)).toEqual(expected);
        expect(r.messages.filter((m) => m.event === "output")).toHaveLength(30);
      }
    } finally {
      live.child.kill("SIGKILL");
      await live.done;
    }
  });
});

describe("the fleet event stream", () => {
  it("streams every workspace's new events with a cursor id and resumes from it exactly", async () => {
    const since = new Date().toISOString();
    const live = await liveRun(rootA, ticker(20, 40));
    try {
      const url = `${server.url}api/events/stream?since=${encodeURIComponent(since)}`;
      const first = await readSse(url, {}, (_m, all) => all.length >= 6);
      const cursor = first.messages.at(-1)!.id!;
      const second = await readSse(`${server.url}api/events/stream`, { "last-event-id": cursor }, (m) => {
        const e = JSON.parse(m.data);
        return e.event === "run.state" && e.to === "exited";
      });
      const events = [...first.messages, ...second.messages].map((m) => JSON.parse(m.data));
      expect(events.every((e) => e.runId === live.runId && e.workspace === hashA)).toBe(true);
      const got = events.map((e) => e.seq);
      expect(got).toEqual(Array.from({ length: got.length }, (_, i) => i + 1));
      expect(events.filter((e) => e.event === "output")).toHaveLength(20);
    } finally {
      live.child.kill("SIGKILL");
      await live.done;
    }
  });

  it("filters by event name", async () => {
    const r = await readSse(
      `${server.url}api/events/stream?since=2000-01-01T00:00:00Z&event=run.exited`,
      {},
      (_m, all) => all.length >= 1,
    );
    expect(r.messages.map((m) => m.event)).toEqual(["run.exited"]);
  });
});

describe("with a token file", () => {
  let guarded: Server;
  let dir: string;
  beforeAll(async () => {
    dir = tempDir("ariel-fleet-token-");
    writeFileSync(join(dir, "token"), "correct-horse-battery-staple\n", { mode: 0o600 });
    guarded = await serve(["--token-file", join(dir, "token")], state.env);
  });
  afterAll(async () => {
    await guarded?.stop();
    removeDir(dir);
  });

  it.each([
    ["no token", {}, 401],
    ["a wrong token", { authorization: "Bearer correct-horse-battery-stapler" }, 401],
    ["another scheme", { authorization: "Basic correct-horse-battery-staple" }, 401],
    ["the token", { authorization: "Bearer correct-horse-battery-staple" }, 200],
  ])("%s → %s", async (_n, headers, status) => {
    for (const path of ["api/fleet", "healthz", "api/events/stream", `api/runs/${doneRun}/events`]) {
      const res = await fetch(`${guarded.url}${path}`, { headers });
      await res.body?.cancel();
      expect([path, res.status]).toEqual([path, status]);
    }
  });

  it("a token-protected API route with the right token but a foreign Host is refused (421)", async () => {
    const { request } = await import("node:http");
    const ask = (host: string) =>
      new Promise<[number, string]>((resolve, reject) => {
        const req = request(
          {
            host: "127.0.0.1",
            port: guarded.port,
            path: "/api/fleet",
            headers: { host, authorization: "Bearer correct-horse-battery-staple" },
          },
          (res) => {
            let body = "";
            res.setEncoding("utf8");
            res.on("data", (c: string) => {
              body += c;
            });
            res.on("end", () => resolve([res.statusCode ?? 0, body]));
          },
        );
        req.on("error", reject);
        req.end();
      });
    const [status, body] = await ask("evil.example");
    expect([status, JSON.parse(body).code]).toEqual([421, "ERR_MISDIRECTED"]);
    // The same request with the server's own Host is served: the Host alone made the difference.
    expect((await ask(`127.0.0.1:${guarded.port}`))[0]).toBe(200);
  });

  it("serves the dashboard's own files without the token (they hold no data); the page asks for it", async () => {
    for (const path of ["", "app.js", "app.css", "favicon.svg"]) {
      const res = await fetch(`${guarded.url}${path}`);
      const text = await res.text();
      expect([path, res.status, res.headers.get("content-security-policy")]).toEqual([
        path,
        200,
        "default-src 'none'; script-src 'self'; style-src 'self' 'unsafe-inline'; img-src 'self'; connect-src 'self'; base-uri 'none'; form-action 'none'; frame-ancestors 'none'",
      ]);
      if (path === "") expect(text).toContain('<html lang="en" data-auth="bearer">');
    }
    // Only a GET: anything else there still needs the token, and the Host check still holds.
    const post = await fetch(guarded.url, {
      method: "POST",
      headers: { "content-type": "application/json" },
    });
    expect(post.status).toBe(401);
    const { request } = await import("node:http");
    const foreign = await new Promise<number>((resolve, reject) => {
      const req = request(
        { host: "127.0.0.1", port: guarded.port, path: "/", headers: { host: "evil.example:80" } },
        (res) => {
          res.resume();
          resolve(res.statusCode ?? 0);
        },
      );
      req.on("error", reject);
      req.end();
    });
    expect(foreign).toBe(421);
    // A loopback server without a token serves the page as it is.
    expect(await (await fetch(server.url)).text()).toContain('<html lang="en">');
  });
});

describe("serve refuses", () => {
  it.each([
    ["a non-loopback bind without a token file", ["--addr", "0.0.0.0:0"], 64, "ERR_USAGE"],
    ["a missing token file", ["--token-file", "/nonexistent/token"], 66, "ERR_NOINPUT"],
    ["a bad address", ["--addr", "127.0.0.1:99999"], 64, "ERR_USAGE"],
  ])("%s", async (_n, args, code, err) => {
    const r = await runAriel("fleet", ["serve", "--json", ...args], { env: state.env, timeoutMs: 10_000 });
    expect([r.code, JSON.parse(r.stderr.trim()).code, r.stdout]).toEqual([code, err, ""]);
  });
});

describe("serve refuses a token file others may read or write", () => {
  let dir: string;
  beforeAll(() => {
    dir = tempDir("ariel-fleet-token-mode-");
  });
  afterAll(() => removeDir(dir));

  it.each([
    ["0644", "0.0.0.0:0", 0o644],
    ["0666", "0.0.0.0:0", 0o666],
    ["0640", "0.0.0.0:0", 0o640],
    ["0604", "127.0.0.1:0", 0o604],
  ])("mode %s, bind %s: ERR_TOKEN_FILE_MODE (77), nothing served", async (mode, addr, bits) => {
    const file = join(dir, `token-${mode}`);
    writeFileSync(file, "correct-horse-battery-staple\n");
    chmodSync(file, bits);
    const r = await runAriel("fleet", ["serve", "--json", "--addr", addr, "--token-file", file], {
      env: state.env,
      timeoutMs: 10_000,
    });
    expect([r.code, r.stdout, records(r.stderr)]).toEqual([
      77,
      "",
      [
        {
          v: 1,
          type: "error",
          code: "ERR_TOKEN_FILE_MODE",
          message: `--token-file "${file}" is accessible by others (mode ${mode})`,
          hint: `make it readable by its owner only: chmod 600 "${file}"`,
          exit: 77,
          path: file,
          mode,
        },
      ],
    ]);
  });

  it("0600 and 0400 are served", async () => {
    for (const bits of [0o600, 0o400]) {
      const file = join(dir, `token-ok-${bits.toString(8)}`);
      writeFileSync(file, "correct-horse-battery-staple\n");
      chmodSync(file, bits);
      const s = await serve(["--token-file", file], state.env);
      const res = await fetch(`${s.url}healthz`, {
        headers: { authorization: "Bearer correct-horse-battery-staple" },
      });
      await res.body?.cancel();
      await s.stop();
      expect(res.status).toBe(200);
    }
  });
});

describe("detached runs", () => {
  const json = { "content-type": "application/json" };
  const started: string[] = [];
  afterAll(async () => {
    // Nothing of ours may outlive the tests: stop every run still live (their monitor then idles out).
    for (const id of started) await post(`/api/runs/${id}/kill`, '{"graceMs":0}', json);
    await monitorGone(rootB);
  });

  async function startTicker(count: number, everyMs: number): Promise<string> {
    return startArgv(ticker(count, everyMs));
  }

  async function startArgv(argv: readonly string[]): Promise<string> {
    // shared: an earlier test's run may still be settled by its monitor in the same checkout.
    const res = await post(`/api/workspaces/${hashB}/runs`, JSON.stringify({ argv, shared: true }), json);
    expect(res.status).toBe(201);
    expect(res.body).toHaveLength(1);
    expect(res.body[0]).toMatchObject({
      kind: "detached",
      workspace: { root: rootB, hash: hashB },
      sources: ["."],
    });
    started.push(res.body[0].runId);
    return res.body[0].runId;
  }

  it("POST …/runs starts one; its stream resumes by cursor with no gap and no duplicate; kill ends it", async () => {
    const id = await startTicker(400, 20);
    const url = `${server.url}api/runs/${id}/stream`;
    const outputs = (ms: readonly { event: string }[]) => ms.filter((m) => m.event === "output").length;
    const first = await readSse(url, {}, (_m, all) => outputs(all) >= 3);
    expect(first.messages.at(-1)!.id).toMatch(/^\d+\.\d+\.0$/);
    const second = await readSse(
      url,
      { "last-event-id": first.messages.at(-1)!.id! },
      (_m, all) => outputs(all) >= 5,
    );
    const killed = await post(`/api/runs/${id}/kill`, '{"graceMs":2000}', json);
    expect([killed.status, killed.body.runId]).toEqual([202, id]);
    const third = await readSse(`${url}?from=${second.messages.at(-1)!.id}`);
    expect(third.ended).toBe(true);
    const all = [...first.messages, ...second.messages, ...third.messages];
    const lines = all.filter((m) => m.event === "output").map((m) => JSON.parse(m.data).data);
    expect(lines).toEqual(Array.from({ length: lines.length }, (_, i) => `line ${i + 1}\n`));
    const history = all
      .filter((m) => m.event !== "output" && m.event !== "end")
      .map((m) => JSON.parse(m.data).seq);
    expect(history).toEqual(Array.from({ length: history.length }, (_, i) => i + 1));
    expect(JSON.parse(third.messages.findLast((m) => m.event === "run.state")!.data).to).toBe("killed");
    expect((await get(`/api/runs/${id}`)).body).toMatchObject({ state: "killed", kind: "detached" });
    // The events endpoint takes the same cursors and gives the same events.
    const cursor = second.messages.at(-1)!.id!;
    const rest = (await get(`/api/runs/${id}/events?from=${cursor}`)).body as {
      event: string;
      seq: number;
    }[];
    expect(rest.map((e) => `${e.event}:${e.seq}`)).toEqual(
      third.messages.filter((m) => m.event !== "end").map((m) => `${m.event}:${JSON.parse(m.data).seq}`),
    );
  });

  it("a detached run's view has the last line of its output, read from the tail: colours and what a carriage return overwrote gone", async () => {
    const script =
      "seq 1 200000; printf 'almost\\n\\033[31mlast\\033[0m 50%%\\r\\033[31mlast\\033[0m 100%% https://user:s3cret@example.com/r.git\\n\\n'";
    const id = await startArgv(["sh", "-c", script]);
    expect((await readSse(`${server.url}api/runs/${id}/stream`)).ended).toBe(true);
    expect((await get(`/api/runs/${id}`)).body).toMatchObject({
      state: "exited",
      task: null,
      branch: null,
      lastLine: "last 100% https://example.com/r.git",
    });
    const listed = (await get(`/api/workspaces/${hashB}/runs`)).body.find(
      (r: { runId: string }) => r.runId === id,
    );
    expect(listed.lastLine).toBe("last 100% https://example.com/r.git");
  });

  it("a detached run whose run.json is not written yet reads as starting (its name and kind from its first event), lost once that is long past", async () => {
    const stamp = new Date().toISOString().replace(/[-:]|\.\d+/g, "");
    const make = (id: string, ts: string) => {
      mkdirSync(join(rootB, ".ariel/runs", id), { recursive: true });
      const first = { v: 1, type: "event", event: "run.started", runId: id, ts, source: ".", argv: ["make"] };
      const line = { ...first, targets: ["."], mode: "detached", name: "early", group: id };
      writeFileSync(join(rootB, ".ariel/runs", `${id}.ndjson`), `${JSON.stringify(line)}\n`);
    };
    make(`${stamp}-early1`, new Date().toISOString());
    make(`${stamp}-early2`, new Date(Date.now() - 3_600_000).toISOString());
    const fields = ["kind", "name", "state"] as const;
    const view = async (id: string) => {
      const body = (await get(`/api/runs/${id}`)).body;
      return fields.map((f) => body[f]);
    };
    expect(await view(`${stamp}-early1`)).toEqual(["detached", "early", "starting"]);
    expect(await view(`${stamp}-early2`)).toEqual(["detached", "early", "lost"]);
    for (const id of [`${stamp}-early1`, `${stamp}-early2`]) {
      removeDir(join(rootB, ".ariel/runs", id));
      rmSync(join(rootB, ".ariel/runs", `${id}.ndjson`));
    }
  });

  it("20 clients on one live detached run, joining at different places, each get every event once, in order", async () => {
    const id = await startTicker(150, 20);
    const url = `${server.url}api/runs/${id}/stream`;
    const outputs = (ms: readonly SseMessage[]) => ms.filter((m) => m.event === "output").length;
    // A first client reads a little and drops: later clients resume from its cursor.
    const early = await readSse(url, {}, (_m, all) => outputs(all) >= 5);
    const mid = early.messages.at(-1)!.id!;
    const clients = await Promise.all(
      Array.from({ length: 20 }, async (_, i) => {
        await new Promise((r) => setTimeout(r, i * 60));
        return i % 2 === 0
          ? { prefix: [] as SseMessage[], r: await readSse(url) }
          : { prefix: early.messages, r: await readSse(url, { "last-event-id": mid }) };
      }),
    );
    for (const { prefix, r } of clients) {
      expect(r.ended).toBe(true);
      const all = [...prefix, ...r.messages].filter((m) => m.event !== "end").map((m) => JSON.parse(m.data));
      const lines = all.filter((e) => e.event === "output").map((e) => e.data);
      expect(lines).toEqual(Array.from({ length: 150 }, (_, i) => `line ${i + 1}\n`));
      const history = all.filter((e) => e.event !== "output").map((e) => e.seq);
      expect(history).toEqual(Array.from({ length: history.length }, (_, i) => i + 1));
      expect(all.at(-1)).toMatchObject({ event: "run.state", to: "exited" });
      // The ids only grow, position by position.
      const ids = r.messages.filter((m) => m.id).map((m) => m.id!.split(".").map(Number));
      for (let k = 1; k < ids.length; k++) {
        expect(ids[k]!.every((n, j) => n >= ids[k - 1]![j]!)).toBe(true);
      }
    }
  });

  it("N clients of the fleet stream share one reader: identical events, output lines stamped once", async () => {
    const since = new Date().toISOString();
    const url = `${server.url}api/events/stream?since=${encodeURIComponent(since)}`;
    let runId = "";
    const ends = (m: SseMessage) => {
      const e = JSON.parse(m.data);
      return e.runId === runId && e.event === "run.state" && e.to === "exited";
    };
    const seen: SseMessage[][] = Array.from({ length: 4 }, () => []);
    const clients = seen.map((mine) =>
      readSse(url, {}, (m) => {
        mine.push(m);
        return ends(m);
      }),
    );
    // Every client reads only from the shared reader before the run writes. A client catches up
    // alone at most twice (once more when another client started the reader meanwhile): a
    // marker run prints A, and B only once every client has A; a client that has B is past
    // its catch-up.
    const gate = join(tempDir("ariel-fleet-gate-"), "go");
    dirs.push(dirname(gate));
    const marker = await startArgv([
      "sh",
      "-c",
      `echo A; while [ ! -e '${gate}' ]; do sleep 0.02; done; echo B`,
    ]);
    const has = (line: string) => () =>
      expect(
        seen.every((ms) =>
          ms.some((m) => {
            const e = JSON.parse(m.data);
            return e.runId === marker && e.event === "output" && e.data === line;
          }),
        ),
      ).toBe(true);
    await vi.waitFor(has("A\n"), { timeout: 20_000, interval: 20 });
    writeFileSync(gate, "");
    await vi.waitFor(has("B\n"), { timeout: 20_000, interval: 20 });
    runId = await startTicker(30, 20);
    const got = (await Promise.all(clients)).map((c) =>
      c.messages.map((m) => JSON.parse(m.data)).filter((e) => e.runId === runId),
    );
    const lines = got[0]!.filter((e) => e.event === "output").map((e) => e.data);
    expect(lines).toEqual(Array.from({ length: 30 }, (_, i) => `line ${i + 1}\n`));
    // An output line's ts is when it was read: one reader, one ts for every client.
    for (const other of got.slice(1)) expect(other).toEqual(got[0]);
  });

  it("the fleet stream carries a detached run's output: resume by cursor with no gap and no duplicate, output before the closing events", async () => {
    const since = new Date().toISOString();
    const id = await startTicker(400, 20);
    const url = `${server.url}api/events/stream?since=${encodeURIComponent(since)}`;
    const mine = (ms: readonly SseMessage[]) => ms.filter((m) => JSON.parse(m.data).runId === id);
    const outputs = (ms: readonly SseMessage[]) => mine(ms).filter((m) => m.event === "output").length;
    const first = await readSse(url, {}, (_m, all) => outputs(all) >= 10);
    // The cursor holds the run's history seq and the bytes of stdout and stderr delivered.
    expect(first.messages.at(-1)!.id).toMatch(new RegExp(`;${hashB}/${id}:\\d+\\.\\d+\\.0(;|$)`));
    const second = await readSse(
      `${server.url}api/events/stream`,
      { "last-event-id": first.messages.at(-1)!.id! },
      (_m, all) => outputs(all) >= 15,
    );
    const killed = await post(`/api/runs/${id}/kill`, '{"graceMs":2000}', json);
    expect(killed.status).toBe(202);
    const third = await readSse(
      `${server.url}api/events/stream?from=${encodeURIComponent(second.messages.at(-1)!.id!)}`,
      {},
      (m) => m.event === "run.state" && JSON.parse(m.data).runId === id && JSON.parse(m.data).to === "killed",
    );
    const all = mine([...first.messages, ...second.messages, ...third.messages]).map((m) =>
      JSON.parse(m.data),
    );
    const lines = all.filter((e) => e.event === "output").map((e) => e.data);
    expect(lines.length).toBeGreaterThanOrEqual(25);
    expect(lines).toEqual(Array.from({ length: lines.length }, (_, i) => `line ${i + 1}\n`));
    // Output seqs are the lines' byte offsets in stdout.
    expect(all.filter((e) => e.event === "output").map((e) => e.seq)).toEqual(
      lines.map((_l, i) => lines.slice(0, i).join("").length),
    );
    const history = all.filter((e) => e.event !== "output");
    expect(history.map((e) => e.seq)).toEqual(Array.from({ length: history.length }, (_, i) => i + 1));
    const closing = all.findIndex(
      (e) => e.event === "run.exited" || (e.event === "run.state" && e.to !== "running"),
    );
    expect(all.slice(closing).map((e) => e.event)).not.toContain("output");
    expect(all.at(-1)).toMatchObject({ event: "run.state", from: "running", to: "killed" });
  });

  it("a detached run that began before the fleet stream started: its output from then on, pinned in the cursor", async () => {
    const id = await startTicker(400, 20);
    await expect
      .poll(() => get(`/api/runs/${id}/events`).then((r) => r.body.length), { timeout: 10_000 })
      .toBeGreaterThan(5);
    const url = `${server.url}api/events/stream`;
    const outputs = (ms: readonly SseMessage[]) =>
      ms.filter((m) => m.event === "output" && JSON.parse(m.data).runId === id);
    const first = await readSse(url, {}, (_m, all) => outputs(all).length >= 5);
    const second = await readSse(
      url,
      { "last-event-id": first.messages.at(-1)!.id! },
      (_m, all) => outputs(all).length >= 5,
    );
    const lines = [...outputs(first.messages), ...outputs(second.messages)].map(
      (m) => JSON.parse(m.data).data,
    );
    const n = Number(/^line (\d+)\n$/.exec(lines[0])![1]);
    expect(n).toBeGreaterThan(1);
    expect(lines).toEqual(Array.from({ length: lines.length }, (_, i) => `line ${n + i}\n`));
    const killed = await post(`/api/runs/${id}/kill`, '{"graceMs":2000}', json);
    expect(killed.status).toBe(202);
    await expect
      .poll(() => get(`/api/runs/${id}`).then((r) => r.body.state), { timeout: 20_000 })
      .toBe("killed");
  });

  it("respawn starts the same command under a new id linked to the old one; input needs --interactive", async () => {
    const id = await startTicker(400, 50);
    const input = await post(`/api/runs/${id}/input`, '{"data":"x\\n"}', json);
    expect([input.status, input.body.code]).toEqual([409, "ERR_REFUSED"]);
    const res = await post(`/api/runs/${id}/respawn`, '{"graceMs":1000}', json);
    expect(res.status).toBe(201);
    started.push(res.body.runId);
    expect(res.body).toMatchObject({ kind: "detached", respawnOf: id });
    expect(res.body.runId).not.toBe(id);
    expect((await get(`/api/runs/${id}`)).body.state).toBe("killed");
    const again = await post(`/api/runs/${res.body.runId}/kill`, '{"graceMs":1000}', json);
    expect(again.status).toBe(202);
    await expect
      .poll(() => get(`/api/runs/${res.body.runId}`).then((r) => r.body.state), { timeout: 20_000 })
      .toBe("killed");
  });

  it("kill answers 202 once the first signal is sent, before the grace: the run's run.state event reports the end", async () => {
    // A run that ignores TERM: only the SIGKILL after the grace ends it.
    const id = await startArgv(["sh", "-c", "trap '' TERM; echo ready; while :; do sleep 0.1; done"]);
    await expect
      .poll(
        () =>
          get(`/api/runs/${id}/events`).then((r) =>
            r.body.some((e: { event: string }) => e.event === "output"),
          ),
        {
          timeout: 20_000,
        },
      )
      .toBe(true);
    const killed = await post(`/api/runs/${id}/kill`, '{"graceMs":3000}', json);
    // Answered while the grace still runs: the run lives on (the old answer came after SIGKILL: killed).
    expect([killed.status, killed.body.runId, killed.body.state]).toEqual([202, id, "running"]);
    const end = await readSse(
      `${server.url}api/runs/${id}/stream`,
      {},
      (m) => m.event === "run.state" && JSON.parse(m.data).to === "killed",
    );
    expect(JSON.parse(end.messages.findLast((m) => m.event === "run.state")!.data)).toMatchObject({
      runId: id,
      to: "killed",
    });
    expect((await get(`/api/runs/${id}`)).body).toMatchObject({ state: "killed", kind: "detached" });
  });

  it("a server stopped during a kill's grace finishes it (SIGKILL) before it exits", async () => {
    const id = await startArgv(["sh", "-c", "trap '' TERM; echo ready; while :; do sleep 0.1; done"]);
    await expect
      .poll(
        () =>
          get(`/api/runs/${id}/events`).then((r) =>
            r.body.some((e: { event: string }) => e.event === "output"),
          ),
        {
          timeout: 20_000,
        },
      )
      .toBe(true);
    const other = await serve([], state.env);
    const res = await fetch(`${other.url}api/runs/${id}/kill`, {
      method: "POST",
      headers: json,
      body: '{"graceMs":2000}',
    });
    expect(res.status).toBe(202);
    await other.stop(); // SIGTERM while the grace runs (the run ignores TERM)
    // It left only once the SIGKILL after the grace had ended the run.
    expect((await get(`/api/runs/${id}`)).body).toMatchObject({ runId: id, state: "killed" });
  });

  it("POST …/runs with a command not on PATH answers with the run that could not start (failed, 127)", async () => {
    const res = await post(
      `/api/workspaces/${hashB}/runs`,
      JSON.stringify({ argv: ["no-such-command-ariel"], shared: true }),
      json,
    );
    expect(res.status).toBe(201);
    expect(res.body).toHaveLength(1);
    expect(res.body[0]).toMatchObject({ kind: "detached", state: "failed", status: 127, sources: ["."] });
  });

  it.each([
    ["no argv", "{}", 400, "ERR_INVALID_INPUT"],
    ["an empty argv", '{"argv":[]}', 400, "ERR_INVALID_INPUT"],
    ["argv not strings", '{"argv":[1]}', 400, "ERR_INVALID_INPUT"],
    ["an unknown source", '{"argv":["true"],"source":"nope"}', 404, "ERR_SOURCE_NOT_FOUND"],
    ["a source outside the workspace", '{"argv":["true"],"source":"../../etc"}', 403, "ERR_PATH_ESCAPE"],
  ])("POST …/runs with %s is refused", async (_n, body, status, code) => {
    const res = await post(`/api/workspaces/${hashB}/runs`, body, json);
    expect([res.status, res.body.code]).toEqual([status, code]);
  });

  it("a foreground run cannot be killed from the API (409)", async () => {
    const res = await post(`/api/runs/${doneRun}/kill`, "{}", json);
    expect([res.status, res.body.code]).toEqual([409, "ERR_REFUSED"]);
  });
});

// After "detached runs": their runs (and their output) are among the records checked.
describe("every record the API returns matches its JSON Schema (docs/schema)", () => {
  const ajv = new Ajv2020({ strict: false, allErrors: true });
  const schemas = new Map<string, { validate: ValidateFunction; properties: string[] | null }>();
  function schema(name: string) {
    let s = schemas.get(name);
    if (!s) {
      const json = JSON.parse(readFileSync(join(REPO_ROOT, "docs/schema", `${name}.schema.json`), "utf8"));
      s = { validate: ajv.compile(json), properties: json.properties ? Object.keys(json.properties) : null };
      schemas.set(name, s);
    }
    return s;
  }
  /** Validation errors of `value` (none: []), plus any field the schema does not describe. */
  function problems(name: string, value: unknown): string[] {
    const s = schema(name);
    const out = s.validate(value)
      ? []
      : (s.validate.errors ?? []).map((e) => `${e.instancePath} ${e.message}`);
    // (An error record carries its context fields beside the documented ones.)
    if (name !== "error" && s.properties && value !== null && typeof value === "object") {
      for (const k of Object.keys(value)) if (!s.properties.includes(k)) out.push(`${k}: not in the schema`);
    }
    return out;
  }
  const each = (name: string, values: unknown[]) => values.flatMap((v) => problems(name, v));

  it("the snapshot, workspaces, runs and replies", async () => {
    const fleet = (await get("/api/fleet")).body;
    expect(fleet.workspaces).toHaveLength(3);
    expect(problems("fleet-snapshot", fleet)).toEqual([]);
    expect(each("fleet-workspace", fleet.workspaces)).toEqual([]);
    expect(each("fleet-workspace", (await get("/api/workspaces")).body)).toEqual([]);
    expect(problems("fleet-workspace", (await get(`/api/workspaces/${hashA}`)).body)).toEqual([]);
    const runs = [
      ...(await get(`/api/workspaces/${hashA}/runs`)).body,
      ...(await get(`/api/workspaces/${hashB}/runs`)).body,
    ];
    expect(new Set(runs.map((r: { kind: string }) => r.kind))).toEqual(new Set(["foreground", "detached"]));
    expect(each("fleet-run", runs)).toEqual([]);
    expect(problems("fleet-run", (await get(`/api/runs/${doneRun}`)).body)).toEqual([]);
    expect(problems("fleet-reply", (await get("/healthz")).body)).toEqual([]);
    expect(problems("fleet-reply", (await get("/readyz")).body)).toEqual([]);
    expect(problems("fleet-server", server.record)).toEqual([]);
    const status = await runAriel("fleet", ["status", "--json"], { env: state.env });
    expect(problems("fleet-snapshot", JSON.parse(status.stdout))).toEqual([]);
  });

  it("events: a run's, the fleet stream's (detached output included) and events --json", async () => {
    const runs = (await get(`/api/workspaces/${hashB}/runs`)).body as { runId: string }[];
    const events = [
      ...(await get(`/api/runs/${doneRun}/events`)).body,
      ...(await get(`/api/runs/${runs[0]!.runId}/events`)).body,
    ];
    const stream = await readSse(
      `${server.url}api/events/stream?since=2000-01-01T00:00:00Z`,
      {},
      (_m, all) => all.length >= 40,
    );
    const streamed = stream.messages.map((m) => JSON.parse(m.data));
    const cli = (await runAriel("fleet", ["events", "--json"], { env: state.env })).stdout
      .trim()
      .split("\n")
      .map((l) => JSON.parse(l));
    const all = [...events, ...streamed, ...cli];
    expect(new Set(all.map((e) => e.event))).toEqual(
      new Set(["run.started", "run.state", "output", "run.exited"]),
    );
    expect(all.some((e) => e.event === "output" && e.workspace === hashB)).toBe(true);
    expect(each("fleet-event", all)).toEqual([]);
  });

  it("errors: the CLI's error record, whatever the status", async () => {
    const bodies = [
      (await get(`/api/runs/${NO_RUN}`)).body,
      (await get("/api/events/stream?since=yesterday")).body,
      (await get("/api/runs/..%2Fx")).body,
      (await post(`/api/workspaces/${hashB}/runs`, "{}", { "content-type": "application/json" })).body,
      (await post(`/api/runs/${doneRun}/kill`, "{}", { "content-type": "application/json" })).body,
    ];
    expect(bodies.map((b) => b.code)).toEqual([
      "ERR_RUN_NOT_FOUND",
      "ERR_USAGE",
      "ERR_PATH_ESCAPE",
      "ERR_INVALID_INPUT",
      "ERR_REFUSED",
    ]);
    expect(each("error", bodies)).toEqual([]);
  });

  it("a schema that no longer matches is caught", () => {
    expect(problems("fleet-run", { v: 1, type: "run", runId: "x" })).not.toEqual([]);
    expect(
      problems("fleet-event", {
        v: 1,
        type: "event",
        event: "output",
        ts: "2026-12-02T11:00:00Z",
        workspace: hashA,
        runId: doneRun,
        seq: 1,
        stream: "stdin",
        data: "",
      }),
    ).not.toEqual([]);
  });
});
