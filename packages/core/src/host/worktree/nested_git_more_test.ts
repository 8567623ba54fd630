/**
 * More of nested_git.ts against real repositories: which `.git` pointers name a git dir, exactly
 * what a private view copies (and where it lives), and how `addAll` records submodules it cannot
 * read a commit from, or fails.
 */
import {
  existsSync,
  mkdirSync,
  readdirSync,
  readFileSync,
  realpathSync,
  rmSync,
  writeFileSync,
} from "node:fs";
import { tmpdir } from "node:os";
import { basename, dirname, join } from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { git, initRepo, removeDir, tempDir, writeFile } from "../_fixture.ts";
import { faultyPorts } from "./_fixture.ts";
import { addAll, nestedGitDirs, withPrivateView } from "./nested_git.ts";

let dir = "";
beforeEach(() => {
  dir = realpathSync(tempDir("ariel-nested-more-"));
});
afterEach(() => removeDir(dir));

/** A `.git` file at `at` holding exactly `text`. */
function dotGit(at: string, text: string): string {
  writeFile(join(at, ".git"), text);
  return at;
}

/** `repo`'s own git dir, as nestedGitDirs names it for a plain repository. */
const plain = (repo: string) => ({ gitDir: join(repo, ".git"), common: join(repo, ".git") });

describe("nestedGitDirs: the .git file", () => {
  it("is read up to 4096 bytes; a longer one names nothing", async () => {
    const repo = join(dir, "repo");
    initRepo(repo);
    const target = "../repo/.git\n";
    const pad = (size: number) => `gitdir: ./${"/".repeat(size - 10 - target.length)}${target}`;
    expect(pad(4096).length).toBe(4096);
    expect(await nestedGitDirs(dotGit(join(dir, "at"), pad(4096)))).toEqual(plain(repo));
    const over = `${pad(4096).slice(0, -1)}/\n`;
    expect(over.length).toBe(4097);
    expect(await nestedGitDirs(dotGit(join(dir, "over"), over))).toBeNull();
  });

  it("must start with `gitdir: ` and name one non-empty path on one line", async () => {
    const repo = join(dir, "repo");
    initRepo(repo);
    const odd = join(dir, "we\nird");
    initRepo(odd);
    expect(await nestedGitDirs(dotGit(join(dir, "crlf"), "gitdir: ../repo/.git\r\n"))).toEqual(plain(repo));
    expect(await nestedGitDirs(dotGit(join(dir, "bare"), "gitdir: ../repo/.git"))).toEqual(plain(repo));
    expect(await nestedGitDirs(dotGit(join(dir, "odd"), "gitdir: ../we\nird/.git\n"))).toBeNull();
    const cases = {
      upper: "GITDIR: ../repo/.git\n",
      split: "gitdir: ../re\npo/.git",
      empty: "gitdir: \n",
      twice: "gitdir: ../repo/.git\n\n",
      nul: "gitdir: ../repo/.git\0\n",
    };
    for (const [name, text] of Object.entries(cases)) {
      expect([name, await nestedGitDirs(dotGit(join(dir, name), text))]).toEqual([name, null]);
    }
  });

  it("a commondir that names nothing makes the whole answer null", async () => {
    const repo = join(dir, "repo");
    initRepo(repo);
    writeFileSync(join(repo, ".git/commondir"), "../nowhere\n");
    expect(await nestedGitDirs(repo)).toBeNull();
    writeFileSync(join(repo, ".git/commondir"), `${join(dir, "repo/.git")}\n`);
    expect(await nestedGitDirs(repo)).toEqual(plain(repo));
  });
});

/** Every path under `root`, relative and sorted (directories too). */
function tree(root: string): string[] {
  return (readdirSync(root, { recursive: true }) as string[]).sort();
}

/** In a view: where it is, what it holds, and what git says through it. */
async function look(ports: ReturnType<typeof faultyPorts>, repo: string, more: readonly string[][] = []) {
  return withPrivateView(ports, repo, async (v, dirs) => {
    const at = (await v.git(["rev-parse", "--git-dir"])).stdout.trim();
    const files = tree(at);
    const said: string[] = [];
    for (const args of more) said.push((await v.git(args)).stdout.trim());
    return { at, files, said, dirs };
  });
}

