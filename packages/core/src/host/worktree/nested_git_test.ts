import {
  chmodSync,
  existsSync,
  mkdirSync,
  readdirSync,
  realpathSync,
  rmSync,
  symlinkSync,
  utimesSync,
} from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { git, initRepo, removeDir, tempDir, writeFile } from "../_fixture.ts";
import { faultyPorts } from "./_fixture.ts";
import { addAll, nestedGitDirs, withPrivateView } from "./nested_git.ts";

let dir = "";
let marks = "";
beforeEach(() => {
  dir = realpathSync(tempDir("ariel-nested-test-"));
  marks = join(dir, "marks");
});
afterEach(() => removeDir(dir));

/**
 * The repository at `path` (with a committed `same.txt`) gets config that names a clean filter
 * (for every file) and hooks that leave marks; `same.txt` is touched, so git must hash it.
 */
function hostile(path: string): void {
  const hooks = join(dir, "hooks");
  for (const hook of ["post-index-change", "fsmonitor"]) {
    writeFile(join(hooks, hook), `#!/bin/sh\nmkdir -p ${marks} && touch ${marks}/${hook}\n`);
    chmodSync(join(hooks, hook), 0o755);
  }
  git(path, "config", "filter.evil.clean", `sh -c 'mkdir -p ${marks} && touch ${marks}/filter; cat'`);
  git(path, "config", "core.hooksPath", hooks);
  git(path, "config", "core.fsmonitor", join(hooks, "fsmonitor"));
  writeFile(join(path, ".gitattributes"), "* filter=evil\n");
  const later = new Date(Date.now() + 5000);
  utimesSync(join(path, "same.txt"), later, later);
}

/** The private views left in the temporary directory. */
const views = () => readdirSync(tmpdir()).filter((n) => n.startsWith("ariel-nested-"));

describe("nestedGitDirs", () => {
  it("a .git directory, a gitdir file (relative or absolute), a commondir", async () => {
    const repo = join(dir, "repo");
    initRepo(repo);
    expect(await nestedGitDirs(repo)).toEqual({ gitDir: join(repo, ".git"), common: join(repo, ".git") });
    git(repo, "worktree", "add", "-q", join(dir, "wt"));
    const admin = join(repo, ".git/worktrees/wt");
    expect(await nestedGitDirs(join(dir, "wt"))).toEqual({ gitDir: admin, common: join(repo, ".git") });
    writeFile(join(dir, "rel/.git"), "gitdir: ../repo/.git\n");
    expect(await nestedGitDirs(join(dir, "rel"))).toEqual({
      gitDir: join(repo, ".git"),
      common: join(repo, ".git"),
    });
  });

  it("null for a .git that is a link, names nothing, names a file, or is not a gitdir line", async () => {
    const repo = join(dir, "repo");
    initRepo(repo);
    mkdirSync(join(dir, "link"));
    symlinkSync(join(repo, ".git"), join(dir, "link/.git"));
    writeFile(join(dir, "gone/.git"), `gitdir: ${join(dir, "nowhere")}\n`);
    writeFile(join(dir, "file/.git"), `gitdir: ${join(repo, "README.md")}\n`);
    writeFile(join(dir, "other/.git"), "not a pointer\n");
    mkdirSync(join(dir, "none"));
    for (const d of ["link", "gone", "file", "other", "none"])
      expect(await nestedGitDirs(join(dir, d))).toBeNull();
  });
});

