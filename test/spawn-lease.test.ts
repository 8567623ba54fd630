/**
 * Nothing acts on a worktree while an ariel command runs in it (issue 11, decision 0054): a
 * foreground `ariel-spawn --isolate` holds its task's lease for the whole run, a detached one is
 * found at work by its run record; `gc` skips such a task, `remove` (and `remove -n`) refuses it
 * (ERR_LEASE_HELD, exit 75), and once the run has ended gc takes it as before. A foreground run that loses its
 * lease (stopped past the lease's time to live) leaves its worktrees alone and exits 75.
 */
import { existsSync, readFileSync, writeFileSync } from "node:fs";
import { hostname } from "node:os";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { arielIn, records } from "./helpers/cli.ts";
import { git, gitRaw, initRepo, removeDir, tempDir } from "./helpers/git.ts";
import {
  cleanUp,
  finishedHistory,
  inUseError,
  NODE,
  readJson,
  runs,
  runsWorkspace,
  spawnD,
  startCli,
  startRun,
  until,
} from "./runs_helpers.ts";
import { readNdjson, runFiles, workspace } from "./spawn_helpers.ts";

const dirs: string[] = [];
afterEach(() => {
  cleanUp();
  for (const d of dirs.splice(0)) removeDir(d);
});
/** A directory outside the workspace where children say they started and wait to be let go. */
const control = () => {
  const d = tempDir("ariel-ctl-");
  dirs.push(d);
  return d;
};

/**
 * argv of a child that writes `started.txt` in its cwd (so its worktree holds local work), says
 * so in `<ctl>/<source>.started`, waits for `<ctl>/go`, then writes `done.txt` in its cwd.
 */
const waiter = (ctl: string) => [
  NODE,
  "-e",
  `const fs=require('fs'),s=process.env.ARIEL_SOURCE;fs.writeFileSync('started.txt',s);` +
    `fs.writeFileSync(${JSON.stringify(ctl)}+'/'+s+'.started','');` +
    `const t=setInterval(()=>{if(fs.existsSync(${JSON.stringify(`${ctl}/go`)})){clearInterval(t);fs.writeFileSync('done.txt',s)}},20)`,
];
const started = (ctl: string, source: string) => existsSync(join(ctl, `${source}.started`));
const go = (ctl: string) => writeFileSync(join(ctl, "go"), "");
const leg = (root: string, task: string, source: string) => join(root, ".ariel/worktrees", task, source);
const wt = (root: string, args: readonly string[]) => arielIn("worktree", root, args);
const errorOf = (stderr: string) =>
  records(
    stderr
      .split("\n")
      .filter((l) => l.startsWith("{"))
      .join("\n"),
  ).find((r) => r.type === "error");
const OWNER = { ARIEL_OWNER: "spawner" };

/** Start detached runs (one per target) and return their `run` records. */
async function startRunsOf(root: string, args: readonly string[]): Promise<Record<string, unknown>[]> {
  const r = await spawnD(root, ["--json", ...args]);
  if (r.code !== 0) throw new Error(`spawn --detach failed (${r.code}): ${r.stderr}`);
  return records(r.stdout);
}

