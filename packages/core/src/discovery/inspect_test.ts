import { describe, expect, it } from "vitest";
import { eachMaps } from "../testing/cases.ts";
import { type FakeNode, fakeSyncFs } from "./_fake_fs.ts";
import { inspectDir, kindOfGitFile, parseGitFile } from "./inspect.ts";
import { runSync } from "./io.ts";

const A = "a".repeat(40);

describe("parseGitFile", () => {
  it.each<[string, string | null]>([
    ["gitdir: /m/.git/worktrees/w\n", "/m/.git/worktrees/w"],
    ["gitdir: ../m/.git\r\n", "/r/m/.git"],
    ["gitdir:/abs\nsecond line\n", "/abs"],
    ["gitdir:   \n", null],
    ["GITDIR: /x\n", null],
    ["\ngitdir: /x\n", null],
    ["", null],
  ])("%j → %j", (text, expected) => {
    expect(parseGitFile(text, "/r/x")).toBe(expected);
  });
});

describe("kindOfGitFile", () => {
  eachMaps(
    kindOfGitFile,
    [
      ["/m/.git", "checkout"],
      ["/m/.git/worktrees/w", "worktree"],
      ["/m/.git/modules/s", "submodule"],
      ["/m/.git/modules/s/worktrees/w", "worktree"],
      ["/m/.git/worktrees/w/modules/s", "submodule"],
    ],
    "%s → %s",
  );
});

describe("inspectDir", () => {
  const look = (tree: Record<string, FakeNode>) => runSync(inspectDir("/ws/x", new Map()), fakeSyncFs(tree));
  const warning = (code: string, message: string) => ({
    type: "warning",
    warning: { code, message, path: "/ws/x" },
  });

  it.each<[string, Record<string, FakeNode>, unknown]>([
    ["no .git", { "/ws/x/f": "x" }, { type: "none" }],
    [
      "a checkout",
      { "/ws/x/.git/HEAD": `${A}\n` },
      { type: "source", source: { kind: "checkout", gitDir: "/ws/x/.git", head: A, branch: null } },
    ],
    [
      "a .git directory without HEAD",
      { "/ws/x/.git/config": "" },
      warning("WARN_NOT_A_REPOSITORY", "skipping /ws/x: .git has no HEAD"),
    ],
    [
      "a .git file that is no gitdir line",
      { "/ws/x/.git": "hello\n" },
      warning("WARN_NOT_A_REPOSITORY", "skipping /ws/x: .git file does not start with 'gitdir:'"),
    ],
    [
      "a .git file naming nothing",
      { "/ws/x/.git": "gitdir: /gone\n" },
      warning("WARN_NOT_A_REPOSITORY", "skipping /ws/x: .git names /gone, which is not a git dir"),
    ],
    [
      "a .git file naming a file",
      { "/ws/x/.git": "gitdir: /f\n", "/f": "x" },
      warning("WARN_NOT_A_REPOSITORY", "skipping /ws/x: .git names /f, which is not a git dir"),
    ],
    [
      "a garbage HEAD",
      { "/ws/x/.git/HEAD": "hello\n" },
      warning("WARN_NOT_A_REPOSITORY", "skipping /ws/x: HEAD does not hold a ref or an object name"),
    ],
    [
      "a garbage HEAD behind a .git file",
      { "/ws/x/.git": "gitdir: /m/wt\n", "/m/wt/HEAD": "hello\n" },
      warning("WARN_NOT_A_REPOSITORY", "skipping /ws/x: HEAD does not hold a ref or an object name"),
    ],
    [
      "an unreadable HEAD",
      { "/ws/x/.git/HEAD": { error: "EACCES" } },
      warning("WARN_UNREADABLE", "cannot read /ws/x/.git (EACCES); skipping /ws/x"),
    ],
    [
      "an unreadable git dir named by a .git file",
      { "/ws/x/.git": "gitdir: /m/wt\n", "/m/wt/HEAD": { error: "EACCES" } },
      warning("WARN_UNREADABLE", "cannot read /m/wt (EACCES); skipping /ws/x"),
    ],
    [
      "a worktree",
      { "/ws/x/.git": "gitdir: /m/.git/worktrees/x\n", "/m/.git/worktrees/x/HEAD": `${A}\n` },
      { type: "source", source: { kind: "worktree", gitDir: "/m/.git/worktrees/x", head: A, branch: null } },
    ],
    [
      "a reftable repository",
      { "/ws/x/.git/HEAD": "ref: refs/heads/.invalid\n" },
      {
        type: "source",
        source: { kind: "checkout", gitDir: "/ws/x/.git", head: null, branch: null },
        warning: {
          code: "WARN_UNSUPPORTED_REFS",
          message: "/ws/x uses the reftable ref format; its head and branch are not read",
          path: "/ws/x",
        },
      },
    ],
  ])("%s", (_n, tree, expected) => {
    expect(look(tree)).toEqual(expected);
  });
});
