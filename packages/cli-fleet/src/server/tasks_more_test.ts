import { readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { command as worktreeCommand } from "../../../cli-worktree/src/command.ts";
import { commitAll, git } from "../../../core/src/host/_fixture.ts";
import { runInProcess } from "../../../core/src/host/cli/_fixture.ts";
import { type FleetWorld, fleetWorld } from "./_app_fixture.ts";
import { type TaskControl, taskControl } from "./tasks.ts";

// The host's TaskControl called directly: a land body's strategy and `into` checked (and passed
// on: a squash, a land into another branch), and the land run with the server's environment
// (a post-land hook of the workspace's own config sees it).

let w: FleetWorld;
let control: TaskControl;
const api = () => join(w.ws, "api");
const rev = (ref: string) => git(api(), "rev-parse", ref);

/** Task `task` over the source api, with one commit writing `file`. */
async function taskWithCommit(task: string, file: string): Promise<void> {
  const argv = ["-C", w.ws, "add", "--task", task, "--source", "api", "--no-hooks"];
  const r = await runInProcess(worktreeCommand, argv, { cwd: w.ws, env: { ARIEL_STATE_HOME: w.state } });
  expect([r.code, r.stderr]).toEqual([0, `ariel-worktree: made task ${task}\n`]);
  const leg = join(w.ws, ".ariel/worktrees", task, "api");
  writeFileSync(join(leg, file), `${task}\n`);
  commitAll(leg, `${task} work`);
}

beforeAll(async () => {
  w = await fleetWorld();
  for (const t of ["t1", "t2", "t3"]) await taskWithCommit(t, `${t}.txt`);
  git(api(), "branch", "release", "main");
  // The workspace's own config (untracked: the user's, run without trust): a post-land hook that
  // writes what FLEET_MARK holds in its environment.
  const hook = 'printf %s "$FLEET_MARK" > "$ARIEL_WORKSPACE_ROOT/landed-$ARIEL_TASK"';
  writeFileSync(
    join(w.ws, "ariel.config.json"),
    JSON.stringify({ hooks: { "post-land": ["sh", "-c", hook] } }),
  );
  control = taskControl({ ...w.env, FLEET_MARK: "the server's environment" });
});
afterAll(() => w.dispose());

/** The land record of task `task`'s api leg. */
const landed = (task: string, target: string, strategy: string, from: string, to: string) => ({
  v: 1,
  type: "land",
  task,
  source: "api",
  branch: `ariel/${task}`,
  target,
  strategy,
  outcome: "landed",
  from,
  to,
});

describe("TaskControl.land: the body", () => {
  it.each([
    [{ strategy: "octopus" }, "strategy must be one of: ff, merge, squash, rebase"],
    [{ strategy: null }, "strategy must be one of: ff, merge, squash, rebase"],
    [{ into: 5 }, "into must be a branch name"],
    [{ into: null }, "into must be a branch name"],
  ])("%j is refused before anything is read: ERR_INVALID_INPUT", async (body, message) => {
    const before = rev("main");
    await expect(control.land(w.known, "t1", body)).rejects.toMatchObject({
      code: "ERR_INVALID_INPUT",
      message,
      hint: "see the API reference in docs/fleet.md",
    });
    expect(rev("main")).toBe(before);
  });

  it("into: the task lands into that branch; main stays", async () => {
    const [main, release] = [rev("main"), rev("release")];
    const rows = await control.land(w.known, "t1", { into: "release" });
    expect(rows).toEqual([landed("t1", "release", "merge", release, rev("release"))]);
    expect([rev("main"), rev("release") !== release]).toEqual([main, true]);
  });

  it("strategy squash: one commit with one parent on main", async () => {
    const main = rev("main");
    const rows = await control.land(w.known, "t2", { strategy: "squash" });
    const after = rev("main");
    expect(rows).toEqual([landed("t2", "main", "squash", main, after)]);
    expect(git(api(), "rev-list", "--parents", "-n", "1", after)).toBe(`${after} ${main}`);
  });
});

describe("TaskControl.land: the environment", () => {
  it("the land's hooks run with the environment the control was made with", async () => {
    const main = rev("main");
    const rows = await control.land(w.known, "t3", {});
    expect(rows).toEqual([landed("t3", "main", "merge", main, rev("main"))]);
    expect(readFileSync(join(w.ws, "landed-t3"), "utf8")).toBe("the server's environment");
  });
});
