// Durability under Deno (from source): a kill -9'd add is repaired by reconcile, and a task
// leased by a live process is refused with exit 75 whichever runtime holds the lease.
// Run: node_modules/.bin/deno test -A test/deno/durable_test.ts
import assert from "node:assert/strict";
import { existsSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { type Runtime, records, runAriel, startPausedAt } from "../helpers/cli.ts";
import { git, initRepo, removeDir, tempDir } from "../helpers/git.ts";

// Deno's global, declared for tsc (which checks this file with Node's types); Deno itself runs it.
declare const Deno: { test(name: string, fn: () => Promise<void>): void };

const ENV = { GIT_CONFIG_GLOBAL: "/dev/null", GIT_CONFIG_NOSYSTEM: "1", ARIEL_OWNER: "deno-test" };

function workspace(): { ws: string; api: string } {
  const ws = tempDir("ariel-durable-deno-");
  initRepo(join(ws, "api"));
  return { ws, api: join(ws, "api") };
}

/** Start an add under `runtime` that pauses at `point`; resolves once it is paused. */
const pausedAdd = (ws: string, task: string, point: string, runtime: Runtime) =>
  startPausedAt("worktree", point, ["add", "--source", "api", "--task", task], {
    cwd: ws,
    runtime,
    env: { ...ENV, ARIEL_WORKSPACE_ROOT: ws },
  });

const wt = (ws: string, args: string[]) =>
  runAriel("worktree", args, { cwd: ws, runtime: "deno", env: { ...ENV, ARIEL_WORKSPACE_ROOT: ws } });

Deno.test("reconcile (deno): repairs an add killed after git worktree add, then has nothing to do", async () => {
  const { ws, api } = workspace();
  try {
    const add = await pausedAdd(ws, "t1", "add:after-worktree", "deno");
    await add.kill();
    const r = await wt(ws, ["reconcile", "--json"]);
    assert.equal(r.stderr, "");
    assert.equal(r.code, 0);
    assert.deepEqual(
      records(r.stdout).map((x) => x.fix),
      ["remove-stale-lock", "remove-worktree", "delete-branch", "remove-dir"],
    );
    assert.equal(existsSync(join(ws, ".ariel/worktrees/t1")), false);
    assert.equal(git(api, "for-each-ref", "refs/heads/ariel/"), "");
    const again = await wt(ws, ["reconcile", "--dry-run", "--detailed-exitcode"]);
    assert.deepEqual([again.code, again.stdout], [0, ""]);
  } finally {
    removeDir(ws);
  }
});

Deno.test("lease (deno): a task leased by a live node process is refused with ERR_LEASE_HELD, 75", async () => {
  const { ws } = workspace();
  try {
    const holder = await pausedAdd(ws, "t1", "add:after-lease", "node");
    try {
      const r = await wt(ws, ["add", "--source", "api", "--task", "t1", "--json"]);
      assert.equal(r.code, 75);
      assert.equal(records(r.stderr)[0]?.code, "ERR_LEASE_HELD");
      const lease = JSON.parse(readFileSync(join(ws, ".ariel/leases/t1.json"), "utf8"));
      assert.equal(lease.token, 1);
    } finally {
      await holder.kill();
    }
    // The holder is dead now: its lease is taken over at once, with the next token.
    const r = await wt(ws, ["add", "--source", "api", "--task", "t1", "--json"]);
    assert.equal(r.code, 0);
    assert.equal(records(r.stdout)[0]?.fencingToken, 2);
  } finally {
    removeDir(ws);
  }
});
