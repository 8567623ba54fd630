/**
 * carry.ts against real repositories (what `add --with-changes` relies on): captureWorkingCopy's
 * two trees for each kind of change, with the source's index, files and git dir left exactly as
 * they were, its refusal of unmerged paths; and applyWorkingCopy's worktree that ends up with the
 * source's staged, unstaged and untracked changes as they were there.
 */
import { existsSync, readdirSync, readFileSync, rmSync } from "node:fs";
import { join, relative } from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { arielErrorOf } from "../../_fixture.ts";
import { git, initRepo, removeDir, tempDir, writeFile } from "../_fixture.ts";
import { faultyPorts } from "./_fixture.ts";
import { applyWorkingCopy, captureWorkingCopy, type WorkingCopy } from "./carry.ts";

let dir: string;
let repo: string;
let head: string;
const COMMITTED = {
  ".gitignore": ".env\n",
  "README.md": "# api\n",
  "a.txt": "a\n",
  "b.txt": "b\n",
  "src/c.txt": "c\n",
};
beforeEach(() => {
  dir = tempDir("ariel-carry-");
  repo = join(dir, "api");
  head = initRepo(repo, COMMITTED);
});
afterEach(() => removeDir(dir));

type Files = Record<string, string>;

/** Every file of `tree` (an object of `repo`) with its content. */
function treeFiles(tree: string): Files {
  const out: Files = {};
  for (const line of git(repo, "ls-tree", "-r", tree).split("\n").filter(Boolean)) {
    const [meta, path] = line.split("\t") as [string, string];
    out[path] = git(repo, "cat-file", "blob", meta.split(" ")[2] as string);
  }
  return out;
}

/** Every file under `top` (its `.git` and `.ariel` left out) with its content, trimmed as git() trims. */
function diskFiles(top: string): Files {
  const out: Files = {};
  const walk = (d: string): void => {
    for (const e of readdirSync(d, { withFileTypes: true })) {
      const p = join(d, e.name);
      if (d === top && (e.name === ".git" || e.name === ".ariel")) continue;
      if (e.isDirectory()) walk(p);
      else out[relative(top, p)] = readFileSync(p, "utf8").trim();
    }
  };
  walk(top);
  return Object.fromEntries(Object.entries(out).sort(([x], [y]) => (x < y ? -1 : 1)));
}

/** The committed files as git() reads them back (trimmed), with `changes` over them (null: deleted). */
function files(changes: Record<string, string | null> = {}): Files {
  const out: Files = {};
  for (const [p, c] of Object.entries({ ...COMMITTED, ...changes })) if (c !== null) out[p] = c.trim();
  return Object.fromEntries(Object.entries(out).sort(([x], [y]) => (x < y ? -1 : 1)));
}

/** What must not change in the source: its index bytes, its status, its git dir's names. */
function sourceState(at = repo, gitDir = join(repo, ".git")) {
  const index = join(gitDir, "index");
  return {
    index: existsSync(index) ? readFileSync(index).toString("base64") : null,
    // --no-optional-locks: a status that never writes the index (a refresh would change its bytes).
    status: git(at, "--no-optional-locks", "status", "--porcelain=v1", "--untracked-files=all", "--ignored"),
    gitDir: readdirSync(gitDir).sort(),
  };
}

/** Kinds of change in the source, made by `make`, and the two trees they must give. */
const CASES: [string, () => void, Files, Files][] = [
  [
    "an untracked file",
    () => writeFile(join(repo, "new.txt"), "new\n"),
    files(),
    files({ "new.txt": "new" }),
  ],
  ["an unstaged change", () => writeFile(join(repo, "a.txt"), "a2\n"), files(), files({ "a.txt": "a2" })],
  [
    "a staged change",
    () => {
      writeFile(join(repo, "a.txt"), "a2\n");
      git(repo, "add", "a.txt");
    },
    files({ "a.txt": "a2" }),
    files({ "a.txt": "a2" }),
  ],
  [
    "a change staged, then undone in the files only",
    () => {
      writeFile(join(repo, "a.txt"), "a2\n");
      git(repo, "add", "a.txt");
      writeFile(join(repo, "a.txt"), "a\n");
    },
    files({ "a.txt": "a2" }),
    files(),
  ],
  [
    "a staged deletion",
    () => git(repo, "rm", "-q", "b.txt"),
    files({ "b.txt": null }),
    files({ "b.txt": null }),
  ],
  ["an unstaged deletion", () => rmSync(join(repo, "src/c.txt")), files(), files({ "src/c.txt": null })],
  [
    "a new file staged, then changed again",
    () => {
      writeFile(join(repo, "src/d.txt"), "d1\n");
      git(repo, "add", "src/d.txt");
      writeFile(join(repo, "src/d.txt"), "d2\n");
    },
    files({ "src/d.txt": "d1" }),
    files({ "src/d.txt": "d2" }),
  ],
];

