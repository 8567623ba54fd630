/**
 * A stray `.ariel/` must not take over other repositories: `.ariel/` is made only where the root
 * was given, already has one, or is a git top level; a run whose root is only the cwd records
 * its history in the user state dir; the first command that makes `.ariel/` registers the
 * workspace there. End to end with HOME set to a temporary directory.
 */
import { existsSync, mkdirSync, readdirSync, readFileSync, rmSync } from "node:fs";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { workspaceHash } from "../packages/core/src/hash.ts";
import { runAriel } from "./helpers/cli.ts";
import { GIT_TEST_ENV, git, initRepo, removeDir, tempDir } from "./helpers/git.ts";

const dirs: string[] = [];
afterEach(() => {
  for (const d of dirs.splice(0)) removeDir(d);
});

/** A fresh $HOME; the CLIs see nothing of the real user's state. */
function home(): string {
  const h = tempDir("ariel-home-");
  dirs.push(h);
  return h;
}

/** Run a CLI as a user whose HOME is `h`, without any ariel variable. */
const as = (
  h: string,
  cli: "spawn" | "worktree" | "discover",
  args: readonly string[],
  cwd: string,
  env = {},
) =>
  runAriel(cli, args, {
    cwd,
    env: {
      ...GIT_TEST_ENV,
      HOME: h,
      XDG_STATE_HOME: undefined,
      ARIEL_STATE_HOME: undefined,
      ARIEL_WORKSPACE_ROOT: undefined,
      ARIEL_OWNER: "me",
      ...env,
    },
  });

const stateOf = (h: string) => join(h, ".local/state/ariel");

describe("a run from $HOME leaves no .ariel/ there", () => {
  it("records the run in the user state dir, and a clone under $HOME behaves normally afterwards", async () => {
    const h = home();
    const run = await as(h, "spawn", ["--", "true"], h);
    expect([run.code, run.stdout, run.stderr]).toEqual([0, "", ""]);
    expect(existsSync(join(h, ".ariel"))).toBe(false);
    expect(readdirSync(join(stateOf(h), "runs"))).toEqual([
      expect.stringMatching(/^\d{8}T\d{6}Z-[0-9a-z]{6}\.ndjson$/),
    ]);
    expect(existsSync(join(stateOf(h), "workspaces"))).toBe(false);

    const origin = join(h, "origin");
    initRepo(origin);
    const app = join(h, "src/app");
    git(h, "clone", "-q", origin, app);
    const found = await as(h, "discover", [], app);
    expect(found.stdout).toBe(`.\tcheckout\tmain\t${git(app, "rev-parse", "HEAD")}\t${app}\n`);
    const pwd = await as(h, "spawn", ["--", "pwd"], join(app));
    expect([pwd.code, pwd.stdout, pwd.stderr]).toEqual([0, `${app}\n`, ""]);
    expect(readdirSync(join(app, ".ariel/runs"))).toHaveLength(1);

    const add = await as(h, "worktree", ["add", "--source", ".", "--task", "t1"], app);
    expect(add.code).toBe(0);
    expect(add.stdout).toBe(`t1\t.\tariel/t1\t${join(app, ".ariel/worktrees/t1/app")}\n`);
    expect(existsSync(join(h, ".ariel"))).toBe(false);
  });

  it("the first command that makes <root>/.ariel/ registers the workspace, once", async () => {
    const h = home();
    const app = join(h, "app");
    initRepo(app);
    expect((await as(h, "spawn", ["--", "true"], app)).code).toBe(0);
    const hash = await workspaceHash(app);
    const file = join(stateOf(h), "workspaces", `${hash}.json`);
    const text = readFileSync(file, "utf8");
    const entry = JSON.parse(text);
    expect(Object.keys(entry)).toEqual(["v", "root", "hash", "firstSeen"]);
    expect(entry).toEqual({ v: 1, root: app, hash, firstSeen: expect.stringMatching(/^\d{4}-\d\d-\d\dT/) });
    expect(text.endsWith("}\n")).toBe(true);
    // Later commands in the workspace leave the entry as it is.
    expect((await as(h, "worktree", ["add", "--source", ".", "--task", "t1"], app)).code).toBe(0);
    expect((await as(h, "spawn", ["--", "true"], app)).code).toBe(0);
    expect(readFileSync(file, "utf8")).toBe(text);
    expect(readdirSync(join(stateOf(h), "workspaces"))).toEqual([`${hash}.json`]);
  });

  it("a .ariel/ older than the registry is registered by the next command that writes state", async () => {
    const h = home();
    const app = join(h, "app");
    initRepo(app);
    expect((await as(h, "spawn", ["--", "true"], app)).code).toBe(0);
    const hash = await workspaceHash(app);
    const file = join(stateOf(h), "workspaces", `${hash}.json`);
    rmSync(file); // as if .ariel/ had been made before the registry existed
    expect((await as(h, "discover", [], app)).code).toBe(0); // reads only: registers nothing
    expect(existsSync(file)).toBe(false);
    expect((await as(h, "spawn", ["--", "true"], app)).code).toBe(0);
    expect(JSON.parse(readFileSync(file, "utf8"))).toEqual({
      v: 1,
      root: app,
      hash,
      firstSeen: expect.stringMatching(/^\d{4}-\d\d-\d\dT/),
    });
  });

  it.each([
    ["ARIEL_STATE_HOME", (h: string) => ({ ARIEL_STATE_HOME: join(h, "mine") }), "mine"],
    ["XDG_STATE_HOME", (h: string) => ({ XDG_STATE_HOME: join(h, "xdg") }), "xdg/ariel"],
  ])("%s names the user state dir", async (_name, env, dir) => {
    const h = home();
    expect((await as(h, "spawn", ["--", "true"], h, env(h))).code).toBe(0);
    expect(readdirSync(join(h, dir, "runs"))).toHaveLength(1);
    expect(existsSync(stateOf(h))).toBe(false);
  });

  it("ariel-worktree add refuses a root that is only the cwd, and -C makes it a workspace", async () => {
    const h = home();
    const ws = join(h, "ws");
    initRepo(join(ws, "api"));
    const r = await as(h, "worktree", ["add", "--source", "api", "--task", "t1"], ws);
    expect(r.code).toBe(66);
    expect(r.stdout).toBe("");
    expect(r.stderr).toBe(
      `ariel-worktree: error: "${ws}" is not a workspace: it has no .ariel/ and is not a git checkout [ERR_NOT_A_WORKSPACE]\n` +
        `ariel-worktree: hint: name it once to make it one: -C ${ws} (or ARIEL_WORKSPACE_ROOT=${ws})\n`,
    );
    expect(existsSync(join(ws, ".ariel"))).toBe(false);
    expect(git(join(ws, "api"), "branch", "--list")).toBe("* main");
    const spawned = await as(h, "spawn", ["--isolate", "--source", "api", "-n", "--", "true"], ws);
    expect(spawned.code).toBe(66);
    expect(spawned.stderr).toContain("[ERR_NOT_A_WORKSPACE]");

    const named = await as(h, "worktree", ["add", "-C", ws, "--source", "api", "--task", "t1"], ws);
    expect(named.code).toBe(0);
    expect(existsSync(join(ws, ".ariel/tasks/t1.json"))).toBe(true);
    // From now on the marker makes it the root, without -C.
    const again = await as(h, "worktree", ["add", "--source", "api", "--task", "t2"], join(ws, "api"));
    expect(again.code).toBe(0);
    expect(existsSync(join(ws, ".ariel/tasks/t2.json"))).toBe(true);
  });
});