describe("withPrivateView: what the view holds", () => {
  it("a shallow clone with a split index: HEAD, refs, packed-refs, shallow, exclude, index and its shared part", async () => {
    const lib = join(dir, "lib");
    initRepo(lib);
    git(lib, "commit", "-q", "--allow-empty", "-m", "two");
    const repo = join(dir, "repo");
    git(dir, "clone", "-q", "--depth", "1", `file://${lib}`, repo);
    git(repo, "update-index", "--split-index");
    const shared = readdirSync(join(repo, ".git")).filter((n) => n.startsWith("sharedindex."));
    expect(shared).toEqual([expect.stringMatching(/^sharedindex\.[0-9a-f]{40}$/)]);
    writeFileSync(join(repo, ".git", `${shared[0]}.lock`), "not a shared index\n");
    const out = await look(faultyPorts(), repo, [
      ["rev-parse", "--is-shallow-repository"],
      ["ls-files"],
      ["rev-parse", "HEAD"],
    ]);
    expect(dirname(out?.at ?? "")).toBe(tmpdir());
    expect(basename(out?.at ?? "")).toMatch(/^ariel-nested-[A-Za-z0-9]{6}$/);
    expect(out?.files).toEqual(
      [
        "HEAD",
        "config",
        "index",
        "info",
        "info/exclude",
        "objects",
        "objects/info",
        "objects/info/alternates",
        "packed-refs",
        "refs",
        "refs/heads",
        "refs/heads/main",
        "refs/remotes",
        "refs/remotes/origin",
        "refs/remotes/origin/HEAD",
        "refs/tags",
        "shallow",
        shared[0],
      ].sort(),
    );
    expect(out?.said).toEqual(["true", "README.md", git(lib, "rev-parse", "HEAD")]);
    expect(out?.dirs).toEqual(plain(repo));
    expect(existsSync(out?.at ?? "")).toBe(false);
  });
});

describe("withPrivateView: a linked worktree", () => {
  it("sees the common refs and the worktree's own; copies nothing else of the worktree's admin dir", async () => {
    const repo = join(dir, "repo");
    const base = initRepo(repo);
    git(repo, "worktree", "add", "-q", "-b", "wt", join(dir, "wt"));
    git(repo, "worktree", "add", "-q", "-b", "plain", join(dir, "plain"));
    const wt = join(dir, "wt");
    git(wt, "commit", "-q", "--allow-empty", "-m", "on wt");
    git(wt, "update-ref", "refs/worktree/mark", base);
    git(wt, "update-ref", "refs/bisect/bad", base);
    const refs = ["for-each-ref", "--format=%(refname)"];
    const out = await look(faultyPorts(), wt, [refs, ["symbolic-ref", "HEAD"], ["rev-parse", "HEAD"]]);
    expect(out?.said).toEqual([
      "refs/bisect/bad\nrefs/heads/main\nrefs/heads/plain\nrefs/heads/wt\nrefs/worktree/mark",
      "refs/heads/wt",
      git(wt, "rev-parse", "HEAD"),
    ]);
    expect(out?.dirs).toEqual({ gitDir: join(repo, ".git/worktrees/wt"), common: join(repo, ".git") });
    expect(readFileSync(join(repo, ".git/worktrees/wt/commondir"), "utf8")).toBe("../..\n");
    expect(out?.files.filter((f) => !f.startsWith("refs/") && !f.startsWith("objects/"))).toEqual([
      "HEAD",
      "config",
      "index",
      "info",
      "info/exclude",
      "objects",
      "refs",
    ]);
    const other = await look(faultyPorts(), join(dir, "plain"), [refs, ["symbolic-ref", "HEAD"]]);
    expect(other?.said).toEqual(["refs/heads/main\nrefs/heads/plain\nrefs/heads/wt", "refs/heads/plain"]);
  });
});

/** A superproject `sup` with `lib` (two commits) added as a submodule at each of `paths`, committed. */
function superproject(paths: readonly string[]): { sup: string; first: string; last: string } {
  const lib = join(dir, "lib");
  const first = initRepo(lib, { "lib.txt": "lib\n" });
  git(lib, "commit", "-q", "--allow-empty", "-m", "two");
  const sup = join(dir, "sup");
  initRepo(sup);
  for (const p of paths) git(sup, "submodule", "add", "-q", "../lib", p);
  git(sup, "commit", "-q", "-m", "subs");
  return { sup, first, last: git(lib, "rev-parse", "HEAD") };
}

