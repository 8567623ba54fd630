import { existsSync } from "node:fs";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { initRepo, removeDir, tempDir } from "../../core/src/host/_fixture.ts";
import { lines, runsIn, startRun } from "./_fixture.ts";

// ariel-runs' commands run in this process on real background runs: each started by the bundled
// ariel-spawn --detach under its monitor (npm run build), then waited for, listed, shown, read,
// killed and removed here. The end-to-end cases are in test/runs*.test.ts; terminals and
// respawns are in command_tty_test.ts.
let ws: string;
const ids: Record<string, string> = {};
const start = (name: string, script: string) => startRun(ws, name, script);
const runs = (argv: string[]) => runsIn(ws)(argv);

beforeAll(async () => {
  ws = tempDir("ariel-runs-cmd-");
  initRepo(join(ws, "api"));
  ids.ok = start("ok", "echo fine");
  ids.bad = start("bad", "echo hi; echo err >&2; exit 3");
  ids.long = start("long", "exec sleep 60");
});
afterAll(async () => {
  await runs(["kill", "long"]);
  removeDir(ws);
});

describe("ariel-runs (in-process)", () => {
  it("wait: until the runs ended, one summary line, the worst status", async () => {
    const r = await runs(["wait", "ok", "bad"]);
    expect(r.code).toBe(3);
    expect(r.stderr).toBe("ariel-runs: 2 runs: 1 exited, 1 failed: bad (3)\n");
    // each run's line as it ended, in the order asked
    expect(lines(r.stdout).map((l) => l.split("\t").slice(0, 4))).toEqual([
      [ids.ok, "ok", expect.any(String), "exited"],
      [ids.bad, "bad", expect.any(String), "failed"],
    ]);
    expect((await runs(["wait", "ok"])).stderr).toBe("ariel-runs: 1 run: 1 exited\n");
  });

  it("wait --timeout on a live run: 124, and the run goes on", async () => {
    const r = await runs(["wait", "--timeout", "1s", "long"]);
    expect(r.code).toBe(124);
    expect(lines((await runs(["list"])).stdout).map((l) => l.split("\t").slice(1, 4))).toEqual([
      ["long", expect.any(String), "running"],
    ]);
  });

  it("list: the live runs; --all every run with its state and status; --json the records", async () => {
    await runs(["wait", "--timeout", "10s", "ok", "bad"]);
    const all = lines((await runs(["list", "--all"])).stdout).map((l) => l.split("\t"));
    const byName = Object.fromEntries(all.map((f) => [f[1], f]));
    expect(Object.keys(byName).sort()).toEqual(["bad", "long", "ok"]);
    expect(byName.ok).toEqual([
      ids.ok,
      "ok",
      expect.any(String),
      "exited",
      "-",
      "api",
      expect.stringMatching(/^\d+$/),
      "0",
      "-",
      "sh -c echo fine",
      "api",
      "-",
    ]);
    expect(byName.bad?.slice(3, 8)).toEqual(["failed", "-", "api", expect.stringMatching(/^\d+$/), "3"]);
    expect(byName.long?.slice(3, 4)).toEqual(["running"]);
    const json = lines((await runs(["list", "--all", "--json"])).stdout).map((l) => JSON.parse(l));
    expect(json.find((j) => j.name === "bad")).toMatchObject({
      v: 1,
      type: "run",
      runId: ids.bad,
      state: "failed",
      source: "api",
      cwd: join(ws, "api"),
      argv: ["sh", "-c", "echo hi; echo err >&2; exit 3"],
      exit: { code: 3, status: 3, state: "failed" },
    });
  });

  it("show: one run's state, command and place", async () => {
    const r = await runs(["show", "bad"]);
    expect(r).toEqual({
      code: 0,
      stdout: [
        `run      ${ids.bad} (bad)`,
        "state    failed (status 3)",
        "command  sh -c echo hi; echo err >&2; exit 3",
        `where    api (${join(ws, "api")})`,
        "sandbox  none",
        "agent    does not report (its screen or output tells)",
        "",
      ].join("\n"),
      stderr: "",
    });
  });

  it("show --json: the run's record, its state, and what its agent reported (nothing here)", async () => {
    const r = await runs(["show", "--json", "bad"]);
    expect(r.code).toBe(0);
    expect(JSON.parse(r.stdout)).toMatchObject({
      v: 1,
      type: "run",
      runId: ids.bad,
      name: "bad",
      backend: "local",
      workspace: { root: ws },
      source: "api",
      task: null,
      worktree: null,
      exit: { code: 3, signal: null, status: 3, state: "failed", reason: null },
      state: "failed",
      reported: null,
    });
    expect(await runs(["show", "bad", "ok"])).toEqual({
      code: 64,
      stdout: "",
      stderr:
        'ariel-runs: error: unexpected argument "ok" [ERR_USAGE]\nariel-runs: hint: run ariel-runs show --help to see the flags\n',
    });
  });

  it("logs: the run's output, each stream to its own", async () => {
    expect(await runs(["logs", "bad"])).toEqual({ code: 0, stdout: "hi\n", stderr: "err\n" });
  });

  it("logs: one stream, the last lines, from an offset, as records; --from with --tail is 64", async () => {
    expect(await runs(["logs", "--stream", "stderr", "bad"])).toEqual({
      code: 0,
      stdout: "err\n",
      stderr: "",
    });
    expect(await runs(["logs", "--tail", "1", "--stream", "stdout", "ok"])).toEqual({
      code: 0,
      stdout: "fine\n",
      stderr: "",
    });
    expect((await runs(["logs", "--from", "3", "--stream", "stdout", "bad"])).stdout).toBe("");
    expect(await runs(["logs", "--tail", "1", "--from", "0", "bad"])).toEqual({
      code: 64,
      stdout: "",
      stderr:
        "ariel-runs: error: --from and --tail exclude each other [ERR_USAGE]\nariel-runs: hint: run ariel-runs logs --help to see the flags\n",
    });
    const json = await runs(["logs", "--json", "bad"]);
    expect(lines(json.stdout).map((l) => JSON.parse(l))).toEqual([
      { v: 1, type: "output", runId: ids.bad, seq: 0, stream: "stdout", data: "hi\n" },
      { v: 1, type: "output", runId: ids.bad, seq: 0, stream: "stderr", data: "err\n" },
    ]);
  });

  it("logs -f of an ended run: its output, then how it ended (a line, or an end record)", async () => {
    expect(await runs(["logs", "-f", "bad"])).toEqual({
      code: 0,
      stdout: "hi\n",
      stderr: `err\nariel-runs: run ${ids.bad} (bad) failed with status 3\n`,
    });
    const json = await runs(["logs", "--json", "-f", "bad"]);
    expect(JSON.parse(lines(json.stdout).at(-1) as string)).toEqual({
      v: 1,
      type: "end",
      runId: ids.bad,
      name: "bad",
      state: "failed",
      status: 3,
      code: 3,
      signal: null,
      worktree: null,
      next: null,
    });
  });

  it("a run that is not there: 66, ERR_RUN_NOT_FOUND, with the command that lists them", async () => {
    const r = await runs(["logs", "nope"]);
    expect(r).toEqual({
      code: 66,
      stdout: "",
      stderr:
        'ariel-runs: error: no run "nope" [ERR_RUN_NOT_FOUND]\nariel-runs: hint: ariel-runs list --all shows every run\n',
    });
  });

  it("rm: an ended run's directory and history gone; a live one refused without --force", async () => {
    const live = await runs(["rm", "long"]);
    expect(live).toEqual({
      code: 3,
      stdout: "",
      stderr:
        `ariel-runs: error: run long (${ids.long}) is running; nothing was removed [ERR_RUN_LIVE]\n` +
        "ariel-runs: hint: stop it first (ariel-runs kill long), or kill and remove it at once: ariel-runs rm --force long\n",
    });
    const r = await runs(["rm", "ok"]);
    expect(r).toEqual({ code: 0, stdout: `removed ${ids.ok} (exited)\n`, stderr: "" });
    expect(existsSync(join(ws, ".ariel/runs", ids.ok as string))).toBe(false);
    expect(existsSync(join(ws, ".ariel/runs", `${ids.ok}.ndjson`))).toBe(false);
  });

  it("rm --force kills a live run and removes it; rm --json says what it removed; rm alone is 64", async () => {
    const live = start("live", "exec sleep 60");
    expect(await runs(["rm", "--force", "live"])).toEqual({
      code: 0,
      stdout: `removed ${live} (killed)\n`,
      stderr: "",
    });
    expect(existsSync(join(ws, ".ariel/runs", live))).toBe(false);
    const gone = start("gone", "true");
    await runs(["wait", "--timeout", "10s", "gone"]);
    const json = await runs(["rm", "--json", "gone"]);
    expect(JSON.parse(json.stdout)).toEqual({
      v: 1,
      type: "removed",
      action: "run.remove",
      runId: gone,
      state: "exited",
    });
    expect(await runs(["rm"])).toEqual({
      code: 64,
      stdout: "",
      stderr:
        "ariel-runs: error: ariel-runs rm needs RUN [ERR_USAGE]\nariel-runs: hint: run ariel-runs rm --help to see the flags\n",
    });
  });

  it("prune: nothing younger than --older-than; a duration it cannot read is 64", async () => {
    const young = await runs(["prune", "--older-than", "1d"]);
    expect(young).toMatchObject({ code: 0, stdout: "" });
    expect(young.stderr).toMatch(/^ariel-runs: removed 0 of \d+ runs\n$/);
    expect(await runs(["prune", "--older-than", "xx"])).toEqual({
      code: 64,
      stdout: "",
      stderr:
        'ariel-runs: error: --older-than needs a duration such as 10s, 5m, 2h or 7d, got "xx" [ERR_USAGE]\n' +
        "ariel-runs: hint: run ariel-runs prune --help to see the flags\n",
    });
  });

  it("kill: the run's process group ends, then it is listed as killed; prune removes what ended", async () => {
    const k = await runs(["kill", "long"]);
    expect(k.code).toBe(0);
    await runs(["wait", "--timeout", "10s", "long"]);
    const all = lines((await runs(["list", "--all"])).stdout).map((l) => l.split("\t"));
    expect(all.find((f) => f[1] === "long")?.[3]).toBe("killed");
    const p = await runs(["prune", "--older-than", "0s"]);
    expect(p.code).toBe(0);
    expect(p.stderr).toBe("ariel-runs: removed 2 of 2 runs\n");
    expect((await runs(["list", "--all"])).stdout).toBe("");
    expect(await runs(["wait", "--all"])).toEqual({
      code: 0,
      stdout: "",
      stderr: `ariel-runs: no live runs in ${ws}: nothing to wait for\n`,
    });
  });
});
