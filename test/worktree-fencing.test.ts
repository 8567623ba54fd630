/**
 * A fenced-out writer touches nothing (docs/durability.md, "Fencing"). Process A is paused at a
 * named point (ARIEL_TEST_PAUSE_AT) and frozen with SIGSTOP until its lease (leaseTtlMs 1000)
 * has expired; process B then takes the task over (token 2) and the user works in B's
 * worktrees; A is continued with SIGCONT. A must exit 75 ERR_FENCED and change nothing: B's
 * worktrees, branches, record and the user's files stay exactly as they were.
 */
import { existsSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { type PausedCli, records, startPausedAt } from "./helpers/cli.ts";
import { GIT_TEST_ENV } from "./helpers/git.ts";
import { gitState, legPath, makeWorkspace, picture, removeDir, taskFile, wt } from "./worktree-fixtures.ts";

let root: string;
beforeEach(() => {
  root = makeWorkspace(["api", "web"]);
  writeFileSync(join(root, "ariel.config.json"), '{"leaseTtlMs": 1000}\n');
});
afterEach(() => removeDir(root));

/** Start `ariel-worktree ...args`, wait until it pauses at `point`, then SIGSTOP it. */
async function stopAt(point: string, args: readonly string[]): Promise<PausedCli> {
  const paused = await startPausedAt("worktree", point, args, {
    cwd: root,
    env: {
      ...GIT_TEST_ENV,
      ARIEL_OWNER: "tester",
      // A plain directory is a workspace only when named (docs/decisions/0024).
      ARIEL_WORKSPACE_ROOT: root,
      // Sleep there a while (not forever), so that SIGCONT lets the process go on.
      ARIEL_TEST_PAUSE_MS: "4000",
    },
  });
  // Stopped outside the lease lock: its renewal timer takes that lock for a moment, and a
  // process stopped inside it would hold it (ERR_LOCKED for B) instead of only letting its lease expire.
  const lock = join(root, ".ariel/leases/f1.json.lock");
  for (;;) {
    process.kill(paused.pid, "SIGSTOP");
    if (!existsSync(lock)) break;
    process.kill(paused.pid, "SIGCONT");
    await new Promise((r) => setTimeout(r, 20));
  }
  await leaseExpired("f1");
  return paused;
}

/** Wait until the task's lease has expired (a stopped holder renews nothing). */
async function leaseExpired(task: string): Promise<void> {
  for (;;) {
    const lease = JSON.parse(readFileSync(join(root, ".ariel/leases", `${task}.json`), "utf8"));
    if (Date.parse(lease.expiresAt) < Date.now() - 50) return;
    await new Promise((r) => setTimeout(r, 100));
  }
}

/** SIGCONT the stopped process and wait for it to end. */
async function resume(p: PausedCli) {
  process.kill(p.pid, "SIGCONT");
  return p.done;
}

/** Everything B and the user made, to compare after A has run. */
function world() {
  return {
    files: picture(root),
    api: gitState(join(root, "api"), legPath(root, "f1", "api")),
    web: gitState(join(root, "web"), legPath(root, "f1", "web")),
  };
}

function expectFenced(a: { code: number | null; stderr: string }): void {
  expect(a.code).toBe(75);
  const lines = a.stderr.split("\n").filter((l) => !l.startsWith("ariel-test-paused "));
  const errs = records(lines.join("\n")).filter((r) => r.type === "error");
  expect(errs).toEqual([expect.objectContaining({ code: "ERR_FENCED", exit: 75 })]);
}

describe("a writer whose lease expired while it was stopped", () => {
  it("add, one source: A's unwind does not remove B's adopted worktree or the user's files", async () => {
    const a = await stopAt("add:after-lock", ["add", "--task", "f1", "--source", "api", "--json"]);
    const b = await wt(root, ["add", "--task", "f1", "--source", "api", "--json"]);
    expect([b.code, b.stderr]).toEqual([0, ""]);
    expect(taskFile(root, "f1").fencingToken).toBe(2);
    writeFileSync(join(legPath(root, "f1", "api"), "work.txt"), "the user's work\n");
    const before = world();

    expectFenced(await resume(a));
    expect(world()).toEqual(before);
    expect(readFileSync(join(legPath(root, "f1", "api"), "work.txt"), "utf8")).toBe("the user's work\n");
  });

  it("add, two sources: A runs no git worktree add after losing its lease", async () => {
    const a = await stopAt("add:after-lock", [
      "add",
      "--task",
      "f1",
      "--source",
      "api",
      "--source",
      "web",
      "--json",
    ]);
    const b = await wt(root, ["add", "--task", "f1", "--source", "api", "--source", "web", "--json"]);
    expect([b.code, b.stderr]).toEqual([0, ""]);
    for (const leg of ["api", "web"]) {
      writeFileSync(join(legPath(root, "f1", leg), "work.txt"), `work in ${leg}\n`);
    }
    const before = world();

    expectFenced(await resume(a));
    expect(world()).toEqual(before);
  });

  it("remove: A does not force-remove the worktrees B removed and restored", async () => {
    const made = await wt(root, ["add", "--task", "f1", "--source", "api", "--source", "web", "--json"]);
    expect([made.code, made.stderr]).toEqual([0, ""]);
    const a = await stopAt("remove:before-leg", ["remove", "--task", "f1", "--json"]);
    const b = await wt(root, ["remove", "--task", "f1", "--json"]);
    expect([b.code, b.stderr]).toEqual([0, ""]);
    const r = await wt(root, ["restore", "--task", "f1", "--json"]);
    expect([r.code, r.stderr]).toEqual([0, ""]);
    for (const leg of ["api", "web"]) {
      writeFileSync(join(legPath(root, "f1", leg), "new.txt"), `new work in ${leg}\n`);
    }
    const before = world();

    expectFenced(await resume(a));
    expect(world()).toEqual(before);
    expect(taskFile(root, "f1").legs.map((l) => l.state)).toEqual(["active", "active"]);
  });
});
