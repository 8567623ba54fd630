// ariel-fleet serve under Deno (from source, on Deno.serve): a smaller set of the Node API tests.
// Run: node_modules/.bin/deno test -A test/deno/fleet_test.ts
import assert from "node:assert/strict";
import { finishedRun, readSse, register, seqs, serve, stateHome, workspace } from "../fleet_helpers.ts";
import { removeDir, tempDir } from "../helpers/git.ts";

declare const Deno: { test(name: string, fn: () => Promise<void>): void };

Deno.test("fleet serve (deno): routes, errors, a run's replay and resume, the guard", async () => {
  const state = stateHome();
  const root = workspace(["api"]);
  const gone = tempDir("ariel-fleet-gone-");
  const hash = await register(state.dir, root);
  await register(state.dir, gone);
  removeDir(gone);
  const runId = await finishedRun(root, ["sh", "-c", "echo one; echo two"]);
  const server = await serve([], state.env, "deno");
  try {
    const get = async (path: string, headers: Record<string, string> = {}) => {
      const res = await fetch(`${server.url}${path}`, { headers });
      return { status: res.status, csp: res.headers.get("content-security-policy"), body: await res.json() };
    };
    assert.deepEqual((await get("healthz")).body, { v: 1, type: "health", ok: true });
    const fleet = (await get("api/fleet")).body;
    assert.deepEqual(
      fleet.workspaces.map((w: { health: string; sources: number }) => [w.health, w.sources]).sort(),
      [
        ["gone", 0],
        ["ok", 2],
      ],
    );
    const runs = (await get(`api/workspaces/${hash}/runs`)).body;
    assert.deepEqual(
      runs.map((r: { runId: string; state: string }) => [r.runId, r.state]),
      [[runId, "exited"]],
    );
    const events = (await get(`api/runs/${runId}/events?from=2`)).body;
    assert.deepEqual(
      events.map((e: { seq: number }) => e.seq),
      [3, 4, 5, 6],
    );

    const replay = await readSse(`${server.url}api/runs/${runId}/stream`);
    assert.deepEqual(seqs(replay.messages), [1, 2, 3, 4, 5, 6]);
    assert.equal(replay.messages.at(-1)?.event, "end");
    const resumed = await readSse(`${server.url}api/runs/${runId}/stream`, { "last-event-id": "4" });
    assert.deepEqual(seqs(resumed.messages), [5, 6]);
    assert.equal(
      (await readSse(`${server.url}api/runs/${runId}/stream`, { "last-event-id": "6" })).status,
      204,
    );

    for (const [path, status, code] of [
      [`api/runs/20200101T000000Z-aaaaaa`, 404, "ERR_RUN_NOT_FOUND"],
      [`api/runs/..%2F..%2Fetc%2Fpasswd`, 403, "ERR_PATH_ESCAPE"],
      [`api/workspaces/0123456789abcdef`, 404, "ERR_WORKSPACE_NOT_FOUND"],
      [`api/runs/${runId}/events?from=x`, 400, "ERR_USAGE"],
    ] as const) {
      const r = await get(path);
      assert.deepEqual([r.status, r.body.code], [status, code], path);
      assert.match(r.csp ?? "", /default-src 'none'/);
    }
    const form = await fetch(`${server.url}api/runs/${runId}/kill`, {
      method: "POST",
      headers: { "content-type": "application/x-www-form-urlencoded" },
      body: "a=1",
    });
    assert.deepEqual([form.status, (await form.json()).code], [403, "ERR_FORBIDDEN"]);
    const foreign = await fetch(`${server.url}api/runs/${runId}/kill`, {
      method: "POST",
      headers: { "content-type": "application/json", origin: "http://evil.example" },
      body: "{}",
    });
    assert.deepEqual([foreign.status, (await foreign.json()).code], [403, "ERR_FORBIDDEN"]);
    const page = await fetch(server.url);
    assert.equal(page.status, 200);
    assert.match(await page.text(), /<title>ariel fleet<\/title>/);
  } finally {
    await server.stop();
    removeDir(state.dir);
    removeDir(root);
  }
});
