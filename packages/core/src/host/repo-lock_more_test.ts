/**
 * The repository lock's own parts on the in-memory filesystem and a fake git: the timeout from
 * ARIEL_LOCK_TIMEOUT_MS, the options it hands to the lock file (what, purpose, signal, fs), its
 * two test-pause points, and resolveCommonGitDir's answer and error.
 */
import { afterEach, describe, expect, it, vi } from "vitest";
import { arielErrorOf } from "../_fixture.ts";
import type { GitPort, GitRunOptions } from "../ports.ts";
import { FakeFs } from "../testing/fake_fs.ts";
import { faultyFs } from "../testing/faulty_fs.ts";
import { selfIdentity } from "./proc.ts";
import { defaultRepoLockTimeout, REPO_LOCK_NAME, resolveCommonGitDir, withRepoLock } from "./repo-lock.ts";

const COMMON = "/repo/.git";
const LOCK = `${COMMON}/${REPO_LOCK_NAME}`;
/** A live holder: this process, with a nonce no lock of ours has. */
const LIVE = `${JSON.stringify({ ...selfIdentity(), nonce: "00000000000000aa", acquiredAt: "2026-01-01T00:00:00.000Z" })}\n`;

afterEach(() => {
  vi.unstubAllEnvs();
  vi.restoreAllMocks();
});

describe("defaultRepoLockTimeout", () => {
  it.each<[string, string | undefined, number]>([
    ["unset", undefined, 60_000],
    ["empty", "", 60_000],
    ["a number", "250", 250],
    ["zero (try once)", "0", 0],
    ["negative", "-1", 60_000],
    ["not a number", "soon", 60_000],
    ["infinite", "Infinity", 60_000],
  ])("ARIEL_LOCK_TIMEOUT_MS %s → %s", (_name, value, expected) => {
    const env = value === undefined ? {} : { ARIEL_LOCK_TIMEOUT_MS: value };
    expect(defaultRepoLockTimeout(env)).toBe(expected);
  });

  it("reads process.env by default", () => {
    vi.stubEnv("ARIEL_LOCK_TIMEOUT_MS", "1234");
    expect(defaultRepoLockTimeout()).toBe(1234);
  });
});

describe("withRepoLock on the in-memory filesystem", () => {
  it("holds <common>/ariel-worktree.lock with the purpose on the given fs, and removes it", async () => {
    const mem = new FakeFs({ [COMMON]: { dir: true } });
    const seen = await withRepoLock(COMMON, async (lock) => [lock.path, mem.text(LOCK)], {
      fs: mem,
      purpose: "add t1",
    });
    expect(seen[0]).toBe(LOCK);
    expect(JSON.parse(seen[1] ?? "")).toMatchObject({ ...selfIdentity(), purpose: "add t1" });
    expect(mem.nodes.has(LOCK)).toBe(false);
  });

  it("a live holder with the signal already aborted: ERR_LOCKED at the first look, naming the repository lock", async () => {
    const fs = faultyFs(new FakeFs({ [LOCK]: LIVE }));
    const run = withRepoLock(COMMON, async () => "ran", {
      fs,
      timeoutMs: 10_000,
      signal: AbortSignal.abort(),
    });
    const e = await arielErrorOf(run);
    expect([e.code, e.exit, e.hint, e.message]).toEqual([
      "ERR_LOCKED",
      75,
      "another ariel process holds the lock; retry shortly",
      `repository lock ${LOCK} is held by pid ${process.pid} on ${selfIdentity().host}`,
    ]);
    expect(fs.log).toEqual([`createExclusive ${LOCK}`, `readFileNoFollow ${LOCK}`]);
  });

  it("without timeoutMs it waits ARIEL_LOCK_TIMEOUT_MS (0: one try)", async () => {
    vi.stubEnv("ARIEL_LOCK_TIMEOUT_MS", "0");
    const fs = faultyFs(new FakeFs({ [LOCK]: LIVE }));
    expect((await arielErrorOf(withRepoLock(COMMON, async () => "ran", { fs }))).code).toBe("ERR_LOCKED");
    expect(fs.log).toEqual([`createExclusive ${LOCK}`, `readFileNoFollow ${LOCK}`]);
  });

  it("a relative common dir is a programming error (RangeError naming it), nothing touched", async () => {
    const fs = faultyFs(new FakeFs());
    await expect(withRepoLock(".git", async () => true, { fs })).rejects.toThrow(
      new RangeError("common git dir must be absolute: .git"),
    );
    expect(fs.log).toEqual([]);
  });

  it("pauses at repo-lock:acquire before the lock and at repo-lock:held inside it (test hooks)", async () => {
    vi.stubEnv("ARIEL_TEST_HOOKS", "1");
    vi.stubEnv("ARIEL_TEST_PAUSE_AT", "repo-lock:acquire,repo-lock:held");
    vi.stubEnv("ARIEL_TEST_PAUSE_MS", "1");
    const said: string[] = [];
    vi.spyOn(process.stderr, "write").mockImplementation((chunk) => said.push(String(chunk)) > 0);
    const mem = new FakeFs({ [COMMON]: { dir: true } });
    const inside = await withRepoLock(COMMON, async () => [...said], { fs: mem });
    const pid = process.pid;
    expect(inside).toEqual([
      `ariel-test-paused repo-lock:acquire ${pid}\n`,
      `ariel-test-paused repo-lock:held ${pid}\n`,
    ]);
    expect(said).toEqual(inside);
  });
});

describe("resolveCommonGitDir (fake git)", () => {
  const git = (code: number, stdout: string, stderr = "") => {
    const calls: [readonly string[], GitRunOptions][] = [];
    const port: GitPort = {
      run: async (args, options) => {
        calls.push([args, options]);
        return { code, stdout, stderr };
      },
    };
    return { port, calls };
  };

  it.each([
    ["a relative answer, resolved against cwd", ".git\n", "/r/.git"],
    ["an absolute answer", "/elsewhere/main/.git\n", "/elsewhere/main/.git"],
  ])("%s", async (_name, stdout, expected) => {
    const { port, calls } = git(0, stdout);
    expect(await resolveCommonGitDir(port, "/r")).toBe(expected);
    expect(calls).toEqual([[["rev-parse", "--git-common-dir"], { cwd: "/r" }]]);
  });

  it("git failing: ERR_GIT naming the path, with git's first stderr line", async () => {
    const { port } = git(128, "", "\nfatal: not a git repository (or any of the parent directories): .git\n");
    const e = await arielErrorOf(resolveCommonGitDir(port, "/nowhere"));
    expect([e.code, e.exit, e.message, e.hint, e.context]).toEqual([
      "ERR_GIT",
      1,
      "not a git repository: /nowhere",
      "see git's message above",
      { path: "/nowhere", stderr: "fatal: not a git repository (or any of the parent directories): .git" },
    ]);
  });
});
