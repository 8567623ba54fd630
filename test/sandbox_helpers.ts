/**
 * Set-up shared by the sandbox tests (docs/sandbox.md): whether bubblewrap is here, a workspace
 * of real repositories with another task and a fake home holding a key, and byte-for-byte
 * pictures of everything a sandboxed run must not change.
 *
 * The tests need bubblewrap (`bwrap` on PATH; Debian `bubblewrap`, which .ci/run installs).
 * Without it they are skipped with a warning on a developer's machine, and fail under CI
 * (`CI=true`): a sandbox that CI never tried is not tested.
 */
import { spawnSync } from "node:child_process";
import { readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { describe, it } from "vitest";
import { records } from "./helpers/cli.ts";
import { GIT_TEST_ENV, git, initRepo, removeDir, tempDir, writeFile } from "./helpers/git.ts";
import { gitState, picture, wt } from "./worktree-fixtures.ts";

/** bubblewrap can make a sandbox on this machine (asked once). */
export const HAVE_BWRAP: boolean = (() => {
  const r = spawnSync("bwrap", ["--ro-bind", "/", "/", "--unshare-user", "--unshare-pid", "true"], {
    stdio: "ignore",
  });
  return r.status === 0;
})();

/**
 * `describe` for tests that need bubblewrap: skipped (with a warning) without it, except under
 * CI, where the suite fails instead.
 */
export function describeSandbox(name: string, fn: () => void): void {
  if (HAVE_BWRAP) {
    describe(name, fn);
    return;
  }
  if (process.env.CI) {
    describe(name, () => {
      it("needs bubblewrap", () => {
        throw new Error("bwrap is not on PATH or cannot make a sandbox here (apt-get install bubblewrap)");
      });
    });
    return;
  }
  console.warn(`${name}: no usable bwrap (apt-get install bubblewrap); skipped`);
  describe.skip(name, fn);
}

/** Environment for every CLI of these tests: git's identity and no global config. */
export const SANDBOX_ENV: Record<string, string> = { ...GIT_TEST_ENV, ARIEL_MONITOR_IDLE_MS: "1500" };

/** A workspace of `api` and `web` (two commits each, `api` with a tag v1 and a branch `side`), and a home holding an ssh key. */
export interface SandboxWorld {
  root: string;
  home: string;
  api: string;
  web: string;
  /** The environment the CLIs run with (HOME is the fake home). */
  env: Record<string, string>;
}

const made: SandboxWorld[] = [];

/** Remove every world {@link sandboxWorld} made (call in afterEach). */
export function cleanWorlds(): void {
  for (const w of made.splice(0)) {
    removeDir(w.root);
    removeDir(w.home);
  }
}

export function sandboxWorld(): SandboxWorld {
  const root = tempDir("ariel-sbx-");
  const home = tempDir("ariel-sbx-home-");
  const api = join(root, "api");
  const web = join(root, "web");
  for (const [dir, name] of [
    [api, "api"],
    [web, "web"],
  ] as const) {
    initRepo(dir, { "README.md": `# ${name}\n`, ".gitignore": ".ariel/\n" });
    writeFile(join(dir, "src/main.txt"), "main\n");
    git(dir, "add", "-A");
    git(dir, "commit", "-q", "-m", "second");
  }
  git(api, "tag", "v1");
  git(api, "branch", "side", "HEAD~1");
  writeFile(join(home, ".ssh/id_ed25519"), "-----BEGIN OPENSSH PRIVATE KEY----- secret\n");
  writeFile(join(home, ".bashrc"), "# the user's\n");
  const w = { root, home, api, web, env: { ...SANDBOX_ENV, HOME: home } };
  made.push(w);
  return w;
}

/** The admin dir name of a linked worktree (its `.git` file names it). */
export function adminName(worktree: string): string {
  const m = /gitdir: (.+)/.exec(readFileSync(join(worktree, ".git"), "utf8"));
  return m![1]!.trim().split("/").pop()!;
}

/**
 * Everything a sandboxed run in `legs` must leave as it is: each repository's git dir byte for
 * byte (but the admin dirs of the run's own worktrees), its checkout's files, what git says of
 * it (refs, worktrees), other tasks' worktrees and the home.
 */
export function untouchable(w: SandboxWorld, legs: readonly string[]): Record<string, unknown> {
  const own = new Set(legs.map(adminName));
  const gitDir = (repo: string) =>
    Object.fromEntries(
      Object.entries(picture(join(repo, ".git"))).filter(
        ([k]) => !own.has(k.split("/")[1] ?? "") || !k.startsWith("worktrees/"),
      ),
    );
  const files = (repo: string) =>
    Object.fromEntries(Object.entries(picture(repo)).filter(([k]) => !k.startsWith(".git")));
  return {
    apiGit: gitDir(w.api),
    webGit: gitDir(w.web),
    apiFiles: files(w.api),
    webFiles: files(w.web),
    apiState: gitState(w.api),
    webState: gitState(w.web),
    otherTask: picture(join(w.root, ".ariel/worktrees/other")),
    home: picture(w.home),
  };
}

/** Make task `task` over `sources` with ariel-worktree add (asserting it worked). */
export async function addTask(w: SandboxWorld, task: string, sources: readonly string[]): Promise<void> {
  const r = await wt(w.root, ["add", "--task", task, ...sources.flatMap((s) => ["--source", s])], {
    env: w.env,
  });
  if (r.code !== 0) throw new Error(`add ${task} failed: ${r.stderr}`);
}

/** A script file in the workspace root (readable inside every sandbox of it). */
export function script(w: SandboxWorld, name: string, text: string): string {
  const path = join(w.root, name);
  writeFileSync(path, text);
  return path;
}

/** `name rc` lines a script printed, as a map. */
export function statuses(stdout: string): Record<string, number> {
  const out: Record<string, number> = {};
  for (const l of stdout.split("\n")) {
    const m = /^([\w.:-]+) rc=(\d+)$/.exec(l.trim());
    if (m) out[m[1]!] = Number(m[2]);
  }
  return out;
}

export { records };
