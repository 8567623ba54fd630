/**
 * An in-place sandbox's main-worktree state brought home, on a real repository: what only the
 * sandbox changed replaces the real one (an index, a MERGE_MSG made or removed), what both sides
 * changed stays real with the sandbox's kept aside, an index whose cached stats alone changed
 * counts as unchanged, a link the sandbox planted is left out, and its HEAD reflog lines are
 * appended once.
 */

import { spawnSync } from "node:child_process";
import {
  cpSync,
  existsSync,
  linkSync,
  mkdirSync,
  readdirSync,
  readFileSync,
  rmSync,
  symlinkSync,
  utimesSync,
  writeFileSync,
} from "node:fs";
import { join } from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { MAIN_WORKTREE_STATE } from "../../sandbox/git_shadow.ts";
import type { SandboxRepo } from "../../sandbox/manifest.ts";
import { commitAll, GIT_TEST_ENV, git, initRepo, removeDir, tempDir, writeFile } from "../_fixture.ts";
import { mainStateHome } from "./main_state.ts";
import { digest } from "./prepare.ts";

let dir: string;
let repo: string;
let common: string;
let dirs: { shadow: string; start: string; kept: string };
let entry: SandboxRepo;

/** The main worktree's state copied into a shadow as a sandbox's start makes it. */
beforeEach(() => {
  dir = tempDir("ariel-mainstate-");
  repo = join(dir, "repo");
  initRepo(repo);
  writeFile(join(repo, "b.txt"), "b\n");
  commitAll(repo, "b");
  common = join(repo, ".git");
  dirs = { shadow: join(dir, "shadow"), start: join(dir, "start"), kept: join(dir, "kept") };
  mkdirSync(dirs.shadow);
  const state: Record<string, string | null> = {};
  for (const name of MAIN_WORKTREE_STATE) {
    state[name] = digest(join(common, name));
    if (existsSync(join(common, name))) cpSync(join(common, name), join(dirs.shadow, name));
  }
  linkSync(join(dirs.shadow, "index"), `${dirs.start}-index`);
  mkdirSync(join(dirs.shadow, "logs"));
  cpSync(join(common, "logs/HEAD"), join(dirs.shadow, "logs/HEAD"));
  cpSync(join(common, "logs/HEAD"), `${dirs.start}-logs-HEAD`);
  entry = { n: 1, common, main: true, own: ["refs/heads/main"], worktrees: [repo], state };
});
afterEach(() => removeDir(dir));

/** git with the sandbox's index (GIT_INDEX_FILE), in the repository. */
function sandboxGit(...args: string[]): void {
  const r = spawnSync("git", args, {
    cwd: repo,
    env: { ...process.env, ...GIT_TEST_ENV, GIT_INDEX_FILE: join(dirs.shadow, "index") },
    encoding: "utf8",
  });
  expect(r.status, r.stderr).toBe(0);
}
const staged = () => git(repo, "diff", "--cached", "--name-only");

