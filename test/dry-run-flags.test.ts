/**
 * `--detailed-exitcode` means something only with `--dry-run`: every command that takes the two
 * flags (one shared block, one check in the shell) refuses it alone with ERR_USAGE (64) before
 * anything happens. Before issue 24, `ariel-worktree add/remove/restore/reconcile/import` took it
 * silently and ran for real.
 */
import { existsSync, mkdtempSync, realpathSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { type CliName, runAriel } from "./helpers/cli.ts";
import { GIT_TEST_ENV } from "./helpers/git.ts";

let dir = "";
afterEach(() => {
  if (dir) rmSync(dir, { recursive: true, force: true });
  dir = "";
});

describe("--detailed-exitcode without --dry-run", () => {
  it.each<[CliName, string[], string]>([
    ["worktree", ["add", "--task", "t1", "--detailed-exitcode"], "ariel-worktree add"],
    ["worktree", ["remove", "--task", "t1", "--detailed-exitcode"], "ariel-worktree remove"],
    ["worktree", ["restore", "--task", "t1", "--detailed-exitcode"], "ariel-worktree restore"],
    ["worktree", ["reconcile", "--detailed-exitcode"], "ariel-worktree reconcile"],
    ["worktree", ["gc", "--detailed-exitcode"], "ariel-worktree gc"],
    ["runs", ["kill", "some-run", "--detailed-exitcode"], "ariel-runs kill"],
    ["runs", ["respawn", "some-run", "--detailed-exitcode"], "ariel-runs respawn"],
    ["runs", ["rm", "some-run", "--detailed-exitcode"], "ariel-runs rm"],
    ["runs", ["prune", "--detailed-exitcode"], "ariel-runs prune"],
    ["spawn", ["--detailed-exitcode", "--", "true"], "ariel-spawn"],
  ])("%s %s: exit 64, nothing made", async (cli, args, command) => {
    dir = realpathSync(mkdtempSync(join(tmpdir(), "ariel-dry-flags-")));
    const r = await runAriel(cli, ["-C", dir, ...args], { cwd: dir, env: GIT_TEST_ENV });
    expect({ code: r.code, stdout: r.stdout, stderr: r.stderr }).toEqual({
      code: 64,
      stdout: "",
      stderr:
        `ariel-${cli}: error: --detailed-exitcode needs --dry-run [ERR_USAGE]\n` +
        `ariel-${cli}: hint: run ${command} --help to see the flags\n`,
    });
    expect(existsSync(join(dir, ".ariel"))).toBe(false);
  });

  it("with --dry-run it is taken (worktree reconcile -n --detailed-exitcode: nothing to do, 0)", async () => {
    dir = realpathSync(mkdtempSync(join(tmpdir(), "ariel-dry-flags-")));
    const r = await runAriel("worktree", ["-C", dir, "reconcile", "-n", "--detailed-exitcode"], {
      cwd: dir,
      env: GIT_TEST_ENV,
    });
    expect(r.code).toBe(0);
  });
});
