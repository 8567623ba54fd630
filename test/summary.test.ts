/**
 * A command that fails, refuses or keeps something ends with one summary line on stderr naming
 * what, the next command, and the history file; an empty result on a terminal says where it
 * looked, and says nothing in a pipe. Real repositories, the built CLIs, exact stderr.
 */
import { spawnSync } from "node:child_process";
import { existsSync, readdirSync, readFileSync, writeFileSync } from "node:fs";
import { basename, join } from "node:path";
import { describe, expect, it } from "vitest";
import { arielIn, REPO_ROOT, runAriel, testStateHome } from "./helpers/cli.ts";
import { removeDir, tempDir, writeFile } from "./helpers/git.ts";
import { tempWorkspaces } from "./helpers/temp.ts";
import { NODE, runFiles, runSpawnWatching, sources } from "./spawn_helpers.ts";

const { ws, track } = tempWorkspaces();
/** ariel-spawn in `root`, which is named (a plain directory of checkouts). */
const spawnIn = (root: string, args: readonly string[], env: Record<string, string> = {}) =>
  arielIn("spawn", root, args, { env });
const wtIn = (root: string, args: readonly string[], env: Record<string, string> = {}) =>
  arielIn("worktree", root, args, { env: { ARIEL_OWNER: "t", ...env } });

/** The one history file of the run, as the summary names it (relative to the root). */
function history(root: string): string {
  const files = runFiles(root);
  expect(files).toHaveLength(1);
  return `.ariel/runs/${basename(files[0] as string)}`;
}

/** Exits with 3 in source `web`, 0 elsewhere; prints nothing. */
const FAIL_IN_WEB = [NODE, "-e", "process.exit(process.env.ARIEL_SOURCE === 'web' ? 3 : 0)"];

/** Pretend stdout and stderr are terminals (test hook; see host/terminal.ts). */
const TTY = { ARIEL_TEST_HOOKS: "1", ARIEL_TEST_TTY: "stdout,stderr" };

