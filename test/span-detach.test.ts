/**
 * One agent over a task of several repositories, in the background (issue 32; docs/runs.md,
 * "A task of several repositories"): `ariel-spawn --detach --tty --isolate --span` over two real
 * repositories. The fake agent commits in both legs, asks on its terminal, is answered with
 * `ariel-runs send`, commits again; while it lives its task is held (remove, land --remove, gc
 * refuse or skip it, changing nothing); `-C` in the task directory acts on the owning workspace;
 * the list, the fleet and the run record show the task and every leg; its task lands all or none.
 */
import { existsSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { serve } from "./fleet_helpers.ts";
import { REPO_ROOT, records, runAriel, testStateHome } from "./helpers/cli.ts";
import { commitAll, GIT_TEST_ENV, git, writeFile } from "./helpers/git.ts";
import {
  cleanUp,
  finishedHistory,
  multiRepoWorkspace,
  readJson,
  runDir,
  runs,
  spawnD,
  TEST_ENV,
  until,
} from "./runs_helpers.ts";
import { gitState, picture } from "./worktree-fixtures.ts";

afterEach(cleanUp);

const AGENT = join(REPO_ROOT, "test/fixtures/span-agent.sh");
/** The agent commits: git's identity travels to it in the run's environment. */
const ENV = { ...TEST_ENV, ...GIT_TEST_ENV };

function worktree(root: string, args: readonly string[], env: Record<string, string> = {}) {
  const [cmd, ...rest] = args;
  return runAriel("worktree", [cmd ?? "", "-C", root, ...rest], { env: { ...ENV, ...env } });
}

/** Start the agent over api and web as task `task`, named `agent`; its `run` record. */
async function startAgent(root: string, task: string, extra: readonly string[] = [], env = {}) {
  const r = await spawnD(
    root,
    [
      "--json",
      "--tty",
      "--isolate",
      "--span",
      "--task",
      task,
      "--source",
      "api",
      "--source",
      "web",
      "--name",
      "agent",
      ...extra,
      "--",
      "sh",
      AGENT,
    ],
    { env: { ...ENV, ...env } },
  );
  expect(r.code, r.stderr).toBe(0);
  return records(r.stdout)[0] as Record<string, unknown>;
}

/** Until `ariel-runs list --state waiting` lists the run (the generic rule read its question). */
async function untilWaiting(root: string, runId: string): Promise<void> {
  const waiting = async () =>
    records((await runs(root, ["list", "--state", "waiting", "--json"])).stdout).some(
      (r) => r.runId === runId,
    );
  const end = Date.now() + 30_000;
  while (!(await waiting())) {
    if (Date.now() > end) throw new Error(`run ${runId} never read waiting`);
    await new Promise((r) => setTimeout(r, 200));
  }
}

/** What a removal of the task must leave alone: its worktrees, its record, both repositories. */
function taskPicture(root: string) {
  return {
    worktrees: picture(join(root, ".ariel/worktrees")),
    tasks: picture(join(root, ".ariel/tasks")),
    api: gitState(join(root, "api"), join(root, ".ariel/worktrees/login/api")),
    web: gitState(join(root, "web"), join(root, ".ariel/worktrees/login/web")),
  };
}

describe("a detached --span run over two repositories", () => {
  it("asks, is answered, commits in both legs; held while it lives; -C in its task acts on the workspace; lands all or none", async () => {
    const root = multiRepoWorkspace(["api", "web"], undefined, { marked: true });
    const taskDir = join(root, ".ariel/worktrees/login");
    const rec = await startAgent(root, "login");
    const runId = rec.runId as string;
    const legs = ["api", "web"].map((s) => ({
      source: s,
      worktree: join(taskDir, s),
      branch: "ariel/login",
    }));
    expect(rec).toMatchObject({
      name: "agent",
      source: null,
      task: "login",
      cwd: taskDir,
      worktree: taskDir,
      branch: "ariel/login",
      legs,
      isolate: { onExit: "remove", created: true },
      agent: "generic",
    });

    // It asks: a home-made agent at its question reads waiting (the generic rule).
    await untilWaiting(root, runId);
    const row = (await runs(root, ["list"])).stdout.trim().split("\t");
    expect([row[0], row[1], row[3], row[4], row[5], row[10]]).toEqual([
      runId,
      "agent",
      "running",
      "waiting",
      "-",
      "login:api,web",
    ]);

    // --source and --task find it by any of its legs, and by its task.
    for (const filter of [
      ["--source", "web"],
      ["--source", "api"],
      ["--task", "login"],
    ]) {
      const f = await runs(root, ["list", "--json", ...filter]);
      expect(records(f.stdout).map((x) => x.runId)).toEqual([runId]);
    }
    expect((await runs(root, ["list", "--json", "--source", "docs"])).stdout).toBe("");

    // While it lives, its task is held: remove, remove --snapshot, land --remove refuse (75) and change nothing.
    const before = taskPicture(root);
    const refusal =
      `ariel-worktree: error: task "login" is in use by run agent (${runId}, running in the task's directory, every leg); nothing was removed [ERR_LEASE_HELD]\n` +
      "ariel-worktree: hint: wait for it (ariel-runs wait agent) or stop it (ariel-runs kill agent), then retry\n";
    for (const args of [
      ["remove", "--task", "login"],
      ["remove", "--task", "login", "--snapshot"],
      ["remove", "--task", "login", "--source", "web"],
      ["land", "--task", "login", "--remove"],
    ]) {
      const r = await worktree(root, args);
      expect([args.join(" "), r.code, r.stdout, r.stderr]).toEqual([args.join(" "), 75, "", refusal]);
    }
    const gc = await worktree(root, ["gc", "--older-than", "0s", "--state", "active", "--json"]);
    expect(records(gc.stdout).filter((x) => x.task === "login")).toEqual([
      { v: 1, type: "gc.skip", task: "login", reason: "running", detail: runId },
    ]);
    expect(taskPicture(root)).toEqual(before);

    // -C in the task directory (or a leg) acts on the workspace that owns it, and says so.
    for (const dir of [taskDir, join(taskDir, "web")]) {
      const l = await runs(dir, ["list", "--json"]);
      expect(records(l.stdout).map((x) => x.runId)).toEqual([runId]);
      expect(records(l.stderr)).toEqual([
        {
          v: 1,
          type: "warning",
          code: "WARN_TASK_DIR",
          message: `-C "${dir}" is in the directory of task "login", which is never a workspace; acting on the workspace "${root}" that owns it`,
          hint: `name the workspace itself: -C ${root}`,
          path: dir,
          task: "login",
          root,
        },
      ]);
    }
    expect(existsSync(join(taskDir, ".ariel"))).toBe(false);
    const inTask = await worktree(taskDir, ["remove", "--task", "login"]);
    expect([inTask.code, inTask.stderr.split("\n").slice(0, 2)]).toEqual([
      75,
      [
        `ariel-worktree: warning: -C "${taskDir}" is in the directory of task "login", which is never a workspace; acting on the workspace "${root}" that owns it`,
        `ariel-worktree: hint: name the workspace itself: -C ${root}`,
      ],
    ]);
    expect(existsSync(join(taskDir, ".ariel"))).toBe(false);
    expect(taskPicture(root)).toEqual(before);

    // Answered with send, it commits in both legs and ends; its clean legs are removed.
    const sent = await runs(root, ["send", "agent", "y", "--enter"]);
    expect(sent.code, sent.stderr).toBe(0);
    const w = await runs(root, ["wait", "agent"], { timeoutMs: 60_000 });
    expect([w.code, w.stderr]).toEqual([0, "ariel-runs: 1 run: 1 exited\n"]);
    const history = await finishedHistory(root, runId);
    expect(
      history
        .filter((e) => String(e.event).startsWith("worktree."))
        .map((e) => [e.event, e.source, e.worktree]),
    ).toEqual(legs.map((l) => ["worktree.removed", l.source, l.worktree]));
    expect(history[0]).toMatchObject({ event: "run.started", targets: ["api", "web"], task: "login", legs });
    expect(readJson(join(runDir(root, runId), "run.json")).worktreeOutcome).toEqual({
      outcome: "removed",
      reason: null,
      legs: [
        { source: "api", outcome: "removed", reason: null },
        { source: "web", outcome: "removed", reason: null },
      ],
    });
    for (const s of ["api", "web"]) {
      expect(git(join(root, s), "log", "--format=%s", "ariel/login")).toBe(`answer: y\nlogin: ${s}\ninitial`);
    }

    // The fleet shows the run with its task and every leg.
    const events = await runAriel(
      "fleet",
      ["events", "--workspace", root, "--since", "2000-01-01T00:00:00Z", "--json"],
      {
        env: ENV,
      },
    );
    const started = records(events.stdout).find((e) => e.runId === runId && e.event === "run.started");
    expect(started).toMatchObject({ targets: ["api", "web"], task: "login", legs });

    // Its task lands all or none: a conflict in web lands nothing in api either.
    writeFile(join(root, "web/login.txt"), "someone else's login\n");
    commitAll(join(root, "web"), "meanwhile on main");
    const mains = () => ["api", "web"].map((s) => git(join(root, s), "rev-parse", "main"));
    const held = mains();
    const refused = await worktree(root, ["land", "--task", "login"]);
    expect(refused.code).toBe(3);
    expect(refused.stderr).toContain(
      "ariel-worktree: hint: bring the leg back first: ariel-worktree restore --task login --source web; then in its worktree git merge main, resolve the conflicts and commit, and land again; nothing was changed\n",
    );
    expect(mains()).toEqual(held);
    git(join(root, "web"), "reset", "--hard", "HEAD~1");
    const landed = await worktree(root, ["land", "--task", "login", "--json"]);
    expect(landed.code, landed.stderr).toBe(0);
    expect(records(landed.stdout).map((x) => [x.source, x.outcome])).toEqual([
      ["api", "landed"],
      ["web", "landed"],
    ]);
    for (const s of ["api", "web"]) expect(git(join(root, s), "show", "main:answer.txt")).toBe("y");
  });

  it("keeps a dirty leg and removes the clean one, and says which, with the command for it", async () => {
    const root = multiRepoWorkspace(["api", "web"], undefined, { marked: true });
    const rec = await startAgent(root, "wip", [], { SPAN_AGENT_DIRTY: "web" });
    const runId = rec.runId as string;
    await untilWaiting(root, runId);
    await runs(root, ["send", "agent", "n", "--enter"]);
    const w = await runs(root, ["wait", "agent"], { timeoutMs: 60_000 });
    expect([w.code, w.stderr]).toEqual([
      0,
      `ariel-runs: 1 run: 1 exited; kept agent (dirty): ariel-worktree remove -C ${root} --task wip --source web --snapshot\n`,
    ]);
    expect(readJson(join(runDir(root, runId), "run.json")).worktreeOutcome).toEqual({
      outcome: "kept",
      reason: "dirty",
      legs: [
        { source: "api", outcome: "removed", reason: null },
        { source: "web", outcome: "kept", reason: "dirty" },
      ],
    });
    const taskDir = join(root, ".ariel/worktrees/wip");
    expect([existsSync(join(taskDir, "api")), readFileSync(join(taskDir, "web/wip.txt"), "utf8")]).toEqual([
      false,
      "work in progress\n",
    ]);
    // Listed while the kept leg is on disk, its worktree cell naming the leg kept.
    const l = await runs(root, ["list"]);
    expect(l.stdout.trim().split("\t").slice(8, 11)).toEqual([
      "kept web (dirty)",
      `sh ${AGENT}`,
      "wip:api,web",
    ]);
    expect(l.stderr).toBe(
      `ariel-runs: agent kept its worktree (dirty): ariel-worktree remove -C ${root} --task wip --source web --snapshot\n`,
    );

    // respawn brings the removed leg back and starts again in the task directory, under a new id.
    const re = await runs(root, ["respawn", "agent", "--json"], { env: ENV });
    expect(re.code, re.stderr).toBe(0);
    const fresh = records(re.stdout).find((x) => x.runId !== runId)!;
    expect(fresh).toMatchObject({ respawnOf: runId, cwd: taskDir, task: "wip", legs: rec.legs });
    expect([existsSync(join(taskDir, "api/login.txt")), existsSync(join(taskDir, "web/wip.txt"))]).toEqual([
      true,
      true,
    ]);
    await runs(root, ["kill", fresh.runId as string]);
  });

  it("respawn --resume brings every leg back and starts the agent's resume form in the task directory", async () => {
    const root = multiRepoWorkspace(["api", "web"], undefined, { marked: true });
    const rec = await startAgent(root, "again", ["--agent", "claude"]);
    const taskDir = join(root, ".ariel/worktrees/again");
    await until(() => existsSync(join(taskDir, "web/login.txt")), 30_000);
    const k = await runs(root, ["kill", "agent"]);
    expect(k.code, k.stderr).toBe(0);
    await runs(root, ["wait", "agent"]);
    // Both legs were clean (their work committed): the monitor removed them.
    expect(["api", "web"].map((s) => existsSync(join(taskDir, s)))).toEqual([false, false]);
    const re = await runs(root, ["respawn", "--resume", "agent", "--json"], { env: ENV });
    expect(re.code, re.stderr).toBe(0);
    const fresh = records(re.stdout).find((x) => x.runId !== rec.runId)!;
    expect(fresh).toMatchObject({
      respawnOf: rec.runId,
      argv: ["sh", AGENT, "--continue"],
      cwd: taskDir,
      task: "again",
      legs: rec.legs,
      agent: "claude",
    });
    expect(["api", "web"].map((s) => existsSync(join(taskDir, s, "login.txt")))).toEqual([true, true]);
    await runs(root, ["kill", fresh.runId as string]);
  });

  it("--task naming an existing task of several legs is a --span run in it; -C in it is that task", async () => {
    const root = multiRepoWorkspace(["api", "web"], undefined, { marked: true });
    const add = await worktree(root, ["add", "--task", "t2", "--source", "api", "--source", "web"]);
    expect(add.code, add.stderr).toBe(0);
    const taskDir = join(root, ".ariel/worktrees/t2");
    const r = await spawnD(root, ["--json", "--isolate", "--task", "t2", "--", "sleep", "30"], { env: ENV });
    expect(r.code, r.stderr).toBe(0);
    const [rec] = records(r.stdout);
    expect(rec).toMatchObject({
      source: null,
      task: "t2",
      cwd: taskDir,
      legs: ["api", "web"].map((s) => ({ source: s, worktree: join(taskDir, s), branch: "ariel/t2" })),
      isolate: { onExit: "remove", created: false },
    });
    // A second run is refused (one agent, one place); -C in the task directory means the task.
    const again = await spawnD(taskDir, ["--", "true"], { env: ENV });
    expect(again.code).toBe(75);
    expect(again.stderr).toContain(
      `ariel-spawn: error: task "t2" is in use by run ${rec!.runId} (running); nothing was started [ERR_TASK_IN_USE]\n`,
    );
    expect(again.stderr).toContain(
      `ariel-spawn: hint: wait for it (ariel-runs wait ${rec!.runId}), use another --task, or pass --join to work in it too\n`,
    );
    expect(existsSync(join(taskDir, ".ariel"))).toBe(false);
    await runs(root, ["kill", rec!.runId as string]);
  });

  it("the fleet's run view names the task and every leg", async () => {
    const root = multiRepoWorkspace(["api", "web"], undefined, { marked: true });
    const rec = await startAgent(root, "fleet");
    const server = await serve(["--workspace", root], { ...ENV, ARIEL_STATE_HOME: testStateHome() });
    try {
      const res = await fetch(`${server.url}api/runs/${rec.runId}`);
      expect(res.status).toBe(200);
      const view = (await res.json()) as Record<string, unknown>;
      expect(view).toMatchObject({ sources: ["api", "web"], task: "fleet", legs: rec.legs });
    } finally {
      await server.stop();
    }
    await runs(root, ["kill", "agent"]);
  });
});