/** Staged a.txt changed again, b.txt deleted unstaged, new files staged and untracked, ignored and ariel files. */
function mixedChanges(): void {
  writeFile(join(repo, "a.txt"), "a1\n");
  git(repo, "add", "a.txt");
  writeFile(join(repo, "a.txt"), "a2\n");
  rmSync(join(repo, "b.txt"));
  writeFile(join(repo, "src/new.txt"), "staged new\n");
  git(repo, "add", "src/new.txt");
  writeFile(join(repo, "untracked.txt"), "untracked\n");
  writeFile(join(repo, ".env"), "SECRET=1\n");
  writeFile(join(repo, ".ariel/tasks/t1.json"), "{}\n");
}
const MIXED_STAGED = files({ "a.txt": "a1", "src/new.txt": "staged new" });
const MIXED_WORKTREE = files({
  "a.txt": "a2",
  "b.txt": null,
  "src/new.txt": "staged new",
  "untracked.txt": "untracked",
});

describe("captureWorkingCopy: the two trees", () => {
  it.each(CASES)("%s: HEAD, the staged tree and the working tree", async (_name, make, staged, worktree) => {
    make();
    const before = sourceState();
    const wc = (await captureWorkingCopy(faultyPorts(), repo)) as WorkingCopy;
    expect(Object.keys(wc)).toEqual(["head", "staged", "worktree"]);
    expect({ head: wc.head, staged: treeFiles(wc.staged), worktree: treeFiles(wc.worktree) }).toEqual({
      head,
      staged,
      worktree,
    });
    expect(sourceState()).toEqual(before);
  });

  it("every kind at once: ignored files and .ariel/ are never carried", async () => {
    mixedChanges();
    const before = sourceState();
    const wc = (await captureWorkingCopy(faultyPorts(), repo)) as WorkingCopy;
    expect([wc.head, treeFiles(wc.staged), treeFiles(wc.worktree)]).toEqual([
      head,
      MIXED_STAGED,
      MIXED_WORKTREE,
    ]);
    expect(sourceState()).toEqual(before);
    expect(wc.staged).toBe(git(repo, "write-tree")); // the index's own tree, as git writes it
  });

  it("the trees are full object names in the source's repository", async () => {
    mixedChanges();
    const wc = (await captureWorkingCopy(faultyPorts(), repo)) as WorkingCopy;
    for (const tree of [wc.staged, wc.worktree]) {
      expect([tree, git(repo, "cat-file", "-t", tree)]).toEqual([
        expect.stringMatching(/^[0-9a-f]{40}$/),
        "tree",
      ]);
    }
  });
});

describe("captureWorkingCopy: nothing to carry", () => {
  // Null when both trees are HEAD's: ignored files, .ariel/ and files touched but unchanged do not count.
  it.each<[string, () => void]>([
    ["a clean checkout", () => {}],
    ["only an ignored file", () => writeFile(join(repo, ".env"), "SECRET=1\n")],
    ["only ariel's own state", () => writeFile(join(repo, ".ariel/worktrees/t1/api/x.txt"), "x\n")],
    [
      "a change staged, then undone in the files and the index",
      () => {
        writeFile(join(repo, "a.txt"), "a2\n");
        git(repo, "add", "a.txt");
        writeFile(join(repo, "a.txt"), "a\n");
        git(repo, "add", "a.txt");
      },
    ],
  ])("%s: null, the source untouched", async (_name, make) => {
    make();
    const before = sourceState();
    expect(await captureWorkingCopy(faultyPorts(), repo)).toBeNull();
    expect(sourceState()).toEqual(before);
  });
});

