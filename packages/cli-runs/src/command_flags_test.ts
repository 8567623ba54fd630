import { existsSync, mkdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { initRepo, removeDir, tempDir } from "../../core/src/host/_fixture.ts";
import { lines, runsIn, startRun, usage } from "./_fixture.ts";

// ariel-runs' filters, plans (-n) and refusals, in this process on real runs (see _fixture.ts):
// list by state, source, task and group; kill, prune and rm planned; a run whose record is
// damaged. command_test.ts holds the plain cases.
let ws: string;
const ids: Record<string, string> = {};
const runs = (argv: string[], options: Parameters<ReturnType<typeof runsIn>>[1] = {}) =>
  runsIn(ws)(argv, options);
const TERMINAL = { stdout: false, stderr: true, columns: 80, color: false };

/** The NAME column of each row, in the order listed. */
const names = (stdout: string) => lines(stdout).map((l) => l.split("\t")[1]);

beforeAll(async () => {
  ws = tempDir("ariel-runs-flags-");
  initRepo(join(ws, "api"));
  ids.ok = startRun(ws, "ok", "true");
  ids.bad = startRun(ws, "bad", "exit 2");
  ids.iso = startRun(ws, "iso", "true", ["--isolate", "--task", "t1"]);
  ids.live = startRun(ws, "live", "exec sleep 60");
  await runs(["wait", "--timeout", "10s", "ok", "bad", "iso"]);
});
afterAll(async () => {
  await runs(["kill", "live"]);
  removeDir(ws);
});

describe("ariel-runs list (in-process): filters", () => {
  it.each([
    [["--state", "failed"], ["bad"]],
    [
      ["--state", "exited,failed"],
      ["iso", "bad", "ok"],
    ],
    [["--state", "running"], ["live"]],
    [
      ["--all", "--source", "api"],
      ["live", "iso", "bad", "ok"],
    ],
    [["--all", "--source", "web"], []],
    [["--all", "--task", "t1"], ["iso"]],
    [["--all", "--task", "t2"], []],
  ])("list %j: %j, newest first", async (flags, expected) => {
    const r = await runs(["list", ...flags]);
    expect(r.code).toBe(0);
    expect(names(r.stdout)).toEqual(expected);
  });

  it("list --group: exactly the runs one ariel-spawn call started", async () => {
    const group = JSON.parse((await runs(["show", "--json", "bad"])).stdout).group as string;
    expect(group).toMatch(/^\d{8}T\d{6}Z-[a-z0-9]+$/);
    expect(names((await runs(["list", "--all", "--group", group])).stdout)).toEqual(["bad"]);
  });

  it("list --state that is neither a state nor an activity: 64, with both lists", async () => {
    const r = await runs(["list", "--state", "exited,done"]);
    expect(r.code).toBe(64);
    expect(lines(r.stderr)).toEqual([
      'ariel-runs: error: unknown state "done" [ERR_USAGE]',
      expect.stringMatching(/^ariel-runs: hint: states: starting, running, .*; activities: busy, .*waiting/),
    ]);
  });

  it("nothing listed, on a terminal: where it looked, and how to see ended runs; nothing said in a pipe", async () => {
    const quiet = await runs(["list", "--source", "web"]);
    expect(quiet).toEqual({ code: 0, stdout: "", stderr: "" });
    expect(await runs(["list", "--source", "web"], { term: TERMINAL })).toEqual({
      code: 0,
      stdout: "",
      stderr: `ariel-runs: no live runs in ${ws} (--all shows ended ones)\n`,
    });
    expect((await runs(["list", "--all", "--source", "web"], { term: TERMINAL })).stderr).toBe(
      `ariel-runs: no runs in ${ws}\n`,
    );
  });
});

describe("ariel-runs kill (in-process): plans and refusals", () => {
  it("kill -n: what it would signal, as a line or a plan record; 2 with --detailed-exitcode; nothing sent", async () => {
    expect(await runs(["kill", "-n", "live"])).toEqual({
      code: 0,
      stdout: `would send SIGTERM to ${ids.live} (running)\n`,
      stderr: "",
    });
    const plan = await runs(["kill", "-n", "--json", "--detailed-exitcode", "--signal", "INT", "live"]);
    expect(plan.code).toBe(2);
    expect(JSON.parse(plan.stdout)).toEqual({
      v: 1,
      type: "plan",
      action: "run.kill",
      runId: ids.live,
      state: "running",
      signal: "SIGINT",
    });
    expect(names((await runs(["list", "--state", "running"])).stdout)).toEqual(["live"]);
  });

  it("kill -n of an ended run: nothing to kill, 0 even with --detailed-exitcode", async () => {
    expect(await runs(["kill", "-n", "--detailed-exitcode", "ok"])).toEqual({
      code: 0,
      stdout: `nothing to kill in ${ids.ok} (exited)\n`,
      stderr: "",
    });
    const plan = await runs(["kill", "-n", "--json", "ok"]);
    expect(JSON.parse(plan.stdout)).toMatchObject({ action: "none", state: "exited", signal: "SIGTERM" });
  });

  it("kill of an ended run: said, nothing signalled, its row printed, 0", async () => {
    const r = await runs(["kill", "bad"]);
    expect(r.code).toBe(0);
    expect(r.stderr).toBe(
      `ariel-runs: run bad (${ids.bad}) had already ended (failed); nothing was signalled\n`,
    );
    expect(names(r.stdout)).toEqual(["bad"]);
  });

  it.each([
    [["--signal", "BOGUS"], 'unknown signal "BOGUS"', "signals: "],
    [
      ["--grace", "soon"],
      '--grace needs a duration such as 10s, 5m, 2h or 7d, got "soon"',
      "run ariel-runs kill",
    ],
  ])("kill %j: 64, nothing signalled", async (flags, message, hint) => {
    const r = await runs(["kill", ...flags, "live"]);
    expect(r.code).toBe(64);
    expect(lines(r.stderr)).toEqual([
      `ariel-runs: error: ${message} [ERR_USAGE]`,
      expect.stringContaining(`ariel-runs: hint: ${hint}`),
    ]);
    expect(names((await runs(["list", "--state", "running"])).stdout)).toEqual(["live"]);
  });
});

describe("ariel-runs wait (in-process): what to wait for", () => {
  it("nothing named, or RUN with --all: 64", async () => {
    expect(await runs(["wait"])).toEqual(usage("ariel-runs wait needs RUN..., --all or --group G", "wait"));
    expect(await runs(["wait", "--all", "ok"])).toEqual(
      usage("RUN..., --all and --group exclude each other", "wait"),
    );
    expect(await runs(["wait", "--group", "g", "ok"])).toEqual(
      usage("RUN..., --all and --group exclude each other", "wait"),
    );
  });

  it("--group: the runs of one call; their worst status", async () => {
    const group = JSON.parse((await runs(["show", "--json", "bad"])).stdout).group as string;
    const r = await runs(["wait", "--group", group]);
    expect(r.code).toBe(2);
    expect(names(r.stdout)).toEqual(["bad"]);
    expect(r.stderr).toBe("ariel-runs: 1 run: 1 failed: bad (2)\n");
  });

  it("--all: every live run; --timeout says how many still go (one by its id)", async () => {
    const all = await runs(["wait", "--all", "--timeout", "1s"]);
    expect(all).toEqual({
      code: 124,
      stdout: "",
      stderr:
        `ariel-runs: error: run ${ids.live} still going after 1s [ERR_WAIT_TIMEOUT]\n` +
        "ariel-runs: hint: the runs go on; wait again, or kill them\n",
    });
    const two = await runs(["wait", "--timeout", "1s", "--json", "live", "ok"]);
    expect(two.code).toBe(124);
    expect(JSON.parse(two.stderr)).toMatchObject({
      code: "ERR_WAIT_TIMEOUT",
      message: "2 runs still going after 1s",
      runs: [ids.live, ids.ok],
    });
  });
});

describe("ariel-runs prune and rm (in-process): plans", () => {
  it("prune without --older-than: 64", async () => {
    expect(await runs(["prune"])).toEqual(usage("prune needs --older-than DURATION", "prune"));
  });

  it("prune -n: what it would remove (the ended runs, not the live one); records with --json; 2 with --detailed-exitcode", async () => {
    const n = await runs(["prune", "-n", "--older-than", "0s"]);
    expect(n.code).toBe(0);
    expect(lines(n.stdout).sort()).toEqual(
      [
        `would remove ${ids.ok} (exited)`,
        `would remove ${ids.bad} (failed)`,
        `would remove ${ids.iso} (exited)`,
      ].sort(),
    );
    expect(n.stderr).toBe("");
    const json = await runs(["prune", "-n", "--json", "--detailed-exitcode", "--older-than", "0s"]);
    expect(json.code).toBe(2);
    expect(lines(json.stdout).map((l) => JSON.parse(l))).toContainEqual({
      v: 1,
      type: "plan",
      action: "run.remove",
      runId: ids.bad,
      state: "failed",
    });
    expect(names((await runs(["list", "--all"])).stdout)).toEqual(["live", "iso", "bad", "ok"]);
  });

  it("rm -n: what it would remove; the run stays", async () => {
    expect(await runs(["rm", "-n", "ok"])).toEqual({
      code: 0,
      stdout: `would remove ${ids.ok} (exited)\n`,
      stderr: "",
    });
    expect(existsSync(join(ws, ".ariel/runs", ids.ok as string))).toBe(true);
  });
});

describe("ariel-runs (in-process): a run whose record is damaged", () => {
  const badId = "20261205T000000Z-broken";
  const hint = `the run's record is damaged or not ariel's: move its directory .ariel/runs/${badId} aside to keep its output, or remove the run with ariel-runs rm --force ${badId}`;
  beforeAll(() => {
    mkdirSync(join(ws, ".ariel/runs", badId));
    writeFileSync(join(ws, ".ariel/runs", badId, "run.json"), '{"v":1,"version":1,"fencingTok');
  });

  it("list and prune go on with the others, warn of it with how to deal with it, and exit 1", async () => {
    const message = `run ${badId} skipped: ${join(ws, ".ariel/runs", badId, "run.json")}: not valid JSON`;
    const list = await runs(["list", "--all"]);
    expect(list.code).toBe(1);
    expect(names(list.stdout)).toEqual(["live", "iso", "bad", "ok"]);
    expect(list.stderr).toBe(`ariel-runs: warning: ${message}\nariel-runs: hint: ${hint}\n`);
    const prune = await runs(["prune", "-n", "--json", "--older-than", "0s"]);
    expect(prune.code).toBe(1);
    expect(JSON.parse(prune.stderr)).toEqual({
      v: 1,
      type: "warning",
      code: "WARN_RUN_UNREADABLE",
      message,
      hint,
      runId: badId,
    });
  });

  it("wait and kill name it exactly: 65, with the same hint", async () => {
    for (const sub of ["wait", "kill"]) {
      const r = await runs([sub, badId]);
      expect(r.code).toBe(65);
      expect(lines(r.stderr)).toEqual([
        `ariel-runs: error: ${join(ws, ".ariel/runs", badId, "run.json")}: not valid JSON [ERR_RECORD_CORRUPT]`,
        `ariel-runs: hint: ${hint}`,
      ]);
    }
  });

  it("rm --force by its exact id: planned with -n, then removed", async () => {
    expect(await runs(["rm", "-n", "--force", badId])).toEqual({
      code: 0,
      stdout: `would remove ${badId} (corrupt)\n`,
      stderr: "",
    });
    expect(existsSync(join(ws, ".ariel/runs", badId))).toBe(true);
    expect(await runs(["rm", "--force", "--json", badId])).toEqual({
      code: 0,
      stdout: `${JSON.stringify({ v: 1, type: "removed", action: "run.remove", runId: badId, state: "corrupt" })}\n`,
      stderr: "",
    });
    expect(existsSync(join(ws, ".ariel/runs", badId))).toBe(false);
    expect((await runs(["list", "--all"])).code).toBe(0);
  });
});
