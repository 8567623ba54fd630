import { spawnSync } from "node:child_process";
import {
  existsSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  realpathSync,
  rmSync,
  utimesSync,
  writeFileSync,
} from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { arielErrorOf } from "../_fixture.ts";
import { bundleWorker, removeWorker, runWorker } from "./_fixture.ts";
import { nodeGit } from "./git.ts";
import { selfIdentity } from "./proc.ts";
import { REPO_LOCK_NAME, resolveCommonGitDir, withRepoLock } from "./repo-lock.ts";

let common: string;
let lock: string;
beforeEach(() => {
  common = realpathSync(mkdtempSync(join(tmpdir(), "ariel-common-")));
  lock = join(common, REPO_LOCK_NAME);
});
afterEach(() => rmSync(common, { recursive: true, force: true }));

function deadPid(): number {
  const r = spawnSync(process.execPath, ["-e", "process.stdout.write(String(process.pid))"], {
    encoding: "utf8",
  });
  return Number(r.stdout);
}

const holder = (over: Record<string, unknown>) =>
  JSON.stringify({
    ...selfIdentity(),
    nonce: "0123456789abcdef",
    acquiredAt: "2026-01-01T00:00:00.000Z",
    ...over,
  });

describe("withRepoLock", () => {
  it("writes the holder into <common>/ariel-worktree.lock and removes it afterwards", async () => {
    const inside = await withRepoLock(common, async () => JSON.parse(readFileSync(lock, "utf8")), {
      purpose: "add t1",
    });
    expect(inside).toMatchObject({ ...selfIdentity(), purpose: "add t1" });
    expect(inside.nonce).toMatch(/^[0-9a-f]{16}$/);
    expect(existsSync(lock)).toBe(false);
  });

  it("releases the lock when fn throws", async () => {
    await expect(withRepoLock(common, async () => Promise.reject(new Error("boom")))).rejects.toThrow("boom");
    expect(readdirSync(common)).toEqual([]);
  });

  it.each([
    ["a dead pid", () => holder({ pid: deadPid() })],
    ["a reused pid (same pid, other start time)", () => holder({ processStart: "1" })],
  ])("breaks a stale lock of %s", async (_n, content) => {
    writeFileSync(lock, content());
    const ran = await withRepoLock(common, async () => true, { timeoutMs: 0 });
    expect(ran).toBe(true);
    expect(readdirSync(common)).toEqual([]);
  });

  it("waits for a lock whose content is not readable yet, then breaks it once it is old", async () => {
    writeFileSync(lock, "");
    const e = await arielErrorOf(withRepoLock(common, async () => true, { timeoutMs: 200 }));
    expect(e.code).toBe("ERR_LOCKED");
    const old = new Date(Date.now() - 60_000);
    utimesSync(lock, old, old);
    expect(await withRepoLock(common, async () => true, { timeoutMs: 0 })).toBe(true);
  });

  it("treats a holder on another host as alive (waits, then ERR_LOCKED)", async () => {
    writeFileSync(lock, holder({ pid: deadPid(), host: "elsewhere.invalid" }));
    const e = await arielErrorOf(withRepoLock(common, async () => true, { timeoutMs: 100 }));
    expect([e.code, e.context.holderHost]).toEqual(["ERR_LOCKED", "elsewhere.invalid"]);
    expect(existsSync(lock)).toBe(true);
  });

  it("serializes callers in one process", async () => {
    const order: string[] = [];
    const job = (name: string) =>
      withRepoLock(common, async () => {
        order.push(`${name}+`);
        await new Promise((r) => setTimeout(r, 20));
        order.push(`${name}-`);
      });
    await Promise.all([job("a"), job("b"), job("c")]);
    expect(order).toEqual(["a+", "a-", "b+", "b-", "c+", "c-"]);
  });

  it("rejects a relative common dir (a programming error)", async () => {
    await expect(withRepoLock(".git", async () => true)).rejects.toThrow(RangeError);
  });
});