describe("a foreground ariel-spawn --isolate holds its task's lease while its commands run", () => {
  it("gc skips the task (leased), remove --snapshot is ERR_LEASE_HELD; both commands finish in their worktrees; then gc takes it", async () => {
    const root = workspace(["api", "web"]);
    dirs.push(root);
    const ctl = control();
    const cli = startCli(
      "spawn",
      [
        "-C",
        root,
        "--source",
        "api",
        "--source",
        "web",
        "-j",
        "2",
        "--isolate",
        "--task",
        "t1",
        "--json",
        "--",
        ...waiter(ctl),
      ],
      OWNER,
    );
    await until(() => started(ctl, "api") && started(ctl, "web"));

    const gc = await wt(root, ["gc", "--state", "active", "--older-than", "0", "--json"]);
    expect(gc.code).toBe(0);
    // A fan-out makes one task per source (t1-api, t1-web) and holds both leases.
    expect(records(gc.stdout)).toEqual([
      { v: 1, type: "gc.skip", task: "t1-api", reason: "leased" },
      { v: 1, type: "gc.skip", task: "t1-web", reason: "leased" },
    ]);

    const rm = await wt(root, ["remove", "--task", "t1-web", "--snapshot", "--json"]);
    expect(rm.code).toBe(75);
    expect(rm.stdout).toBe("");
    const lease = readJson(join(root, ".ariel/leases/t1-web.json"));
    expect(lease).toMatchObject({ owner: "spawner", pid: cli.p.pid });
    expect(errorOf(rm.stderr)).toMatchObject({
      code: "ERR_LEASE_HELD",
      exit: 75,
      message: `task t1-web is leased by spawner (pid ${cli.p.pid} on ${hostname()}) until ${lease.expiresAt}`,
      hint: "another ariel process is working on this task; retry shortly",
    });
    for (const s of ["api", "web"]) {
      expect(readFileSync(join(leg(root, `t1-${s}`, s), "started.txt"), "utf8")).toBe(s);
      expect(
        gitRaw(join(root, s), "rev-parse", "--verify", "--quiet", `refs/ariel/snapshots/t1-${s}/${s}`).code,
      ).toBe(1);
    }

    go(ctl);
    expect(await cli.done).toBe(0);
    const events = records(cli.io.out);
    expect(events.filter((e) => e.event === "process.exited").map((e) => [e.source, e.status])).toEqual(
      expect.arrayContaining([
        ["api", 0],
        ["web", 0],
      ]),
    );
    // Each command wrote in its own worktree, which holds that work now: kept (dirty).
    expect(
      events.filter((e) => e.event?.toString().startsWith("worktree.k")).map((e) => [e.source, e.reason]),
    ).toEqual(
      expect.arrayContaining([
        ["api", "dirty"],
        ["web", "dirty"],
      ]),
    );
    for (const s of ["api", "web"]) {
      expect(readFileSync(join(leg(root, `t1-${s}`, s), "done.txt"), "utf8")).toBe(s);
      // The leases were let go at the end of the run.
      expect(Date.parse(readJson(join(root, `.ariel/leases/t1-${s}.json`)).expiresAt)).toBeLessThanOrEqual(
        Date.now(),
      );
    }

    const after = await wt(root, ["gc", "--state", "active", "--older-than", "0", "--json"]);
    expect(after.code).toBe(0);
    const done = records(after.stdout).filter((r) => r.action === "gc.task.remove");
    expect(
      done.map((d) => [d.task, d.outcome, (d.snapshots as { source: string }[]).map((x) => x.source)]),
    ).toEqual([
      ["t1-api", "done", ["api"]],
      ["t1-web", "done", ["web"]],
    ]);
    expect(existsSync(leg(root, "t1-api", "api"))).toBe(false);
    expect(git(join(root, "api"), "show", "refs/ariel/snapshots/t1-api/api:done.txt")).toBe("api");
  });

  it("stopped past its lease and taken over by gc: leaves the worktree to the new holder, keeps it untouched, exits 75 ERR_FENCED", async () => {
    const root = workspace(["api"]);
    dirs.push(root);
    writeFileSync(join(root, "ariel.config.json"), JSON.stringify({ leaseTtlMs: 1000 }));
    const ctl = control();
    const cli = startCli(
      "spawn",
      ["-C", root, "--source", "api", "--isolate", "--task", "t1", "--json", "--", ...waiter(ctl)],
      OWNER,
    );
    await until(() => started(ctl, "api"));
    process.kill(cli.p.pid!, "SIGSTOP");
    try {
      const leasePath = join(root, ".ariel/leases/t1.json");
      const token = readJson(leasePath).token as number;
      await until(() => Date.parse(readJson(leasePath).expiresAt) < Date.now());
      const gc = await wt(root, ["gc", "--state", "active", "--older-than", "0", "--json"]);
      expect(gc.code).toBe(0);
      expect(records(gc.stdout)).toMatchObject([{ action: "gc.task.remove", task: "t1", outcome: "done" }]);
      expect(readJson(leasePath).token).toBe(token + 1);
    } finally {
      process.kill(cli.p.pid!, "SIGCONT");
    }
    const record = readFileSync(join(root, ".ariel/tasks/t1.json"), "utf8");
    go(ctl);
    expect(await cli.done).toBe(75);
    expect(errorOf(cli.io.err)).toMatchObject({ code: "ERR_FENCED", exit: 75, task: "t1" });
    const events = records(cli.io.out);
    expect(events.find((e) => e.event === "worktree.kept")).toMatchObject({
      source: "api",
      reason: "ERR_FENCED",
    });
    expect(events.at(-1)).toMatchObject({
      event: "run.finished",
      summary: { exit: 75 },
      error: { code: "ERR_FENCED" },
    });
    // The record is as gc left it (snapshotted), and the snapshot holds the command's first write.
    expect(readFileSync(join(root, ".ariel/tasks/t1.json"), "utf8")).toBe(record);
    expect(JSON.parse(record).legs[0].state).toBe("snapshotted");
    expect(git(join(root, "api"), "show", "refs/ariel/snapshots/t1/api:started.txt")).toBe("api");
    const history = readNdjson(runFiles(root).find((f) => f.endsWith(".ndjson"))!);
    expect(history.at(-1)).toMatchObject({ event: "run.finished", error: { code: "ERR_FENCED" } });
  });
});

