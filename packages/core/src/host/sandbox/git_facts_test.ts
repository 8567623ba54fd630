/**
 * Where a sandbox finds each place's git state, read from git's own files: a main checkout, a
 * linked worktree (its admin dir and common dir), what is no checkout; the branch of a HEAD; the
 * facts a shadow is planned from (the common dir's entries, each linked worktree's admin files,
 * a hooks directory a config moves, a reftable repository refused).
 */
import { existsSync, mkdirSync, realpathSync, symlinkSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { arielErrorOf } from "../../_fixture.ts";
import { REAL_OBJECTS } from "../../sandbox/git_shadow.ts";
import { git, initRepo, removeDir, tempDir } from "../_fixture.ts";
import { headBranch, legGit, repoFacts } from "./git_facts.ts";

let dir: string;
let repo: string;
let common: string;
/** The environment of these tests: no global or system config of the machine's. */
const env = {
  PATH: process.env.PATH,
  HOME: "/nonexistent",
  GIT_CONFIG_GLOBAL: "/dev/null",
  GIT_CONFIG_SYSTEM: "/dev/null",
};
beforeEach(() => {
  dir = realpathSync(tempDir("ariel-gitfacts-"));
  repo = join(dir, "repo");
  initRepo(repo);
  common = join(repo, ".git");
});
afterEach(() => removeDir(dir));

function worktree(name: string, ...more: string[]): string {
  const path = join(dir, name);
  git(repo, "worktree", "add", "-q", ...more, "-b", name, path);
  return path;
}

const thrown = (f: () => unknown) => arielErrorOf(Promise.resolve().then(f));

describe("legGit", () => {
  it("a main checkout: its .git is the common dir", () => {
    expect(legGit(repo)).toEqual({ path: repo, gitdir: common, common, main: true, gitFile: null });
  });

  it("a linked worktree: its admin dir, the common dir named by commondir, its .git file", () => {
    const wt = worktree("t1");
    expect(legGit(wt)).toEqual({
      path: wt,
      gitdir: join(common, "worktrees/t1"),
      common,
      main: false,
      gitFile: join(wt, ".git"),
    });
  });

  it("a gitdir file without commondir names a repository of its own", () => {
    const sep = join(dir, "sep");
    mkdirSync(sep);
    git(sep, "init", "-q", "--separate-git-dir", join(dir, "sep.git"));
    const gitdir = join(dir, "sep.git");
    expect(legGit(sep)).toEqual({
      path: sep,
      gitdir,
      common: gitdir,
      main: true,
      gitFile: join(sep, ".git"),
    });
  });

  it("a .git reached through a link is taken canonical", () => {
    const link = join(dir, "link.git");
    symlinkSync(common, link);
    const plain = join(dir, "plain");
    mkdirSync(plain);
    symlinkSync(link, join(plain, ".git"));
    expect(legGit(plain).common).toBe(common);
  });

  it("no .git: ERR_NOT_A_CHECKOUT with the hint; a .git file naming nothing: ERR_NOT_A_CHECKOUT", async () => {
    const none = join(dir, "none");
    mkdirSync(none);
    const e = await thrown(() => legGit(none));
    expect([e.code, e.message, e.hint, e.exit]).toEqual([
      "ERR_NOT_A_CHECKOUT",
      `${none} is not a git checkout: a sandbox needs one`,
      "name a source with --source, or pass --isolate",
      66,
    ]);
    writeFileSync(join(none, ".git"), "not a pointer\n");
    const f = await thrown(() => legGit(none));
    expect([f.code, f.message]).toEqual(["ERR_NOT_A_CHECKOUT", `${join(none, ".git")} names no git dir`]);
  });

  it("a worktree whose admin dir was pruned, or a dangling .git link: ERR_NOT_A_CHECKOUT, not a crash", async () => {
    const wt = worktree("pruned");
    removeDir(join(common, "worktrees/pruned"));
    const e = await thrown(() => legGit(wt));
    expect([e.code, e.exit, e.message, e.hint, e.context]).toEqual([
      "ERR_NOT_A_CHECKOUT",
      66,
      `${join(wt, ".git")} names a git dir that is gone: ${join(common, "worktrees/pruned")}`,
      "its files are kept; ariel-worktree reconcile --dry-run says what is wrong with it",
      { path: wt, gitdir: join(common, "worktrees/pruned") },
    ]);
    expect(existsSync(join(wt, "README.md"))).toBe(true);
    const dangling = join(dir, "dangling");
    mkdirSync(dangling);
    symlinkSync(join(dir, "no-such.git"), join(dangling, ".git"));
    expect((await thrown(() => legGit(dangling))).message).toBe(`${join(dangling, ".git")} names no git dir`);
  });
});

describe("headBranch", () => {
  it("the branch HEAD names, or null when detached or absent", () => {
    expect(headBranch(common)).toBe("refs/heads/main");
    const wt = worktree("t2");
    expect(headBranch(join(common, "worktrees/t2"))).toBe("refs/heads/t2");
    git(wt, "checkout", "-q", "--detach");
    expect(headBranch(join(common, "worktrees/t2"))).toBeNull();
    expect(headBranch(join(dir, "none"))).toBeNull();
  });
});

describe("repoFacts", () => {
  it("the common dir's entries (not the real-objects mount), each linked worktree's admin files, main or not", () => {
    const a = worktree("a");
    const b = worktree("b");
    git(repo, "worktree", "lock", b);
    mkdirSync(join(common, REAL_OBJECTS));
    const f = repoFacts([legGit(a), legGit(b)], "/shadow", env);
    expect(f.common).toBe(common);
    expect(f.shadow).toBe("/shadow");
    expect(f.main).toBe(false);
    expect(f.hooksPath).toBeNull();
    expect(f.admins).toEqual([
      { name: "a", files: ["gitdir", "commondir"] },
      { name: "b", files: ["gitdir", "commondir", "locked"] },
    ]);
    const names = f.entries.map((e) => e.name);
    expect(names).not.toContain(REAL_OBJECTS);
    expect(f.entries).toContainEqual({ name: "objects", dir: true });
    expect(f.entries).toContainEqual({ name: "HEAD", dir: false });
    expect(f.entries).toContainEqual({ name: "worktrees", dir: true });
    expect(repoFacts([legGit(repo)], "/shadow", env)).toMatchObject({ main: true, admins: [] });
  });

  it("core.hooksPath in the repository's config: the hooks directory it names, canonical", () => {
    const hooks = join(dir, "my-hooks");
    mkdirSync(hooks);
    git(repo, "config", "core.hooksPath", hooks);
    expect(repoFacts([legGit(repo)], "/s", env).hooksPath).toBe(hooks);
    git(repo, "config", "core.hooksPath", "relative-hooks");
    expect(repoFacts([legGit(repo)], "/s", env).hooksPath).toBeNull();
    mkdirSync(join(repo, "relative-hooks"));
    expect(repoFacts([legGit(repo)], "/s", env).hooksPath).toBe(join(repo, "relative-hooks"));
    git(repo, "config", "core.hooksPath", join(common, "hooks"));
    expect(repoFacts([legGit(repo)], "/s", env).hooksPath).toBeNull();
  });

  it("core.hooksPath from a global config, or from GIT_CONFIG_* in the environment", () => {
    const hooks = join(dir, "global-hooks");
    mkdirSync(hooks);
    const global = join(dir, "gitconfig");
    writeFileSync(global, `[core]\n\thooksPath = ${hooks}\n`);
    expect(repoFacts([legGit(repo)], "/s", { ...env, GIT_CONFIG_GLOBAL: global }).hooksPath).toBe(hooks);
    const byEnv = {
      ...env,
      GIT_CONFIG_COUNT: "1",
      GIT_CONFIG_KEY_0: "core.hooksPath",
      GIT_CONFIG_VALUE_0: hooks,
    };
    expect(repoFacts([legGit(repo)], "/s", byEnv).hooksPath).toBe(hooks);
    expect(repoFacts([legGit(repo)], "/s", env).hooksPath).toBeNull();
  });

  it("a repository that keeps its refs in a reftable is refused: ERR_SANDBOX_UNAVAILABLE", async () => {
    writeFileSync(
      join(common, "config"),
      "[core]\n\trepositoryformatversion = 1\n[extensions]\n\trefStorage = reftable\n",
    );
    const e = await thrown(() => repoFacts([legGit(repo)], "/s", env));
    expect([e.code, e.exit, e.context]).toEqual(["ERR_SANDBOX_UNAVAILABLE", 69, { common }]);
    expect(e.message).toBe(
      `${common} keeps its refs in a reftable: a sandbox cannot give it private refs yet`,
    );
  });
});

describe("legGit and repoFacts: at the edges", () => {
  it("the errors name the place in their context", async () => {
    const none = join(dir, "none");
    mkdirSync(none);
    expect((await thrown(() => legGit(none))).context).toEqual({ path: none });
    writeFileSync(join(none, ".git"), "xgitdir: /somewhere\n");
    const f = await thrown(() => legGit(none));
    expect([f.code, f.message, f.context]).toEqual([
      "ERR_NOT_A_CHECKOUT",
      `${join(none, ".git")} names no git dir`,
      { path: none },
    ]);
  });

  it("a gitdir line with trailing blanks names the same git dir", () => {
    const wt = worktree("blank");
    const admin = join(common, "worktrees/blank");
    writeFileSync(join(wt, ".git"), `gitdir: ${admin}  \n`);
    expect(legGit(wt)).toEqual({ path: wt, gitdir: admin, common, main: false, gitFile: join(wt, ".git") });
  });

  it("a worktree whose commondir names a directory that is gone: ERR_NOT_A_CHECKOUT", async () => {
    const wt = worktree("orphan");
    const admin = join(common, "worktrees/orphan");
    writeFileSync(join(admin, "commondir"), "../../../no-such-common\n");
    const e = await thrown(() => legGit(wt));
    expect([e.code, e.message]).toEqual([
      "ERR_NOT_A_CHECKOUT",
      `${join(wt, ".git")} names a git dir that is gone: ${admin}`,
    ]);
  });

  it("main: true when any of the legs is the main worktree", () => {
    const a = worktree("a");
    expect(repoFacts([legGit(a), legGit(repo)], "/s", env).main).toBe(true);
    expect(repoFacts([legGit(repo), legGit(a)], "/s", env).main).toBe(true);
  });

  it("core.hooksPath from $HOME/.gitconfig, $HOME/.config/git/config, $XDG_CONFIG_HOME/git/config or GIT_CONFIG_SYSTEM", () => {
    const hooks = join(dir, "user-hooks");
    mkdirSync(hooks);
    const text = `[core]\n\thooksPath = ${hooks}\n`;
    const home = join(dir, "home");
    mkdirSync(join(home, ".config/git"), { recursive: true });
    const base = { PATH: process.env.PATH, GIT_CONFIG_SYSTEM: "/dev/null" };
    writeFileSync(join(home, ".gitconfig"), text);
    expect(repoFacts([legGit(repo)], "/s", { ...base, HOME: home }).hooksPath).toBe(hooks);
    writeFileSync(join(home, ".gitconfig"), "");
    writeFileSync(join(home, ".config/git/config"), text);
    expect(repoFacts([legGit(repo)], "/s", { ...base, HOME: home }).hooksPath).toBe(hooks);
    const xdg = join(dir, "xdg");
    mkdirSync(join(xdg, "git"), { recursive: true });
    writeFileSync(join(xdg, "git/config"), text);
    expect(
      repoFacts([legGit(repo)], "/s", { ...base, HOME: "/nonexistent", XDG_CONFIG_HOME: xdg }).hooksPath,
    ).toBe(hooks);
    const system = join(dir, "system-gitconfig");
    writeFileSync(system, text);
    expect(repoFacts([legGit(repo)], "/s", { ...env, GIT_CONFIG_SYSTEM: system }).hooksPath).toBe(hooks);
  });

  it("GIT_CONFIG_COUNT alone (no GIT_CONFIG_GLOBAL or GIT_CONFIG_SYSTEM set) is enough to ask git", () => {
    const hooks = join(dir, "env-hooks");
    mkdirSync(hooks);
    const byEnv = {
      PATH: process.env.PATH,
      HOME: "/nonexistent",
      GIT_CONFIG_COUNT: "1",
      GIT_CONFIG_KEY_0: "core.hooksPath",
      GIT_CONFIG_VALUE_0: hooks,
    };
    expect(repoFacts([legGit(repo)], "/s", byEnv).hooksPath).toBe(hooks);
  });

  it("git failing to say where the hooks are: none", () => {
    git(repo, "config", "core.hooksPath", join(dir, "hooks-x"));
    mkdirSync(join(dir, "hooks-x"));
    const plain = join(dir, "plain");
    mkdirSync(plain);
    const leg = { ...legGit(repo), path: plain };
    expect(repoFacts([leg], "/s", { ...env, GIT_CEILING_DIRECTORIES: dir }).hooksPath).toBeNull();
  });

  it("a reftable however the config spells it: refused, with the hint", async () => {
    for (const spelled of ["refStorage=reftable", "refstorage  =  reftable"]) {
      writeFileSync(
        join(common, "config"),
        `[core]\n\trepositoryformatversion = 1\n[extensions]\n\t${spelled}\n`,
      );
      const e = await thrown(() => repoFacts([legGit(repo)], "/s", env));
      expect([e.code, e.hint]).toEqual([
        "ERR_SANDBOX_UNAVAILABLE",
        "run this repository's agents without --sandbox (docs/sandbox.md)",
      ]);
    }
  });
});