describe("withPrivateView", () => {
  it("a repository's status and commits, with none of its filters or hooks run, and the view removed", async () => {
    const repo = join(dir, "repo");
    initRepo(repo, { "a.txt": "a\n", "same.txt": "same\n" });
    git(repo, "switch", "-q", "-c", "side");
    git(repo, "commit", "-q", "--allow-empty", "-m", "only here");
    const only = git(repo, "rev-parse", "HEAD");
    hostile(repo);
    writeFile(join(repo, "a.txt"), "changed\n");
    const before = views();
    const out = await withPrivateView(faultyPorts(), repo, async (v) => ({
      status: (await v.git(["status", "--porcelain=v1", "--untracked-files=all"])).stdout,
      head: (await v.git(["symbolic-ref", "HEAD"])).stdout.trim(),
      commits: (await v.git(["rev-list", "side", "--not", "main"])).stdout.trim(),
    }));
    expect(out).toEqual({ status: " M a.txt\n?? .gitattributes\n", head: "refs/heads/side", commits: only });
    expect(existsSync(marks)).toBe(false);
    expect(views()).toEqual(before);
  });

  it("null when HEAD is not a regular file; links among the refs are not followed", async () => {
    const repo = join(dir, "repo");
    initRepo(repo);
    const outside = join(dir, "outside");
    writeFile(join(outside, "x"), `${git(repo, "rev-parse", "HEAD")}\n`);
    symlinkSync(outside, join(repo, ".git/refs/heads/linked"));
    const refs = await withPrivateView(
      faultyPorts(),
      repo,
      async (v) => (await v.git(["for-each-ref"])).stdout,
    );
    expect(refs?.split("\n").filter((l) => l !== "").length).toBe(1);
    rmSync(join(repo, ".git/HEAD"));
    symlinkSync("refs/heads/main", join(repo, ".git/HEAD"));
    expect(await withPrivateView(faultyPorts(), repo, async () => "ran")).toBeNull();
  });
});

describe("addAll", () => {
  it("records a submodule's checked-out commit without entering it; drops one whose directory is gone", async () => {
    const lib = join(dir, "lib");
    initRepo(lib, { "lib.txt": "lib\n", "same.txt": "same\n" });
    const sup = join(dir, "sup");
    initRepo(sup);
    git(sup, "-c", "protocol.file.allow=always", "submodule", "add", "-q", "../lib", "lib");
    git(sup, "-c", "protocol.file.allow=always", "submodule", "add", "-q", "../lib", "old");
    git(sup, "commit", "-q", "-m", "subs");
    const sub = join(sup, "lib");
    git(sub, "commit", "-q", "--allow-empty", "-m", "moved");
    const moved = git(sub, "rev-parse", "HEAD");
    hostile(sub);
    git(sup, "rm", "-q", "--cached", "old");
    rmSync(join(sup, "old"), { recursive: true });
    writeFile(join(sup, "new.txt"), "new\n");
    const index = join(dir, "temp.index");
    const env = { GIT_INDEX_FILE: index };
    const ports = faultyPorts();
    await ports.git.run(["read-tree", "HEAD"], { cwd: sup, env });
    await addAll(ports, sup, [":(top)"], env);
    const staged = (await ports.git.run(["ls-files", "-s"], { cwd: sup, env })).stdout;
    expect(
      staged
        .split("\n")
        .filter((l) => l !== "")
        .map((l) => (l.startsWith("100644") ? l.replace(/ [0-9a-f]{40} 0/, " * 0") : l)),
    ).toEqual([
      "100644 * 0\t.gitmodules",
      "100644 * 0\tREADME.md",
      `160000 ${moved} 0\tlib`,
      "100644 * 0\tnew.txt",
    ]);
    expect(existsSync(marks)).toBe(false);
  });

  it("a file put where a submodule was is what the add records (its work is kept)", async () => {
    const lib = join(dir, "lib");
    initRepo(lib, { "lib.txt": "lib\n" });
    const sup = join(dir, "sup");
    initRepo(sup);
    git(sup, "-c", "protocol.file.allow=always", "submodule", "add", "-q", "../lib", "lib");
    git(sup, "commit", "-q", "-m", "sub");
    rmSync(join(sup, "lib"), { recursive: true });
    writeFile(join(sup, "lib"), "work that replaced the submodule\n");
    const env = { GIT_INDEX_FILE: join(dir, "temp.index") };
    const ports = faultyPorts();
    await ports.git.run(["read-tree", "HEAD"], { cwd: sup, env });
    await addAll(ports, sup, [":(top)"], env);
    const tree = (await ports.git.run(["write-tree"], { cwd: sup, env })).stdout.trim();
    expect(git(sup, "cat-file", "-p", `${tree}:lib`)).toBe("work that replaced the submodule");
  });
});
