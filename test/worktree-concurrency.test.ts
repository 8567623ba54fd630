/**
 * Many `ariel-worktree add` processes on one repository at once (docs/durability.md): the repository
 * lock serializes git's worktree mutations and the task lease makes one task one worktree.
 * Raw `git worktree add` fails under the same load (commondir, config.lock); ariel must not.
 */
import { spawn } from "node:child_process";
import { existsSync, readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { type CliResult, records, runAriel } from "./helpers/cli.ts";
import { git, initRepo, removeDir, tempDir } from "./helpers/git.ts";

let ws: string;
let api: string;
const env = () => ({
  ARIEL_WORKSPACE_ROOT: ws,
  GIT_CONFIG_GLOBAL: "/dev/null",
  GIT_CONFIG_NOSYSTEM: "1",
  ARIEL_OWNER: "tester",
});
const add = (task: string, ...more: string[]): Promise<CliResult> =>
  runAriel("worktree", ["add", "--source", "api", "--task", task, "--json", ...more], {
    cwd: ws,
    env: env(),
    timeoutMs: 120_000,
  });

beforeEach(() => {
  ws = tempDir("ariel-conc-");
  api = join(ws, "api");
  initRepo(api, { "README.md": "api\n", "src/a.ts": "export const a = 1;\n" });
});
afterEach(() => removeDir(ws));

/** Worktree paths git knows (main excluded) with their lock reasons. */
function worktrees(repo: string): { path: string; locked: string | null }[] {
  return git(repo, "worktree", "list", "--porcelain")
    .split("\n\n")
    .slice(1)
    .map((block) => {
      const path = /^worktree (.*)$/m.exec(block)?.[1] ?? "";
      const locked = /^locked ?(.*)$/m.exec(block);
      return { path, locked: locked ? (locked[1] ?? "") : null };
    });
}

describe("parallel ariel-worktree add on one repository", () => {
  it("16 distinct tasks at once all succeed, each locked, nothing leaked", async () => {
    const tasks = Array.from({ length: 16 }, (_, i) => `t${String(i).padStart(2, "0")}`);
    const results = await Promise.all(tasks.map((t) => add(t)));
    expect(results.map((r) => [r.code, r.stderr])).toEqual(tasks.map(() => [0, ""]));
    for (const [i, r] of results.entries()) {
      const [rec] = records(r.stdout);
      expect(rec).toMatchObject({ type: "task", taskId: tasks[i], state: "active", version: 1 });
    }
    expect(worktrees(api)).toEqual(
      tasks.map((t) => ({ path: join(ws, ".ariel/worktrees", t, "api"), locked: `ariel:${t}` })),
    );
    expect(git(api, "for-each-ref", "--format=%(refname:short)", "refs/heads/ariel/").split("\n")).toEqual(
      tasks.map((t) => `ariel/${t}`),
    );
    expect(readdirSync(join(api, ".git/worktrees")).length).toBe(16);
    const leftovers = readdirSync(join(api, ".git")).filter((n) => n.includes("lock"));
    expect(leftovers).toEqual([]);
    expect(readdirSync(join(ws, ".ariel/tasks")).sort()).toEqual(tasks.map((t) => `${t}.json`));
    const reconcile = await runAriel("worktree", ["reconcile", "--dry-run", "--detailed-exitcode"], {
      cwd: ws,
      env: env(),
    });
    expect([reconcile.code, reconcile.stdout]).toEqual([0, ""]);
  });

  it("two racing adds of one task make one worktree; the loser waits its turn or is told to retry", async () => {
    const [a, b] = await Promise.all([add("same"), add("same")]);
    const codes = [a?.code, b?.code].sort();
    // The second either found the task made (idempotent, 0) or the lease held (75, retry).
    expect([
      [0, 0],
      [0, 75],
    ]).toContainEqual(codes);
    for (const r of [a, b]) {
      if (r?.code === 75)
        expect(records(r.stderr)).toEqual([expect.objectContaining({ code: "ERR_LEASE_HELD" })]);
      else expect(records(r?.stdout ?? "")[0]).toMatchObject({ taskId: "same", version: 1 });
    }
    expect(worktrees(api)).toEqual([{ path: join(ws, ".ariel/worktrees/same/api"), locked: "ariel:same" }]);
    const rec = JSON.parse(readFileSync(join(ws, ".ariel/tasks/same.json"), "utf8"));
    expect([rec.version, rec.legs.length]).toEqual([1, 1]);
    expect(git(api, "for-each-ref", "--format=%(refname:short)", "refs/heads/ariel/")).toBe("ariel/same");
  });

  it("adds racing with someone's raw git worktree adds still succeed (git's transient errors retried)", async () => {
    const raw = Array.from(
      { length: 4 },
      (_, i) =>
        new Promise<number | null>((resolve) => {
          const child = spawn("git", ["worktree", "add", "-q", join(ws, `raw-${i}`), "-b", `raw-${i}`], {
            cwd: api,
            env: { ...process.env, ...env() },
            stdio: "ignore",
          });
          child.on("close", resolve);
        }),
    );
    const ours = Array.from({ length: 6 }, (_, i) => add(`r${i}`));
    const results = await Promise.all(ours);
    await Promise.all(raw);
    expect(results.map((r) => [r.code, r.stderr])).toEqual(results.map(() => [0, ""]));
    for (let i = 0; i < 6; i++)
      expect(existsSync(join(ws, `.ariel/worktrees/r${i}/api/README.md`))).toBe(true);
  });
});