describe("across processes", () => {
  let worker: string;
  beforeAll(async () => {
    worker = await bundleWorker();
  });
  afterAll(() => removeWorker(worker));

  it("a live holder is waited for, then ERR_LOCKED (75) naming its pid", async () => {
    const w = runWorker(worker, "hold-lock", { path: lock, holdMs: 5_000 });
    await w.line((o) => "locked" in o);
    const started = Date.now();
    const e = await arielErrorOf(withRepoLock(common, async () => true, { timeoutMs: 300 }));
    expect(Date.now() - started).toBeGreaterThanOrEqual(250);
    expect([e.code, e.exit, e.context.holderPid]).toEqual(["ERR_LOCKED", 75, w.child.pid]);
    w.child.kill("SIGKILL");
    await w.done;
  });

  it("a queue that moves is waited out: the timeout runs per holder, not in total", async () => {
    const a = runWorker(worker, "hold-lock", { path: lock, holdMs: 800 });
    await a.line((o) => "locked" in o);
    const b = runWorker(worker, "hold-lock", { path: lock, holdMs: 800 });
    const started = Date.now();
    expect(await withRepoLock(common, async () => "in", { timeoutMs: 1_200 })).toBe("in");
    const waited = Date.now() - started;
    const [da, db] = await Promise.all([a.done, b.done]);
    expect([da.code, db.code]).toEqual([0, 0]);
    // When B got in before us we waited out two holders, longer than one timeout.
    if ((db.lines[0]?.at as number) < started + waited) expect(waited).toBeGreaterThan(1_200);
  });

  it("a holder that releases in time lets the waiter in", async () => {
    const w = runWorker(worker, "hold-lock", { path: lock, holdMs: 300 });
    await w.line((o) => "locked" in o);
    expect(await withRepoLock(common, async () => "in", { timeoutMs: 10_000 })).toBe("in");
    await w.done;
  });

  it("a holder killed with SIGKILL leaves a stale lock that the next caller breaks", async () => {
    const w = runWorker(worker, "hold-lock", { path: lock, holdMs: 60_000 });
    await w.line((o) => "locked" in o);
    w.child.kill("SIGKILL");
    await w.done;
    expect(existsSync(lock)).toBe(true);
    expect(await withRepoLock(common, async () => "in", { timeoutMs: 0 })).toBe("in");
  });

  it("several processes finding one stale lock: each gets it in turn, never two at once", async () => {
    writeFileSync(lock, holder({ pid: deadPid() }));
    const runs = Array.from({ length: 4 }, () => runWorker(worker, "hold-lock", { path: lock, holdMs: 100 }));
    const done = await Promise.all(runs.map((r) => r.done));
    expect(done.map((d) => d.code)).toEqual([0, 0, 0, 0]);
    const spans = done
      .map((d) => [d.lines[0]?.at as number, d.lines[1]?.at as number] as const)
      .sort((a, b) => a[0] - b[0]);
    for (let i = 1; i < spans.length; i++) expect(spans[i]![0]).toBeGreaterThanOrEqual(spans[i - 1]![1]);
    expect(readdirSync(common)).toEqual([]);
  });

  it("excludes other processes: concurrent read-modify-write increments under it lose nothing", async () => {
    const runs = Array.from({ length: 3 }, () => runWorker(worker, "repo-lock-append", { common, n: 20 }));
    const done = await Promise.all(runs.map((r) => r.done));
    expect(done.map((d) => d.code)).toEqual([0, 0, 0]);
    expect(readFileSync(join(common, "counter"), "utf8")).toBe("60");
    expect(readdirSync(common).sort()).toEqual(["counter"]);
  });
});

describe("resolveCommonGitDir", () => {
  it("is the absolute common dir from a linked worktree too", async () => {
    const repo = join(common, "repo");
    const env = { ...process.env, GIT_CONFIG_GLOBAL: "/dev/null", GIT_CONFIG_NOSYSTEM: "1" };
    const g = (cwd: string, ...args: string[]) => spawnSync("git", args, { cwd, env, encoding: "utf8" });
    spawnSync("git", ["init", "-q", "-b", "main", repo], { env });
    g(repo, "-c", "user.name=t", "-c", "user.email=t@e", "commit", "-q", "--allow-empty", "-m", "x");
    g(repo, "worktree", "add", "-q", join(common, "wt"), "-b", "w");
    expect(await resolveCommonGitDir(nodeGit, repo)).toBe(join(repo, ".git"));
    expect(await resolveCommonGitDir(nodeGit, join(common, "wt"))).toBe(join(repo, ".git"));
    const e = await arielErrorOf(resolveCommonGitDir(nodeGit, "/"));
    expect(e.code).toBe("ERR_GIT");
  });
});
