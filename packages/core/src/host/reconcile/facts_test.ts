/**
 * gatherFacts on one real workspace left in many states at once: a recorded task, a half-made
 * add with local work and an overlay copy, a detached worktree of ours with a commit nothing else
 * has, a worktree whose directory is gone, someone else's worktree, `ariel/*` branches that are
 * and are not candidates, orphan directories, unreadable records, stale and live locks. The facts
 * are compared whole: what reconcile may remove rests on each one.
 */
import { mkdirSync, realpathSync, rmSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { commitAll, git, removeDir, writeFile } from "../_fixture.ts";
import { withLease } from "../lease-store.ts";
import { selfIdentity } from "../proc.ts";
import { faultyPorts, makeRoot } from "../worktree/_fixture.ts";
import { addTask } from "../worktree/add.ts";
import { openWorkspace } from "../worktree/workspace.ts";
import { commonOf, exists, gatherFacts, listNames } from "./facts.ts";

let root: string;
afterEach(() => removeDir(root));

/** A lock file whose holder process is gone. */
const DEAD = `${JSON.stringify({ ...selfIdentity(), pid: 2 ** 30, processStart: null, nonce: "dead" })}\n`;
/** One held by this process (live). */
const LIVE = `${JSON.stringify({ ...selfIdentity(), nonce: "live" })}\n`;

describe("gatherFacts", () => {
  it("gathers every fact reconcile plans from, exactly", async () => {
    root = realpathSync(makeRoot(["api", "web"]));
    const ports = faultyPorts();
    const api = join(root, "api");
    const web = join(root, "web");
    const wtRoot = join(root, ".ariel/worktrees");
    const apiGit = join(api, ".git");
    const webGit = join(web, ".git");

    // t1: a task made whole (its worktree is in its record: no work fact for it).
    const { record: t1 } = await addTask(ports, { root, taskId: "t1", sources: ["api"] });
    // t2: an add killed after `git worktree add` (a lease file, no record), with local work: a
    // changed tracked file, an untracked one, and an untracked copy identical to the source's.
    await withLease(root, "t2", { owner: "tester" }, async () => {});
    const t2 = join(wtRoot, "t2/api");
    git(api, "worktree", "add", "-q", "--lock", "--reason", "ariel:t2", t2, "-b", "ariel/t2");
    writeFile(join(t2, "README.md"), "changed\n");
    writeFile(join(t2, "new.txt"), "new\n");
    writeFile(join(api, "notes.md"), "same\n");
    writeFile(join(t2, "notes.md"), "same\n");
    // t4: a detached worktree under the root, unlocked, with a commit no ref has.
    const t4 = join(wtRoot, "t4/web");
    git(web, "worktree", "add", "-q", "--detach", t4);
    writeFile(join(t4, "lost.txt"), "lost\n");
    const lost = commitAll(t4, "only here");
    // t5: a worktree of ours whose directory is gone.
    const t5 = join(wtRoot, "t5/web");
    git(web, "worktree", "add", "-q", "--lock", "--reason", "ariel:t5", t5, "-b", "ariel/t5");
    rmSync(t5, { recursive: true });
    // Someone else's worktree, outside the root and not locked by ariel.
    const mine = join(root, "mine");
    git(web, "worktree", "add", "-q", mine, "-b", "mine");
    // ariel/t6: a lease and no record, its tip a commit no other ref reaches: a candidate.
    await withLease(root, "t6", { owner: "tester" }, async () => {});
    const orphan = git(api, "commit-tree", "main^{tree}", "-p", "main", "-m", "orphan");
    git(api, "branch", "ariel/t6", orphan);
    // ariel/t7: no lease, no record: not a candidate.
    git(api, "branch", "ariel/t7", "main");
    // Orphan directories under the root: t8 with a stray file, t9 empty.
    writeFile(join(wtRoot, "t8/stray.txt"), "x\n");
    mkdirSync(join(wtRoot, "t9"));
    // The records' directory: a corrupt record, a directory named like one, a file that is none.
    const tasks = join(root, ".ariel/tasks");
    writeFileSync(join(tasks, "t3.json"), "{not json");
    mkdirSync(join(tasks, "d1.json"));
    writeFileSync(join(tasks, "README"), "x\n");
    // Locks: stale ones (repository, break guard, record, lease, sandbox), live ones, non-locks.
    writeFileSync(join(apiGit, "ariel-worktree.lock"), DEAD);
    writeFileSync(join(webGit, "ariel-worktree.lock.break"), DEAD);
    writeFileSync(join(tasks, "t1.json.lock"), DEAD);
    writeFileSync(join(root, ".ariel/leases/t2.json.lock.break"), DEAD);
    writeFileSync(join(root, ".ariel/leases/t6.json.lock"), LIVE);
    mkdirSync(join(root, ".ariel/sandbox"), { recursive: true });
    writeFileSync(join(root, ".ariel/sandbox/run1.lock"), DEAD);
    writeFileSync(join(root, ".ariel/sandbox/run1.json"), DEAD);

    const ws = await openWorkspace(ports, root);
    const facts = await gatherFacts(ws);
    const head = (r: string, ref: string) => git(r, "rev-parse", ref);
    const admin = (common: string, id: string) => join(common, "worktrees", id);
    expect(facts.worktreeRoot).toBe(wtRoot);
    expect(facts.repos).toEqual([
      {
        sourcePath: api,
        commonGitDir: apiGit,
        worktrees: [
          {
            path: join(wtRoot, "t1/api"),
            head: head(api, "main"),
            branch: "refs/heads/ariel/t1",
            locked: "ariel:t1",
            exists: true,
            adminDir: admin(apiGit, "api"),
          },
          {
            path: t2,
            head: head(api, "main"),
            branch: "refs/heads/ariel/t2",
            locked: "ariel:t2",
            exists: true,
            adminDir: admin(apiGit, "api1"),
          },
        ],
        branches: [
          { name: "ariel/t2", tip: head(api, "main"), reachableElsewhere: true },
          { name: "ariel/t6", tip: orphan, reachableElsewhere: false },
        ],
        work: { [t2]: { changes: ["README.md", "new.txt"], unreachableHead: false } },
      },
      {
        sourcePath: web,
        commonGitDir: webGit,
        worktrees: [
          { path: t4, head: lost, branch: null, locked: null, exists: true, adminDir: admin(webGit, "web") },
          {
            path: t5,
            head: head(web, "main"),
            branch: "refs/heads/ariel/t5",
            locked: "ariel:t5",
            exists: false,
            adminDir: admin(webGit, "web1"),
          },
          {
            path: mine,
            head: head(web, "main"),
            branch: "refs/heads/mine",
            locked: null,
            exists: true,
            adminDir: admin(webGit, "mine"),
          },
        ],
        branches: [],
        // The lost commit is HEAD's own: unreachableHead, not reflogOnly.
        work: { [t4]: { changes: [], unreachableHead: true } },
      },
    ]);
    expect(facts.tasks.map((t) => [t.taskId, t.record?.state ?? null, t.leased, t.problem ?? null])).toEqual([
      ["t1", "active", true, null],
      ["t2", null, true, null],
      ["t3", null, false, expect.stringContaining("t3")],
      ["t6", null, true, null],
    ]);
    expect(facts.tasks[0]!.record).toEqual({
      taskId: "t1",
      state: "active",
      version: t1.version,
      legs: [
        {
          source: "api",
          sourcePath: api,
          branch: "ariel/t1",
          worktreePath: join(wtRoot, "t1/api"),
          state: "active",
        },
      ],
    });
    expect(facts.dirs).toEqual([
      { path: join(wtRoot, "t1"), depth: 1, entries: ["api"] },
      { path: join(wtRoot, "t1/api"), depth: 2, entries: [".env", ".git", ".gitignore", "README.md"] },
      { path: join(wtRoot, "t2"), depth: 1, entries: ["api"] },
      { path: t2, depth: 2, entries: [".git", ".gitignore", "README.md", "new.txt", "notes.md"] },
      { path: join(wtRoot, "t4"), depth: 1, entries: ["web"] },
      { path: t4, depth: 2, entries: [".git", ".gitignore", "README.md", "lost.txt"] },
      { path: join(wtRoot, "t5"), depth: 1, entries: [] },
      { path: join(wtRoot, "t8"), depth: 1, entries: ["stray.txt"] },
      { path: join(wtRoot, "t9"), depth: 1, entries: [] },
    ]);
    expect(facts.staleLocks).toEqual([
      { path: join(apiGit, "ariel-worktree.lock"), task: null },
      { path: join(webGit, "ariel-worktree.lock.break"), task: null },
      { path: join(root, ".ariel/leases/t2.json.lock.break"), task: "t2" },
      { path: join(tasks, "t1.json.lock"), task: "t1" },
      { path: join(root, ".ariel/sandbox/run1.lock"), task: null },
    ]);
  });
});

describe("listNames, exists, commonOf", () => {
  it("lists a directory's names with their kinds; none for a missing path or a file", async () => {
    root = makeRoot(["api"]);
    mkdirSync(join(root, "d"));
    writeFileSync(join(root, "f"), "");
    const fs = faultyPorts().fs;
    const got = (await listNames(fs, root)).sort((a, b) => a.name.localeCompare(b.name));
    expect(got).toEqual([
      { name: "api", kind: "dir" },
      { name: "d", kind: "dir" },
      { name: "f", kind: "file" },
    ]);
    expect(await listNames(fs, join(root, "nope"))).toEqual([]);
    expect(await listNames(fs, join(root, "f"))).toEqual([]);
  });

  it("exists is true for anything, a dangling link too; commonOf is null for a non-checkout", async () => {
    root = makeRoot(["api"]);
    const ws = await openWorkspace(faultyPorts(), root);
    expect(await exists(ws, join(root, "api"))).toBe(true);
    expect(await exists(ws, join(root, "nope"))).toBe(false);
    expect(await commonOf(ws, join(root, "api"))).toBe(realpathSync(join(root, "api/.git")));
    expect(await commonOf(ws, root)).toBeNull();
    expect(await commonOf(ws, join(root, "nope"))).toBeNull();
  });
});