describe("mainStateHome", () => {
  it("nothing changed: no step, nothing touched", () => {
    const before = readFileSync(join(common, "index"));
    expect(mainStateHome(entry, dirs)).toEqual([]);
    expect(readFileSync(join(common, "index"))).toEqual(before);
    expect(existsSync(dirs.kept)).toBe(false);
  });

  it("only the sandbox staged something: its index replaces the real one", () => {
    writeFile(join(repo, "new.txt"), "new\n");
    sandboxGit("add", "new.txt");
    expect(mainStateHome(entry, dirs)).toEqual([{ op: "apply", name: "index" }]);
    expect(staged()).toBe("new.txt");
  });

  it("both staged something else: the real index stays, the sandbox's is kept aside", () => {
    writeFile(join(repo, "mine.txt"), "mine\n");
    writeFile(join(repo, "theirs.txt"), "theirs\n");
    git(repo, "add", "mine.txt");
    sandboxGit("add", "theirs.txt");
    expect(mainStateHome(entry, dirs)).toEqual([{ op: "conflict", name: "index" }]);
    expect(staged()).toBe("mine.txt");
    expect(readFileSync(join(dirs.kept, "index"))).toEqual(readFileSync(join(dirs.shadow, "index")));
  });

  it("a real index whose cached stats alone changed counts as unchanged: the sandbox's goes home", () => {
    writeFile(join(repo, "new.txt"), "new\n");
    sandboxGit("add", "new.txt");
    utimesSync(join(repo, "b.txt"), new Date("2020-01-01"), new Date("2020-01-01")); // same content, other stats
    git(repo, "update-index", "--really-refresh");
    expect(digest(join(common, "index"))).not.toBe(entry.state!.index);
    expect(mainStateHome(entry, dirs)).toEqual([{ op: "apply", name: "index" }]);
    expect(staged()).toBe("new.txt");
  });

  it("a file of an operation the sandbox began is made; one it ended is removed", () => {
    writeFileSync(join(dirs.shadow, "MERGE_MSG"), "Merge branch 'x'\n");
    expect(mainStateHome(entry, dirs)).toEqual([{ op: "apply", name: "MERGE_MSG" }]);
    expect(readFileSync(join(common, "MERGE_MSG"), "utf8")).toBe("Merge branch 'x'\n");

    entry.state = { ...entry.state, MERGE_MSG: digest(join(common, "MERGE_MSG")) };
    rmSync(join(dirs.shadow, "MERGE_MSG"));
    expect(mainStateHome(entry, dirs)).toEqual([{ op: "apply", name: "MERGE_MSG" }]);
    expect(existsSync(join(common, "MERGE_MSG"))).toBe(false);
  });

  it("a link the sandbox planted where its index was is left out: the real index stays", () => {
    const before = readFileSync(join(common, "index"));
    rmSync(join(dirs.shadow, "index"));
    symlinkSync("/etc/passwd", join(dirs.shadow, "index"));
    expect(mainStateHome(entry, dirs)).toEqual([]);
    expect(readFileSync(join(common, "index"))).toEqual(before);
  });

  it("the HEAD reflog lines the sandbox added are appended, once", () => {
    const head = git(repo, "rev-parse", "HEAD");
    const line = `${head} ${head} Ariel Test <ariel@example.invalid> 1767225600 +0000\tcheckout: moving from main to main\n`;
    writeFileSync(
      join(dirs.shadow, "logs/HEAD"),
      `${readFileSync(join(dirs.shadow, "logs/HEAD"), "utf8")}${line}`,
    );
    const real = readFileSync(join(common, "logs/HEAD"), "utf8");
    mainStateHome(entry, dirs);
    expect(readFileSync(join(common, "logs/HEAD"), "utf8")).toBe(`${real}${line}`);
    mainStateHome(entry, dirs);
    expect(readFileSync(join(common, "logs/HEAD"), "utf8")).toBe(`${real}${line}`);
  });

  it("reflog lines that are not reflog lines are not appended", () => {
    writeFileSync(
      join(dirs.shadow, "logs/HEAD"),
      `${readFileSync(join(dirs.shadow, "logs/HEAD"), "utf8")}[alias]\n\tx = !sh\n`,
    );
    const real = readFileSync(join(common, "logs/HEAD"), "utf8");
    mainStateHome(entry, dirs);
    expect(readFileSync(join(common, "logs/HEAD"), "utf8")).toBe(real);
  });
});

