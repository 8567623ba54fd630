/**
 * mergeTree and landCandidate on real repositories: the commit each strategy would move a target
 * to, made as objects only (no ref, no worktree moves): `ff` the leg's tip, `merge` a merge commit
 * always, `squash` one commit (the leg's own message when it has one), `rebase` the leg's commits
 * replayed one by one (authors kept, merges left out, empty ones dropped); a conflict is returned
 * with its files, and a target that has every change already stays where it is.
 */
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { arielErrorOf } from "../../_fixture.ts";
import { GIT_TEST_ENV, git, gitRaw, initRepo, removeDir, tempDir, writeFile } from "../_fixture.ts";
import { faultyPorts } from "../worktree/_fixture.ts";
import { type CandidateInput, landCandidate, mergeTree } from "./candidate.ts";

// A candidate is a commit made by the host's git, which takes its identity from the process.
Object.assign(process.env, GIT_TEST_ENV);

let root: string;
afterEach(() => removeDir(root));

/**
 * Repository `api` with main at `base` (README.md, shared.txt) and branch `feature` checked out
 * nowhere; the tests add commits to either. Main stays checked out.
 */
function repo(): { repo: string; base: string } {
  root = tempDir("ariel-candidate-");
  const r = join(root, "api");
  const base = initRepo(r, { "README.md": "# api\n", "shared.txt": "one\ntwo\nthree\n" });
  git(r, "branch", "feature");
  return { repo: r, base };
}

/** Commit `files` on `branch` (checked out for the commit, main again after); its sha. */
function commitOn(
  r: string,
  branch: string,
  files: Record<string, string>,
  message: string,
  extra: string[] = [],
): string {
  git(r, "checkout", "-q", branch);
  for (const [f, text] of Object.entries(files)) writeFile(join(r, f), text);
  git(r, "add", "-A");
  git(r, "commit", "-q", "-m", message, ...extra);
  const sha = git(r, "rev-parse", "HEAD");
  git(r, "checkout", "-q", "main");
  return sha;
}

const input = (r: string, over: Partial<CandidateInput>): CandidateInput => ({
  repo: r,
  task: "t1",
  branch: "feature",
  target: "main",
  head: git(r, "rev-parse", "feature"),
  targetTip: git(r, "rev-parse", "main"),
  fastForward: false,
  ...over,
});

/** The commit's parents, message (raw body) and files of its tree with their text. */
function commitOf(r: string, sha: string) {
  const files = git(r, "ls-tree", "-r", "--name-only", sha).split("\n");
  return {
    parents: git(r, "rev-list", "--parents", "-n1", sha).split(" ").slice(1),
    message: gitRaw(r, "cat-file", "commit", sha).stdout.split("\n\n").slice(1).join("\n\n"),
    tree: Object.fromEntries(files.map((f) => [f, git(r, "show", `${sha}:${f}`)])),
  };
}

/** The refs and the checkout's state: what a candidate must leave alone. */
const picture = (r: string) => [
  git(r, "for-each-ref", "--format=%(refname) %(objectname)"),
  git(r, "status", "--porcelain"),
  git(r, "rev-parse", "HEAD"),
];

const ports = () => faultyPorts();

