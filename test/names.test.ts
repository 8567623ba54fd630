/**
 * The pure branch-name and task-id checks against git itself: whatever ariel accepts, git's
 * check-ref-format must accept too (ariel is stricter, never looser). Fixed seed.
 */
import { spawnSync } from "node:child_process";
import { describe, expect, it } from "vitest";
import { mulberry32 } from "../packages/core/src/_fixture.ts";
import { branchNameProblem, taskIdProblem } from "../packages/core/src/names.ts";

/** `git check-ref-format --branch NAME` for each name (one process each, so keep lists short). */
function gitAccepts(names: string[]): boolean[] {
  return names.map(
    (n) => spawnSync("git", ["check-ref-format", "--branch", n], { encoding: "utf8", cwd: "/" }).status === 0,
  );
}

describe("validateBranchName agrees with git", () => {
  it("never accepts a name git rejects (seed 7, 400 names)", () => {
    const rand = mulberry32(7);
    const parts = ["a", "Z", "9", ".", "..", "/", "-", "_", "lock", ".lock", "@", "{", "~", " ", "\\", "x"];
    const names: string[] = [];
    while (names.length < 400) {
      let s = "";
      const n = 1 + Math.floor(rand() * 8);
      for (let i = 0; i < n; i++) s += parts[Math.floor(rand() * parts.length)];
      names.push(s);
    }
    const accepted = names.filter((n) => branchNameProblem(n) === null);
    expect(accepted.length).toBeGreaterThan(20); // the generator does reach valid names
    const git = gitAccepts(accepted);
    expect(accepted.filter((_, i) => !git[i])).toEqual([]);
  });

  it.each(["ariel/fix-1", "a.b/c_d-e", "x".repeat(200)])("git accepts %s", (name) => {
    expect(branchNameProblem(name)).toBeNull();
    expect(gitAccepts([name])).toEqual([true]);
  });

  it.each(["a..b", "a.lock", "a/.b", "a//b", "a@{1}", "-a", "a/", "a.", "a b", "a:b"])(
    "git and ariel both reject %j",
    (name) => {
      expect(branchNameProblem(name)).not.toBeNull();
      expect(gitAccepts([name])).toEqual([false]);
    },
  );
});

describe("a valid task id makes a valid branch ariel/<task>", () => {
  it.each(["a", "A.b_c-d", "fix-login-3k9x2a", "x".repeat(128), "v1.2"])("%s", (id) => {
    expect(taskIdProblem(id)).toBeNull();
    expect(branchNameProblem(`ariel/${id}`)).toBeNull();
    expect(gitAccepts([`ariel/${id}`])).toEqual([true]);
  });
});
