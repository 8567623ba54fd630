/**
 * git.ts against a real repository: what gitRaw passes to git (cwd, env, stdin) and returns,
 * git's stdout as is on success, and the ERR_GIT a failure becomes: the sub-command, git's first
 * line (or the exit status when git said nothing), any credential redacted.
 */
import { join } from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { arielErrorOf } from "../../_fixture.ts";
import { initRepo, removeDir, tempDir } from "../_fixture.ts";
import { recordingPorts } from "./_fixture.ts";
import { git, gitError, gitRaw, literal } from "./git.ts";

let dir: string;
let repo: string;
let head: string;
beforeEach(() => {
  dir = tempDir("ariel-git-");
  repo = join(dir, "repo");
  head = initRepo(repo, { "README.md": "# repo\n", "a*b.txt": "star\n" });
});
afterEach(() => removeDir(dir));

/** `x.y` set to `value` for one git process, through the environment alone. */
const configEnv = (value: string) => ({
  GIT_CONFIG_COUNT: "1",
  GIT_CONFIG_KEY_0: "x.y",
  GIT_CONFIG_VALUE_0: value,
});

describe("gitRaw: one git process, its raw result", () => {
  it("runs in cwd and returns stdout untrimmed", async () => {
    const ports = recordingPorts();
    const r = await gitRaw(ports, repo, ["rev-parse", "HEAD"]);
    expect([r.code, r.stdout, r.stderr]).toEqual([0, `${head}\n`, ""]);
    expect(ports.calls).toEqual([["rev-parse", "HEAD"]]);
  });

  it("passes env to git", async () => {
    const r = await gitRaw(recordingPorts(), repo, ["config", "--get", "x.y"], {
      env: configEnv("from-env"),
    });
    expect([r.code, r.stdout]).toEqual([0, "from-env\n"]);
    const without = await gitRaw(recordingPorts(), repo, ["config", "--get", "x.y"]);
    expect([without.code, without.stdout]).toEqual([1, ""]);
  });

  it("feeds input to git's stdin, the empty string too", async () => {
    const hello = await gitRaw(recordingPorts(), repo, ["hash-object", "--stdin"], { input: "hello\n" });
    expect(hello.stdout).toBe("ce013625030ba8dba906f756967f9e9ca394464a\n");
    const empty = await gitRaw(recordingPorts(), repo, ["hash-object", "--stdin"], { input: "" });
    expect(empty.stdout).toBe("e69de29bb2d1d6434b8b29ae775ad8c2e48c5391\n");
  });

  it("a non-zero exit is a result, not a throw", async () => {
    const r = await gitRaw(recordingPorts(), repo, ["rev-parse", "-q", "--verify", "refs/heads/nope"]);
    expect([r.code, r.stdout, r.stderr]).toEqual([1, "", ""]);
  });
});

describe("git: stdout, or ERR_GIT", () => {
  it("success: git's stdout as is; env and input reach git", async () => {
    const ports = recordingPorts();
    expect(await git(ports, repo, ["config", "--get", "x.y"], { env: configEnv("v") })).toBe("v\n");
    expect(await git(ports, repo, ["hash-object", "--stdin"], { input: "hello\n" })).toBe(
      "ce013625030ba8dba906f756967f9e9ca394464a\n",
    );
  });

  it.each<[string, string[], string, string, number]>([
    [
      "the sub-command is the first argument that is no option",
      ["--no-pager", "frobnicate"],
      "frobnicate",
      "git: 'frobnicate' is not a git command. See 'git --help'.",
      1,
    ],
    [
      "git said nothing: the exit status",
      ["rev-parse", "-q", "--verify", "refs/heads/nope"],
      "rev-parse",
      "exit 1",
      1,
    ],
    ["options only: named git", ["--frobnicate"], "git", "unknown option: --frobnicate", 129],
  ])("failure, %s", async (_, args, sub, first, status) => {
    const e = await arielErrorOf(git(recordingPorts(), repo, args));
    expect([e.code, e.message, e.hint, e.exit, e.context]).toEqual([
      "ERR_GIT",
      `git ${sub} failed in ${repo}: ${first}`,
      "see git's message above",
      1,
      { git: sub, cwd: repo, status },
    ]);
  });
});

describe("gitError", () => {
  it.each<[string, string, string]>([
    ["the first non-blank line, trimmed", "\n   fatal: bad thing  \nsecond line\n", "fatal: bad thing"],
    [
      "a credential in a URL is redacted",
      "fatal: unable to access 'https://user:s3cret@example.com/r.git/': 403\n",
      "fatal: unable to access 'https://example.com/r.git/': 403",
    ],
    ["blank stderr: the exit status", " \n\n", "exit 128"],
  ])("%s", (_, stderr, first) => {
    const e = gitError(["--no-pager", "push", "origin"], { code: 128, stdout: "out", stderr }, "/w/api");
    expect([e.code, e.message, e.context]).toEqual([
      "ERR_GIT",
      `git push failed in /w/api: ${first}`,
      { git: "push", cwd: "/w/api", status: 128 },
    ]);
  });
});

describe("literal", () => {
  it("prefixes every path with :(literal), in order", () => {
    expect(literal([])).toEqual([]);
    expect(literal(["a*b.txt", "dir/x", ":(glob)y"])).toEqual([
      ":(literal)a*b.txt",
      ":(literal)dir/x",
      ":(literal):(glob)y",
    ]);
  });

  it("git reads a literal pathspec as the one path, not a glob", async () => {
    const ports = recordingPorts();
    expect(await git(ports, repo, ["ls-files", "--", ...literal(["a*b.txt"])])).toBe("a*b.txt\n");
    expect(await git(ports, repo, ["ls-files", "--", ...literal(["*.md"])])).toBe("");
  });
});
