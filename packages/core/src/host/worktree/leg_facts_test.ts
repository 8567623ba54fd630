import { appendFileSync } from "node:fs";
import { join } from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { git, removeDir } from "../_fixture.ts";
import { faultyPorts, makeRoot, recordingPorts } from "./_fixture.ts";
import { addTask } from "./add.ts";
import { headReflog, reflogOnlyCommits, unreachableByRefList, unreachableCommits } from "./leg_facts.ts";

let root = "";
let leg = "";
beforeEach(async () => {
  root = makeRoot(["api"]);
  await addTask(faultyPorts(), { root, taskId: "t1", sources: ["api"] });
  leg = join(root, ".ariel/worktrees/t1/api");
});
afterEach(() => removeDir(root));

/** Commit on a detached HEAD `n` times in a row, then go back to the branch; the commits, newest first. */
let lines = 0;
function leaveBehind(n: number): string[] {
  lines++;
  git(leg, "switch", "-q", "--detach");
  const made: string[] = [];
  for (let i = 0; i < n; i++) {
    git(leg, "commit", "-q", "--allow-empty", "-m", `line ${lines}, left ${i}`);
    made.unshift(git(leg, "rev-parse", "HEAD"));
  }
  git(leg, "switch", "-q", "ariel/t1");
  return made;
}

/** A commit outside HEAD's history and reflog, held only by `ref`. */
function keepUnder(ref: string): string {
  const c = git(leg, "commit-tree", "-p", "HEAD", "-m", ref, "HEAD^{tree}");
  git(leg, "update-ref", ref, c);
  return c;
}

const reflogFile = () => join(git(leg, "rev-parse", "--absolute-git-dir"), "logs/HEAD");

describe("reflogOnlyCommits", () => {
  it("a fresh leg: nothing, from one git process", async () => {
    const ports = recordingPorts();
    expect(await reflogOnlyCommits(ports, leg)).toEqual({ commits: [], tips: [] });
    expect(ports.calls.map((a) => a[0])).toEqual(["rev-list"]);
  });

  it.each([1, 3])(
    "%i commit(s) left on a detached HEAD: all listed, the newest is the one tip",
    async (n) => {
      const made = leaveBehind(n);
      const got = await reflogOnlyCommits(faultyPorts(), leg);
      expect({ commits: new Set(got.commits), tips: got.tips }).toEqual({
        commits: new Set(made),
        tips: [made[0]],
      });
    },
  );

  it("two abandoned lines: one tip each; `limit` caps the list", async () => {
    const a = leaveBehind(2);
    const b = leaveBehind(2);
    const got = await reflogOnlyCommits(faultyPorts(), leg);
    expect(new Set(got.commits)).toEqual(new Set([...a, ...b]));
    expect(new Set(got.tips)).toEqual(new Set([a[0], b[0]]));
    expect((await reflogOnlyCommits(faultyPorts(), leg, 3)).commits).toHaveLength(3);
  });

  it("a commit a ref holds, or HEAD, is not listed", async () => {
    const [lost] = leaveBehind(1);
    git(root + "/api", "tag", "keep", lost!);
    expect(await reflogOnlyCommits(faultyPorts(), leg)).toEqual({ commits: [], tips: [] });
  });

  it("5,000 reflog entries cost one git process, not one per entry", async () => {
    const [lost] = leaveBehind(1);
    const head = git(leg, "rev-parse", "HEAD");
    const line = `${head} ${lost} A <a@b> 1700000000 +0000\tcheckout: moving\n`;
    appendFileSync(reflogFile(), line.repeat(5000));
    const ports = recordingPorts();
    expect(await reflogOnlyCommits(ports, leg)).toEqual({ commits: [lost], tips: [lost] });
    expect(ports.calls.map((a) => a[0])).toEqual(["rev-list"]);
  });

  it.each<[string, () => string]>([
    ["left on a detached HEAD", () => leaveBehind(1)[0] ?? ""],
    ["held only by refs/bisect/bad", () => keepUnder("refs/bisect/bad")],
  ])(
    "an entry naming a pruned commit: a commit %s is still listed (cat-file, for-each-ref, rev-list)",
    async (_name, arrange) => {
      const lost = arrange();
      const head = git(leg, "rev-parse", "HEAD");
      appendFileSync(reflogFile(), `${head} ${"d".repeat(40)} A <a@b> 1700000000 +0000\tgone\n`);
      const ports = recordingPorts();
      expect(await reflogOnlyCommits(ports, leg)).toEqual({ commits: [lost], tips: [lost] });
      expect(ports.calls.map((a) => a[0])).toEqual(["rev-list", "cat-file", "for-each-ref", "rev-list"]);
    },
  );
});

describe("reflogOnlyCommits: the leg's per-worktree refs go with it and hold nothing", () => {
  it.each(["refs/worktree/a", "refs/worktree/nested/b", "refs/bisect/bad", "refs/rewritten/x"])(
    "a commit only %s holds is listed, from one git process",
    async (ref) => {
      const c = keepUnder(ref);
      const ports = recordingPorts();
      expect(await reflogOnlyCommits(ports, leg)).toEqual({ commits: [c], tips: [c] });
      expect(ports.calls.map((a) => a[0])).toEqual(["rev-list"]);
    },
  );

  it("a branch on it: not listed", async () => {
    const c = keepUnder("refs/worktree/a");
    git(leg, "branch", "kept", c);
    expect(await reflogOnlyCommits(faultyPorts(), leg)).toEqual({ commits: [], tips: [] });
  });
});

describe("unreachableCommits: per-worktree refs protect nothing", () => {
  it.each([
    ["detached, held by refs/worktree/keep", ["refs/worktree/keep"], 1],
    ["detached, held by refs/worktree/keep and a tag", ["refs/worktree/keep", "refs/tags/t"], 0],
  ] as const)("%s", async (_name, refs, count) => {
    git(leg, "switch", "-q", "--detach");
    git(leg, "commit", "-q", "--allow-empty", "-m", "own");
    const c = git(leg, "rev-parse", "HEAD");
    for (const r of refs) git(leg, "update-ref", r, c);
    expect(await unreachableCommits(faultyPorts(), leg)).toEqual(count ? [c] : []);
    expect(await unreachableByRefList(faultyPorts(), leg)).toEqual(count ? [c] : []);
  });

  it("HEAD attached to a per-worktree ref is not a branch that keeps it", async () => {
    git(leg, "commit", "-q", "--allow-empty", "-m", "own");
    const c = git(leg, "rev-parse", "HEAD");
    git(leg, "update-ref", "refs/worktree/b", c);
    git(leg, "symbolic-ref", "HEAD", "refs/worktree/b");
    git(leg, "update-ref", "refs/heads/ariel/t1", "HEAD~1");
    expect(await unreachableCommits(faultyPorts(), leg)).toEqual([c]);
  });
});

describe("headReflog", () => {
  it("both sides of every entry, once each, without the null id", async () => {
    const base = git(leg, "rev-parse", "HEAD");
    const [lost] = leaveBehind(1);
    expect(await headReflog(faultyPorts(), leg)).toEqual([base, lost]);
  });
});