describe("mergeTree", () => {
  it("a clean merge: the merged tree, with both sides' files", async () => {
    const { repo: r } = repo();
    commitOn(r, "feature", { "feature.txt": "f\n" }, "feature");
    commitOn(r, "main", { "main.txt": "m\n" }, "main moves");
    const out = await mergeTree(ports(), r, "main", "feature");
    const tree = (out as { tree: string }).tree;
    expect(Object.keys(out)).toEqual(["tree"]);
    expect(git(r, "ls-tree", "--name-only", tree).split("\n")).toEqual([
      "README.md",
      "feature.txt",
      "main.txt",
      "shared.txt",
    ]);
  });

  it("a conflict: each conflicted path once, in git's order, and no empty name", async () => {
    const { repo: r } = repo();
    commitOn(r, "feature", { "shared.txt": "feature\n", "b.txt": "feature b\n", "ok.txt": "ok\n" }, "f");
    commitOn(r, "main", { "shared.txt": "main\n", "b.txt": "main b\n" }, "m");
    expect(await mergeTree(ports(), r, "main", "feature")).toEqual({ conflicts: ["b.txt", "shared.txt"] });
  });

  it("git failing (not a repository): ERR_GIT naming merge-tree and the directory, not a conflict", async () => {
    repo();
    const e = await arielErrorOf(mergeTree(ports(), root, "main", "feature"));
    expect([e.code, e.exit, e.message.startsWith(`git merge-tree failed in ${root}: `)]).toEqual([
      "ERR_GIT",
      1,
      true,
    ]);
    expect(e.context).toEqual({ git: "merge-tree", cwd: root, status: 128 });
  });

  // `git merge-tree --write-tree` exits 1 (as for a conflict) when it cannot read a commit
  // ("not something we can merge"); mergeTree read every exit 1 as a conflict and answered
  // `{ conflicts: [] }`, a conflict with no file, instead of a coded git error.
  it("a commit git cannot read: ERR_GIT, not a conflict with no file", async () => {
    const { repo: r } = repo();
    const e = await arielErrorOf(mergeTree(ports(), r, "main", "no-such-commit"));
    expect([e.code, e.context.git]).toEqual(["ERR_GIT", "merge-tree"]);
  });
});

describe("landCandidate: ff", () => {
  it("is the leg's tip when a fast-forward is possible, and nothing (null) when not", async () => {
    const { repo: r } = repo();
    const tip = commitOn(r, "feature", { "feature.txt": "f\n" }, "feature");
    expect(await landCandidate(ports(), "ff", input(r, { fastForward: true }))).toEqual({ to: tip });
    expect(await landCandidate(ports(), "ff", input(r, { fastForward: false }))).toBeNull();
  });
});

describe("landCandidate: merge", () => {
  it("a merge commit of target and leg, even when a fast-forward is possible; refs untouched", async () => {
    const { repo: r, base } = repo();
    const tip = commitOn(r, "feature", { "feature.txt": "f\n" }, "feature");
    const before = picture(r);
    const out = await landCandidate(ports(), "merge", input(r, { fastForward: true }));
    const to = (out as { to: string }).to;
    expect(commitOf(r, to)).toEqual({
      parents: [base, tip],
      message: "Merge branch 'feature' into main\n\nariel task t1\n",
      tree: { "README.md": "# api", "feature.txt": "f", "shared.txt": "one\ntwo\nthree" },
    });
    expect(picture(r)).toEqual(before);
  });

  it("names the branch, the target and the task given in its message", async () => {
    const { repo: r, base } = repo();
    git(r, "branch", "rel");
    const tip = commitOn(r, "feature", { "feature.txt": "f\n" }, "feature");
    commitOn(r, "rel", { "rel.txt": "r\n" }, "rel moves");
    const relTip = git(r, "rev-parse", "rel");
    const out = await landCandidate(
      ports(),
      "merge",
      input(r, { task: "fix-9", target: "rel", targetTip: relTip }),
    );
    const to = (out as { to: string }).to;
    expect(commitOf(r, to)).toEqual({
      parents: [relTip, tip],
      message: "Merge branch 'feature' into rel\n\nariel task fix-9\n",
      tree: { "README.md": "# api", "feature.txt": "f", "rel.txt": "r", "shared.txt": "one\ntwo\nthree" },
    });
    expect(base).not.toBe(relTip);
  });

  it("a conflict is returned with its files, refs and checkout untouched", async () => {
    const { repo: r } = repo();
    commitOn(r, "feature", { "shared.txt": "feature\n" }, "f");
    commitOn(r, "main", { "shared.txt": "main\n" }, "m");
    const before = picture(r);
    expect(await landCandidate(ports(), "merge", input(r, {}))).toEqual({ conflicts: ["shared.txt"] });
    expect(picture(r)).toEqual(before);
  });

  it.each(["merge", "squash"] as const)(
    "%s: a target that has every change already (the leg was squashed onto it) stays where it is",
    async (strategy) => {
      const { repo: r } = repo();
      commitOn(r, "feature", { "feature.txt": "f\n" }, "feature");
      commitOn(r, "main", { "feature.txt": "f\n" }, "the same change, squashed");
      const main = git(r, "rev-parse", "main");
      expect(await landCandidate(ports(), strategy, input(r, {}))).toEqual({ to: main });
    },
  );

  it("an unknown strategy: ERR_INTERNAL naming it", async () => {
    const { repo: r } = repo();
    commitOn(r, "feature", { "feature.txt": "f\n" }, "feature");
    const e = await arielErrorOf(landCandidate(ports(), "octopus" as "merge", input(r, {})));
    expect([e.code, e.message, e.exit]).toEqual(["ERR_INTERNAL", "unknown land strategy octopus", 70]);
  });
});