describe("a detached ariel-spawn --isolate run: gc and remove leave its worktree alone while it runs", () => {
  it("gc skips the task (running, the run id), remove is ERR_LEASE_HELD naming ariel-runs wait/kill; the run finishes in its worktree; then gc takes it", async () => {
    const root = runsWorkspace();
    const ctl = control();
    const run = await startRun(root, ["--isolate", "--task", "t2", "--", ...waiter(ctl)]);
    const runId = run.runId as string;
    await until(() => started(ctl, "."));
    const worktree = run.worktree as string;

    const gc = await wt(root, ["gc", "--state", "active", "--older-than", "0", "--json"]);
    expect(gc.code).toBe(0);
    expect(records(gc.stdout)).toEqual([
      { v: 1, type: "gc.skip", task: "t2", reason: "running", detail: runId },
    ]);

    const rm = await wt(root, ["remove", "--task", "t2", "--snapshot", "--json"]);
    expect(rm.code).toBe(75);
    expect(errorOf(rm.stderr)).toEqual(inUseError("t2", runId, "."));
    expect(readFileSync(join(worktree, "started.txt"), "utf8")).toBe(".");
    expect(git(root, "for-each-ref", "refs/ariel/snapshots/")).toBe("");

    go(ctl);
    const waited = await runs(root, ["wait", runId]);
    expect(waited.code).toBe(0);
    await finishedHistory(root, runId);
    // The monitor settled its own run's worktree: kept, for the work the command left in it.
    expect(readJson(join(root, ".ariel/runs", runId, "run.json")).worktreeOutcome).toEqual({
      outcome: "kept",
      reason: "dirty",
    });
    expect(readFileSync(join(worktree, "done.txt"), "utf8")).toBe(".");

    const after = await wt(root, ["gc", "--state", "active", "--older-than", "0", "--json"]);
    expect(after.code).toBe(0);
    expect(records(after.stdout).find((r) => r.action === "gc.task.remove")).toMatchObject({
      type: "gc",
      task: "t2",
      outcome: "done",
    });
    expect(existsSync(worktree)).toBe(false);
  });
  it("fanned out over two sources (a task per source, a run in each): the one whose run ended is settled by its monitor, the other stays in use", async () => {
    const root = runsWorkspace();
    for (const s of ["api", "web"]) initRepo(join(root, s));
    const ctl = control();
    // Each child says it started and waits for go-<source>; it writes nothing (its leg stays clean).
    const script =
      `const fs=require('fs'),s=process.env.ARIEL_SOURCE;fs.writeFileSync(${JSON.stringify(ctl)}+'/'+s+'.started','');` +
      `setInterval(()=>{if(fs.existsSync(${JSON.stringify(ctl)}+'/go-'+s))process.exit(0)},20)`;
    const started = await startRunsOf(root, [
      "--source",
      "api",
      "--source",
      "web",
      "--isolate",
      "--task",
      "t3",
      "--",
      NODE,
      "-e",
      script,
    ]);
    const idOf = (s: string) => started.find((x) => x.source === s)?.runId as string;
    await until(() => existsSync(join(ctl, "api.started")) && existsSync(join(ctl, "web.started")));
    writeFileSync(join(ctl, "go-api"), "");
    expect((await runs(root, ["wait", idOf("api")])).code).toBe(0);
    await finishedHistory(root, idOf("api"));
    // Its own run is not in the way of the monitor, nor is web's run, in another task.
    expect(readJson(join(root, ".ariel/runs", idOf("api"), "run.json")).worktreeOutcome).toEqual({
      outcome: "removed",
      reason: null,
    });
    expect(existsSync(leg(root, "t3-api", "api"))).toBe(false);
    const rm = await wt(root, ["remove", "--task", "t3-web", "--source", "web", "--json"]);
    expect(rm.code).toBe(75);
    expect(errorOf(rm.stderr)).toEqual(inUseError("t3-web", idOf("web"), "web"));
    // The dry run says the same; for the settled leg alone web's run is not in the way (nothing to do).
    const plan = (task: string) => ["remove", "--task", task, "-n", "--detailed-exitcode", "--json"];
    const planWeb = await wt(root, [...plan("t3-web"), "--source", "web"]);
    expect([planWeb.code, planWeb.stdout, errorOf(planWeb.stderr)]).toEqual([
      75,
      "",
      inUseError("t3-web", idOf("web"), "web"),
    ]);
    expect(await wt(root, [...plan("t3-api"), "--source", "api"])).toMatchObject({
      code: 0,
      stdout: "",
      stderr: "",
    });
    const gc = await wt(root, ["gc", "--state", "active", "--older-than", "0", "--json"]);
    expect(records(gc.stdout).filter((x) => x.task === "t3-web")).toEqual([
      { v: 1, type: "gc.skip", task: "t3-web", reason: "running", detail: idOf("web") },
    ]);
    expect(existsSync(leg(root, "t3-web", "web"))).toBe(true);
    writeFileSync(join(ctl, "go-web"), "");
    expect((await runs(root, ["wait", idOf("web")])).code).toBe(0);
    await finishedHistory(root, idOf("web"));
    expect(existsSync(leg(root, "t3-web", "web"))).toBe(false);
  });
});