describe("commands that find nothing to act on write nothing", () => {
  it.each([
    ["remove", ["remove", "--task", "nope"]],
    ["restore", ["restore", "--task", "nope"]],
    ["verify", ["verify", "--task", "nope"]],
    ["list", ["list"]],
    ["reconcile", ["reconcile"]],
  ])("ariel-worktree %s in $HOME makes no .ariel/", async (_name, args) => {
    const h = home();
    initRepo(join(h, "src/app"));
    const r = await as(h, "worktree", args, h);
    expect(r.code).toBe(args.includes("nope") ? 66 : 0);
    expect(existsSync(join(h, ".ariel"))).toBe(false);
    expect(existsSync(stateOf(h))).toBe(false);
  });
});

describe("an ancestor's .ariel/ over the checkout holding the cwd", () => {
  const TTY = { ARIEL_TEST_HOOKS: "1", ARIEL_TEST_TTY: "stderr" };

  it("is said once on a terminal, and never in a pipe", async () => {
    const h = home();
    mkdirSync(join(h, ".ariel"));
    const app = join(h, "src/app");
    initRepo(app);
    const note =
      `ariel-spawn: note: workspace root "${h}" (it has .ariel/), not the checkout "${app}" holding the cwd;` +
      ` -C ${app} to use the checkout\n`;
    // The root is h; with no --source, spawn runs in the source holding the cwd (src/app).
    const tty = await as(h, "spawn", ["--", "pwd"], app, TTY);
    expect([tty.code, tty.stdout, tty.stderr]).toEqual([0, `${app}\n`, note]);
    const piped = await as(h, "spawn", ["--", "pwd"], app);
    expect([piped.code, piped.stdout, piped.stderr]).toEqual([0, `${app}\n`, ""]);
    const list = await as(h, "worktree", ["list"], app, TTY);
    expect(list.stderr).toBe(note.replace("ariel-spawn", "ariel-worktree"));
    const discover = await as(h, "discover", ["--json"], app, TTY);
    expect(discover.stderr).toBe("");
  });

  it("is not said inside a task's own worktree", async () => {
    const h = home();
    const app = join(h, "app");
    initRepo(app);
    expect((await as(h, "worktree", ["add", "--source", ".", "--task", "t1"], app)).code).toBe(0);
    const leg = join(app, ".ariel/worktrees/t1/app");
    const r = await as(h, "spawn", ["--", "pwd"], leg, { ARIEL_TEST_HOOKS: "1", ARIEL_TEST_TTY: "stderr" });
    expect([r.code, r.stdout, r.stderr]).toEqual([0, `${app}\n`, ""]);
  });
});
