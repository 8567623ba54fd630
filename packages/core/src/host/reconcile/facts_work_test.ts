/**
 * gatherFacts' local-work facts of worktrees of ours that no record lists (what reconcile might
 * remove), and the names it takes or leaves as lock files: each row a worktree in one state, the
 * work fact pinned exactly.
 */
import { mkdirSync, realpathSync, rmSync, symlinkSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { commitAll, git, removeDir, writeFile } from "../_fixture.ts";
import { selfIdentity } from "../proc.ts";
import { faultyPorts, makeRoot } from "../worktree/_fixture.ts";
import { openWorkspace } from "../worktree/workspace.ts";
import { gatherFacts, listNames } from "./facts.ts";

let root: string;
afterEach(() => removeDir(root));

const DEAD = `${JSON.stringify({ ...selfIdentity(), pid: 2 ** 30, processStart: null, nonce: "dead" })}\n`;

/** A worktree of `api` at `path`, locked with `reason` (null: unlocked), on a new branch `branch` (null: detached). */
function worktree(path: string, reason: string | null, branch: string | null): string {
  const api = join(root, "api");
  const lock = reason === null ? [] : ["--lock", "--reason", reason];
  const on = branch === null ? ["--detach"] : ["-b", branch];
  git(api, "worktree", "add", "-q", ...lock, path, ...on);
  return path;
}

async function work() {
  const facts = await gatherFacts(await openWorkspace(faultyPorts(), root));
  return facts.repos[0]?.work;
}

describe("gatherFacts: local work of a worktree of ours no record lists", () => {
  it.each([
    [
      "a staged rename: the new path only",
      (wt: string) => void git(wt, "mv", "README.md", "RENAMED.md"),
      { changes: ["RENAMED.md"], unreachableHead: false },
    ],
    [
      "a deleted file in a checkout git finished: work",
      (wt: string) => rmSync(join(wt, "README.md")),
      { changes: ["README.md"], unreachableHead: false },
    ],
    [
      "a commit only HEAD's reflog holds",
      (wt: string) => {
        writeFile(join(wt, "gone.txt"), "g\n");
        commitAll(wt, "dropped");
        git(wt, "reset", "-q", "--hard", "HEAD~1");
      },
      "reflog",
    ],
  ])("%s", async (_name, change, want) => {
    root = realpathSync(makeRoot(["api"]));
    const wt = worktree(join(root, ".ariel/worktrees/t2/api"), "ariel:t2", "ariel/t2");
    const before = git(wt, "rev-parse", "HEAD");
    change(wt);
    const got = await work();
    if (want === "reflog") {
      const dropped = git(wt, "rev-parse", "HEAD@{1}");
      expect(dropped).not.toBe(before);
      expect(got).toEqual({ [wt]: { changes: [], unreachableHead: false, reflogOnly: [dropped] } });
    } else expect(got).toEqual({ [wt]: want });
  });

  it("files missing from a checkout git never finished (locked initializing) are not work", async () => {
    root = realpathSync(makeRoot(["api"]));
    const wt = worktree(join(root, ".ariel/worktrees/t2/api"), "initializing", "ariel/t2");
    rmSync(join(wt, "README.md"));
    writeFile(join(wt, "new.txt"), "n\n");
    expect(await work()).toEqual({ [wt]: { changes: ["new.txt"], unreachableHead: false } });
  });

  it("a detached HEAD a branch still reaches is not unreachable", async () => {
    root = realpathSync(makeRoot(["api"]));
    const wt = worktree(join(root, ".ariel/worktrees/t4/api"), null, null);
    expect(await work()).toEqual({ [wt]: { changes: [], unreachableHead: false } });
  });

  it("a worktree outside the root locked by ariel has a work fact; one locked by someone else has none", async () => {
    root = realpathSync(makeRoot(["api"]));
    const ours = worktree(join(root, "elsewhere"), "ariel:t10", "ariel/t10");
    worktree(join(root, "theirs"), "someone", "theirs");
    expect(await work()).toEqual({ [ours]: { changes: [], unreachableHead: false } });
  });

  // A worktree of ours outside the worktree root counted as one of the repository's source
  // checkouts (`sources` in gatherRepo kept every non-bare entry outside the root), so each of its
  // untracked files was compared with itself, taken for an overlay copy and dropped from `changes`:
  // reconcile then planned to remove the half-made worktree, and its untracked work was lost.
  it("an untracked file in a worktree of ours outside the root is work", async () => {
    root = realpathSync(makeRoot(["api"]));
    const ours = worktree(join(root, "elsewhere"), "ariel:t10", "ariel/t10");
    writeFile(join(ours, "x.txt"), "x\n");
    expect(await work()).toEqual({ [ours]: { changes: ["x.txt"], unreachableHead: false } });
  });

  it("a file differing from the source's same path is work, even of the same length", async () => {
    root = realpathSync(makeRoot(["api"]));
    const wt = worktree(join(root, ".ariel/worktrees/t2/api"), "ariel:t2", "ariel/t2");
    writeFile(join(root, "api/notes.md"), "aaaa\n");
    writeFile(join(wt, "notes.md"), "aaab\n");
    writeFile(join(root, "api/dir.md/x"), "x\n");
    writeFile(join(wt, "dir.md"), "x\n");
    expect(await work()).toEqual({ [wt]: { changes: ["dir.md", "notes.md"], unreachableHead: false } });
  });
});

describe("gatherFacts: stale lock names", () => {
  it("takes only names ending in .lock or .lock.break as locks", async () => {
    root = realpathSync(makeRoot(["api"]));
    const tasks = join(root, ".ariel/tasks");
    const sandbox = join(root, ".ariel/sandbox");
    mkdirSync(tasks, { recursive: true });
    mkdirSync(sandbox, { recursive: true });
    writeFileSync(join(tasks, "t1.json.lock"), DEAD);
    writeFileSync(join(tasks, "t2.json.lock.old"), DEAD);
    writeFileSync(join(sandbox, "run1.lock.break"), DEAD);
    writeFileSync(join(sandbox, "run2.lock.old"), DEAD);
    const facts = await gatherFacts(await openWorkspace(faultyPorts(), root));
    expect(facts.staleLocks).toEqual([
      { path: join(tasks, "t1.json.lock"), task: "t1" },
      { path: join(sandbox, "run1.lock.break"), task: null },
    ]);
  });
});

describe("listNames", () => {
  it("a link is of kind other; an error other than a missing directory is thrown", async () => {
    root = makeRoot(["api"]);
    symlinkSync(join(root, "api/README.md"), join(root, "link"));
    const fs = faultyPorts().fs;
    expect((await listNames(fs, root)).find((e) => e.name === "link")).toEqual({
      name: "link",
      kind: "other",
    });
    const denied = faultyPorts([{ op: "readDir", path: root, code: "EACCES" }]).fs;
    await expect(listNames(denied, root)).rejects.toMatchObject({ code: "EACCES" });
  });
});
