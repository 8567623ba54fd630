/**
 * One agent, one place (issue 19, decision 0055): a task has one agent unless `--join`, a
 * checkout one detached agent unless `--shared`, a fan-out one task per source, a start failure
 * is immediate, and spawn without `--source` works in the source the user stands in.
 */
import { existsSync, mkdirSync, readdirSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { startFailureIsImmediate } from "./e2e/one_place_cases.ts";
import { type CliName, records, runAriel } from "./helpers/cli.ts";
import { git, removeDir, tempDir } from "./helpers/git.ts";
import {
  cleanUp,
  multiRepoWorkspace,
  readJson,
  runDir,
  runs,
  runsWorkspace,
  spawnD,
  startCli,
  startRun,
  TEST_ENV,
  until,
} from "./runs_helpers.ts";
import { REPORT } from "./spawn_helpers.ts";

afterEach(() => cleanUp());

describe("a start failure is immediate", () => {
  it("spawn --detach --isolate of a missing command: 127, the message, its clean worktree removed", async () => {
    await startFailureIsImmediate();
  });
});

describe("without --source, spawn and add work in the source the user stands in", () => {
  const inDir = (name: CliName, cwd: string, args: readonly string[]) =>
    runAriel(name, args, { cwd, env: TEST_ENV });

  it("spawn --detach --isolate --name from inside a repo of a multi-repo workspace", async () => {
    const root = multiRepoWorkspace(["api", "web"], undefined, { marked: true });
    mkdirSync(join(root, "api/src"));
    const r = await inDir("spawn", join(root, "api/src"), [
      "--detach",
      "--isolate",
      "--name",
      "fix-login",
      "--json",
      "--",
      ...REPORT,
    ]);
    expect([r.code, r.stderr]).toEqual([0, ""]);
    const [rec] = records(r.stdout);
    expect(rec).toMatchObject({ name: "fix-login", source: "api", branch: `ariel/${rec?.task}` });
    expect(rec?.task).toMatch(/^api-[a-z0-9]{6}$/);
    expect(rec?.cwd).toBe(join(root, ".ariel/worktrees", rec?.task as string, "api"));
    const w = await runs(root, ["wait", "fix-login"]);
    expect(w.code).toBe(0);
    const out = JSON.parse((await runs(root, ["logs", "fix-login"])).stdout);
    expect(out.env.ARIEL_SOURCE).toBe("api");
  });

  it("a foreground spawn runs in the source; from the workspace root, in the root", async () => {
    const root = multiRepoWorkspace(["api", "web"], undefined, { marked: true });
    const inWeb = await inDir("spawn", join(root, "web"), ["--", ...REPORT]);
    expect(inWeb.code).toBe(0);
    expect(JSON.parse(inWeb.stdout)).toMatchObject({ cwd: join(root, "web"), env: { ARIEL_SOURCE: "web" } });
    const atRoot = await inDir("spawn", root, ["--", ...REPORT]);
    expect(atRoot.code).toBe(0);
    expect(JSON.parse(atRoot.stdout)).toMatchObject({ cwd: root, env: { ARIEL_SOURCE: "." } });
    const isolatedAtRoot = await inDir("spawn", root, ["--isolate", "--", ...REPORT]);
    expect(isolatedAtRoot.code).toBe(66);
    expect(isolatedAtRoot.stderr).toContain(`workspace root ${root} is not a git checkout`);
  });

  it("ariel-worktree add without --source makes the leg of the source the cwd is in", async () => {
    const root = multiRepoWorkspace(["api", "web"], undefined, { marked: true });
    const r = await inDir("worktree", join(root, "web"), ["add", "--task", "t1", "--json"]);
    expect([r.code, r.stderr]).toEqual([0, ""]);
    const [task] = records(r.stdout);
    expect((task?.legs as { source: string }[] | undefined)?.map((l) => l.source)).toEqual(["web"]);
    const bare = await inDir("worktree", root, ["add", "--task", "t2"]);
    expect(bare.code).toBe(64);
    expect(bare.stderr).toContain("add needs at least one --source NAME");
  });
});

/** A command that runs until `<ctl>/go` exists (a directory outside the workspace). */
const waits = (ctl: string) => ["--", "sh", "-c", `while [ ! -e ${ctl}/go ]; do sleep 0.05; done`];
const control = () => {
  const d = tempDir("ariel-ctl-");
  ctls.push(d);
  return d;
};
const ctls: string[] = [];
afterEach(() => {
  for (const d of ctls.splice(0)) {
    writeFileSync(join(d, "go"), "");
    removeDir(d);
  }
});
/** The error record of a `--json` failure on stderr. */
const errorRecord = (stderr: string) => records(stderr).find((r) => r.type === "error");

describe("a task has one agent unless --join", () => {
  it("a detached run works in task fix-a: spawn --task fix-a (detached, -n, foreground) is ERR_TASK_IN_USE; --join shares it; add says who works in it", async () => {
    const root = runsWorkspace();
    const ctl = control();
    const first = await startRun(root, ["--isolate", "--task", "fix-a", "--name", "first", ...waits(ctl)]);
    const runId = first.runId as string;
    const refused = {
      v: 1,
      type: "error",
      code: "ERR_TASK_IN_USE",
      // A named run is named by its name (its id beside it in the message): decision 0108.
      message: `task "fix-a" is in use by run first (${runId}, running); nothing was started`,
      hint: "wait for it (ariel-runs wait first), use another --task, or pass --join to work in it too",
      exit: 75,
      task: "fix-a",
      runs: [runId],
    };
    for (const args of [
      ["--detach", "--isolate", "--task", "fix-a", "--json", "--", "true"],
      ["--detach", "-n", "--isolate", "--task", "fix-a", "--json", "--", "true"],
      ["-n", "--isolate", "--task", "fix-a", "--json", "--", "true"],
    ]) {
      const r = await runAriel("spawn", ["-C", root, ...args], { env: TEST_ENV });
      expect([r.code, errorRecord(r.stderr)], args.join(" ")).toEqual([75, refused]);
      expect(r.stdout).toBe("");
    }
    // A foreground run records its refusal in its history, as any failure.
    const fg = await runAriel("spawn", ["-C", root, "--isolate", "--task", "fix-a", "--json", "--", "true"]);
    expect([fg.code, errorRecord(fg.stderr)]).toEqual([75, { ...refused, history: expect.any(String) }]);
    expect(records(fg.stdout).map((e) => e.event)).toEqual(["run.started", "run.finished"]);
    expect((await runs(root, ["list", "--json"])).stdout.trim().split("\n")).toHaveLength(1);
    const ctl2 = control();
    const joined = await startRun(root, [
      "--isolate",
      "--task",
      "fix-a",
      "--join",
      "--name",
      "second",
      ...waits(ctl2),
    ]);
    expect(joined.cwd).toBe(first.cwd);
    const record = readJson(join(runDir(root, joined.runId as string), "run.json"));
    expect(record.isolate).toEqual({ onExit: "remove", created: false, joined: [runId] });
    const add = await runAriel("worktree", ["add", "-C", root, "--task", "fix-a", "--source", ".", "--json"]);
    expect(add.code).toBe(0);
    expect(records(add.stderr)).toEqual([
      {
        v: 1,
        type: "warning",
        code: "WARN_TASK_IN_USE",
        message: `task fix-a exists already and runs first (${runId}, running), second (${joined.runId}, running) work in it`,
        task: "fix-a",
        runs: [runId, joined.runId],
        hint: "its worktrees are shared with that run: ariel-runs wait first before changing them",
      },
    ]);
    // The first run ends while the joined one works on: its monitor keeps the shared worktree.
    writeFileSync(join(ctl, "go"), "");
    expect((await runs(root, ["wait", runId])).code).toBe(0);
    expect(readJson(join(runDir(root, runId), "run.json")).worktreeOutcome).toEqual({
      outcome: "kept",
      reason: "ERR_LEASE_HELD",
    });
    expect(existsSync(first.cwd as string)).toBe(true);
    writeFileSync(join(ctl2, "go"), "");
    expect((await runs(root, ["wait", joined.runId as string])).code).toBe(0);
    expect(existsSync(first.cwd as string)).toBe(true);
  });

  it("a foreground spawn holds task fg: a detached spawn --task fg, with --join too, is ERR_TASK_IN_USE naming its run and pid", async () => {
    const root = runsWorkspace();
    const ctl = control();
    const fg = startCli("spawn", ["-C", root, "--isolate", "--task", "fg", ...waits(ctl)]);
    const historyOf = () =>
      readdirSync(join(root, ".ariel/runs")).find(
        (f) =>
          f.endsWith(".ndjson") &&
          readFileSync(join(root, ".ariel/runs", f), "utf8").includes('"process.started"'),
      );
    await until(() => existsSync(join(root, ".ariel/runs")) && historyOf() !== undefined);
    const fgRun = (historyOf() as string).slice(0, -".ndjson".length);
    for (const args of [
      ["--detach", "--isolate", "--task", "fg", "--json", "--", "true"],
      ["--detach", "--isolate", "--task", "fg", "--join", "--json", "--", "true"],
      ["--detach", "-n", "--isolate", "--task", "fg", "--json", "--", "true"],
    ]) {
      const r = await runAriel("spawn", ["-C", root, ...args], { env: TEST_ENV });
      expect([r.code, errorRecord(r.stderr)], args.join(" ")).toEqual([
        75,
        {
          v: 1,
          type: "error",
          code: "ERR_TASK_IN_USE",
          message: `task "fg" is in use by run ${fgRun} (foreground ariel-spawn, pid ${fg.p.pid}); nothing was started`,
          hint: `wait for that ariel-spawn (pid ${fg.p.pid}) to end, or use another --task; a foreground run's task cannot be joined`,
          exit: 75,
          task: "fg",
          runs: [fgRun],
        },
      ]);
    }
    writeFileSync(join(ctl, "go"), "");
    expect(await fg.done).toBe(0);
    // No longer in use: the task is closed (its clean worktree removed), and says so.
    const after = await runAriel("spawn", ["-C", root, "--isolate", "--task", "fg", "--json", "--", "true"]);
    expect([after.code, errorRecord(after.stderr)?.code]).toEqual([3, "ERR_TASK_CONFLICT"]);
  });

  it("--join needs --task", async () => {
    const root = runsWorkspace();
    const r = await runAriel("spawn", ["-C", root, "--isolate", "--join", "--", "true"]);
    expect([r.code, r.stderr.split("\n")[0]]).toEqual([
      64,
      "ariel-spawn: error: --join needs --task: a generated task is new, nobody works in it [ERR_USAGE]",
    ]);
  });
});

describe("a checkout has one detached agent unless --shared", () => {
  it("says once that the run works in the checkout; a second detached run there is ERR_CHECKOUT_IN_USE (-n too); --shared and --isolate start", async () => {
    const root = runsWorkspace();
    const ctl = control();
    const first = await spawnD(root, ["--name", "a", ...waits(ctl)]);
    expect(first.code).toBe(0);
    expect(first.stderr).toBe(
      `ariel-spawn: the run works in the checkout ${root} itself, not in a worktree of its own (--isolate gives it one)\n`,
    );
    const runId = records((await runs(root, ["list", "--json"])).stdout)[0]?.runId as string;
    const refused = {
      v: 1,
      type: "error",
      code: "ERR_CHECKOUT_IN_USE",
      message: `the checkout ${root} is in use by detached run a (${runId}, running); nothing was started`,
      hint: "add --isolate for a worktree of its own, wait for it (ariel-runs wait a), or pass --shared to work there too",
      exit: 75,
      source: ".",
      path: root,
      runs: [runId],
    };
    for (const args of [["--json"], ["-n", "--json"]]) {
      const r = await spawnD(root, [...args, "--", "true"]);
      expect([r.code, errorRecord(r.stderr), r.stdout]).toEqual([75, refused, ""]);
    }
    const shared = await spawnD(root, ["--shared", "--json", "--", "true"]);
    expect(shared.code).toBe(0);
    const isolated = await spawnD(root, ["--isolate", "--json", "--", "true"]);
    expect(isolated.code).toBe(0);
    const usage = await spawnD(root, ["--shared", "--isolate", "--", "true"]);
    expect([usage.code, usage.stderr.split("\n")[0]]).toEqual([
      64,
      "ariel-spawn: error: --shared is for runs without --isolate [ERR_USAGE]",
    ]);
  });
});

describe("fan-out gives each source its own task", () => {
  const branches = (repo: string) =>
    git(repo, "branch", "--list", "ariel/*", "--format=%(refname:short)").trim();

  it("a detached fan-out: one task per source, named after it; git branch in web shows only web's", async () => {
    const root = multiRepoWorkspace(["api", "web"], undefined, { marked: true });
    const r = await spawnD(root, [
      "--isolate",
      "--source",
      "api",
      "--source",
      "web",
      "--name",
      "ag",
      "--json",
      "--",
      "true",
    ]);
    expect(r.code).toBe(0);
    const [api, web] = records(r.stdout);
    expect([api?.name, api?.task, web?.name, web?.task]).toEqual([
      "ag@api",
      expect.stringMatching(/^api-[a-z0-9]{6}$/),
      "ag@web",
      expect.stringMatching(/^web-[a-z0-9]{6}$/),
    ]);
    expect(web?.cwd).toBe(join(root, ".ariel/worktrees", web?.task as string, "web"));
    expect((await runs(root, ["wait", "ag@api"])).code).toBe(0);
    expect((await runs(root, ["wait", "ag@web"])).code).toBe(0);
    expect(branches(join(root, "web"))).toBe(`ariel/${web?.task}`);
    expect(branches(join(root, "api"))).toBe(`ariel/${api?.task}`);
  });

  it("--task P pins P-<source> for each; its dry run plans exactly the tasks and worktrees the run uses", async () => {
    const root = multiRepoWorkspace(["api", "web"], undefined, { marked: true });
    const args = ["--isolate", "--task", "fix", "--source", "api", "--source", "web", "--json", "--", "true"];
    const plan = await runAriel("spawn", ["-C", root, "-n", ...args]);
    expect(plan.code).toBe(0);
    const planned = records(plan.stdout).map((p) => [p.task, p.source, p.cwd, p.branch]);
    expect(planned).toEqual([
      ["fix-api", "api", join(root, ".ariel/worktrees/fix-api/api"), "ariel/fix-api"],
      ["fix-web", "web", join(root, ".ariel/worktrees/fix-web/web"), "ariel/fix-web"],
    ]);
    // The detached dry run names the same tasks and worktrees.
    const dplan = await spawnD(root, ["-n", ...args]);
    expect(records(dplan.stdout).map((p) => [p.task, p.source, p.cwd])).toEqual(
      planned.map((p) => p.slice(0, 3)),
    );
    const run = await runAriel("spawn", ["-C", root, ...args]);
    expect(run.code).toBe(0);
    const created = records(run.stdout).filter((e) => e.event === "worktree.created");
    expect(created.map((e) => [e.task, e.source, e.worktree, e.branch])).toEqual(planned);
    const started = records(run.stdout).filter((e) => e.event === "process.started");
    expect(started.map((e) => e.cwd)).toEqual(planned.map((p) => p[2]));
  });

  it("--span keeps one task over every source", async () => {
    const root = multiRepoWorkspace(["api", "web"], undefined, { marked: true });
    const r = await runAriel("spawn", [
      "-C",
      root,
      "-n",
      "--isolate",
      "--span",
      "--task",
      "both",
      "--source",
      "api",
      "--source",
      "web",
      "--json",
      "--",
      "true",
    ]);
    expect(records(r.stdout).map((p) => [p.task, p.source, p.sources, p.cwd])).toEqual([
      ["both", null, ["api", "web"], join(root, ".ariel/worktrees/both")],
    ]);
  });
});
