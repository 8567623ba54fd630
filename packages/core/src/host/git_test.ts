import { chmodSync, existsSync, mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { arielErrorOf } from "../_fixture.ts";
import { useFakeGit } from "./_fake_git_fixture.ts";
import { checkGit, gitIdentity, runGit } from "./git.ts";

const fg = useFakeGit("ariel-git-");

describe("checkGit: the version of a git build already checked is not asked again", () => {
  it("asks once, then reads <state home>/git-version", async () => {
    expect(await checkGit()).toEqual([2, 40, 1]);
    expect(await checkGit()).toEqual([2, 40, 1]);
    expect(fg.calls()).toBe(1);
    expect(readFileSync(join(fg.home, "git-version"), "utf8")).toBe(`${gitIdentity(fg.fake)}\n2.40.1\n`);
  });

  it("another build at the same path (replaced, too old now) is asked again: ERR_GIT_TOO_OLD", async () => {
    await checkGit();
    fg.writeFake("2.35.10");
    expect((await arielErrorOf(checkGit())).code).toBe("ERR_GIT_TOO_OLD");
    expect(fg.calls()).toBe(2);
  });

  it("a cached answer below the minimum is never trusted", async () => {
    writeFileSync(join(fg.home, "git-version"), `${gitIdentity(fg.fake)}\n2.20.0\n`);
    expect(await checkGit()).toEqual([2, 40, 1]);
    expect(fg.calls()).toBe(1);
  });

  it("without a state dir nothing is written and git is asked every time", async () => {
    process.env.ARIEL_STATE_HOME = join(fg.dir, "missing");
    await checkGit();
    await checkGit();
    expect(fg.calls()).toBe(2);
    expect(existsSync(join(fg.dir, "missing"))).toBe(false);
  });

  it("a git that reports no version is ERR_GIT_MISSING, and nothing is cached", async () => {
    writeFileSync(fg.fake, "#!/bin/sh\nexit 1\n");
    expect((await arielErrorOf(checkGit())).code).toBe("ERR_GIT_MISSING");
    expect(existsSync(join(fg.home, "git-version"))).toBe(false);
  });
});

describe("gitIdentity", () => {
  it("the first executable file of that name on PATH; null where only a relative lookup would find it", () => {
    const a = join(fg.dir, "a");
    const b = join(fg.dir, "b");
    mkdirSync(a);
    mkdirSync(b);
    writeFileSync(join(a, "git"), "not executable\n");
    writeFileSync(join(b, "git"), "#!/bin/sh\n");
    chmodSync(join(b, "git"), 0o755);
    expect(gitIdentity("git", { PATH: `${a}:${b}` })?.split("\t")[0]).toBe(join(b, "git"));
    expect(gitIdentity("git", { PATH: `relative:${b}` })).toBe(null);
    expect(gitIdentity("git", { PATH: `:${b}` })).toBe(null);
    expect(gitIdentity("git", {})).toBe(null);
    expect(gitIdentity("./git", { PATH: b })).toBe(null);
    expect(gitIdentity(join(b, "git"), {})?.split("\t")[0]).toBe(join(b, "git"));
  });
});

describe("runGit: what cannot be started", () => {
  it("a working directory that is not there: git's own answer to -C (128), not 'git not found'", async () => {
    const gone = join(fg.dir, "gone");
    expect(await runGit(["status"], { cwd: gone })).toEqual({
      code: 128,
      stdout: "",
      stderr: `fatal: cannot change to '${gone}': No such file or directory\n`,
    });
  });

  it("a git that is not there, in a directory that is: ERR_GIT_MISSING (69), naming it", async () => {
    process.env.ARIEL_GIT = join(fg.dir, "no-git");
    const e = await arielErrorOf(runGit(["status"], { cwd: fg.dir }));
    expect([e.code, e.exit, e.message]).toEqual([
      "ERR_GIT_MISSING",
      69,
      `git not found (${join(fg.dir, "no-git")})`,
    ]);
  });
});