describe("mainStateHome: directories, absent pieces and unreadable indexes", () => {
  it("a directory of an operation the sandbox began (rebase-merge) is made whole", () => {
    mkdirSync(join(dirs.shadow, "rebase-merge/sub"), { recursive: true });
    writeFileSync(join(dirs.shadow, "rebase-merge/head-name"), "refs/heads/main\n");
    writeFileSync(join(dirs.shadow, "rebase-merge/sub/done"), "pick 1\n");
    expect(mainStateHome(entry, dirs)).toEqual([{ op: "apply", name: "rebase-merge" }]);
    expect(readFileSync(join(common, "rebase-merge/head-name"), "utf8")).toBe("refs/heads/main\n");
    expect(readFileSync(join(common, "rebase-merge/sub/done"), "utf8")).toBe("pick 1\n");
  });

  it("a directory the sandbox changed replaces the real one whole; one it removed is removed", () => {
    mkdirSync(join(common, "rebase-merge"));
    writeFileSync(join(common, "rebase-merge/old"), "old\n");
    cpSync(join(common, "rebase-merge"), join(dirs.shadow, "rebase-merge"), { recursive: true });
    entry.state = { ...entry.state, "rebase-merge": digest(join(common, "rebase-merge")) };
    writeFileSync(join(dirs.shadow, "rebase-merge/new"), "new\n");
    rmSync(join(dirs.shadow, "rebase-merge/old"));
    expect(mainStateHome(entry, dirs)).toEqual([{ op: "apply", name: "rebase-merge" }]);
    expect(readdirSync(join(common, "rebase-merge"))).toEqual(["new"]);

    entry.state = { ...entry.state, "rebase-merge": digest(join(common, "rebase-merge")) };
    rmSync(join(dirs.shadow, "rebase-merge"), { recursive: true });
    expect(mainStateHome(entry, dirs)).toEqual([{ op: "apply", name: "rebase-merge" }]);
    expect(existsSync(join(common, "rebase-merge"))).toBe(false);
  });

  it("a directory holding a link is left out, even beside plain files", () => {
    mkdirSync(join(dirs.shadow, "rebase-merge"));
    writeFileSync(join(dirs.shadow, "rebase-merge/plain"), "x\n");
    symlinkSync("/etc/passwd", join(dirs.shadow, "rebase-merge/link"));
    expect(mainStateHome(entry, dirs)).toEqual([]);
    expect(existsSync(join(common, "rebase-merge"))).toBe(false);
  });

  it("without recorded start digests, every piece counts as absent at the start", () => {
    const { state: _, ...bare } = entry;
    writeFileSync(join(dirs.shadow, "MERGE_MSG"), "m\n");
    // HEAD and index are the same on both sides: nothing for them; MERGE_MSG only in the sandbox.
    expect(mainStateHome(bare, dirs)).toEqual([{ op: "apply", name: "MERGE_MSG" }]);
    expect(readFileSync(join(common, "MERGE_MSG"), "utf8")).toBe("m\n");
  });

  it("a piece the sandbox removed while the real one changed: a conflict, nothing kept, the real one stays", () => {
    writeFileSync(join(common, "MERGE_MSG"), "start\n");
    writeFileSync(join(dirs.shadow, "MERGE_MSG"), "start\n");
    entry.state = { ...entry.state, MERGE_MSG: digest(join(common, "MERGE_MSG")) };
    writeFileSync(join(common, "MERGE_MSG"), "changed outside\n");
    rmSync(join(dirs.shadow, "MERGE_MSG"));
    expect(mainStateHome(entry, dirs)).toEqual([{ op: "conflict", name: "MERGE_MSG" }]);
    expect(readFileSync(join(common, "MERGE_MSG"), "utf8")).toBe("changed outside\n");
    expect(existsSync(join(dirs.kept, "MERGE_MSG"))).toBe(false);
  });

  it("two conflicts are kept side by side, under a kept directory made as deep as needed", () => {
    const kept = join(dir, "kept/run/1");
    for (const name of ["MERGE_MSG", "ORIG_HEAD"]) {
      writeFileSync(join(common, name), "start\n");
      entry.state = { ...entry.state, [name]: digest(join(common, name)) };
      writeFileSync(join(common, name), "outside\n");
      writeFileSync(join(dirs.shadow, name), "inside\n");
    }
    expect(mainStateHome(entry, { ...dirs, kept })).toEqual([
      { op: "conflict", name: "ORIG_HEAD" },
      { op: "conflict", name: "MERGE_MSG" },
    ]);
    expect(readFileSync(join(kept, "MERGE_MSG"), "utf8")).toBe("inside\n");
    expect(readFileSync(join(kept, "ORIG_HEAD"), "utf8")).toBe("inside\n");
  });

  it("indexes git cannot read are not the same staging: both changed is a conflict", () => {
    writeFile(join(repo, "new.txt"), "new\n");
    sandboxGit("add", "new.txt");
    writeFileSync(join(common, "index"), "junk");
    rmSync(`${dirs.start}-index`);
    writeFileSync(`${dirs.start}-index`, "junk too");
    expect(mainStateHome(entry, dirs)).toEqual([{ op: "conflict", name: "index" }]);
    expect(readFileSync(join(common, "index"), "utf8")).toBe("junk");
  });

  it("no reflog of HEAD at the start nor in the real repository: the sandbox's is taken whole", () => {
    const head = git(repo, "rev-parse", "HEAD");
    const line = `${head} ${head} Ariel Test <ariel@example.invalid> 1767225600 +0000\tcheckout: moving from main to main\n`;
    writeFileSync(join(dirs.shadow, "logs/HEAD"), line);
    rmSync(`${dirs.start}-logs-HEAD`);
    rmSync(join(common, "logs"), { recursive: true });
    mainStateHome(entry, dirs);
    expect(readFileSync(join(common, "logs/HEAD"), "utf8")).toBe(line);
  });
});
