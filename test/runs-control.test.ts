import { existsSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { killRespawnRmAtOnce, respawnWithoutItsSource, sh } from "./e2e/runs_cases.ts";
import { records } from "./helpers/cli.ts";
import { git } from "./helpers/git.ts";
import {
  alive,
  cleanUp,
  finishedHistory,
  groupAlive,
  readJson,
  runDir,
  runHistory,
  runs,
  runsWorkspace,
  startRun,
  until,
} from "./runs_helpers.ts";

afterEach(cleanUp);

const history = runHistory;

describe("ariel-runs respawn (case 6)", () => {
  it("kills a live run first, then starts the same spec under a new id linked by respawnOf", async () => {
    const root = runsWorkspace();
    const old = await startRun(root, ["--name", "agent", ...sh("echo $ARIEL_RUN_ID; sleep 30")]);
    const oldId = old.runId as string;
    const r = await runs(root, ["respawn", "agent", "--grace", "1s", "--json"]);
    expect(r.stderr).toBe("");
    expect(r.code).toBe(0);
    const [fresh] = records(r.stdout);
    expect(fresh).toMatchObject({
      type: "run",
      name: "agent",
      respawnOf: oldId,
      state: "running",
      argv: old.argv,
      cwd: old.cwd,
    });
    expect(fresh!.runId).not.toBe(oldId);
    expect(readJson(join(runDir(root, oldId), "exit.json"))).toMatchObject({
      state: "killed",
      reason: "respawn",
    });
    expect(groupAlive((old.child as { pgid: number }).pgid)).toBe(false);
    // the name now means the newest run; the old one keeps its history
    const list = records((await runs(root, ["list", "--all", "--json"])).stdout);
    expect(list.map((x) => [x.runId, x.state])).toEqual([
      [fresh!.runId, "running"],
      [oldId, "killed"],
    ]);
    await until(() => readFileSync(join(runDir(root, fresh!.runId as string), "stdout"), "utf8") !== "");
    expect(readFileSync(join(runDir(root, fresh!.runId as string), "stdout"), "utf8")).toBe(
      `${fresh!.runId}\n`,
    );
    // respawn returns once the old run is final and settled; the monitor appends its last event,
    // run.finished, after that (and after any --on-exit hook): wait for that write
    expect((await finishedHistory(root, oldId)).filter((e) => e.event === "run.finished")).toMatchObject([
      { state: "killed" },
    ]);
  });

  it("a respawn that cannot start (its source is gone) leaves the original running", respawnWithoutItsSource);
});

describe("ariel-runs rm and prune", () => {
  it("rm refuses a live run (3), removes an ended one, --force kills first; -n changes nothing", async () => {
    const root = runsWorkspace();
    const live = await startRun(root, ["--", "sleep", "30"]);
    const done = await startRun(root, ["--", "true"]);
    await runs(root, ["wait", done.runId as string]);
    const refused = await runs(root, ["rm", live.runId as string]);
    expect(refused.code).toBe(3);
    expect(refused.stderr).toContain("[ERR_RUN_LIVE]");
    expect(existsSync(runDir(root, live.runId as string))).toBe(true);
    const plan = await runs(root, ["rm", done.runId as string, "-n"]);
    expect([plan.code, plan.stdout, plan.stderr]).toEqual([0, `would remove ${done.runId} (exited)\n`, ""]);
    const planLive = await runs(root, ["rm", live.runId as string, "-n"]);
    expect([planLive.code, planLive.stdout]).toEqual([3, ""]); // a dry run refuses as the real one does
    expect(existsSync(runDir(root, done.runId as string))).toBe(true);
    expect((await runs(root, ["rm", done.runId as string])).stdout).toBe(`removed ${done.runId} (exited)\n`);
    expect(existsSync(runDir(root, done.runId as string))).toBe(false);
    expect(existsSync(join(root, ".ariel/runs", `${done.runId}.ndjson`))).toBe(false);
    const forced = await runs(root, ["rm", live.runId as string, "--force", "--json"]);
    expect(forced.code).toBe(0);
    expect(records(forced.stdout)[0]).toMatchObject({ type: "removed", runId: live.runId, state: "killed" });
    expect(groupAlive((live.child as { pgid: number }).pgid)).toBe(false);
    expect(existsSync(runDir(root, live.runId as string))).toBe(false);
  });

  it("prune removes ended runs older than --older-than, never a live one", async () => {
    const root = runsWorkspace();
    const live = await startRun(root, ["--", "sleep", "30"]);
    const a = await startRun(root, ["--", "true"]);
    const b = await startRun(root, sh("exit 2"));
    await runs(root, ["wait", a.runId as string, b.runId as string]);
    expect((await runs(root, ["prune", "--older-than", "1h"])).stdout).toBe("");
    expect((await runs(root, ["prune", "--older-than", "1h", "-n", "--detailed-exitcode"])).code).toBe(0);
    expect((await runs(root, ["prune", "--older-than", "0s", "-n", "--detailed-exitcode"])).code).toBe(2);
    const plan = await runs(root, ["prune", "--older-than", "0s", "-n", "--json"]);
    expect(records(plan.stdout).map((x) => [x.type, x.runId, x.state])).toEqual(
      [
        ["plan", a.runId, "exited"],
        ["plan", b.runId, "failed"],
      ].sort((x, y) => ((x[1] as string) < (y[1] as string) ? -1 : 1)),
    );
    expect(existsSync(runDir(root, a.runId as string))).toBe(true);
    const pruned = await runs(root, ["prune", "--older-than", "0s", "--json"]);
    expect(pruned.code).toBe(0);
    expect(records(pruned.stdout)).toHaveLength(2);
    const list = records((await runs(root, ["list", "--all", "--json"])).stdout);
    expect(list.map((x) => x.runId)).toEqual([live.runId]);
    expect((await runs(root, ["prune"])).code).toBe(64);
  });
});

describe("detached run policies (case 10) and the exit hook", () => {
  it("--restart on-failure:3 with a child that always fails: 3 restarts with backoff, then failed", async () => {
    const root = runsWorkspace();
    const rec = await startRun(root, ["--restart", "on-failure:3", ...sh("echo try; exit 1")]);
    const runId = rec.runId as string;
    const w = await runs(root, ["wait", runId, "--json"], { timeoutMs: 30_000 });
    expect(w.code).toBe(1);
    expect(records(w.stdout)[0]).toMatchObject({
      state: "failed",
      restart: { policy: "on-failure", max: 3, count: 3 },
      exit: { status: 1 },
    });
    expect(readFileSync(join(runDir(root, runId), "stdout"), "utf8")).toBe("try\n".repeat(4));
    const events = history(root, runId);
    const started = events.filter((e) => e.event === "process.started");
    expect(started.map((e) => e.attempt)).toEqual([1, 2, 3, 4]);
    const gaps = started
      .slice(1)
      .map((e, i) => Date.parse(e.ts as string) - Date.parse(started[i]!.ts as string));
    expect(gaps[1]! > gaps[0]! && gaps[2]! > gaps[1]!).toBe(true); // exponential backoff
    expect(events.filter((e) => e.event === "run.finished")).toHaveLength(1);
  });

  it("kill between two restarts ends the run at once: killed, never restarted again", async () => {
    const root = runsWorkspace();
    const rec = await startRun(root, ["--restart", "on-failure:8", ...sh("echo try; exit 1")]);
    const runId = rec.runId as string;
    const out = join(runDir(root, runId), "stdout");
    await until(() => readFileSync(out, "utf8").length >= "try\n".length * 3, 20_000);
    const k = await runs(root, ["kill", runId, "--grace", "5s", "--json"]);
    expect(k.stderr).toBe("");
    expect(k.code).toBe(0);
    expect(records(k.stdout)[0]).toMatchObject({ state: "killed" });
    // Nothing can start the child again once its monitor, the only one that restarts it, is gone.
    await until(() => !alive((rec.monitor as { pid: number }).pid), 15_000);
    const requestedAt = Date.parse(readJson(join(runDir(root, runId), "run.json")).kill.requestedAt);
    const events = history(root, runId);
    const started = events.filter((e) => e.event === "process.started");
    // Every start came before the kill, and each wrote its one line.
    expect(started.filter((e) => Date.parse(e.ts as string) > requestedAt)).toEqual([]);
    expect(readFileSync(out, "utf8")).toBe("try\n".repeat(started.length));
    expect(events.filter((e) => e.event === "run.finished")).toHaveLength(1);
    expect(readJson(join(runDir(root, runId), "exit.json"))).toMatchObject({ state: "killed", status: 1 });
  });

  it("--timeout 1s on sleep 60: killed, the exit recorded as a signal", async () => {
    const root = runsWorkspace();
    const rec = await startRun(root, ["--timeout", "1s", "--", "sleep", "60"]);
    const w = await runs(root, ["wait", rec.runId as string, "--json"], { timeoutMs: 30_000 });
    expect(w.code).toBe(143);
    expect(records(w.stdout)[0]).toMatchObject({
      state: "killed",
      exit: { code: null, signal: "SIGTERM", status: 143 },
    });
    expect(readJson(join(runDir(root, rec.runId as string), "exit.json"))).toMatchObject({
      reason: "timeout",
    });
  });

  it("--timeout gives a child that traps TERM its grace: it cleans up and its own status is recorded", async () => {
    const root = runsWorkspace();
    const done = join(root, "cleaned");
    // TERM ends the group's sleep at once; the trap then takes 0.3 s, writes its file and exits 7.
    const script = `trap 'sleep 0.3; echo cleaned > "${done}"; exit 7' TERM; while :; do sleep 0.1; done`;
    const rec = await startRun(root, ["--timeout", "1s", "--grace", "20", ...sh(script)]);
    const runId = rec.runId as string;
    const w = await runs(root, ["wait", runId, "--json"], { timeoutMs: 30_000 });
    expect([w.code, readFileSync(done, "utf8")]).toEqual([7, "cleaned\n"]);
    expect(records(w.stdout)[0]).toMatchObject({ exit: { code: 7, signal: null, status: 7 } });
    expect(readJson(join(runDir(root, runId), "exit.json"))).toMatchObject({
      reason: "timeout",
      code: 7,
      signal: null,
      status: 7,
    });
  });

  it("--on-exit runs a command (no shell) with ARIEL_EXIT_CODE when the run ended", async () => {
    const root = runsWorkspace();
    writeFileSync(join(root, "hook.sh"), 'echo "$ARIEL_EXIT_CODE $ARIEL_RUN_STATE $ARIEL_RUN_ID" > "$1"\n');
    const out = join(root, "hook.out");
    const rec = await startRun(root, ["--on-exit", `sh ${join(root, "hook.sh")} ${out}`, ...sh("exit 4")]);
    await runs(root, ["wait", rec.runId as string]);
    await until(() => existsSync(out) && readFileSync(out, "utf8").endsWith("\n"));
    expect(readFileSync(out, "utf8")).toBe(`4 failed ${rec.runId}\n`);
  });
});

describe("isolated detached runs (case 11)", () => {
  it("keeps a worktree with uncommitted work and records it; removes a clean one and keeps its branch", async () => {
    const root = runsWorkspace();
    const dirty = await startRun(root, ["--isolate", "--task", "dirty-t", ...sh("echo work > new.txt")]);
    const clean = await startRun(root, ["--isolate", "--task", "clean-t", "--", "true"]);
    expect(dirty).toMatchObject({
      task: "dirty-t",
      branch: "ariel/dirty-t",
      isolate: { onExit: "remove", created: true },
    });
    const w = await runs(root, ["wait", dirty.runId as string, clean.runId as string, "--json"], {
      timeoutMs: 30_000,
    });
    expect(w.code).toBe(0);
    const [d, c] = records(w.stdout);
    expect(d).toMatchObject({ state: "exited", worktreeOutcome: { outcome: "kept" } });
    expect(c).toMatchObject({ state: "exited", worktreeOutcome: { outcome: "removed", reason: null } });
    expect(readFileSync(join(dirty.worktree as string, "new.txt"), "utf8")).toBe("work\n");
    expect(existsSync(clean.worktree as string)).toBe(false);
    expect(git(root, "branch", "--list", "ariel/clean-t")).toContain("ariel/clean-t");
    expect(history(root, dirty.runId as string).map((e) => e.event)).toContain("worktree.kept");
    expect(history(root, clean.runId as string).map((e) => e.event)).toContain("worktree.removed");
  });
});

describe("respawn of an isolated run whose worktree was removed", () => {
  it("restores the worktree on the same task and branch, then starts the run there", async () => {
    const root = runsWorkspace();
    const old = await startRun(root, ["--isolate", "--task", "again", ...sh("git log -1 --format=%s")]);
    expect((await runs(root, ["wait", old.runId as string])).code).toBe(0);
    expect(existsSync(old.worktree as string)).toBe(false); // clean: removed on exit, branch kept
    const r = await runs(root, ["respawn", old.runId as string, "--json"]);
    expect([r.code, r.stderr]).toEqual([0, ""]);
    const [rec] = records(r.stdout);
    expect(rec).toMatchObject({
      respawnOf: old.runId,
      task: "again",
      branch: "ariel/again",
      worktree: old.worktree,
      cwd: old.cwd,
    });
    const w = await runs(root, ["wait", rec!.runId as string, "--json"], { timeoutMs: 30_000 });
    expect(w.code).toBe(0);
    const logs = await runs(root, ["logs", rec!.runId as string]);
    expect(logs.stdout).toBe(`${git(root, "log", "-1", "--format=%s")}\n`);
  });

  it("of a live isolated run: the old run's clean worktree is settled (removed) first, then restored, then the new run starts in it", async () => {
    const root = runsWorkspace();
    const old = await startRun(root, ["--isolate", "--task", "live", "--", "sleep", "30"]);
    const oldId = old.runId as string;
    const r = await runs(root, ["respawn", oldId, "--grace", "1s", "--json"]);
    expect([r.code, r.stderr]).toEqual([0, ""]);
    const [rec] = records(r.stdout);
    expect(rec).toMatchObject({
      respawnOf: oldId,
      state: "running",
      task: "live",
      worktree: old.worktree,
      cwd: old.cwd,
    });
    expect(readJson(join(runDir(root, oldId), "run.json")).worktreeOutcome).toEqual({
      outcome: "removed",
      reason: null,
    });
    expect(existsSync(old.worktree as string)).toBe(true);
    const list = records((await runs(root, ["list", "--all", "--json"])).stdout);
    expect(list.map((x) => [x.runId, x.state])).toEqual([
      [rec!.runId, "running"],
      [oldId, "killed"],
    ]);
  });

  it("refuses (nothing started) when the task's branch is gone", async () => {
    const root = runsWorkspace();
    const old = await startRun(root, ["--isolate", "--task", "gone", "--", "true"]);
    expect((await runs(root, ["wait", old.runId as string])).code).toBe(0);
    git(root, "branch", "-D", "ariel/gone");
    const r = await runs(root, ["respawn", old.runId as string]);
    expect(r.code).toBe(66);
    expect(r.stderr).toContain("branch ariel/gone of . is gone; cannot restore [ERR_NOINPUT]");
    expect(r.stderr).toContain("hint: recreate it (git -C ");
    const list = records((await runs(root, ["list", "--all", "--json"])).stdout);
    expect(list.map((x) => x.runId)).toEqual([old.runId]);
  });
});

describe("concurrent control of one run (case 7)", () => {
  it(
    "kill, respawn and rm at once: serialized; one final state, no survivor, at most one respawn",
    killRespawnRmAtOnce,
  );
});