describe("landCandidate: squash", () => {
  it("one commit on the target with the merged tree and the leg's own message when it has one commit", async () => {
    const { repo: r } = repo();
    commitOn(r, "feature", { "feature.txt": "f\n" }, "add feature\n\nwith a body\n\nand a second paragraph");
    const main = commitOn(r, "main", { "main.txt": "m\n" }, "main moves");
    const to = ((await landCandidate(ports(), "squash", input(r, {}))) as { to: string }).to;
    expect(commitOf(r, to)).toEqual({
      parents: [main],
      message: "add feature\n\nwith a body\n\nand a second paragraph\n\n",
      tree: { "README.md": "# api", "feature.txt": "f", "main.txt": "m", "shared.txt": "one\ntwo\nthree" },
    });
  });

  it("several commits: a message naming the task, the count, the branch and each subject, oldest first", async () => {
    const { repo: r, base } = repo();
    commitOn(r, "feature", { "a.txt": "a\n" }, "first");
    commitOn(r, "feature", { "b.txt": "b\n" }, "second\n\nbody not listed");
    commitOn(r, "feature", { "a.txt": "a2\n" }, "third");
    const to = ((await landCandidate(ports(), "squash", input(r, { fastForward: true }))) as { to: string })
      .to;
    expect(commitOf(r, to)).toEqual({
      parents: [base],
      message: "Land task t1 (3 commits of feature)\n\n* first\n* second\n* third\n",
      tree: { "README.md": "# api", "a.txt": "a2", "b.txt": "b", "shared.txt": "one\ntwo\nthree" },
    });
  });

  it("a conflict is returned with its files", async () => {
    const { repo: r } = repo();
    commitOn(r, "feature", { "shared.txt": "feature\n", "x.txt": "f\n" }, "f");
    commitOn(r, "main", { "shared.txt": "main\n", "x.txt": "m\n" }, "m");
    expect(await landCandidate(ports(), "squash", input(r, {}))).toEqual({
      conflicts: ["shared.txt", "x.txt"],
    });
  });
});

