/**
 * More of facts.ts against real repositories: resolveBase's refusals and choices, the `.git` file
 * forms gitDirsOf accepts, when the file reads answer without a git process, and every link
 * linkedWorktreeFromFiles must check before it trusts a worktree's admin files.
 */
import { cpSync, mkdirSync, renameSync, symlinkSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { arielErrorOf } from "../../_fixture.ts";
import { commitAll, gitRaw, initRepo, removeDir, tempDir } from "../_fixture.ts";
import { nodeFs } from "../fs.ts";
import { faultyPorts, git, gitPicture, recordingPorts } from "./_fixture.ts";
import {
  branchCommit,
  gitDirsOf,
  headCommit,
  linkedWorktreeFromFiles,
  listWorktrees,
  readHeadFiles,
  readRefFiles,
  resolveBase,
} from "./facts.ts";

let dir: string;
let repo: string;
let first: string;
beforeEach(() => {
  dir = tempDir("ariel-facts-more-");
  repo = join(dir, "repo");
  first = initRepo(repo);
});
afterEach(() => removeDir(dir));

/** A linked worktree `wt` on branch ariel/t1 of `repo`, whose admin dir is `admin` in `common`. */
let wt: string;
let common: string;
let admin: string;
function addLinked(): void {
  wt = join(dir, "wt");
  common = join(repo, ".git");
  admin = join(common, "worktrees/wt");
  git(repo, "worktree", "add", "-q", "-b", "ariel/t1", wt);
}

/** git's own `worktree list` entry for `path`. */
const gits = async (path: string) => (await listWorktrees(faultyPorts(), repo)).find((w) => w.path === path);
const verify = (ref: string) => ["rev-parse", "-q", "--verify", "--end-of-options", `${ref}^{commit}`];
const NOINPUT_HINT = "pass --base with a commit that exists in every source";

describe("resolveBase: refusals", () => {
  it.each<[string, string]>([
    ["", 'invalid --base ""'],
    ["-x", 'invalid --base "-x"'],
    ["--upload-pack=evil", 'invalid --base "--upload-pack=evil"'],
    ["main\0", 'invalid --base "main\\u0000"'],
  ])("base %j: ERR_INVALID_INPUT before any git process", async (base, message) => {
    const ports = recordingPorts();
    const before = gitPicture(repo);
    const e = await arielErrorOf(resolveBase(ports, repo, "api", base, first));
    expect([e.code, e.message, e.hint, e.context]).toEqual([
      "ERR_INVALID_INPUT",
      message,
      "name a commit, branch or tag",
      {},
    ]);
    expect(ports.calls).toEqual([]);
    expect(gitPicture(repo)).toEqual(before);
  });

  it("a base the source lacks: ERR_NOINPUT naming base and source", async () => {
    const ports = recordingPorts();
    const e = await arielErrorOf(resolveBase(ports, repo, "api", "nope"));
    expect([e.code, e.message, e.hint]).toEqual([
      "ERR_NOINPUT",
      "base nope not found in source api",
      NOINPUT_HINT,
    ]);
    expect(e.context).toStrictEqual({ source: "api", base: "nope" });
    expect(ports.calls).toEqual([verify("nope")]);
  });

  it("an unborn source: ERR_NOINPUT 'no commit at HEAD', read by git or given as head null", async () => {
    const empty = join(dir, "empty");
    mkdirSync(empty);
    git(empty, "init", "-q", "-b", "main");
    for (const head of [undefined, null]) {
      const ports = recordingPorts();
      const e = await arielErrorOf(resolveBase(ports, empty, "web", undefined, head));
      expect([e.code, e.message, e.hint]).toEqual([
        "ERR_NOINPUT",
        "source web has no commit at HEAD",
        NOINPUT_HINT,
      ]);
      expect(e.context).toStrictEqual({ source: "web", base: undefined });
      expect(ports.calls).toEqual(head === undefined ? [verify("HEAD")] : []);
    }
    // A head of null already read is trusted: no git asks again, even where HEAD has a commit.
    const e = await arielErrorOf(resolveBase(recordingPorts(), repo, "api", undefined, null));
    expect(e.message).toBe("source api has no commit at HEAD");
  });
});

describe("resolveBase: which commit", () => {
  let second: string;
  beforeEach(() => {
    second = commitAll(repo, "second");
    git(repo, "branch", "x-", first);
    git(repo, "tag", "v-1", first);
  });

  it.each<[string, string | null | undefined]>([
    ["x-", undefined],
    ["x-", "0".repeat(40)],
    ["v-1", undefined],
    ["main~1", null],
  ])("base %j (head %j): git's commit for the base, never the head", async (base, head) => {
    const ports = recordingPorts();
    expect(await resolveBase(ports, repo, "api", base, head)).toBe(first);
    expect(ports.calls).toEqual([verify(base)]);
  });

  it("no base, no head: git's HEAD", async () => {
    const ports = recordingPorts();
    expect(await resolveBase(ports, repo, "api")).toBe(second);
    expect(ports.calls).toEqual([verify("HEAD")]);
  });

  it("no base, a head already read: that head as it is, no git process", async () => {
    const ports = recordingPorts();
    const head = "a".repeat(40);
    expect(await resolveBase(ports, repo, "api", undefined, head)).toBe(head);
    expect(ports.calls).toEqual([]);
  });
});

describe("gitDirsOf: the git dirs named by `.git`", () => {
  beforeEach(addLinked);

  it("a main checkout and a linked worktree as git wrote it", async () => {
    expect(await gitDirsOf(nodeFs, repo)).toEqual({ gitDir: common, common });
    expect(await gitDirsOf(nodeFs, wt)).toEqual({ gitDir: admin, common });
  });

  it.each<[string, (a: string) => string, (a: string) => string]>([
    ["no space after the colon", (a) => `gitdir:${a}\n`, (a) => a],
    ["several spaces", (a) => `gitdir:   ${a}\n`, (a) => a],
    ["no final newline", (a) => `gitdir: ${a}`, (a) => a],
    ["trailing blanks", (a) => `gitdir: ${a} \t\r\n`, (a) => a],
    ["a relative path", () => "gitdir: ../repo/.git/worktrees/wt\n", () => `${wt}/../repo/.git/worktrees/wt`],
  ])("a `.git` file with %s", async (_name, content, gitDir) => {
    writeFileSync(join(wt, ".git"), content(admin));
    expect(await gitDirsOf(nodeFs, wt)).toEqual({ gitDir: gitDir(admin), common });
  });

  it.each<[string, (a: string) => string]>([
    ["text before `gitdir:`", (a) => `# gitdir: ${a}\n`],
    ["no gitdir line", () => "not a gitdir\n"],
    ["an empty file", () => ""],
    ["`gitdir:` and nothing after it", () => "gitdir:\n"],
  ])("null for a `.git` file with %s", async (_name, content) => {
    writeFileSync(join(wt, ".git"), content(admin));
    expect(await gitDirsOf(nodeFs, wt)).toBe(null);
  });

  it("null for a `.git` symbolic link, a missing `.git` and a reftable repository", async () => {
    const link = join(dir, "link");
    mkdirSync(link);
    symlinkSync(common, join(link, ".git"));
    expect(await gitDirsOf(nodeFs, link)).toBe(null);
    expect(await gitDirsOf(nodeFs, dir)).toBe(null);
    mkdirSync(join(common, "reftable"));
    expect(await gitDirsOf(nodeFs, wt)).toBe(null);
  });
});

describe("readHeadFiles / readRefFiles", () => {
  it("HEAD and a named ref, with their branch", async () => {
    git(repo, "branch", "x-");
    expect(await readHeadFiles(nodeFs, repo)).toEqual({ head: first, branch: "main" });
    expect(await readHeadFiles(nodeFs, repo, "refs/heads/x-")).toEqual({ head: first, branch: "x-" });
    expect(await readRefFiles(nodeFs, repo, "HEAD")).toBe(first);
  });

  it("a `.git` directory without a HEAD file (no repository to git): undefined, not 'unborn'", async () => {
    const bare = join(dir, "headless");
    mkdirSync(join(bare, ".git"), { recursive: true });
    expect(await readRefFiles(nodeFs, bare, "HEAD")).toBe(undefined);
    expect(await readHeadFiles(nodeFs, bare)).toBe(undefined);
    expect(await readRefFiles(nodeFs, bare, "refs/heads/main")).toBe(null);
  });
});

describe("branchCommit and headCommit: a git process only when the files cannot answer", () => {
  it("an absent branch from the files alone; a present one confirmed by git", async () => {
    const ports = recordingPorts();
    expect(await branchCommit(ports, repo, "refs/heads/nope")).toBe(null);
    expect(ports.calls).toEqual([]);
    expect(await branchCommit(ports, repo, "refs/heads/main")).toBe(first);
    expect(ports.calls).toEqual([verify("refs/heads/main")]);
  });

  it("HEAD from the files: no git process", async () => {
    const ports = recordingPorts();
    expect(await headCommit(ports, repo)).toBe(first);
    git(repo, "switch", "-q", "--detach");
    const tip = commitAll(repo, "detached");
    expect(await headCommit(ports, repo)).toBe(tip);
    expect(ports.calls).toEqual([]);
  });

  it("symbolic refs from HEAD followed as deep as git follows them, and no deeper", async () => {
    const chain = (names: string[]) => {
      const refs = ["HEAD", ...names.map((n) => `refs/heads/${n}`), "refs/heads/main"];
      for (let i = 0; i < refs.length - 1; i++) {
        writeFileSync(join(repo, ".git", refs[i]!), `ref: ${refs[i + 1]}\n`);
      }
    };
    chain(["s3", "s4", "s5"]);
    expect(gitRaw(repo, "rev-parse", "HEAD").stdout.trim()).toBe(first);
    const ports = recordingPorts();
    expect(await headCommit(ports, repo)).toBe(first);
    expect(ports.calls).toEqual([]);
    chain(["s2", "s3", "s4", "s5"]);
    expect(gitRaw(repo, "rev-parse", "HEAD").code).not.toBe(0);
    expect((await arielErrorOf(headCommit(ports, repo))).code).toBe("ERR_GIT");
    expect(ports.calls).toEqual([["rev-parse", "HEAD"]]);
  });

  it("files that cannot answer (reftable): git's `rev-parse HEAD`, trimmed", async () => {
    mkdirSync(join(repo, ".git/reftable"));
    const ports = recordingPorts();
    expect(await headCommit(ports, repo)).toBe(first);
    expect(ports.calls).toEqual([["rev-parse", "HEAD"]]);
  });
});

describe("linkedWorktreeFromFiles: every link checked before the admin files are trusted", () => {
  beforeEach(addLinked);

  it("a `.git` file without its final newline: git's entry", async () => {
    writeFileSync(join(wt, ".git"), `gitdir: ${admin}`);
    const want = await gits(wt);
    expect(want?.branch).toBe("refs/heads/ariel/t1");
    expect(await linkedWorktreeFromFiles(nodeFs, common, wt)).toEqual(want);
  });

  it("a worktree path holding a newline: git's entry", async () => {
    const odd = join(dir, "w\nt");
    git(repo, "worktree", "add", "-q", "-b", "odd", odd);
    const want = await gits(odd);
    expect(want?.branch).toBe("refs/heads/odd");
    expect(await linkedWorktreeFromFiles(nodeFs, common, odd)).toEqual(want);
  });

  it("reads only `.git` of a main worktree, and the admin HEAD once of a linked one", async () => {
    const fs = faultyPorts().fs;
    expect(await linkedWorktreeFromFiles(fs, common, repo)).toBe(undefined);
    expect(fs.log).toEqual([`lstat ${repo}/.git`]);
    expect(await linkedWorktreeFromFiles(fs, common, wt)).toEqual(await gits(wt));
    expect(fs.log.filter((l) => l === `readText ${admin}/HEAD`)).toHaveLength(1);
  });
});

describe("linkedWorktreeFromFiles: undefined (ask git) where a link does not hold exactly", () => {
  beforeEach(addLinked);

  it.each<[string, () => void]>([
    ["a line before the gitdir line", () => writeFileSync(join(wt, ".git"), `junk\ngitdir: ${admin}\n`)],
    ["a line after the gitdir line", () => writeFileSync(join(wt, ".git"), `gitdir: ${admin}\nmore\n`)],
    [
      "an admin dir reached through another name than worktrees/",
      () => {
        symlinkSync(join(common, "worktrees"), join(common, "worktreez"));
        writeFileSync(join(wt, ".git"), `gitdir: ${common}/worktreez/wt\n`);
      },
    ],
    [
      "an admin dir nested below worktrees/",
      () => {
        mkdirSync(join(common, "worktrees/sub"));
        renameSync(admin, join(common, "worktrees/sub/wt"));
        writeFileSync(join(common, "worktrees/sub/wt/commondir"), "../../..\n");
        writeFileSync(join(wt, ".git"), `gitdir: ${common}/worktrees/sub/wt\n`);
      },
    ],
    [
      "a `.git` naming its admin dir with a trailing blank",
      () => {
        cpSync(admin, `${admin} `, { recursive: true });
        writeFileSync(join(wt, ".git"), `gitdir: ${admin} \n`);
      },
    ],
    [
      "an admin dir whose commondir names another repository",
      () => {
        initRepo(join(dir, "other"));
        writeFileSync(join(admin, "commondir"), `${join(dir, "other/.git")}\n`);
      },
    ],
  ])("undefined for %s", async (_name, arrange) => {
    arrange();
    const before = gitPicture(repo);
    expect(await linkedWorktreeFromFiles(nodeFs, common, wt)).toBe(undefined);
    expect(gitPicture(repo)).toEqual(before);
  });

  it("a `locked` file that cannot be read: undefined; a missing one: not locked", async () => {
    const ports = faultyPorts([{ op: "readText", path: `${admin}/locked`, code: "EACCES", times: 1 }]);
    expect(await linkedWorktreeFromFiles(ports.fs, common, wt)).toBe(undefined);
    expect((await linkedWorktreeFromFiles(ports.fs, common, wt))?.locked).toBe(null);
    mkdirSync(join(admin, "locked")); // git itself fails on it: "failed to read ... Is a directory"
    expect(await linkedWorktreeFromFiles(nodeFs, common, wt)).toBe(undefined);
  });
});