describe("captureWorkingCopy: a checkout with no index file", () => {
  // The index is then HEAD's tree (read-tree), and no index file is made in the source.
  beforeEach(() => rmSync(join(repo, ".git/index")));

  it("files as committed: null", async () => {
    const before = sourceState();
    expect(await captureWorkingCopy(faultyPorts(), repo)).toBeNull();
    expect(sourceState()).toEqual({ ...before, index: null });
  });

  it("a changed and a new file: staged is HEAD's tree, the working tree has both", async () => {
    writeFile(join(repo, "a.txt"), "a2\n");
    writeFile(join(repo, "new.txt"), "new\n");
    const wc = (await captureWorkingCopy(faultyPorts(), repo)) as WorkingCopy;
    expect([wc.head, wc.staged, treeFiles(wc.worktree)]).toEqual([
      head,
      git(repo, "rev-parse", "HEAD^{tree}"),
      files({ "a.txt": "a2", "new.txt": "new" }),
    ]);
    expect(existsSync(join(repo, ".git/index"))).toBe(false);
  });
});

describe("captureWorkingCopy: the temporary index", () => {
  // A copy of the index in the checkout's git dir, ariel-carry-<12 hex>.index, removed after.
  const tmpName = (gitDir: string) => new RegExp(`^${gitDir}/ariel-carry-[0-9a-f]{12}\\.index$`);

  it("copied from the index, written, then removed: the only files it touches", async () => {
    mixedChanges();
    const ports = faultyPorts();
    await captureWorkingCopy(ports, repo);
    const tmp = (ports.fs.log[2] ?? "").replace(/^writeAtomic /, "");
    expect(tmp).toMatch(tmpName(join(repo, ".git")));
    expect(ports.fs.log).toEqual([
      `stat ${repo}/.git/index`,
      `readBytes ${repo}/.git/index`,
      `writeAtomic ${tmp}`,
      `remove ${tmp}`,
    ]);
  });

  it("no index file: nothing copied, the temporary index (made by git) removed", async () => {
    rmSync(join(repo, ".git/index"));
    writeFile(join(repo, "new.txt"), "new\n");
    const ports = faultyPorts();
    const before = sourceState();
    await captureWorkingCopy(ports, repo);
    expect(ports.fs.log).toEqual([`stat ${repo}/.git/index`, expect.stringMatching(/^remove /)]);
    expect(ports.fs.log[1]?.replace(/^remove /, "")).toMatch(tmpName(join(repo, ".git")));
    expect(sourceState()).toEqual(before);
  });

  it("ENOSPC writing it: the error, nothing left in the git dir", async () => {
    mixedChanges();
    const before = sourceState();
    const ports = faultyPorts([{ op: "writeAtomic", path: /ariel-carry-/, code: "ENOSPC" }]);
    const e = await captureWorkingCopy(ports, repo).catch((x: unknown) => x);
    expect((e as { code?: string }).code).toBe("ENOSPC");
    expect(ports.fs.log.map((l) => l.split(" ")[0])).toEqual(["stat", "readBytes", "writeAtomic", "remove"]);
    expect(sourceState()).toEqual(before);
  });

  it("a linked worktree: its own HEAD and index, the copy in its admin dir", async () => {
    const linked = join(dir, "linked");
    git(repo, "worktree", "add", "-q", "-b", "side", linked);
    writeFile(join(linked, "a.txt"), "side\n");
    git(linked, "commit", "-q", "-am", "side");
    const side = git(linked, "rev-parse", "HEAD");
    writeFile(join(linked, "b.txt"), "b2\n");
    git(linked, "add", "b.txt");
    writeFile(join(repo, "main-only.txt"), "not carried\n");
    const admin = join(repo, ".git/worktrees/linked");
    const before = sourceState(linked, admin);
    const ports = faultyPorts();
    const wc = (await captureWorkingCopy(ports, linked)) as WorkingCopy;
    const both = files({ "a.txt": "side", "b.txt": "b2" });
    expect([wc.head, treeFiles(wc.staged), treeFiles(wc.worktree)]).toEqual([side, both, both]);
    expect(ports.fs.log[2]?.replace(/^writeAtomic /, "")).toMatch(tmpName(admin));
    expect(sourceState(linked, admin)).toEqual(before);
  });
});

