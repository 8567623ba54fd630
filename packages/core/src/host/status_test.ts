import { describe, expect, it } from "vitest";
import { ArielError } from "../errors.ts";
import { fingerprint } from "../fingerprint.ts";
import type { GitPort, GitResult } from "../ports.ts";
import { limitGit, sourceStatus, sourcesStatus } from "./status.ts";

const STATUS = "status --porcelain=v1 -z --untracked-files=normal";
const UPSTREAM = "rev-parse --abbrev-ref --symbolic-full-name @{u}";
const COUNT = "rev-list --left-right --count @{u}...HEAD";
const CONFIG = "config -z --get-regexp ^remote\\..*\\.url$";
const ORIGIN_HEAD = "symbolic-ref -q refs/remotes/origin/HEAD";

/** A fake git answering by cwd and joined argv; unknown calls exit 1 with no output. */
function fakeGit(answers: Record<string, Record<string, Partial<GitResult>>>): GitPort & { calls: string[] } {
  const calls: string[] = [];
  return {
    calls,
    async run(args, { cwd }) {
      const key = args.join(" ");
      calls.push(`${cwd}: ${key}`);
      return { code: 1, stdout: "", stderr: "", ...answers[cwd]?.[key] };
    },
  };
}

describe("sourceStatus", () => {
  it("reads dirty, upstream, ahead/behind and the fingerprint", async () => {
    const git = fakeGit({
      "/ws/api": {
        [STATUS]: { code: 0, stdout: "?? new.txt\0" },
        [UPSTREAM]: { code: 0, stdout: "origin/main\n" },
        [COUNT]: { code: 0, stdout: "3\t1\n" },
        [CONFIG]: { code: 0, stdout: "remote.origin.url\nhttps://u:p@h/api.git\0" },
        [ORIGIN_HEAD]: { code: 0, stdout: "refs/remotes/origin/main\n" },
      },
    });
    expect(await sourceStatus(git, "/ws/api")).toEqual({
      dirty: true,
      ahead: 1,
      behind: 3,
      upstream: "origin/main",
      fingerprint: await fingerprint("https://h/api.git", "main"),
    });
  });

  it("no upstream: ahead, behind and upstream are null, rev-list is not run", async () => {
    const git = fakeGit({
      "/r": { [STATUS]: { code: 0, stdout: "" }, [UPSTREAM]: { code: 128, stderr: "fatal: no upstream" } },
    });
    expect(await sourceStatus(git, "/r")).toMatchObject({
      dirty: false,
      ahead: null,
      behind: null,
      upstream: null,
    });
    expect(git.calls.some((c) => c.includes("rev-list"))).toBe(false);
  });

  it("an upstream that cannot be counted (unborn HEAD) leaves the counts null", async () => {
    const git = fakeGit({
      "/r": {
        [STATUS]: { code: 0 },
        [UPSTREAM]: { code: 0, stdout: "origin/main\n" },
        [COUNT]: { code: 128 },
      },
    });
    expect(await sourceStatus(git, "/r")).toMatchObject({
      ahead: null,
      behind: null,
      upstream: "origin/main",
    });
  });

  it("a failing git status is ERR_GIT with git's message redacted", async () => {
    const git = fakeGit({
      "/r": {
        [STATUS]: { code: 128, stderr: "fatal: unable to access 'https://user:s3cret@h/r.git/'\nmore\n" },
      },
    });
    const err = await sourceStatus(git, "/r").catch((e: unknown) => e);
    expect(err).toBeInstanceOf(ArielError);
    expect(err).toMatchObject({
      code: "ERR_GIT",
      exit: 1,
      message: "git status failed in /r: fatal: unable to access 'https://h/r.git/'",
    });
  });
});

describe("sourcesStatus", () => {
  it("keeps the order, and turns one source's ERR_GIT into { ok: false }", async () => {
    const git = fakeGit({
      "/a": { [STATUS]: { code: 0 } },
      "/b": { [STATUS]: { code: 128, stderr: "fatal: broken" } },
    });
    const results = await sourcesStatus(git, ["/a", "/b"]);
    expect(results.map((r) => r.ok)).toEqual([true, false]);
    expect(results[1]).toMatchObject({
      ok: false,
      error: { code: "ERR_GIT", message: "git status failed in /b: fatal: broken" },
    });
  });

  it("a missing git rejects the whole (exit 69)", async () => {
    const git: GitPort = {
      run: () => Promise.reject(new ArielError("ERR_GIT_MISSING", "git not found (git)")),
    };
    await expect(sourcesStatus(git, ["/a"])).rejects.toMatchObject({ code: "ERR_GIT_MISSING", exit: 69 });
  });

  it("runs at most n git processes at once", async () => {
    let active = 0;
    let peak = 0;
    const slow: GitPort = {
      async run() {
        active++;
        peak = Math.max(peak, active);
        await new Promise((r) => setTimeout(r, 1));
        active--;
        return { code: 0, stdout: "", stderr: "" };
      },
    };
    await sourcesStatus(slow, ["/1", "/2", "/3", "/4", "/5", "/6"], 3);
    expect(peak).toBe(3);
    const limited = limitGit(slow, 1);
    peak = 0;
    await Promise.all([limited.run(["a"], { cwd: "/" }), limited.run(["b"], { cwd: "/" })]);
    expect(peak).toBe(1);
  });
});
