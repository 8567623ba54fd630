/**
 * More of git.ts: the environment git runs with, runGit on real repositories (exit codes, output,
 * input, signals, a git that cannot be started), the version check and its cache, and the parsers.
 */
import { EventEmitter } from "node:events";
import { chmodSync, existsSync, mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { beforeEach, describe, expect, it, vi } from "vitest";
import { arielErrorOf } from "../_fixture.ts";
import { script, useFakeGit } from "./_fake_git_fixture.ts";
import { initRepo } from "./_fixture.ts";
import { nodeChildProcess } from "./builtins.ts";
import {
  checkGit,
  ensureGit,
  gitEnv,
  gitExecutable,
  gitIdentity,
  nodeGit,
  parseGitVersion,
  runGit,
  splitZ,
} from "./git.ts";

const linux = process.platform === "linux";
const REDIRECTS = [
  "GIT_DIR",
  "GIT_WORK_TREE",
  "GIT_INDEX_FILE",
  "GIT_COMMON_DIR",
  "GIT_OBJECT_DIRECTORY",
  "GIT_ALTERNATE_OBJECT_DIRECTORIES",
  "GIT_NAMESPACE",
  "GIT_CEILING_DIRECTORIES",
  "GIT_PREFIX",
];
const SAVED = ["XDG_STATE_HOME", "HOME", "PATH", ...REDIRECTS];

const fg = useFakeGit("ariel-git-more-", SAVED);
const cacheFile = () => join(fg.home, "git-version");

describe("gitEnv", () => {
  it("drops every variable that would point git at another repository, keeps the rest", () => {
    const base: NodeJS.ProcessEnv = { PATH: "/bin", HOME: "/h", GIT_AUTHOR_NAME: "A" };
    for (const k of REDIRECTS) base[k] = `/elsewhere/${k}`;
    const before = { ...base };
    expect(gitEnv(base)).toEqual({
      PATH: "/bin",
      HOME: "/h",
      GIT_AUTHOR_NAME: "A",
      GIT_TERMINAL_PROMPT: "0",
      GIT_OPTIONAL_LOCKS: "0",
      LC_ALL: "C",
      LANGUAGE: "C",
    });
    expect(base).toEqual(before);
  });

  it("forces no prompts, no optional locks and the C locale over the caller's; extra wins last", () => {
    const base = { GIT_TERMINAL_PROMPT: "1", GIT_OPTIONAL_LOCKS: "1", LC_ALL: "de_DE", LANGUAGE: "de" };
    expect(gitEnv(base)).toEqual({
      GIT_TERMINAL_PROMPT: "0",
      GIT_OPTIONAL_LOCKS: "0",
      LC_ALL: "C",
      LANGUAGE: "C",
    });
    expect(gitEnv({}, { LC_ALL: "POSIX", GIT_DIR: "/x", X: "1" })).toEqual({
      GIT_TERMINAL_PROMPT: "0",
      GIT_OPTIONAL_LOCKS: "0",
      LC_ALL: "POSIX",
      LANGUAGE: "C",
      GIT_DIR: "/x",
      X: "1",
    });
  });

  it("gitExecutable: ARIEL_GIT when set and not empty, else git", () => {
    expect(gitExecutable({ ARIEL_GIT: "/opt/git" })).toBe("/opt/git");
    expect(gitExecutable({ ARIEL_GIT: "" })).toBe("git");
    expect(gitExecutable({})).toBe("git");
  });
});

describe("runGit with a fake git", () => {
  it.runIf(linux)("stdin is /dev/null without input, a pipe with it", async () => {
    script(fg.fake, "readlink /proc/self/fd/0");
    expect((await runGit([], { cwd: fg.dir })).stdout).toBe("/dev/null\n");
    expect((await runGit([], { cwd: fg.dir, input: "" })).stdout).toMatch(/^(pipe|socket):\[\d+\]\n$/);
  });

  it("a git killed by a signal answers 128, with what it wrote first", async () => {
    script(fg.fake, 'echo partial\necho oops >&2\nkill -9 "$$"');
    expect(await runGit(["x"], { cwd: fg.dir })).toEqual({
      code: 128,
      stdout: "partial\n",
      stderr: "oops\n",
    });
  });

  it("its arguments are passed as they are, without a shell", async () => {
    script(fg.fake, 'for a in "$@"; do echo "[$a]"; done');
    const r = await runGit(["a b", "$HOME", "*"], { cwd: fg.dir });
    expect(r.stdout).toBe("[a b]\n[$HOME]\n[*]\n");
  });
});

describe("runGit on a real repository", () => {
  let repo: string;
  beforeEach(() => {
    delete process.env.ARIEL_GIT;
    repo = join(fg.dir, "repo");
    initRepo(repo, { "a.txt": "a\n" });
  });

  it("a redirect in the caller's environment does not move git off the cwd's repository", async () => {
    const other = join(fg.dir, "other");
    initRepo(other, { "b.txt": "b\n" });
    for (const k of REDIRECTS) delete process.env[k];
    process.env.GIT_DIR = join(other, ".git");
    process.env.GIT_WORK_TREE = other;
    process.env.GIT_INDEX_FILE = join(other, ".git", "index");
    expect(await runGit(["ls-files"], { cwd: repo })).toEqual({ code: 0, stdout: "a.txt\n", stderr: "" });
    expect((await runGit(["rev-parse", "--show-toplevel"], { cwd: repo })).stdout).toBe(`${repo}\n`);
  });

  it("options.env reaches git", async () => {
    const env = { GIT_CONFIG_COUNT: "1", GIT_CONFIG_KEY_0: "ariel.probe", GIT_CONFIG_VALUE_0: "yes" };
    expect(await runGit(["config", "--get", "ariel.probe"], { cwd: repo, env })).toEqual({
      code: 0,
      stdout: "yes\n",
      stderr: "",
    });
  });

  it("a failing git: its own exit code, stdout and stderr, kept apart", async () => {
    expect(await runGit(["rev-parse", "--verify", "refs/heads/nope"], { cwd: repo })).toEqual({
      code: 128,
      stdout: "",
      stderr: "fatal: Needed a single revision\n",
    });
    writeFileSync(join(repo, "a.txt"), "changed\n");
    expect(await runGit(["diff", "--quiet"], { cwd: repo })).toEqual({ code: 1, stdout: "", stderr: "" });
  });

  it("input goes to git's stdin; without input stdin is empty", async () => {
    const blob = await runGit(["hash-object", "--stdin"], { cwd: repo, input: "hello\n" });
    expect(blob).toEqual({ code: 0, stdout: "ce013625030ba8dba906f756967f9e9ca394464a\n", stderr: "" });
    const empty = await runGit(["hash-object", "--stdin"], { cwd: repo });
    expect(empty.stdout).toBe("e69de29bb2d1d6434b8b29ae775ad8c2e48c5391\n");
  });

  it("input git never reads (it exits first) is no error", async () => {
    const r = await runGit(["rev-parse", "HEAD"], { cwd: repo, input: "x".repeat(4 << 20) });
    expect([r.code, r.stdout.length, r.stderr]).toEqual([0, 41, ""]);
  });
});

describe("runGit: a git that cannot be started", () => {
  it("no git on PATH: ERR_GIT_MISSING naming git, exit 69, with the install hint", async () => {
    delete process.env.ARIEL_GIT;
    process.env.PATH = join(fg.dir, "empty-bin");
    const e = await arielErrorOf(runGit(["status"], { cwd: fg.dir }));
    expect([e.code, e.exit, e.message, e.hint, e.context]).toEqual([
      "ERR_GIT_MISSING",
      69,
      "git not found (git)",
      "install git 2.36 or newer and make sure it is on PATH",
      { git: "git" },
    ]);
  });

  it("a git that is not executable (EACCES): ERR_GIT_MISSING naming it", async () => {
    writeFileSync(fg.fake, "#!/bin/sh\necho no\n");
    chmodSync(fg.fake, 0o644);
    const e = await arielErrorOf(runGit(["status"], { cwd: fg.dir }));
    expect([e.code, e.message, e.context]).toEqual([
      "ERR_GIT_MISSING",
      `git not found (${fg.fake})`,
      { git: fg.fake },
    ]);
  });

  it("any other spawn failure (EMFILE) is passed on as it is, also for a missing cwd", async () => {
    const err = Object.assign(new Error("spawn EMFILE"), { code: "EMFILE" });
    vi.spyOn(nodeChildProcess(), "spawn").mockImplementation(() => {
      const child = new EventEmitter();
      process.nextTick(() => child.emit("error", err));
      return child as never;
    });
    await expect(runGit(["status"], { cwd: fg.dir })).rejects.toBe(err);
    await expect(runGit(["status"], { cwd: join(fg.dir, "gone") })).rejects.toBe(err);
  });
});

describe("parseGitVersion", () => {
  it.each([
    ["git version 2.39.5", [2, 39, 5]],
    ["git version 2.39.5.windows.1", [2, 39, 5]],
    ["git version 2.45.123 (Apple Git-154)", [2, 45, 123]],
    ["git version 10.2.3", [10, 2, 3]],
    ["git version 2.36", [2, 36, 0]],
    ["hub: git version 3.0.1\n", [3, 0, 1]],
    ["git 2.39.5", null],
    ["", null],
  ])("%j -> %j", (text, expected) => {
    expect(parseGitVersion(text)).toEqual(expected);
  });
});

describe("splitZ", () => {
  it.each([
    ["a\0b\0", ["a", "b"]],
    ["a\0b", ["a", "b"]],
    ["a\0\0", ["a", ""]],
    ["\0", [""]],
    ["", []],
    ["one", ["one"]],
  ])("%j -> %j", (text, expected) => {
    expect(splitZ(text)).toEqual(expected);
  });
});

describe("checkGit: the version check", () => {
  it("exactly the minimum, 2.36.0, is enough, and its cached answer is trusted", async () => {
    fg.writeFake("2.36.0");
    expect(await checkGit()).toEqual([2, 36, 0]);
    expect(readFileSync(cacheFile(), "utf8")).toBe(`${gitIdentity(fg.fake)}\n2.36.0\n`);
    expect(await checkGit()).toEqual([2, 36, 0]);
    expect(fg.calls()).toBe(1);
  });

  it("below it: ERR_GIT_TOO_OLD naming both versions, and nothing cached", async () => {
    fg.writeFake("2.35.10");
    const e = await arielErrorOf(checkGit());
    expect([e.code, e.exit, e.message, e.hint]).toEqual([
      "ERR_GIT_TOO_OLD",
      69,
      "git 2.35.10 is too old; ariel needs 2.36.0",
      "upgrade git to 2.36 or newer",
    ]);
    expect(existsSync(cacheFile())).toBe(false);
  });

  it("a version on stdout but a failing exit: ERR_GIT_MISSING with git's first line, redacted", async () => {
    script(
      fg.fake,
      "echo 'git version 2.40.1'\necho >&2\necho \"fatal: no https://u:secret@h.example/r\" >&2\nexit 3",
    );
    const e = await arielErrorOf(checkGit());
    expect([e.code, e.exit, e.message, e.context]).toEqual([
      "ERR_GIT_MISSING",
      69,
      "git did not report its version",
      { stderr: "fatal: no https://h.example/r" },
    ]);
    expect(JSON.stringify(e.toRecord())).not.toContain("secret");
    expect(existsSync(cacheFile())).toBe(false);
  });

  it("git's message is cut to 200 characters", async () => {
    script(fg.fake, `echo "${"e".repeat(300)}" >&2\nexit 1`);
    const e = await arielErrorOf(checkGit());
    expect(e.context).toEqual({ stderr: "e".repeat(200) });
  });

  it("a git that is not there: ERR_GIT_MISSING naming it", async () => {
    process.env.ARIEL_GIT = join(fg.dir, "no-git");
    const e = await arielErrorOf(checkGit());
    expect([e.code, e.message]).toEqual(["ERR_GIT_MISSING", `git not found (${join(fg.dir, "no-git")})`]);
  });
});

describe("checkGit: the version cache", () => {
  it("a stale temp file of this process: nothing cached and the temp removed; the next check caches", async () => {
    const tmp = `${cacheFile()}.${process.pid}.tmp`;
    writeFileSync(tmp, "stale\n");
    expect(await checkGit()).toEqual([2, 40, 1]);
    expect([existsSync(cacheFile()), existsSync(tmp)]).toEqual([false, false]);
    await checkGit();
    expect(readFileSync(cacheFile(), "utf8")).toBe(`${gitIdentity(fg.fake)}\n2.40.1\n`);
    expect(fg.calls()).toBe(2);
  });

  it("a git that cannot be identified (a relative PATH entry first) is asked each time, never cached", async () => {
    delete process.env.ARIEL_GIT;
    const bin = join(fg.dir, "bin");
    mkdirSync(bin);
    fg.writeFake("2.40.1", join(bin, "git"));
    process.env.PATH = `relative-bin:${bin}`;
    expect(await checkGit()).toEqual([2, 40, 1]);
    expect(await checkGit()).toEqual([2, 40, 1]);
    expect(fg.calls()).toBe(2);
    expect(existsSync(cacheFile())).toBe(false);
  });

  it("no state dir can be named (no ARIEL_STATE_HOME, XDG_STATE_HOME or HOME): git is asked", async () => {
    delete process.env.ARIEL_STATE_HOME;
    delete process.env.XDG_STATE_HOME;
    delete process.env.HOME;
    expect(await checkGit()).toEqual([2, 40, 1]);
    expect(await checkGit()).toEqual([2, 40, 1]);
    expect(fg.calls()).toBe(2);
  });

  it("a cache file for another build is not used", async () => {
    writeFileSync(cacheFile(), `${gitIdentity(fg.fake)}x\n2.99.0\n`);
    expect(await checkGit()).toEqual([2, 40, 1]);
    expect(fg.calls()).toBe(1);
  });
});

describe("ensureGit and nodeGit", () => {
  it("check once per process; nodeGit.run then runs git as asked", async () => {
    expect(await ensureGit()).toEqual([2, 40, 1]);
    fg.writeFake("2.20.0");
    expect(await ensureGit()).toEqual([2, 40, 1]);
    expect(fg.calls()).toBe(1);
    expect(await nodeGit.run(["version"], { cwd: fg.dir })).toEqual({
      code: 0,
      stdout: "git version 2.20.0\n",
      stderr: "",
    });
    expect(fg.calls()).toBe(2);
  });
});
