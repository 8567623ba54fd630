import { mkdirSync, renameSync, symlinkSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { arielErrorOf } from "../../_fixture.ts";
import { commitAll, gitRaw, initRepo, removeDir, tempDir } from "../_fixture.ts";
import { nodeFs } from "../fs.ts";
import { faultyPorts, git } from "./_fixture.ts";
import { branchCommit, headCommit, linkedWorktreeFromFiles, listWorktrees, readRefFiles } from "./facts.ts";
import { statusFacts, unreachableByRefList, unreachableCommits } from "./leg_facts.ts";

// The batched and file-based reads must give git's own answers on every layout they meet.

let dir: string;
let repo: string;
let first: string;
beforeEach(() => {
  dir = tempDir("ariel-facts-");
  repo = join(dir, "repo");
  first = initRepo(repo);
});
afterEach(() => removeDir(dir));

const ports = () => faultyPorts();
/** git's answer for `<ref>^{commit}`, or null. */
const gitsCommit = (cwd: string, ref: string) => {
  const r = gitRaw(cwd, "rev-parse", "-q", "--verify", "--end-of-options", `${ref}^{commit}`);
  return r.code === 0 ? r.stdout.trim() : null;
};

describe("branchCommit: the branch's commit as git resolves it, absence read from the ref files", () => {
  it.each<[string, (r: string) => void, string]>([
    ["absent", () => {}, "ariel/t1"],
    ["a loose branch", (r) => git(r, "branch", "ariel/t1"), "ariel/t1"],
    [
      "a packed branch",
      (r) => {
        git(r, "branch", "ariel/t1");
        git(r, "pack-refs", "--all");
      },
      "ariel/t1",
    ],
    [
      "packed, then moved (the loose file wins)",
      (r) => {
        git(r, "branch", "ariel/t1");
        git(r, "pack-refs", "--all");
        git(r, "branch", "-f", "ariel/t1", commitAll(r, "second"));
      },
      "ariel/t1",
    ],
    ["a name with odd characters", (r) => git(r, "branch", "odd/ü+x#1,y"), "odd/ü+x#1,y"],
    ["a branch named like the directory above it", (r) => git(r, "branch", "ariel"), "ariel/t1"],
    ["a branch below it", (r) => git(r, "branch", "ariel/t1/x"), "ariel/t1"],
    ["a symbolic ref", (r) => git(r, "symbolic-ref", "refs/heads/alias", "refs/heads/main"), "alias"],
    [
      "a loose ref file git cannot read",
      (r) => writeFileSync(join(r, ".git/refs/heads/junk"), "not a ref\n"),
      "junk",
    ],
    ["a reftable directory (files cannot answer)", (r) => mkdirSync(join(r, ".git/reftable")), "main"],
  ])("%s", async (_name, arrange, branch) => {
    arrange(repo);
    const want = gitsCommit(repo, `refs/heads/${branch}`);
    expect(await branchCommit(ports(), repo, `refs/heads/${branch}`)).toBe(want);
  });

  it("from a linked worktree (a .git file): the common dir's refs", async () => {
    const wt = join(dir, "wt");
    git(repo, "worktree", "add", "-q", "-b", "side", wt);
    git(repo, "pack-refs", "--all");
    expect(await branchCommit(ports(), wt, "refs/heads/side")).toBe(first);
    expect(await branchCommit(ports(), wt, "refs/heads/nope")).toBe(null);
  });

  it("the files answer 'absent' without git; undefined where only git can answer", async () => {
    expect(await readRefFiles(nodeFs, repo, "refs/heads/nope")).toBe(null);
    expect(await readRefFiles(nodeFs, repo, "refs/heads/main")).toBe(first);
    expect(await readRefFiles(nodeFs, join(dir, "not-a-repo"), "refs/heads/main")).toBe(undefined);
    mkdirSync(join(repo, ".git/reftable"));
    expect(await readRefFiles(nodeFs, repo, "refs/heads/nope")).toBe(undefined);
  });
});

describe("headCommit", () => {
  it.each<[string, (r: string) => void]>([
    ["on a branch", () => {}],
    ["on a packed branch", (r) => git(r, "pack-refs", "--all")],
    [
      "a detached HEAD",
      (r) => {
        git(r, "switch", "-q", "--detach");
        commitAll(r, "detached");
      },
    ],
  ])("%s: git's HEAD", async (_name, arrange) => {
    arrange(repo);
    expect(await headCommit(ports(), repo)).toBe(git(repo, "rev-parse", "HEAD"));
  });

  it("in a linked worktree that committed: its own HEAD, not the main checkout's", async () => {
    const wt = join(dir, "wt");
    git(repo, "worktree", "add", "-q", "-b", "side", wt);
    const tip = commitAll(wt, "on side");
    expect(await headCommit(ports(), wt)).toBe(tip);
    expect(await headCommit(ports(), repo)).toBe(first);
  });

  it("an unborn branch: ERR_GIT from git itself", async () => {
    const empty = join(dir, "empty");
    mkdirSync(empty);
    git(empty, "init", "-q", "-b", "main");
    expect(await readRefFiles(nodeFs, empty, "HEAD")).toBe(null);
    expect((await arielErrorOf(headCommit(ports(), empty))).code).toBe("ERR_GIT");
  });
});

describe("statusFacts: HEAD and the changed paths from one git status", () => {
  it("HEAD on a branch and detached; every kind of change, a rename by its new name", async () => {
    writeFileSync(join(repo, "a b.txt"), "x\n");
    commitAll(repo, "a b");
    git(repo, "mv", "a b.txt", "c d.txt");
    writeFileSync(join(repo, "README.md"), "changed\n");
    writeFileSync(join(repo, "new\nline"), "n\n");
    const st = await statusFacts(ports(), repo);
    expect(st.head).toBe(git(repo, "rev-parse", "HEAD"));
    expect([...st.paths].sort()).toEqual(["README.md", "c d.txt", "new\nline"]);
    git(repo, "stash", "-q", "-u");
    git(repo, "switch", "-q", "--detach");
    expect(await statusFacts(ports(), repo)).toEqual({ head: git(repo, "rev-parse", "HEAD"), paths: [] });
  });

  it("an unborn branch: no HEAD, its untracked files", async () => {
    const empty = join(dir, "empty");
    mkdirSync(empty);
    git(empty, "init", "-q", "-b", "main");
    writeFileSync(join(empty, "f"), "f\n");
    expect(await statusFacts(ports(), empty)).toEqual({ head: null, paths: ["f"] });
  });
});

describe("unreachableCommits: one rev-list, the same answer as the for-each-ref way", () => {
  it.each<[string, (r: string) => void, number]>([
    ["on a branch (read from the files: no git)", () => {}, 0],
    ["on a packed branch", (r) => git(r, "pack-refs", "--all"), 0],
    [
      "on a branch whose ref file git cannot read (git is asked)",
      (r) => {
        git(r, "switch", "-q", "-c", "odd");
        commitAll(r, "odd");
        writeFileSync(join(r, ".git/refs/heads/odd"), `${git(r, "rev-parse", "HEAD")}  trailing junk\n`);
      },
      0,
    ],
    [
      "a detached HEAD with two commits of its own",
      (r) => {
        git(r, "switch", "-q", "--detach");
        commitAll(r, "one");
        commitAll(r, "two");
      },
      2,
    ],
    [
      "detached commits held by an annotated tag, a custom ref and tags of a blob and a tree",
      (r) => {
        git(r, "switch", "-q", "--detach");
        const a = commitAll(r, "tagged");
        git(r, "tag", "-a", "-m", "t", "v1", a);
        const b = commitAll(r, "custom");
        git(r, "update-ref", "refs/ariel/snapshots/x", b);
        git(r, "tag", "blobtag", git(r, "rev-parse", "HEAD:README.md"));
        git(r, "tag", "treetag", git(r, "rev-parse", "HEAD^{tree}"));
        commitAll(r, "loose");
      },
      1,
    ],
  ])("%s", async (_name, arrange, count) => {
    arrange(repo);
    const fast = await unreachableCommits(ports(), repo);
    expect(fast).toHaveLength(count);
    expect(fast).toEqual(await unreachableByRefList(ports(), repo));
  });

  it("a ref naming a missing object: the long way's ERR_GIT, never a silent 'nothing unreachable'", async () => {
    git(repo, "switch", "-q", "--detach");
    commitAll(repo, "own");
    writeFileSync(join(repo, ".git/refs/heads/broken"), `${"1".repeat(40)}\n`);
    expect((await arielErrorOf(unreachableCommits(ports(), repo))).code).toBe("ERR_GIT");
  });
});

describe("linkedWorktreeFromFiles: git's own entry for a linked worktree, or undefined", () => {
  let wt: string;
  let common: string;
  beforeEach(() => {
    wt = join(dir, "wt");
    common = join(repo, ".git");
    git(repo, "worktree", "add", "-q", "-b", "ariel/t1", wt);
  });
  const gits = async () => (await listWorktrees(ports(), repo)).find((w) => w.path === wt);

  it.each<[string, (w: string) => void]>([
    ["unlocked, on its branch", () => {}],
    ["locked with a reason", () => git(repo, "worktree", "lock", "--reason", "ariel:t1", wt)],
    ["locked without one", () => git(repo, "worktree", "lock", wt)],
    ["on a packed branch", () => git(repo, "pack-refs", "--all")],
    [
      "a detached HEAD with a commit",
      (w) => {
        git(w, "switch", "-q", "--detach");
        commitAll(w, "detached");
      },
    ],
    ["on an unborn branch", (w) => git(w, "switch", "-q", "--orphan", "fresh")],
  ])("%s", async (_name, arrange) => {
    arrange(wt);
    const want = await gits();
    expect(want).toBeDefined();
    expect(await linkedWorktreeFromFiles(nodeFs, common, wt)).toEqual(want);
  });

  it.each<[string, () => string]>([
    ["the main worktree", () => repo],
    ["a path that is gone", () => join(dir, "gone")],
    [
      "a worktree whose admin dir points elsewhere (moved by hand)",
      () => {
        const moved = join(dir, "moved");
        renameSync(wt, moved);
        return moved;
      },
    ],
    [
      "a symbolic link to the worktree",
      () => {
        const link = join(dir, "link");
        symlinkSync(wt, link);
        return link;
      },
    ],
    [
      "a worktree of another repository",
      () => {
        const other = join(dir, "other");
        initRepo(other);
        const owt = join(dir, "owt");
        git(other, "worktree", "add", "-q", "-b", "x", owt);
        return owt;
      },
    ],
    [
      "a reftable directory",
      () => {
        mkdirSync(join(common, "reftable"));
        return wt;
      },
    ],
  ])("undefined for %s", async (_name, arrange) => {
    const path = arrange();
    expect(await linkedWorktreeFromFiles(nodeFs, common, path)).toBe(undefined);
  });
});