describe("ariel-spawn ends a failed run with one summary line", () => {
  it("names the failed source, its status and the history file", async () => {
    const root = ws(["api", "web"]);
    const r = await spawnIn(root, ["--source", "api", "--source", "web", "--", ...FAIL_IN_WEB]);
    expect(r.code).toBe(1);
    expect(r.stdout).toBe("");
    expect(r.stderr).toBe(`ariel-spawn: 1 of 2 failed: web (exit 3); history: ${history(root)}\n`);
  });

  it("says nothing when every target succeeded", async () => {
    const root = ws(["api", "web"]);
    const r = await spawnIn(root, ["--source", "api", "--", ...FAIL_IN_WEB]);
    expect([r.code, r.stdout, r.stderr]).toEqual([0, "", ""]);
  });

  it("names the kept worktree and the command that deals with it", async () => {
    const root = ws(["api", "web"]);
    const r = await spawnIn(root, [
      ...sources(["api", "web"]),
      "--isolate",
      "--task",
      "t1",
      "--",
      NODE,
      "-e",
      "if (process.env.ARIEL_SOURCE === 'web') { require('fs').writeFileSync('new.txt', 'x'); process.exit(3) }",
    ]);
    expect(r.code).toBe(1);
    // A fan-out makes a task per source: web's is t1-web (api's, clean, was removed).
    const leg = join(root, ".ariel/worktrees/t1-web/web");
    expect(r.stderr).toBe(
      `ariel-spawn: warning: kept the worktree of "web" (dirty): ${leg} has uncommitted changes: new.txt\n` +
        "ariel-spawn: hint: ariel-worktree remove --task t1-web --source web --snapshot\n" +
        `ariel-spawn: 1 of 2 failed: web (exit 3); kept web (dirty): ariel-worktree remove --task t1-web --snapshot; history: ${history(root)}\n`,
    );
    // The command it names works: the work is saved and the worktree removed.
    const next = await wtIn(root, ["remove", "--task", "t1-web", "--snapshot"]);
    expect(next.code).toBe(0);
    expect(next.stdout).toBe(`t1-web\tweb\tsnapshotted\t${leg}\n`);
  });

  it("names the root with -C when it was given and is not the cwd", async () => {
    const root = ws(["api"]);
    const r = await runAriel(
      "spawn",
      [
        "-C",
        root,
        "--source",
        "api",
        "--isolate",
        "--task",
        "t2",
        "--keep",
        "--",
        NODE,
        "-e",
        "process.exit(4)",
      ],
      { cwd: track(tempDir()), env: { ARIEL_WORKSPACE_ROOT: undefined } },
    );
    expect(r.code).toBe(4);
    const [file] = runFiles(root);
    expect(r.stderr).toBe(
      `ariel-spawn: 1 of 1 failed: api (exit 4); kept api (keep): ariel-worktree remove -C ${root} --task t2 --snapshot; history: ${file}\n`,
    );
  });

  it("a run that fails before any process starts: the error names the history file", async () => {
    const root = ws(["api"]);
    spawnSync("git", ["-C", join(root, "api"), "branch", "ariel/t9"]);
    const r = await spawnIn(root, ["--source", "api", "--isolate", "--task", "t9", "--json", "--", "true"]);
    expect(r.code).toBe(3);
    const [file] = runFiles(root);
    expect(JSON.parse(r.stderr)).toMatchObject({ type: "error", code: "ERR_TASK_CONFLICT", history: file });
  });

  it("--fail-fast: the failure, the stopped child and what never started", async () => {
    const root = ws(["a", "b", "c"]);
    const r = await spawnIn(root, [
      ...["--source", "a", "--source", "b", "--source", "c"],
      ...["-j", "2", "--fail-fast", "--grace", "10", "--"],
      NODE,
      "-e",
      "if (process.env.ARIEL_SOURCE === 'a') setTimeout(() => process.exit(2), 300); else setTimeout(() => {}, 30000)",
    ]);
    expect(r.code).toBe(1);
    expect(r.stderr).toBe(
      `ariel-spawn: 2 of 3 failed: a (exit 2), b (SIGTERM); 1 not started (--fail-fast); history: ${history(root)}\n`,
    );
  });

  it("Ctrl-C (SIGINT): interrupted, which children it stopped, the history file", async () => {
    const root = ws(["api"]);
    let sent = false;
    const r = await runSpawnWatching(
      ["--source", "api", "--", NODE, "-e", "console.log('ready'); setTimeout(() => {}, 30000)"],
      { cwd: root },
      (line, pid) => {
        if (line === "ready" && !sent) {
          sent = true;
          process.kill(pid, "SIGINT");
        }
      },
    );
    expect(r.code).toBe(130);
    expect(r.stderr).toBe(
      `ariel-spawn: interrupted (SIGINT): 1 of 1 failed: api (SIGINT); history: ${history(root)}\n`,
    );
  });

  it("a run from a directory that is no workspace names its history in the user state dir", async () => {
    const home = tempDir("ariel-home-");
    track(home);
    const r = await runAriel("spawn", ["--", NODE, "-e", "process.exit(5)"], {
      cwd: home,
      env: { ARIEL_WORKSPACE_ROOT: undefined, ARIEL_STATE_HOME: join(home, "state") },
    });
    expect(r.code).toBe(5);
    const runs = readdirSync(join(home, "state/runs"));
    expect(runs).toHaveLength(1);
    expect(existsSync(join(home, ".ariel"))).toBe(false);
    expect(r.stderr).toBe(`ariel-spawn: 1 of 1 failed: . (exit 5); history: state/runs/${runs[0]}\n`);
  });
});

describe("ariel-worktree remove ends a refusal with the next command", () => {
  it("names the refused leg and the command that saves the work", async () => {
    const root = ws(["api", "web"]);
    expect((await wtIn(root, ["add", "--source", "api", "--source", "web", "--task", "t1"])).code).toBe(0);
    const leg = join(root, ".ariel/worktrees/t1/web");
    writeFile(join(leg, "notes.txt"), "mine\n");
    const r = await wtIn(root, ["remove", "--task", "t1"]);
    expect(r.code).toBe(3);
    expect(r.stdout).toBe("");
    expect(r.stderr).toBe(
      `ariel-worktree: error: ${leg} has uncommitted changes: notes.txt [ERR_DIRTY]\n` +
        "ariel-worktree: hint: commit or stash the changes, pass --snapshot, or --allow dirty; nothing was changed\n" +
        "ariel-worktree: refused, nothing changed: web (dirty); next: ariel-worktree remove --task t1 --snapshot\n",
    );
    expect(readFileSync(join(leg, "notes.txt"), "utf8")).toBe("mine\n");
  });

  it("points at the errors when --snapshot cannot help", async () => {
    const root = ws(["api"]);
    expect((await wtIn(root, ["add", "--source", "api", "--task", "t1"])).code).toBe(0);
    const leg = join(root, ".ariel/worktrees/t1/api");
    spawnSync("git", ["-C", leg, "switch", "-q", "-c", "other"]);
    const r = await wtIn(root, ["remove", "--task", "t1", "--snapshot"]);
    expect(r.code).toBe(3);
    expect(r.stderr.split("\n").at(-2)).toBe(
      "ariel-worktree: refused, nothing changed: api (branch-mismatch); each error above says how to get past it",
    );
  });
});

