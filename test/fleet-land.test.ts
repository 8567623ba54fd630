/**
 * ariel-fleet serve's task routes against a real server over a real workspace: a task's legs with
 * their commits ahead and files changed (`ariel-worktree diff`'s numbers), and the land (as
 * `ariel-worktree land`): it moves the target, a refused one is 409 and moves nothing, and it is
 * guarded like every mutation.
 */
import { readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { Ajv2020 } from "ajv/dist/2020.js";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { register, type Server, serve, stateHome, workspace } from "./fleet_helpers.ts";
import { REPO_ROOT } from "./helpers/cli.ts";
import { commitAll, GIT_TEST_ENV, git, removeDir } from "./helpers/git.ts";
import { wt } from "./worktree-fixtures.ts";

let state: { dir: string; env: Record<string, string> };
let root: string;
let hash: string;
let server: Server;

const api = () => join(root, "api");
const main = () => git(api(), "rev-parse", "main");

async function post(path: string, body: string, headers: Record<string, string> = {}) {
  const res = await fetch(`${server.url}${path.replace(/^\//, "")}`, {
    method: "POST",
    body,
    headers: { "content-type": "application/json", ...headers },
  });
  return { status: res.status, body: JSON.parse(await res.text()) };
}

async function get(path: string) {
  const res = await fetch(`${server.url}${path.replace(/^\//, "")}`);
  return { status: res.status, body: JSON.parse(await res.text()) };
}

/** Task `task` over api with one commit writing `file`. */
async function taskWithCommit(task: string, file: string, text: string): Promise<void> {
  const r = await wt(root, ["add", "--source", "api", "--task", task, "--no-hooks"], { env: state.env });
  expect(r.code, r.stderr).toBe(0);
  const leg = join(root, ".ariel/worktrees", task, "api");
  writeFileSync(join(leg, file), text);
  commitAll(leg, `${task} work`);
}

beforeAll(async () => {
  state = stateHome();
  root = workspace(["api"]);
  hash = await register(state.dir, root);
  await taskWithCommit("t1", "feature.txt", "one\ntwo\n");
  // t2 changes the README that main changes too: its land conflicts.
  await taskWithCommit("t2", "README.md", "t2's readme\n");
  writeFileSync(join(api(), "README.md"), "main's readme\n");
  commitAll(api(), "main moves on");
  server = await serve([], { ...GIT_TEST_ENV, ...state.env });
});

afterAll(async () => {
  await server?.stop();
  for (const d of [state.dir, root]) removeDir(d);
});

describe("task routes", () => {
  it("GET …/tasks/{task}/diff: each leg's source, branch, commits ahead and files changed", async () => {
    const { status, body } = await get(`/api/workspaces/${hash}/tasks/t1/diff`);
    expect(status).toBe(200);
    expect(body).toHaveLength(1);
    const [leg] = body;
    expect(leg).toMatchObject({
      v: 1,
      type: "diff",
      task: "t1",
      source: "api",
      branch: "ariel/t1",
      state: "active",
      files: [{ path: "feature.txt", status: "A", added: 2, deleted: 0 }],
      uncommitted: [],
    });
    expect(leg.commits.map((c: { subject: string }) => c.subject)).toEqual(["t1 work"]);
    expect(leg.head).toBe(git(api(), "rev-parse", "ariel/t1"));
    expect((await get(`/api/workspaces/${hash}/tasks/nope/diff`)).body.code).toBe("ERR_TASK_NOT_FOUND");
    expect((await get(`/api/workspaces/${hash}/tasks/nope/diff`)).status).toBe(404);
  });

  it("a cross-origin land is refused (403) and moves nothing", async () => {
    const before = main();
    const r = await post(`/api/workspaces/${hash}/tasks/t1/land`, "{}", { origin: "http://evil.example" });
    expect(r.status).toBe(403);
    expect(main()).toBe(before);
  });

  it("a bad body is 400 and moves nothing", async () => {
    const before = main();
    const r = await post(`/api/workspaces/${hash}/tasks/t1/land`, '{"strategy":"octopus"}');
    expect([r.status, r.body.code]).toEqual([400, "ERR_INVALID_INPUT"]);
    expect(main()).toBe(before);
  });

  it("a conflicting land is 409 with the CLI's error record and moves nothing", async () => {
    const before = main();
    const t2 = git(api(), "rev-parse", "ariel/t2");
    const r = await post(`/api/workspaces/${hash}/tasks/t2/land`, "{}");
    expect(r.status).toBe(409);
    expect(r.body).toMatchObject({
      v: 1,
      type: "error",
      code: "ERR_LAND_CONFLICT",
      exit: 3,
      task: "t2",
      source: "api",
      reason: "conflict",
      items: ["README.md"],
    });
    expect(r.body.hint).toMatch(
      /^in .*: git merge main, resolve the conflicts and commit, then land again; nothing was changed$/,
    );
    // Every refusal of every leg, in one answer (here the one).
    expect(r.body.refusals).toEqual([
      {
        source: "api",
        reason: "conflict",
        code: "ERR_LAND_CONFLICT",
        message: r.body.message,
        hint: r.body.hint.replace(/; nothing was changed$/, ""),
        items: ["README.md"],
      },
    ]);
    const errorSchema = JSON.parse(readFileSync(join(REPO_ROOT, "docs/schema/error.schema.json"), "utf8"));
    const validate = new Ajv2020({ strict: false }).compile(errorSchema);
    expect([validate(r.body), validate.errors ?? null]).toEqual([true, null]);
    expect([main(), git(api(), "rev-parse", "ariel/t2")]).toEqual([before, t2]);
  });

  it("POST …/tasks/{task}/land merges the task into main", async () => {
    const before = main();
    const head = git(api(), "rev-parse", "ariel/t1");
    const r = await post(`/api/workspaces/${hash}/tasks/t1/land`, '{"strategy":"merge"}');
    expect(r.status).toBe(200);
    const after = main();
    expect(r.body).toEqual([
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
    ]);
    expect(git(api(), "rev-parse", `${after}^1`, `${after}^2`)).toBe(`${before}\n${head}`);
    const [task] = (await get(`/api/workspaces/${hash}/tasks`)).body.filter(
      (t: { taskId: string }) => t.taskId === "t1",
    );
    expect(task.land.state).toBe("landed");
    expect(task.state).toBe("active");
  });
});
