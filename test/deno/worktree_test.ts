// ariel-worktree end to end under Deno (from source): add, list --json, a refused remove (exit 3,
// nothing changed), a clean remove (branch kept), dry runs.
// Run: node_modules/.bin/deno test -A test/deno/worktree_test.ts
import assert from "node:assert/strict";
import { existsSync } from "node:fs";
import { join } from "node:path";
import {
  branches,
  errors,
  git,
  legPath,
  makeWorkspace,
  picture,
  records,
  removeDir,
  writeFile,
  wt,
} from "../worktree-fixtures.ts";

// Deno's global, declared for tsc (which checks this file with Node's types); Deno itself runs it.
declare const Deno: { test(name: string, fn: () => Promise<void>): void };

const run = (root: string, args: string[]) => wt(root, args, { runtime: "deno" });

Deno.test("worktree (deno): add, list, refused remove, clean remove", async () => {
  const root = makeWorkspace(["api", "web"]);
  try {
    const add = await run(root, ["add", "--task", "t1", "--source", "api", "--source", "web", "--json"]);
    assert.equal(add.stderr, "");
    assert.equal(add.code, 0);
    const [task] = records(add.stdout);
    assert.equal(task?.type, "task");
    assert.equal(task?.taskId, "t1");

    const list = await run(root, ["list", "--json"]);
    assert.equal(list.code, 0);
    assert.deepEqual(
      records(list.stdout).map((r) => [r.task, r.source, r.status, r.lockReason]),
      [
        ["t1", "api", "active", "ariel:t1"],
        ["t1", "web", "active", "ariel:t1"],
      ],
    );

    writeFile(join(legPath(root, "t1", "web"), "wip.txt"), "wip\n");
    const before = picture(root);
    const refused = await run(root, ["remove", "--task", "t1", "--json"]);
    assert.equal(refused.code, 3);
    assert.deepEqual(
      errors(refused.stderr).map((e) => [e.code, e.source]),
      [["ERR_DIRTY", "web"]],
    );
    assert.deepEqual(picture(root), before);

    const refs = branches(join(root, "api"));
    const removed = await run(root, ["remove", "--task", "t1", "--source", "api", "--json"]);
    assert.equal(removed.code, 0);
    assert.deepEqual(
      records(removed.stdout).map((r) => [r.type, r.source, r.outcome]),
      [["removal", "api", "removed"]],
    );
    assert.equal(existsSync(legPath(root, "t1", "api")), false);
    assert.equal(branches(join(root, "api")), refs);
  } finally {
    removeDir(root);
  }
});

Deno.test("worktree (deno): dry runs plan and change nothing", async () => {
  const root = makeWorkspace(["api"]);
  try {
    const before = picture(root);
    const plan = await run(root, [
      "add",
      "-n",
      "--detailed-exitcode",
      "--task",
      "t1",
      "--source",
      "api",
      "--json",
    ]);
    assert.equal(plan.code, 2);
    assert.deepEqual(
      records(plan.stdout).map((r) => [r.type, r.action, r.source]),
      [["plan", "worktree.add", "api"]],
    );
    assert.deepEqual(picture(root), before);
    assert.equal((await run(root, ["add", "--task", "t1", "--source", "api"])).code, 0);
    const rm = await run(root, ["remove", "-n", "--detailed-exitcode", "--task", "t1"]);
    assert.equal(rm.code, 2);
    assert.equal(rm.stdout, `remove\tt1\tapi\tno\t${legPath(root, "t1", "api")}\n`);
    assert.equal(existsSync(legPath(root, "t1", "api")), true);
  } finally {
    removeDir(root);
  }
});

Deno.test("worktree (deno): a conflict in one leg lands nothing; hook claude prints only the path", async () => {
  const root = makeWorkspace(["api", "web"]);
  try {
    for (const s of ["api", "web"]) git(join(root, s), "checkout", "-q", "--", ".mcp.json"); // clean targets
    assert.equal((await run(root, ["add", "--task", "t1", "--source", "api", "--source", "web"])).code, 0);
    for (const s of ["api", "web"]) {
      writeFile(join(legPath(root, "t1", s), "README.md"), `# ${s} landed\n`);
      git(legPath(root, "t1", s), "commit", "-qam", `work in ${s}`);
    }
    writeFile(join(root, "web/README.md"), "# web elsewhere\n");
    git(join(root, "web"), "commit", "-qam", "meanwhile");
    const before = branches(join(root, "api"));
    const refused = await run(root, ["land", "--task", "t1", "--json"]);
    assert.equal(refused.code, 3);
    assert.deepEqual(
      errors(refused.stderr).map((e) => [e.code, e.source, e.items]),
      [["ERR_LAND_CONFLICT", "web", ["README.md"]]],
    );
    assert.equal(branches(join(root, "api")), before);
    const plan = await run(root, ["land", "--task", "t1", "-n", "--strategy", "ff"]);
    assert.equal(plan.code, 3); // web cannot fast-forward either

    const input = JSON.stringify({
      hook_event_name: "WorktreeCreate",
      name: "agent-1",
      cwd: join(root, "api"),
    });
    const created = await wt(root, ["hook", "claude"], { runtime: "deno", input });
    assert.equal(created.code, 0);
    assert.equal(created.stdout, `${legPath(root, "agent-1", "api")}\n`);
  } finally {
    removeDir(root);
  }
});