/** A temporary index at `dir/temp.index` read from `sup`'s HEAD, and the ports to use it. */
async function tempIndex(sup: string) {
  const env = { GIT_INDEX_FILE: join(dir, "temp.index") };
  const ports = faultyPorts();
  await ports.git.run(["read-tree", "HEAD"], { cwd: sup, env });
  const staged = async () =>
    (await ports.git.run(["ls-files", "-s", "-z"], { cwd: sup, env })).stdout
      .split("\0")
      .filter((l) => l !== "");
  return { env, ports, staged };
}

describe("addAll: submodules whose commit cannot be read through a view", () => {
  it("keep the commit the index has (the real index's first), beside one whose new commit is recorded", async () => {
    const { sup, first, last } = superproject(["a-broken", "b-unborn", "c-moved"]);
    rmSync(join(sup, "a-broken/.git"));
    writeFile(join(sup, "a-broken/.git"), `gitdir: ${join(dir, "nowhere")}\n`);
    const unborn = git(join(sup, "b-unborn"), "rev-parse", "--absolute-git-dir");
    writeFileSync(join(unborn, "HEAD"), "ref: refs/heads/nothing\n");
    git(sup, "update-index", "--force-remove", "b-unborn");
    const moved = join(sup, "c-moved");
    git(moved, "commit", "-q", "--allow-empty", "-m", "moved");
    const { env, ports, staged } = await tempIndex(sup);
    for (const p of ["a-broken", "b-unborn"]) {
      await ports.git.run(["update-index", "--cacheinfo", `160000,${first},${p}`], { cwd: sup, env });
    }
    await addAll(ports, sup, [":(top)"], env);
    const gitmodules = git(sup, "hash-object", ".gitmodules");
    expect(await staged()).toEqual([
      `100644 ${gitmodules} 0\t.gitmodules`,
      `100644 ${git(sup, "hash-object", "README.md")} 0\tREADME.md`,
      `160000 ${last} 0\ta-broken`,
      `160000 ${first} 0\tb-unborn`,
      `160000 ${git(moved, "rev-parse", "HEAD")} 0\tc-moved`,
    ]);
  });
});

describe("addAll: what is a gitlink, and failures", () => {
  it("a file whose name reads like a gitlink entry is not taken for one", async () => {
    const { sup, last } = superproject(["lib"]);
    const name = "x 160000 0123 0\tlib";
    writeFile(join(sup, name), "a file\n");
    git(sup, "add", "--", `:(literal)${name}`);
    git(sup, "commit", "-q", "-m", "odd name");
    rmSync(join(sup, "lib/.git"));
    writeFile(join(sup, "lib/.git"), "gitdir: ../nowhere\n");
    const { env, ports, staged } = await tempIndex(sup);
    await addAll(ports, sup, [":(top)"], env);
    expect((await staged()).slice(2)).toEqual([
      `160000 ${last} 0\tlib`,
      `100644 ${git(sup, "hash-object", "--", name)} 0\t${name}`,
    ]);
  });

  it("a failed add is ERR_GIT with git's first line", async () => {
    const { sup } = superproject(["lib"]);
    const { env, ports } = await tempIndex(sup);
    await expect(addAll(ports, sup, ["nomatch"], env)).rejects.toMatchObject({
      code: "ERR_GIT",
      message: `git add failed in ${sup}: fatal: pathspec 'nomatch' did not match any files`,
      context: { git: "add", cwd: sup, status: 128 },
    });
  });

  it("a commit the superproject's index cannot hold (sha1 in a sha256 repository) is ERR_GIT of update-index", async () => {
    const lib = join(dir, "lib");
    const head = initRepo(lib);
    const sup = join(dir, "sup");
    mkdirSync(sup);
    git(sup, "init", "-q", "-b", "main", "--object-format=sha256");
    writeFile(join(sup, "README.md"), "sup\n");
    git(sup, "add", "README.md");
    git(sup, "clone", "-q", lib, "lib");
    git(sup, "update-index", "--add", "--cacheinfo", `160000,${"ab".repeat(32)},lib`);
    const { env, ports, staged } = await tempIndex(sup);
    await ports.git.run(["read-tree", git(sup, "write-tree")], { cwd: sup, env });
    await expect(addAll(ports, sup, [":(top)"], env)).rejects.toMatchObject({
      code: "ERR_GIT",
      message: `git update-index failed in ${sup}: fatal: malformed index info 160000 ${head}\tlib`,
      context: { git: "update-index", cwd: sup, status: 128 },
    });
    expect(await staged()).toEqual([
      `100644 ${git(sup, "hash-object", "README.md")} 0\tREADME.md`,
      `160000 ${"ab".repeat(32)} 0\tlib`,
    ]);
  });
});
