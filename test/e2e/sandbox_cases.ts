/**
 * The end-to-end cases of a sandbox that cannot start, shared by the Node suite
 * (test/sandbox-unavailable.test.ts) and the Deno suite (test/deno/sandbox_test.ts): not
 * Linux, no bubblewrap on PATH, or one that cannot make a sandbox here, ends `ariel-spawn --sandbox`
 * (foreground and detached) with 69 ERR_SANDBOX_UNAVAILABLE and leaves the workspace byte for
 * byte as it was: no worktree, no task, no run, no sandbox. A case fails by throwing.
 */
import assert from "node:assert/strict";
import { spawnSync } from "node:child_process";
import { chmodSync, existsSync, mkdirSync, symlinkSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { type CliResult, cliCommand, cliEnv, type Runtime, runAriel } from "../helpers/cli.ts";
import { GIT_TEST_ENV, git, initRepo, removeDir, tempDir } from "../helpers/git.ts";
import { picture } from "../worktree-fixtures.ts";

/** A PATH directory holding what the runs need (git, env, sh), but no bwrap; `fakeBwrap`: one that fails. */
function toolsPath(fakeBwrap: boolean): string {
  const dir = tempDir("ariel-sbx-path-");
  for (const tool of ["git", "env", "sh", "node", "sleep"]) {
    for (const d of ["/usr/bin", "/bin", "/usr/local/bin"]) {
      if (existsSync(join(d, tool)) && !existsSync(join(dir, tool)))
        symlinkSync(join(d, tool), join(dir, tool));
    }
  }
  if (!existsSync(join(dir, "node"))) symlinkSync(process.execPath, join(dir, "node"));
  if (fakeBwrap) {
    writeFileSync(
      join(dir, "bwrap"),
      '#!/bin/sh\necho "bwrap: No permissions to create new namespace, likely because the kernel does not allow non-privileged user namespaces" >&2\nexit 1\n',
    );
    chmodSync(join(dir, "bwrap"), 0o755);
  }
  return dir;
}

/** One case: its name and what it checks. */
export interface SandboxCase {
  name: string;
  run(runtime: Runtime): Promise<void>;
}

async function spawnIn(root: string, path: string, args: string[], runtime: Runtime): Promise<CliResult> {
  return runAriel("spawn", ["-C", root, ...args], {
    runtime,
    cwd: root,
    env: { ...GIT_TEST_ENV, PATH: path, ARIEL_MONITOR_IDLE_MS: "1500" },
  });
}

/** A workspace with one source `api`, marked as one (`.ariel/` exists, as after any command). */
function workspace(): string {
  const root = tempDir("ariel-sbx-na-");
  initRepo(join(root, "api"), { "README.md": "# api\n" });
  mkdirSync(join(root, ".ariel"));
  return root;
}

/** The status line, the error's code and message, and that nothing changed. */
async function refused(runtime: Runtime, fake: boolean, args: string[], message: RegExp): Promise<void> {
  const root = workspace();
  const path = toolsPath(fake);
  try {
    const before = picture(root);
    const branches = git(join(root, "api"), "branch", "--format=%(refname)");
    const r = await spawnIn(root, path, ["--json", ...args], runtime);
    assert.equal(r.code, 69, r.stderr);
    const err = JSON.parse(r.stderr.trim().split("\n").at(-1) ?? "{}") as Record<string, unknown>;
    assert.equal(err.code, "ERR_SANDBOX_UNAVAILABLE");
    assert.match(String(err.message), message);
    assert.match(String(err.hint), /bubblewrap|user namespaces/);
    assert.equal(r.stdout, "");
    assert.deepEqual(picture(root), before);
    assert.equal(git(join(root, "api"), "branch", "--format=%(refname)"), branches);
  } finally {
    removeDir(root);
    removeDir(path);
  }
}

/**
 * ariel-spawn made to believe it runs on macOS: `process.platform` set before its main module
 * loads (Node: `--require` through NODE_OPTIONS; Deno: `--preload`).
 */
function spawnOnDarwin(root: string, args: string[], runtime: Runtime): CliResult {
  const dir = tempDir("ariel-sbx-darwin-");
  const file = join(dir, "darwin.mjs");
  writeFileSync(
    file,
    'import process from "node:process";\nObject.defineProperty(process, "platform", { value: "darwin" });\n',
  );
  try {
    const [exe, ...pre] = cliCommand("spawn", runtime);
    const argv = runtime === "deno" ? [pre[0]!, "--preload", file, ...pre.slice(1)] : pre;
    const env = cliEnv({
      ...GIT_TEST_ENV,
      ARIEL_WORKSPACE_ROOT: root,
      ...(runtime === "node" ? { NODE_OPTIONS: `--import ${file}` } : {}),
    });
    const r = spawnSync(exe!, [...argv, "-C", root, ...args], { cwd: root, env, encoding: "utf8" });
    return { code: r.status, signal: r.signal, stdout: r.stdout, stderr: r.stderr };
  } finally {
    removeDir(dir);
  }
}

export const SANDBOX_UNAVAILABLE_CASES: readonly SandboxCase[] = [
  {
    name: "not Linux: 69 with a hint, nothing made (foreground and detached)",
    async run(rt) {
      const root = workspace();
      try {
        const before = picture(root);
        for (const args of [
          ["--sandbox", "--isolate", "--task", "t1", "--source", "api"],
          ["--detach", "--sandbox", "--source", "api"],
        ]) {
          const r = spawnOnDarwin(root, ["--json", ...args, "--", "true"], rt);
          assert.equal(r.code, 69, r.stderr);
          const err = JSON.parse(r.stderr.trim().split("\n").at(-1) ?? "{}") as Record<string, unknown>;
          assert.deepEqual(
            [err.code, err.message, err.hint],
            [
              "ERR_SANDBOX_UNAVAILABLE",
              "--sandbox needs Linux (bubblewrap and user namespaces); this is darwin",
              "run sandboxed agents on a Linux machine or in a Linux VM, or drop --sandbox",
            ],
          );
          assert.equal(r.stdout, "");
        }
        assert.deepEqual(picture(root), before);
      } finally {
        removeDir(root);
      }
    },
  },
  {
    name: "no bwrap on PATH: --sandbox --isolate ends 69, no worktree, no task, no history",
    run: (rt) =>
      refused(
        rt,
        false,
        ["--sandbox", "--isolate", "--task", "t1", "--source", "api", "--", "true"],
        /not on PATH/,
      ),
  },
  {
    name: "no bwrap on PATH: --detach --sandbox ends 69, no run, no monitor",
    run: (rt) =>
      refused(
        rt,
        false,
        ["--detach", "--sandbox", "--isolate", "--source", "api", "--", "true"],
        /not on PATH/,
      ),
  },
  {
    name: "a bwrap that cannot make a sandbox (no user namespaces): 69 with its words",
    run: (rt) =>
      refused(
        rt,
        true,
        ["--sandbox", "--source", "api", "--", "true"],
        /bubblewrap cannot make a sandbox here: bwrap: No permissions to create new namespace/,
      ),
  },
];
