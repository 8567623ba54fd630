/**
 * Ends that say what is left (issue 19, points 6–8): runs started by one ariel-spawn call share
 * a group; `wait` takes --all, --group and name globs, ends with one summary line and the worst
 * status; `logs -f` ends with the run's final state; a kept worktree is named, with the next
 * command, by wait, list, logs and the fleet. Real detached runs on real repositories.
 */
import { existsSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { sh } from "./e2e/runs_cases.ts";
import { serve } from "./fleet_helpers.ts";
import { records, runAriel, testStateHome } from "./helpers/cli.ts";
import {
  cleanUp,
  multiRepoWorkspace,
  readJson,
  runDir,
  runHistory,
  runs,
  spawnD,
  startRun,
} from "./runs_helpers.ts";

afterEach(cleanUp);

/** The RUN column of `ariel-runs list`'s rows. */
const listedIds = (stdout: string) =>
  stdout
    .trim()
    .split("\n")
    .map((l) => l.split("\t")[0]);

const RUN_ID = /^\d{8}T\d{6}Z-[0-9a-z]{6}$/;
/** A fake agent: in chalk it leaves uncommitted work and fails; elsewhere it succeeds. */
const AGENT = sh('if [ "$ARIEL_SOURCE" = chalk ]; then echo work > new.txt; exit 1; fi; echo done');

/** Start the fake agent detached and isolated over chalk and express; their two run records. */
async function startFleet(root: string): Promise<Record<string, unknown>[]> {
  const r = await spawnD(root, [
    "--json",
    "--isolate",
    "--name",
    "agent",
    "--source",
    "chalk",
    "--source",
    "express",
    ...AGENT,
  ]);
  expect([r.code, r.stderr]).toEqual([0, ""]);
  return records(r.stdout);
}

describe("a group per ariel-spawn call (point 6)", () => {
  it("every run of one call shares a group id: in run.json, list --json, list's GROUP column and --group", async () => {
    const root = multiRepoWorkspace(["chalk", "express"]);
    const started = await startFleet(root);
    const group = started[0]!.group as string;
    expect(group).toMatch(RUN_ID);
    expect(started.map((s) => s.group)).toEqual([group, group]);
    for (const s of started)
      expect(readJson(join(runDir(root, s.runId as string), "run.json")).group).toBe(group);
    const other = await startRun(root, ["--name", "solo", "--source", "express", "--", "true"]);
    expect(other.group).toMatch(RUN_ID);
    expect(other.group).not.toBe(group);
    const listed = await runs(root, ["list", "--all", "--group", group, "--json"]);
    expect(records(listed.stdout).map((x) => [x.name, x.group])).toEqual(
      expect.arrayContaining([
        ["agent@chalk", group],
        ["agent@express", group],
      ]),
    );
    expect(records(listed.stdout)).toHaveLength(2);
    const human = await runs(root, ["list", "--all", "--group", group]);
    const rows = human.stdout
      .trim()
      .split("\n")
      .map((l) => l.split("\t"));
    expect(rows.map((r) => [r[1], r[2]]).sort()).toEqual([
      ["agent@chalk", group],
      ["agent@express", group],
    ]);
  });

  it("wait --group: one summary line naming the failed run and its kept worktree, the worst status", async () => {
    const root = multiRepoWorkspace(["chalk", "express"]);
    const [chalk] = await startFleet(root);
    const w = await runs(root, ["wait", "--group", chalk!.group as string], { timeoutMs: 30_000 });
    const task = chalk!.task as string;
    expect(w.stderr).toBe(
      "ariel-runs: 2 runs: 1 exited, 1 failed: agent@chalk (1); kept agent@chalk (dirty): " +
        `ariel-worktree remove -C ${root} --task ${task} --source chalk --snapshot\n`,
    );
    expect(w.code).toBe(1);
    const rows = w.stdout
      .trim()
      .split("\n")
      .map((l) => l.split("\t"));
    expect(rows.map((r) => [r[1], r[3], r[4], r[7], r[8]]).sort()).toEqual([
      ["agent@chalk", "failed", "-", "1", "kept (dirty)"],
      ["agent@express", "exited", "-", "0", "removed"],
    ]);
  });

  it("wait with --all and with name globs; the worst status is the highest one", async () => {
    const root = multiRepoWorkspace(["chalk"]);
    const go = join(root, "go");
    const gated = (script: string) => sh(`while [ ! -e ${go} ]; do sleep 0.05; done; ${script}`);
    await startRun(root, ["--name", "agent-ok", "--source", "chalk", ...gated("true")]);
    await startRun(root, ["--name", "agent-two", "--source", "chalk", ...gated("exit 2")]);
    await startRun(root, ["--name", "agent-term", "--source", "chalk", ...gated("kill -TERM $$")]);
    await startRun(root, ["--name", "other", "--source", "chalk", ...gated("true")]);
    const all = await runs(root, ["wait", "--all", "--timeout", "500ms"]);
    expect([all.code, all.stderr]).toEqual([
      124,
      expect.stringContaining("4 runs still going after 500ms [ERR_WAIT_TIMEOUT]"),
    ]);
    writeFileSync(go, "");
    const glob = await runs(root, ["wait", "agent-*"], { timeoutMs: 30_000 });
    expect(glob.stderr).toBe("ariel-runs: 3 runs: 1 exited, 2 failed: agent-term (143), agent-two (2)\n");
    expect(glob.code).toBe(143);
    const one = await runs(root, ["wait", "agent-t?o"]);
    expect([one.code, one.stderr]).toEqual([2, "ariel-runs: 1 run: 1 failed: agent-two (2)\n"]);
    await runs(root, ["wait", "other"]);
    const none = await runs(root, ["wait", "--all"]);
    expect([none.code, none.stdout, none.stderr]).toEqual([
      0,
      "",
      `ariel-runs: no live runs in ${root}: nothing to wait for\n`,
    ]);
  });

  it.each([
    ["RUN and --all together", ["wait", "x", "--all"], 64, "RUN..., --all and --group exclude each other"],
    ["nothing to wait for", ["wait"], 64, "ariel-runs wait needs RUN..., --all or --group G"],
    [
      "an unknown group",
      ["wait", "--group", "20261203T000000Z-nogrup"],
      66,
      'no run in group "20261203T000000Z-nogrup"',
    ],
    ["a glob that matches nothing", ["wait", "nobody-*"], 66, 'no run name matches "nobody-*"'],
  ])("wait refuses %s", async (_, args, code, message) => {
    const root = multiRepoWorkspace(["chalk"]);
    await startRun(root, ["--name", "agent", "--source", "chalk", "--", "true"]);
    const r = await runs(root, args);
    expect(r.code).toBe(code);
    expect(r.stderr).toContain(message);
  });

  it("a foreground spawn's history names its group (its own run id)", async () => {
    const root = multiRepoWorkspace(["chalk"]);
    const r = await runAriel("spawn", ["-C", root, "--source", "chalk", "--json", "--", "true"]);
    expect(r.code).toBe(0);
    const [first] = records(r.stdout);
    const runId = first!.runId as string;
    expect(runHistory(root, runId)[0]).toMatchObject({ event: "run.started", group: runId });
  });
});

describe("logs -f ends with the run's end (point 7)", () => {
  it("a line naming the final state and status; an end record with --json", async () => {
    const root = multiRepoWorkspace(["chalk"]);
    const rec = await startRun(root, [
      "--name",
      "tick",
      "--source",
      "chalk",
      ...sh("sleep 0.3; echo hi; exit 3"),
    ]);
    const id = rec.runId as string;
    const f = await runs(root, ["logs", "-f", "tick"], { timeoutMs: 30_000 });
    expect([f.code, f.stdout, f.stderr]).toEqual([
      0,
      "hi\n",
      `ariel-runs: run ${id} (tick) failed with status 3\n`,
    ]);
    const j = await runs(root, ["logs", "-f", "--json", "tick"]);
    expect(j.code).toBe(0);
    expect(records(j.stdout).at(-1)).toEqual({
      v: 1,
      type: "end",
      runId: id,
      name: "tick",
      state: "failed",
      status: 3,
      code: 3,
      signal: null,
      worktree: null,
      next: null,
    });
  });
});

describe("a kept worktree is said wherever the user looks next (point 8)", () => {
  it("logs -f, list (without --all), the fleet's status and run record name it with the next command", async () => {
    const root = multiRepoWorkspace(["chalk", "express"]);
    const [chalk] = await startFleet(root);
    const id = chalk!.runId as string;
    const task = chalk!.task as string;
    const next = `ariel-worktree remove -C ${root} --task ${task} --source chalk --snapshot`;
    const f = await runs(root, ["logs", "-f", id], { timeoutMs: 30_000 });
    expect(f.stderr).toBe(
      `ariel-runs: run ${id} (agent@chalk) failed with status 1; kept its worktree (dirty): ${next}\n`,
    );
    const j = await runs(root, ["logs", "-f", "--json", id]);
    expect(records(j.stdout).at(-1)).toMatchObject({
      type: "end",
      state: "failed",
      status: 1,
      worktree: { outcome: "kept", reason: "dirty" },
      next,
    });
    await runs(root, ["wait", "--group", chalk!.group as string]);
    // Ended runs leave the default list, but the one whose worktree is still there stays.
    const list = await runs(root, ["list"]);
    expect(list.stdout.split("\t")[0]).toBe(id);
    expect(list.stdout.trim().split("\n")).toHaveLength(1);
    expect(list.stderr).toBe(`ariel-runs: agent@chalk kept its worktree (dirty): ${next}\n`);
    const status = await runAriel("fleet", ["status", "--workspace", root, "--json"]);
    const ws = (records(status.stdout)[0]!.workspaces as Record<string, unknown>[]).find(
      (w) => w.root === root,
    );
    expect(ws).toMatchObject({ kept: 1 });
    const human = await runAriel("fleet", ["status", "--workspace", root]);
    expect(human.stderr).toContain(
      `ariel-fleet: ${root}: 1 run kept its worktree; see each with its next command: ariel-runs list -C ${root}\n`,
    );
    const server = await serve(["--workspace", root], { ARIEL_STATE_HOME: testStateHome() });
    try {
      const res = await fetch(`${server.url}api/runs/${id}`);
      expect(await res.json()).toMatchObject({
        runId: id,
        group: chalk!.group,
        state: "failed",
        kept: { task, source: "chalk", reason: "dirty", next },
      });
    } finally {
      await server.stop();
    }
    // Once the user dealt with it, nothing is left to say.
    const rm = await runAriel("worktree", [
      "remove",
      "-C",
      root,
      "--task",
      task,
      "--source",
      "chalk",
      "--snapshot",
    ]);
    expect(rm.code).toBe(0);
    expect(existsSync(chalk!.worktree as string)).toBe(false);
    const after = await runs(root, ["list"]);
    expect([after.stdout, after.stderr]).toEqual(["", ""]);
    expect(readFileSync(join(runDir(root, id), "run.json"), "utf8")).toContain('"kept"');
  });

  it("a kept worktree is not named while a later run works in it, and again once that run is over", async () => {
    const root = multiRepoWorkspace(["chalk", "express"]);
    const [chalk] = await startFleet(root);
    const id = chalk!.runId as string;
    const task = chalk!.task as string;
    await runs(root, ["wait", "--group", chalk!.group as string]);
    expect((await runs(root, ["list"])).stderr).toContain(`agent@chalk kept its worktree (dirty)`);
    // Another agent goes on in the kept worktree: while it is live, no one says to remove it.
    const next = await spawnD(root, [
      "--json",
      "--isolate",
      "--task",
      task,
      "--source",
      "chalk",
      "--name",
      "again",
      "--",
      "sleep",
      "30",
    ]);
    expect(next.code, next.stderr).toBe(0);
    const again = records(next.stdout)[0]!.runId as string;
    const live = await runs(root, ["list"]);
    expect(listedIds(live.stdout)).toEqual([again]);
    expect(live.stderr).toBe("");
    const keptNow = async () => {
      const status = await runAriel("fleet", ["status", "--workspace", root, "--json"]);
      const w = (records(status.stdout)[0]!.workspaces as Record<string, unknown>[]).find(
        (x) => x.root === root,
      );
      return w?.kept ?? 0;
    };
    expect(await keptNow()).toBe(0);
    // It ends. It did not make the worktree, so it leaves it as it found it: kept, named again
    // by the run that kept it.
    expect((await runs(root, ["kill", again])).code).toBe(0);
    await runs(root, ["wait", again]);
    expect(readJson(join(runDir(root, again), "run.json")).worktreeOutcome).toBeNull();
    const after = await runs(root, ["list"]);
    expect(listedIds(after.stdout)).toEqual([id]);
    expect(after.stderr).toBe(
      `ariel-runs: agent@chalk kept its worktree (dirty): ariel-worktree remove -C ${root} --task ${task} --source chalk --snapshot\n`,
    );
    // --all still lists both; the first run's own record still says what it kept.
    const all = await runs(root, ["list", "--all"]);
    expect(all.stdout).toContain(id);
    expect(await keptNow()).toBe(1);
  });
});