describe("captureWorkingCopy: unmerged paths", () => {
  // A conflicted merge cannot be carried: ERR_DIRTY (exit 3), nothing written or left behind.
  it("ERR_DIRTY naming the checkout, with the hint to resolve first", async () => {
    git(repo, "checkout", "-q", "-b", "other");
    writeFile(join(repo, "a.txt"), "other\n");
    git(repo, "commit", "-q", "-am", "other");
    git(repo, "checkout", "-q", "main");
    writeFile(join(repo, "a.txt"), "mine\n");
    git(repo, "commit", "-q", "-am", "mine");
    expect(() => git(repo, "merge", "-q", "other")).toThrow(/CONFLICT|failed/);
    const before = sourceState();
    const ports = faultyPorts();
    const e = await arielErrorOf(captureWorkingCopy(ports, repo));
    expect([e.code, e.exit, e.message, e.hint, e.context]).toEqual([
      "ERR_DIRTY",
      3,
      `"${repo}" has unmerged paths; they cannot be carried`,
      "resolve the conflicts (git status lists them), then try again",
      { path: repo },
    ]);
    expect(ports.fs.log.map((l) => l.split(" ")[0])).toEqual(["stat", "readBytes", "writeAtomic", "remove"]);
    expect(sourceState()).toEqual(before);
  });
});

/** A new worktree of `repo` at its HEAD, detached, as `add` makes a leg before carrying into it. */
function freshWorktree(): string {
  const wt = join(dir, "leg");
  git(repo, "worktree", "add", "-q", "--detach", wt, head);
  return wt;
}

/** How git sees a checkout's changes: staged and unstaged by name, untracked, and HEAD. */
function changes(at: string) {
  const q = (...args: string[]) => git(at, "--no-optional-locks", ...args);
  return {
    head: q("rev-parse", "HEAD"),
    staged: q("diff", "--cached", "--name-status"),
    unstaged: q("diff", "--name-status"),
    untracked: q("ls-files", "--others", "--exclude-standard"),
  };
}

describe("applyWorkingCopy", () => {
  // The fresh worktree gets the captured files, the captured index and fresh stat data.
  it("every kind of change: the same files, staged and unstaged and untracked as in the source", async () => {
    mixedChanges();
    const wc = (await captureWorkingCopy(faultyPorts(), repo)) as WorkingCopy;
    const wt = freshWorktree();
    await applyWorkingCopy(faultyPorts(), wt, wc);
    const { ".env": _ignored, ...carried } = diskFiles(repo);
    expect(diskFiles(wt)).toEqual(carried);
    // As in the source, but for its .ariel/ (never carried).
    expect(changes(repo).untracked).toBe(".ariel/tasks/t1.json\nuntracked.txt");
    expect(changes(wt)).toEqual({
      head,
      staged: "M\ta.txt\nA\tsrc/new.txt",
      unstaged: "M\ta.txt\nD\tb.txt",
      untracked: "untracked.txt",
    });
    expect(git(wt, "write-tree")).toBe(wc.staged);
  });

  it("the index's stat data refreshed: only files that differ from the index read as changed", async () => {
    mixedChanges();
    const wc = (await captureWorkingCopy(faultyPorts(), repo)) as WorkingCopy;
    const wt = freshWorktree();
    await applyWorkingCopy(faultyPorts(), wt, wc);
    // diff-files compares stat data and never refreshes: stale entries would all be listed.
    expect(git(wt, "diff-files", "--name-only")).toBe("a.txt\nb.txt");
  });

  it.each(CASES)(
    "%s: the worktree's index and files are the captured trees",
    async (_name, make, staged, worktree) => {
      make();
      const wc = (await captureWorkingCopy(faultyPorts(), repo)) as WorkingCopy;
      const wt = freshWorktree();
      await applyWorkingCopy(faultyPorts(), wt, wc);
      expect([treeFiles(git(wt, "write-tree")), diskFiles(wt)]).toEqual([staged, worktree]);
      expect(changes(wt)).toEqual(changes(repo));
    },
  );

  it("a leg with its own change to a carried file: ERR_GIT from read-tree, its files and index untouched", async () => {
    writeFile(join(repo, "a.txt"), "carried\n");
    const wc = (await captureWorkingCopy(faultyPorts(), repo)) as WorkingCopy;
    const wt = freshWorktree();
    writeFile(join(wt, "a.txt"), "local\n");
    const before = { files: diskFiles(wt), index: readFileSync(join(repo, ".git/worktrees/leg/index")) };
    const e = await arielErrorOf(applyWorkingCopy(faultyPorts(), wt, wc));
    expect([e.code, e.exit, e.context]).toEqual(["ERR_GIT", 1, { git: "read-tree", cwd: wt, status: 128 }]);
    expect({ files: diskFiles(wt), index: readFileSync(join(repo, ".git/worktrees/leg/index")) }).toEqual(
      before,
    );
  });
});
