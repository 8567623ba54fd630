/**
 * Progress over several repositories: one updating line on stderr (`\r`, erased at the end)
 * when stderr is a terminal and --json is off; never in a pipe, never with --json. The terminal
 * is the test hook ARIEL_TEST_TTY (host/terminal.ts), and once a real pseudo-terminal (`script`).
 */
import { spawnSync } from "node:child_process";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { cliCommand, runAriel, testStateHome } from "./helpers/cli.ts";
import { GIT_TEST_ENV } from "./helpers/git.ts";
import { tempWorkspaces } from "./helpers/temp.ts";

const { ws } = tempWorkspaces();
const TTY = { ARIEL_TEST_HOOKS: "1", ARIEL_TEST_TTY: "stderr" };
const run = (
  cli: "spawn" | "worktree",
  root: string,
  args: readonly string[],
  env: Record<string, string> = {},
) =>
  runAriel(cli, args, {
    cwd: root,
    env: { ...GIT_TEST_ENV, ARIEL_WORKSPACE_ROOT: root, ARIEL_OWNER: "t", ...env },
  });
const ERASE = "\r\x1b[K";

describe("ariel-worktree add/remove show progress on a terminal", () => {
  it("one updating line per leg, erased at the end", async () => {
    const root = ws(["api", "web", "zed"]);
    const sources = ["--source", "api", "--source", "web", "--source", "zed"];
    const add = await run("worktree", root, ["add", ...sources, "--task", "t1"], TTY);
    expect(add.code).toBe(0);
    expect(add.stderr).toBe(
      `${ERASE}[1/3] api: creating worktree${ERASE}[2/3] web: creating worktree${ERASE}[3/3] zed: creating worktree${ERASE}` +
        "ariel-worktree: made task t1\n",
    );
    const remove = await run("worktree", root, ["remove", "--task", "t1"], TTY);
    expect(remove.code).toBe(0);
    expect(remove.stderr).toBe(
      `${ERASE}[1/3] api: removing worktree${ERASE}[2/3] web: removing worktree${ERASE}[3/3] zed: removing worktree${ERASE}`,
    );
    const restore = await run("worktree", root, ["restore", "--task", "t1", "--source", "web"], TTY);
    expect([restore.code, restore.stderr]).toEqual([0, `${ERASE}[1/1] web: restoring worktree${ERASE}`]);
  });

  it.each([
    ["in a pipe", {}, []],
    ["with --json", TTY, ["--json"]],
  ])("never %s", async (_name, env, extra) => {
    const root = ws(["api", "web"]);
    const add = await run(
      "worktree",
      root,
      ["add", "--source", "api", "--source", "web", "--task", "t1", ...extra],
      env,
    );
    expect(add.code).toBe(0);
    expect(add.stderr).toBe(extra.length > 0 ? "" : "ariel-worktree: made task t1\n");
    const remove = await run("worktree", root, ["remove", "--task", "t1", ...extra], env);
    expect([remove.code, remove.stderr]).toEqual([0, ""]);
  });
});

describe("ariel-spawn --isolate shows progress while it makes and removes worktrees", () => {
  it("on a terminal, erased before the children's output", async () => {
    const root = ws(["api", "web"]);
    const args = ["--source", "api", "--source", "web", "--isolate", "--task", "t1", "--", "true"];
    const tty = await run("spawn", root, args, TTY);
    expect(tty.code).toBe(0);
    expect(tty.stderr).toBe(
      `${ERASE}[1/2] api: creating worktree${ERASE}[2/2] web: creating worktree${ERASE}` +
        `${ERASE}[1/2] api: removing worktree${ERASE}${ERASE}[2/2] web: removing worktree${ERASE}`,
    );
    const piped = await run("spawn", root, [...args.slice(0, 6), "t2", ...args.slice(7)]);
    expect([piped.code, piped.stderr]).toEqual([0, ""]);
    const json = await run("spawn", root, [...args.slice(0, 6), "t3", "--json", ...args.slice(7)], TTY);
    expect([json.code, json.stderr]).toEqual([0, ""]);
  });
});

describe("a real pseudo-terminal", () => {
  const hasScript = spawnSync("script", ["--version"]).status === 0;
  it.skipIf(!hasScript)("shows the progress line under script(1), without any test hook", () => {
    const root = ws(["api"]);
    const [exe, ...pre] = cliCommand("worktree");
    const line = [exe, ...pre, "add", "--source", "api", "--task", "t1"].join(" ");
    const r = spawnSync("script", ["-qefc", line, "/dev/null"], {
      cwd: root,
      encoding: "utf8",
      env: {
        ...process.env,
        ...GIT_TEST_ENV,
        ARIEL_WORKSPACE_ROOT: root,
        ARIEL_STATE_HOME: testStateHome(),
        ARIEL_TEST_HOOKS: "",
      },
    });
    expect(r.status).toBe(0);
    expect(r.stdout).toContain(`${ERASE}[1/1] api: creating worktree${ERASE}`);
    expect(r.stdout).toContain("ariel-worktree: made task t1");
    expect(r.stdout).toContain(join(root, ".ariel/worktrees/t1/api"));
  });
});
