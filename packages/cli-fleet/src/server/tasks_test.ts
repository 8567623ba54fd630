import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { command as worktreeCommand } from "../../../cli-worktree/src/command.ts";
import { commitAll, git } from "../../../core/src/host/_fixture.ts";
import { runInProcess } from "../../../core/src/host/cli/_fixture.ts";
import { type FleetWorld, fleetWorld, json } from "./_app_fixture.ts";

// The task routes of the app in this process with the real TaskControl: a task's diff and its
// land (a merge into main; a conflict refused with 409 and nothing moved), on tasks made by
// ariel-worktree in this process. The served bundle is test/fleet-land.test.ts.

let w: FleetWorld;
const api = () => join(w.ws, "api");
const rev = (ref: string) => git(api(), "rev-parse", ref);

/** Task `task` over the source api, with one commit writing `file`. */
async function taskWithCommit(task: string, file: string, text: string): Promise<void> {
  const argv = ["-C", w.ws, "add", "--task", task, "--source", "api", "--no-hooks"];
  const r = await runInProcess(worktreeCommand, argv, { cwd: w.ws, env: { ARIEL_STATE_HOME: w.state } });
  expect([r.code, r.stderr]).toEqual([0, `ariel-worktree: made task ${task}\n`]);
  const leg = join(w.ws, ".ariel/worktrees", task, "api");
  writeFileSync(join(leg, file), text);
  commitAll(leg, `${task} work`);
}

beforeAll(async () => {
  w = await fleetWorld();
  await taskWithCommit("t1", "feature.txt", "one\ntwo\n");
  // t2 changes the README that main changes too: its land conflicts.
  await taskWithCommit("t2", "README.md", "t2's readme\n");
  writeFileSync(join(api(), "README.md"), "main's readme\n");
  commitAll(api(), "main moves on");
});
afterAll(() => w.dispose());

const path = (task: string, action: string) => `/api/workspaces/${w.known.hash}/tasks/${task}/${action}`;

describe("GET …/tasks/{task}/diff", () => {
  it("each leg: its branch, the commits ahead of its base and the files they change", async () => {
    const res = await json(await w.get(path("t1", "diff")));
    expect(res.status).toBe(200);
    const legs = res.body as Record<string, unknown>[];
    expect(legs).toHaveLength(1);
    expect(legs[0]).toEqual({
      v: 1,
      type: "diff",
      task: "t1",
      source: "api",
      branch: "ariel/t1",
      state: "active",
      base: rev("main~1"),
      head: rev("ariel/t1"),
      path: join(w.ws, ".ariel/worktrees/t1/api"),
      commits: [{ commit: rev("ariel/t1"), subject: "t1 work" }],
      files: [{ path: "feature.txt", status: "A", added: 2, deleted: 0 }],
      uncommitted: [],
    });
  });

  it("of an unknown task is 404", async () => {
    const res = await json(await w.get(path("nope", "diff")));
    expect(res).toMatchObject({ status: 404, body: { v: 1, type: "error", code: "ERR_TASK_NOT_FOUND" } });
  });
});

describe("POST …/tasks/{task}/land refused", () => {
  const bad = (message: string) => ({
    v: 1,
    type: "error",
    code: "ERR_INVALID_INPUT",
    message,
    hint: "see the API reference in docs/fleet.md",
    exit: 65,
  });

  it.each([
    ['{"strategy":"octopus"}', bad("strategy must be one of: ff, merge, squash, rebase")],
    ['{"strategy":1}', bad("strategy must be one of: ff, merge, squash, rebase")],
    ['{"into":5}', bad("into must be a branch name")],
  ])("%s is 400 and moves nothing", async (body, error) => {
    const before = rev("main");
    expect(await json(await w.post(path("t1", "land"), body))).toEqual({ status: 400, body: error });
    expect(rev("main")).toBe(before);
  });

  it("a cross-origin land is 403 and moves nothing", async () => {
    const before = rev("main");
    const res = await w.post(path("t1", "land"), "{}", { origin: "http://evil.example" });
    expect([res.status, rev("main")]).toEqual([403, before]);
  });

  it("a conflicting land is 409: the first refusal's record, every refusal in refusals, nothing moved", async () => {
    const [main, t2] = [rev("main"), rev("ariel/t2")];
    const res = await json(await w.post(path("t2", "land"), "{}"));
    const message = "api: ariel/t2 does not merge cleanly into main: README.md";
    const hint = `in ${join(w.ws, ".ariel/worktrees/t2/api")}: git merge main, resolve the conflicts and commit, then land again`;
    expect(res).toEqual({
      status: 409,
      body: {
        v: 1,
        type: "error",
        code: "ERR_LAND_CONFLICT",
        message,
        hint: `${hint}; nothing was changed`,
        exit: 3,
        task: "t2",
        source: "api",
        reason: "conflict",
        items: ["README.md"],
        refusals: [
          {
            source: "api",
            reason: "conflict",
            code: "ERR_LAND_CONFLICT",
            message,
            hint,
            items: ["README.md"],
          },
        ],
      },
    });
    expect([rev("main"), rev("ariel/t2")]).toEqual([main, t2]);
  });
});

describe("POST …/tasks/{task}/land that lands", () => {
  it("merges the task into main: a land record per leg; the task stays, landed", async () => {
    const [before, head] = [rev("main"), rev("ariel/t1")];
    const res = await json(await w.post(path("t1", "land"), '{"strategy":"merge"}'));
    const after = rev("main");
    expect(res).toEqual({
      status: 200,
      body: [
        {
          v: 1,
          type: "land",
          task: "t1",
          source: "api",
          branch: "ariel/t1",
          target: "main",
          strategy: "merge",
          outcome: "landed",
          from: before,
          to: after,
        },
      ],
    });
    expect(git(api(), "rev-parse", `${after}^1`, `${after}^2`)).toBe(`${before}\n${head}`);
    const tasks = (await json(await w.get(`/api/workspaces/${w.known.hash}/tasks`))).body as {
      taskId: string;
      state: string;
      land: { state: string };
    }[];
    const t1 = tasks.find((t) => t.taskId === "t1")!;
    expect([tasks.map((t) => t.taskId), t1.state, t1.land.state]).toEqual([["t1", "t2"], "active", "landed"]);
  });
});
