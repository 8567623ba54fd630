/**
 * kill -9 of `ariel-worktree add` at named points (ARIEL_TEST_HOOKS=1 ARIEL_TEST_PAUSE_AT=…),
 * then `ariel-worktree reconcile` must converge: nothing of the half-made task is left (no
 * worktree, admin entry, branch, directory or record), nothing of anyone else is touched, no work
 * is lost, and a second reconcile has nothing to do.
 */
import { existsSync, readdirSync, readFileSync, writeFileSync } from "node:fs";
import { basename, join } from "node:path";
import { afterEach, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { REPO_ROOT, records, runAriel, startPausedAt } from "./helpers/cli.ts";
import { git, initRepo, removeDir, tempDir, writeFile } from "./helpers/git.ts";

let ws: string;
const env = () => ({
  ARIEL_WORKSPACE_ROOT: ws,
  GIT_CONFIG_GLOBAL: "/dev/null",
  GIT_CONFIG_NOSYSTEM: "1",
  ARIEL_OWNER: "tester",
});
const wt = (...args: string[]) => runAriel("worktree", args, { cwd: ws, env: env() });

/** Start `ariel-worktree add`, wait until it pauses at `point`, SIGKILL it. */
async function killAddAt(point: string, args: string[]): Promise<void> {
  const add = await startPausedAt("worktree", point, ["add", ...args], { cwd: ws, env: env() });
  expect(await add.kill()).toEqual({ code: null, signal: "SIGKILL" });
}

/** Everything git and the disk say about a repository, for before/after comparisons. */
function repoState(repo: string) {
  return {
    worktrees: git(repo, "worktree", "list", "--porcelain"),
    branches: git(repo, "for-each-ref", "--format=%(refname) %(objectname)", "refs/heads/"),
  };
}

function arielBranches(repo: string): string[] {
  return git(repo, "for-each-ref", "--format=%(refname:short)", "refs/heads/ariel/")
    .split("\n")
    .filter(Boolean);
}

let api: string;
let web: string;

beforeAll(() => {
  if (!existsSync(join(REPO_ROOT, "packages/cli-worktree/dist/ariel-worktree.cjs"))) {
    throw new Error("run node scripts/setup.mjs first");
  }
});

beforeEach(async () => {
  ws = tempDir("ariel-crash-");
  api = join(ws, "api");
  web = join(ws, "web");
  initRepo(api, { "README.md": "api\n", "src/a.ts": "export const a = 1;\n" });
  initRepo(web, { "README.md": "web\n" });
  writeFile(join(api, ".env"), "TOKEN=local\n"); // an overlay file (untracked in the source)
  // Someone else's worktrees: a plain one, one locked with their reason, one whose directory is gone.
  git(api, "worktree", "add", "-q", join(ws, "user-wt"), "-b", "user-branch");
  git(api, "worktree", "add", "-q", join(ws, "user-locked"), "-b", "user-locked");
  git(api, "worktree", "lock", "--reason", "mine, hands off", join(ws, "user-locked"));
  git(web, "worktree", "add", "-q", join(ws, "user-gone"), "-b", "user-gone");
  removeDir(join(ws, "user-gone"));
  // A finished task that must survive untouched.
  const made = await wt("add", "--source", "api", "--source", "web", "--task", "done", "--json");
  expect([made.code, made.stderr]).toEqual([0, ""]);
});
afterEach(() => removeDir(ws));

describe("kill -9 of ariel-worktree add, then reconcile", () => {
  it.each<[string, boolean, string[]]>([
    ["add:after-lease", true, []],
    // Killed holding the first repository lock: no directory is made before the lock is held.
    ["repo-lock:held", true, ["remove-stale-lock ariel-worktree.lock"]],
    [
      "add:after-worktree",
      true,
      ["remove-stale-lock ariel-worktree.lock", "remove-worktree t1", "delete-branch t1", "remove-dir t1"],
    ],
    ["add:after-lock", true, ["remove-worktree t1", "delete-branch t1", "remove-dir t1"]],
    ["add:after-record", false, []],
  ])(
    "killed at %s: reconcile converges, touches nothing else (half-made: %s)",
    async (point, halfMade, expected) => {
      const doneRecord = readFileSync(join(ws, ".ariel/tasks/done.json"), "utf8");
      const before = { api: repoState(api), web: repoState(web) };

      await killAddAt(point, ["--source", "api", "--source", "web", "--task", "t1"]);

      const r1 = await wt("reconcile", "--json");
      expect([r1.code, r1.stderr]).toEqual([0, ""]);
      const fixes = records(r1.stdout).map((r) => `${r.fix} ${r.task ?? basename(String(r.path))}`);
      expect(fixes).toEqual(expected);

      // Converged: a second look finds nothing to do.
      const r2 = await wt("reconcile", "--dry-run", "--detailed-exitcode", "--json");
      expect([r2.code, r2.stdout, r2.stderr]).toEqual([0, "", ""]);

      // Nothing of anyone else touched.
      expect(readFileSync(join(ws, ".ariel/tasks/done.json"), "utf8")).toBe(doneRecord);
      const foreign = (s: string) =>
        s
          .split("\n\n")
          .filter((e) => !e.includes("/.ariel/worktrees/t1/"))
          .join("\n\n");
      expect(foreign(repoState(api).worktrees)).toBe(foreign(before.api.worktrees));
      expect(foreign(repoState(web).worktrees)).toBe(foreign(before.web.worktrees));
      const others = (b: string) =>
        b
          .split("\n")
          .filter((l) => !l.startsWith("refs/heads/ariel/t1 "))
          .join("\n");
      expect(others(repoState(api).branches)).toBe(others(before.api.branches));
      expect(others(repoState(web).branches)).toBe(others(before.web.branches));
      expect(git(web, "worktree", "list", "--porcelain")).toContain(`worktree ${join(ws, "user-gone")}\n`);

      if (halfMade) {
        // Nothing of the half-made task is left.
        expect(existsSync(join(ws, ".ariel/tasks/t1.json"))).toBe(false);
        expect(existsSync(join(ws, ".ariel/worktrees/t1"))).toBe(false);
        expect(arielBranches(api)).toEqual(["ariel/done"]);
        expect(arielBranches(web)).toEqual(["ariel/done"]);
        for (const repo of [api, web]) {
          expect(git(repo, "worktree", "list", "--porcelain")).not.toContain("/.ariel/worktrees/t1/");
          expect(readdirSync(join(repo, ".git"))).not.toContain("ariel-worktree.lock");
        }
      } else {
        const rec = JSON.parse(readFileSync(join(ws, ".ariel/tasks/t1.json"), "utf8"));
        expect(rec.legs.map((l: { state: string }) => l.state)).toEqual(["active", "active"]);
      }

      // The task can be made (again) at once: no lease or lock is left held.
      const again = await wt("add", "--source", "api", "--source", "web", "--task", "t1", "--json");
      expect([again.code, again.stderr]).toEqual([0, ""]);
      expect(arielBranches(api)).toEqual(["ariel/done", "ariel/t1"]);
    },
  );

  it("a half-made worktree holding work is kept (and relocked), its branch too", async () => {
    await killAddAt("add:after-lock", ["--source", "api", "--task", "t1"]);
    const leg = join(ws, ".ariel/worktrees/t1/api");
    writeFileSync(join(leg, "notes.txt"), "an agent's work\n");
    writeFileSync(join(leg, "README.md"), "edited\n");

    const r = await wt("reconcile", "--json");
    expect(r.code).toBe(0);
    expect(records(r.stdout)).toEqual([]);
    const warnings = records(r.stderr);
    expect(warnings).toEqual([
      expect.objectContaining({
        type: "warning",
        code: "W_KEPT_WORK",
        task: "t1",
        path: leg,
        changes: ["README.md", "notes.txt"],
      }),
    ]);
    expect(readFileSync(join(leg, "notes.txt"), "utf8")).toBe("an agent's work\n");
    expect(arielBranches(api)).toEqual(["ariel/done", "ariel/t1"]);
    expect(git(api, "worktree", "list", "--porcelain")).toContain(`worktree ${leg}\n`);

    const again = await wt("reconcile", "--dry-run", "--detailed-exitcode");
    expect([again.code, again.stdout]).toEqual([0, ""]);
  });

  it("a half-made worktree whose commits only HEAD's reflog holds is kept, as remove would refuse it", async () => {
    await killAddAt("add:after-lock", ["--source", "api", "--task", "t1"]);
    const leg = join(ws, ".ariel/worktrees/t1/api");
    git(leg, "switch", "-q", "--detach");
    git(leg, "commit", "-q", "--allow-empty", "-m", "an agent's commit");
    const lost = git(leg, "rev-parse", "HEAD");
    git(leg, "switch", "-q", "ariel/t1");
    const r = await wt("reconcile", "--json");
    expect(r.code).toBe(0);
    expect(records(r.stdout)).toEqual([]);
    expect(records(r.stderr)).toEqual([
      expect.objectContaining({
        code: "W_KEPT_WORK",
        task: "t1",
        path: leg,
        changes: [],
        reflogOnly: [lost],
      }),
    ]);
    expect(existsSync(leg)).toBe(true);
  });

  // The same rule as remove's `unreachable`: a ref that outlives the worktree keeps the commit; a
  // per-worktree ref (in .git/worktrees/<id>/refs/) goes with it and keeps nothing.
  it.each([
    ["no ref", null, true],
    ["a per-worktree ref (refs/worktree/keep)", "refs/worktree/keep", true],
    ["a ref outside branches and tags (refs/keep/x)", "refs/keep/x", false],
  ] as const)(
    "a half-made detached worktree whose commit %s holds (%s): kept = %s",
    async (_name, ref, kept) => {
      await killAddAt("add:after-lock", ["--source", "api", "--task", "t1"]);
      const leg = join(ws, ".ariel/worktrees/t1/api");
      git(leg, "switch", "-q", "--detach");
      git(leg, "commit", "-q", "--allow-empty", "-m", "an agent's commit");
      const c = git(leg, "rev-parse", "HEAD");
      if (ref) git(leg, "update-ref", ref, c);
      const r = await wt("reconcile", "--json");
      expect(r.code).toBe(0);
      const fixes = records(r.stdout).map((x) => x.fix);
      if (kept) {
        expect(fixes).toEqual(["delete-branch"]); // ariel/t1, still at the source's commit
        expect(records(r.stderr)).toEqual([
          expect.objectContaining({ code: "W_KEPT_WORK", path: leg, changes: [], unreachableHead: true }),
        ]);
      } else {
        expect(fixes).toEqual(["remove-worktree", "delete-branch", "remove-dir"]);
        expect(git(api, "rev-parse", ref ?? "")).toBe(c);
      }
      expect(existsSync(leg)).toBe(kept);
    },
  );

  it("a half-made worktree whose submodule holds commits found nowhere else is kept", async () => {
    const lib = join(ws, "lib");
    initRepo(lib, { "lib.txt": "lib\n" });
    git(api, "-c", "protocol.file.allow=always", "submodule", "add", "-q", "../lib", "lib");
    git(api, "commit", "-q", "-m", "add lib");
    await killAddAt("add:after-lock", ["--source", "api", "--task", "t1"]);
    const leg = join(ws, ".ariel/worktrees/t1/api");
    git(leg, "-c", "protocol.file.allow=always", "submodule", "update", "--init", "-q");
    const sub = join(leg, "lib");
    const recorded = git(sub, "rev-parse", "HEAD");
    git(sub, "switch", "-q", "-c", "feature");
    git(sub, "commit", "-q", "--allow-empty", "-m", "precious");
    const precious = git(sub, "rev-parse", "HEAD");
    git(sub, "switch", "-q", "--detach", recorded);
    const r = await wt("reconcile", "--json");
    expect(r.code).toBe(0);
    expect(records(r.stdout)).toEqual([]);
    expect(records(r.stderr)).toEqual([
      expect.objectContaining({ code: "W_KEPT_WORK", path: leg, submoduleCommits: [`lib@${precious}`] }),
    ]);
    expect(git(sub, "rev-parse", "feature")).toBe(precious);
  });

  it("the overlay copies of a killed add are not work: the half-made worktree goes", async () => {
    await killAddAt("add:after-lock", ["--source", "api", "--task", "t1"]);
    const leg = join(ws, ".ariel/worktrees/t1/api");
    writeFileSync(join(leg, ".env"), readFileSync(join(api, ".env")));
    const r = await wt("reconcile", "--json");
    expect(r.code).toBe(0);
    expect(records(r.stdout).map((x) => x.fix)).toEqual(["remove-worktree", "delete-branch", "remove-dir"]);
    expect(existsSync(leg)).toBe(false);
  });

  it("a record whose worktree vanished: leg marked unknown, admin entry pruned, once", async () => {
    const leg = join(ws, ".ariel/worktrees/done/web");
    removeDir(leg);
    const r = await wt("reconcile", "--json");
    expect(r.code).toBe(0);
    expect(records(r.stdout).map((x) => [x.fix, x.task, x.path])).toEqual([
      ["prune", "done", leg],
      ["mark-leg", "done", leg],
    ]);
    const rec = JSON.parse(readFileSync(join(ws, ".ariel/tasks/done.json"), "utf8"));
    expect([rec.state, rec.legs.map((l: { state: string }) => l.state), rec.version]).toEqual([
      "unknown",
      ["active", "unknown"],
      2,
    ]);
    expect(git(web, "worktree", "list", "--porcelain")).not.toContain(leg);
    expect(git(web, "worktree", "list", "--porcelain")).toContain(`worktree ${join(ws, "user-gone")}\n`);
    const again = await wt("reconcile", "--dry-run", "--detailed-exitcode");
    expect([again.code, again.stdout]).toEqual([0, ""]);
  });

  // remove killed after its snapshots and worktree removals, before its record write. `api` holds
  // work (a snapshot with --snapshot), `web` none (removed either way).
  it.each<[string, string[], string]>([
    [
      "--snapshot: the leg marked snapshotted with its ref, and restore brings its work back",
      ["--snapshot"],
      "snapshotted",
    ],
    ["without --snapshot, an older snapshot the record knows: the leg marked removed", [], "removed"],
  ])("a killed remove, then reconcile %s", async (_name, flags, apiTo) => {
    const apiLeg = join(ws, ".ariel/worktrees/done/api");
    const webLeg = join(ws, ".ariel/worktrees/done/web");
    const recPath = join(ws, ".ariel/tasks/done.json");
    const ref = "refs/ariel/snapshots/done/api";
    if (flags.length === 0) {
      // An earlier snapshot cycle: the ref exists and the record knows its commit.
      writeFile(join(apiLeg, "src/a.ts"), "export const a = 3;\n");
      expect((await wt("remove", "--task", "done", "--snapshot")).code).toBe(0);
      expect((await wt("restore", "--task", "done")).code).toBe(0);
    }
    const known = JSON.parse(readFileSync(recPath, "utf8")).artifacts;
    writeFile(join(apiLeg, "src/a.ts"), "export const a = 2;\n");
    const rm = await startPausedAt(
      "worktree",
      "remove:before-record",
      ["remove", "--task", "done", "--allow", "dirty", ...flags],
      { cwd: ws, env: env() },
    );
    expect(await rm.kill()).toEqual({ code: null, signal: "SIGKILL" });
    expect([existsSync(apiLeg), existsSync(webLeg)]).toEqual([false, false]);
    const commit = git(api, "rev-parse", ref).trim();
    const r = await wt("reconcile", "--json");
    expect([r.code, r.stderr]).toEqual([0, ""]);
    const mark = {
      v: 1,
      type: "plan",
      action: "worktree.reconcile",
      task: "done",
      fix: "mark-leg",
      from: "active",
      taskState: "closed",
    };
    expect(records(r.stdout).filter((x) => x.fix === "mark-leg")).toEqual([
      {
        ...mark,
        source: "api",
        path: apiLeg,
        to: apiTo,
        ...(apiTo === "snapshotted" ? { snapshot: { ref, commit } } : {}),
      },
      { ...mark, source: "web", path: webLeg, to: "removed" },
    ]);
    const rec = JSON.parse(readFileSync(recPath, "utf8"));
    expect([rec.state, rec.legs.map((l: { source: string; state: string }) => [l.source, l.state])]).toEqual([
      "closed",
      [
        ["api", apiTo],
        ["web", "removed"],
      ],
    ]);
    const snaps = (list: { kind: string; ref: string; source: string; commit: string }[]) =>
      list.filter((a) => a.kind === "snapshot").map((a) => [a.ref, a.source, a.commit]);
    expect(snaps(rec.artifacts)).toEqual(apiTo === "snapshotted" ? [[ref, "api", commit]] : snaps(known));
    const again = await wt("reconcile", "--dry-run", "--detailed-exitcode");
    expect([again.code, again.stdout]).toEqual([0, ""]);
    const restored = await wt("restore", "--task", "done");
    expect([restored.code, restored.stderr]).toEqual([0, ""]);
    expect(readFileSync(join(apiLeg, "src/a.ts"), "utf8")).toBe(
      apiTo === "snapshotted" ? "export const a = 2;\n" : "export const a = 1;\n",
    );
  });

  it("--dry-run changes nothing and says so with --detailed-exitcode (2)", async () => {
    await killAddAt("add:after-worktree", ["--source", "api", "--task", "t1"]);
    const before = repoState(api);
    const r = await wt("reconcile", "--dry-run", "--detailed-exitcode");
    expect(r.code).toBe(2);
    expect(
      r.stdout
        .split("\n")
        .filter(Boolean)
        .map((l) => l.split("\t").slice(0, 2)),
    ).toEqual([
      ["remove-stale-lock", "-"],
      ["remove-worktree", "t1"],
      ["delete-branch", "t1"],
      ["remove-dir", "t1"],
    ]);
    expect(repoState(api)).toEqual(before);
    expect(existsSync(join(ws, ".ariel/worktrees/t1/api"))).toBe(true);
  });

  it("a task whose add is still running (live lease) is skipped: W_TASK_BUSY, exit 75", async () => {
    const add = await startPausedAt(
      "worktree",
      "add:after-lock",
      ["add", "--source", "api", "--task", "t1"],
      {
        cwd: ws,
        env: env(),
      },
    );
    try {
      const r = await wt("reconcile", "--json");
      expect(r.code).toBe(75);
      expect(records(r.stdout)).toEqual([]);
      expect(records(r.stderr)).toEqual([expect.objectContaining({ code: "W_TASK_BUSY", task: "t1" })]);
      expect(existsSync(join(ws, ".ariel/worktrees/t1/api"))).toBe(true);
    } finally {
      await add.kill();
    }
  });
});