describe("ariel-worktree verify ends a failure with a summary line", () => {
  it("names the failed leg and, for a missing worktree, the restore that brings it back", async () => {
    const root = ws(["api", "web"]);
    expect((await wtIn(root, ["add", "--source", "api", "--source", "web", "--task", "t1"])).code).toBe(0);
    removeDir(join(root, ".ariel/worktrees/t1/web"));
    const r = await wtIn(root, ["verify", "--task", "t1"]);
    expect(r.code).toBe(3);
    expect(r.stderr.split("\n").at(-2)).toBe(
      "ariel-worktree: 1 of 2 legs failed: web (ERR_WORKTREE_MISSING); next: ariel-worktree reconcile && ariel-worktree restore --task t1 --source web",
    );
    expect((await wtIn(root, ["reconcile"])).code).toBe(0);
    expect((await wtIn(root, ["restore", "--task", "t1", "--source", "web"])).code).toBe(0);
    expect((await wtIn(root, ["verify", "--task", "t1"])).code).toBe(0);
  });
});

describe("ariel-worktree reconcile ends with what it kept", () => {
  it("names the kept directory and its warning code", async () => {
    const root = ws(["api"]);
    expect((await wtIn(root, ["add", "--source", "api", "--task", "t1"])).code).toBe(0);
    const junk = join(root, ".ariel/worktrees/t1/junk");
    writeFile(join(junk, "f.txt"), "x\n");
    const r = await wtIn(root, ["reconcile"]);
    expect(r.code).toBe(0);
    expect(r.stderr).toBe(
      `ariel-worktree: warning: directory ${junk} of task t1 is no git worktree but holds files; kept\n` +
        `ariel-worktree: kept 1 for you to look at: ${junk} (W_KEPT_DIR); each warning above says why\n`,
    );
    expect(readFileSync(join(junk, "f.txt"), "utf8")).toBe("x\n");
  });
});

describe("empty results say where they looked, on a terminal only", () => {
  it("ariel-discover with no sources", async () => {
    const root = tempDir();
    track(root);
    const tty = await runAriel("discover", ["-C", root], { env: TTY });
    expect([tty.code, tty.stdout, tty.stderr]).toEqual([
      0,
      "",
      `ariel-discover: no sources found under "${root}" (max depth 1)\n`,
    ]);
    const piped = await runAriel("discover", ["-C", root]);
    expect([piped.code, piped.stdout, piped.stderr]).toEqual([0, "", ""]);
    const json = await runAriel("discover", ["-C", root, "--json"], { env: TTY });
    expect([json.code, json.stdout, json.stderr]).toEqual([0, "", ""]);
  });

  it("ariel-worktree reconcile --dry-run with nothing to do", async () => {
    const root = ws(["api"]);
    const tty = await wtIn(root, ["reconcile", "--dry-run"], TTY);
    expect([tty.code, tty.stdout, tty.stderr]).toEqual([
      0,
      "",
      `ariel-worktree: nothing to reconcile in "${root}"\n`,
    ]);
    const piped = await wtIn(root, ["reconcile", "--dry-run"]);
    expect([piped.code, piped.stdout, piped.stderr]).toEqual([0, "", ""]);
  });
});

describe("docs/recipes/makefile.md", () => {
  const hasMake = spawnSync("make", ["--version"]).status === 0;
  it.skipIf(!hasMake)("make test ends with ariel-spawn's summary, then make's own error", async () => {
    const root = ws(["api", "web"]);
    const doc = readFileSync(join(REPO_ROOT, "docs/recipes/makefile.md"), "utf8");
    const makefile = /```make\n([\s\S]*?)```/.exec(doc)?.[1] ?? "";
    expect(makefile).toContain("test:");
    writeFileSync(join(root, "Makefile"), makefile);
    for (const [name, status] of [
      ["api", 0],
      ["web", 3],
    ] as const) {
      writeFile(
        join(root, name, "package.json"),
        `${JSON.stringify({ name, scripts: { test: `node -e "process.exit(${status})"` } })}\n`,
      );
    }
    const r = spawnSync("make", ["--no-print-directory", "test"], {
      cwd: root,
      encoding: "utf8",
      env: {
        ...process.env,
        PATH: `${join(REPO_ROOT, "node_modules/.bin")}:${process.env.PATH}`,
        ARIEL_STATE_HOME: testStateHome(),
        ARIEL_WORKSPACE_ROOT: "",
      },
    });
    expect(r.status).toBe(2);
    const lines = r.stderr.trimEnd().split("\n");
    expect(lines.slice(-2)).toEqual([
      `ariel-spawn: 1 of 2 failed: web (exit 3); history: ${history(root)}`,
      expect.stringMatching(/^make: \*\*\* \[Makefile:\d+: test\] Error 1$/),
    ]);
  });
});