describe("landCandidate: rebase", () => {
  it("a possible fast-forward: the leg's tip itself, nothing replayed", async () => {
    const { repo: r } = repo();
    const tip = commitOn(r, "feature", { "feature.txt": "f\n" }, "feature");
    expect(await landCandidate(ports(), "rebase", input(r, { fastForward: true }))).toEqual({ to: tip });
  });

  it("replays each commit on the moved target: linear, messages, authors and their dates kept", async () => {
    const { repo: r } = repo();
    const author = ["--author", "Other Author <other@example.invalid>", "--date", "2025-06-01T12:00:00+0200"];
    commitOn(r, "feature", { "shared.txt": "one\ntwo\nthree\nfour\n" }, "append four\n\nbody", author);
    commitOn(r, "feature", { "shared.txt": "ONE\ntwo\nthree\nfour\n" }, "shout one");
    const main = commitOn(r, "main", { "main.txt": "m\n" }, "main moves");
    const before = picture(r);
    const to = ((await landCandidate(ports(), "rebase", input(r, {}))) as { to: string }).to;
    expect(git(r, "log", "--format=%s|%an|%ae|%aI|%P", `${main}..${to}`).split("\n")).toEqual([
      `shout one|Ariel Test|ariel@example.invalid|2026-01-01T00:00:00+00:00|${git(r, "rev-parse", `${to}^`)}`,
      `append four|Other Author|other@example.invalid|2025-06-01T12:00:00+02:00|${main}`,
    ]);
    expect(git(r, "log", "-1", "--format=%B", `${to}^`)).toBe("append four\n\nbody");
    expect(commitOf(r, to).tree).toEqual({
      "README.md": "# api",
      "main.txt": "m",
      "shared.txt": "ONE\ntwo\nthree\nfour",
    });
    expect(picture(r)).toEqual(before);
  });

  it("each step merges against the commit's own parent: a later commit that undoes an earlier one replays", async () => {
    const { repo: r } = repo();
    commitOn(r, "feature", { "shared.txt": "one\nTWO\nthree\n" }, "upper two");
    commitOn(r, "feature", { "shared.txt": "one\ntwo\nthree\n" }, "lower two again");
    commitOn(r, "feature", { "shared.txt": "one\ntwo\nthree\nfour\n" }, "append four");
    const main = commitOn(r, "main", { "shared.txt": "zero\none\ntwo\nthree\n" }, "prepend zero");
    const to = ((await landCandidate(ports(), "rebase", input(r, {}))) as { to: string }).to;
    expect(git(r, "log", "--format=%s", `${main}..${to}`).split("\n")).toEqual([
      "append four",
      "lower two again",
      "upper two",
    ]);
    expect(git(r, "show", `${to}~1:shared.txt`)).toBe("zero\none\ntwo\nthree");
    expect(git(r, "show", `${to}~2:shared.txt`)).toBe("zero\none\nTWO\nthree");
    expect(git(r, "show", `${to}:shared.txt`)).toBe("zero\none\ntwo\nthree\nfour");
  });

  it("leaves merges out and drops commits the target has already", async () => {
    const { repo: r } = repo();
    git(r, "branch", "side");
    commitOn(r, "side", { "side.txt": "s\n" }, "on side");
    commitOn(r, "feature", { "a.txt": "a\n" }, "add a");
    git(r, "checkout", "-q", "feature");
    git(r, "merge", "-q", "--no-ff", "-m", "merge side", "side");
    git(r, "checkout", "-q", "main");
    commitOn(r, "feature", { "b.txt": "b\n" }, "add b");
    const main = commitOn(r, "main", { "a.txt": "a\n" }, "a, already on main");
    const to = ((await landCandidate(ports(), "rebase", input(r, {}))) as { to: string }).to;
    expect(git(r, "log", "--format=%s|%P", `${main}..${to}`).split("\n")).toEqual([
      `add b|${git(r, "rev-parse", `${to}^`)}`,
      `on side|${main}`,
    ]);
    expect(commitOf(r, to).tree).toEqual({
      "README.md": "# api",
      "a.txt": "a",
      "b.txt": "b",
      "shared.txt": "one\ntwo\nthree",
      "side.txt": "s",
    });
  });

  it("every commit already on the target: the target's own tip", async () => {
    const { repo: r } = repo();
    commitOn(r, "feature", { "a.txt": "a\n" }, "add a");
    const main = commitOn(r, "main", { "a.txt": "a\n" }, "a, already on main");
    expect(await landCandidate(ports(), "rebase", input(r, {}))).toEqual({ to: main });
  });

  it("a commit that conflicts: its files, and no later commit tried", async () => {
    const { repo: r } = repo();
    commitOn(r, "feature", { "a.txt": "a\n" }, "add a");
    commitOn(r, "feature", { "shared.txt": "feature\n" }, "change shared");
    commitOn(r, "feature", { "shared.txt": "feature\nmore\n", "c.txt": "c\n" }, "more");
    commitOn(r, "main", { "shared.txt": "main\n" }, "main changes shared");
    expect(await landCandidate(ports(), "rebase", input(r, {}))).toEqual({ conflicts: ["shared.txt"] });
  });
});
