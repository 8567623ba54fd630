/**
 * Limits are checked by the plan, before git: a task of more than 64 sources, or one whose record
 * would pass 64 KiB (many overlay files), is refused with exit 65 by `add` and by
 * `add --dry-run --detailed-exitcode` alike, with no git change and no directory left behind.
 * An add or restore that cannot get a repository lock (ERR_LOCKED) leaves no empty task
 * directory, and an add waits for the lock once.
 */
import { existsSync, mkdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { initRepo, tempDir } from "./helpers/git.ts";
import { errors, gitState, picture, removeDir, writeFile, wt } from "./worktree-fixtures.ts";

let root = "";
afterEach(() => removeDir(root));

/** Exit 65 with one error `code`, nothing on stdout, no file or git state changed. */
async function expectRefused(
  args: readonly string[],
  repos: readonly string[],
  code: string,
  message: RegExp,
): Promise<void> {
  const before = { files: picture(root), git: repos.map((r) => gitState(join(root, r))) };
  for (const extra of [[], ["--dry-run", "--detailed-exitcode"]]) {
    const r = await wt(root, [...args, ...extra, "--json"]);
    const errs = errors(r.stderr);
    expect({ exit: r.code, stdout: r.stdout, codes: errs.map((e) => e.code) }).toEqual({
      exit: 65,
      stdout: "",
      codes: [code],
    });
    expect(errs[0]?.message).toMatch(message);
    expect({ files: picture(root), git: repos.map((r) => gitState(join(root, r))) }).toEqual(before);
  }
  expect(existsSync(join(root, ".ariel"))).toBe(false);
}

describe("add refuses a task that could never be recorded", () => {
  it("65 sources → ERR_TOO_MANY_LEGS (65)", async () => {
    root = tempDir("ariel-limits-");
    const names = Array.from({ length: 65 }, (_, i) => `s${String(i).padStart(2, "0")}`);
    for (const n of names) initRepo(join(root, n));
    const sources = (list: readonly string[]) => list.flatMap((n) => ["--source", n]);
    await expectRefused(
      ["add", "--task", "big", ...sources(names)],
      // picture() covers every .git directory too; git's own view of the first and last suffices.
      [names[0]!, names[64]!],
      "ERR_TOO_MANY_LEGS",
      /^65 sources given; a task spans at most 64$/,
    );
  }, 60_000);

  it("an overlay of many files that would make a record over 64 KiB → ERR_RECORD_TOO_LARGE (65)", async () => {
    root = tempDir("ariel-limits-");
    initRepo(join(root, "api"), { "README.md": "api\n", ".gitignore": "local/\n" });
    const dir = join(root, "api/local");
    mkdirSync(dir);
    for (let i = 0; i < 600; i++)
      writeFileSync(join(dir, `settings-${String(i).padStart(4, "0")}.local.json`), "{}\n");
    writeFile(join(root, "ariel.config.json"), `${JSON.stringify({ overlay: ["local/*.local.json"] })}\n`);
    await expectRefused(
      ["add", "--task", "t1", "--source", "api"],
      ["api"],
      "ERR_RECORD_TOO_LARGE",
      /^task "t1" would need a record of up to \d+ bytes, over the 65536-byte bound \(1 legs, 600 overlay files\)$/,
    );
  });
});

/** Hold `repo`'s ariel lock as a process on another host (always taken as alive, never broken). */
function holdRepoLock(repo: string): string {
  const lock = join(repo, ".git/ariel-worktree.lock");
  writeFileSync(
    lock,
    JSON.stringify({
      pid: 1,
      processStart: null,
      host: "elsewhere.invalid",
      nonce: "0123456789abcdef",
      acquiredAt: new Date().toISOString(),
    }),
  );
  return lock;
}

describe("add or restore that cannot get the repository lock", () => {
  it("exits 75 ERR_LOCKED and leaves no task directory, worktree or branch", async () => {
    root = tempDir("ariel-limits-");
    const api = join(root, "api");
    initRepo(api);
    const lock = holdRepoLock(api);
    const before = gitState(api);
    const r = await wt(root, ["add", "--task", "t1", "--source", "api", "--json"], {
      env: {
        ARIEL_LOCK_TIMEOUT_MS: "300",
        // Each attempt to take a repository lock prints one line (and goes on after 1 ms).
        ARIEL_TEST_HOOKS: "1",
        ARIEL_TEST_PAUSE_AT: "repo-lock:acquire",
        ARIEL_TEST_PAUSE_MS: "1",
      },
    });
    const lines = r.stderr.split("\n").filter(Boolean);
    const attempts = lines.filter((l) => l.startsWith("ariel-test-paused repo-lock:acquire "));
    const errs = errors(lines.filter((l) => !l.startsWith("ariel-test-paused")).join("\n"));
    expect({ exit: r.code, codes: errs.map((e) => e.code), attempts: attempts.length }).toEqual({
      exit: 75,
      codes: ["ERR_LOCKED"],
      attempts: 1, // waited once: nothing was made, so there is nothing to unwind under the lock
    });
    expect(errs[0]).not.toHaveProperty("unwindProblems");
    expect(existsSync(join(root, ".ariel/worktrees/t1"))).toBe(false);
    expect(existsSync(join(root, ".ariel/tasks/t1.json"))).toBe(false);
    expect(gitState(api)).toEqual(before);
    expect(existsSync(lock)).toBe(true);
  });

  it("restore exits 75 ERR_LOCKED and leaves no empty task directory", async () => {
    root = tempDir("ariel-limits-");
    const api = join(root, "api");
    initRepo(api);
    expect((await wt(root, ["add", "--task", "t1", "--source", "api"])).code).toBe(0);
    expect((await wt(root, ["remove", "--task", "t1"])).code).toBe(0);
    expect(existsSync(join(root, ".ariel/worktrees/t1"))).toBe(false);
    holdRepoLock(api);
    const before = { files: picture(join(root, ".ariel/worktrees")), api: gitState(api) };
    const r = await wt(root, ["restore", "--task", "t1", "--json"], {
      env: { ARIEL_LOCK_TIMEOUT_MS: "300" },
    });
    expect({ exit: r.code, codes: errors(r.stderr).map((e) => e.code) }).toEqual({
      exit: 75,
      codes: ["ERR_LOCKED"],
    });
    expect({ files: picture(join(root, ".ariel/worktrees")), api: gitState(api) }).toEqual(before);
  });
});
