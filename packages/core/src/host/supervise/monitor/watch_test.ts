/**
 * The monitor's output cap and free-space watches (watch.ts), on a real run directory with a
 * recording hole puncher: what is over the cap dropped from a stream's head (whole segments,
 * both streams), nothing under it, a stream that cannot be capped said once and then kept whole
 * (`output.uncapped`), one pass at a time per run, the poll of every active run; and `disk.low`
 * once per fall under config minFreeBytes (checked on the worktree root), again after a rise,
 * never with no run active. A pass and a check are counted by their test pause lines.
 */
import { mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { runPaths } from "../../../runs/paths.ts";
import { removeDir, tempDir } from "../../_fixture.ts";
import { captureMonitorLog } from "./_log_fixture.ts";
import { history, newRunId, until } from "./_monitor_fixture.ts";
import { type Active, createMonitor, type Monitor, newActive } from "./context.ts";
import { capRun, settleOutput, watchDisk, watchOutput } from "./watch.ts";

const CAP = 4096;
const saved = { ...process.env };
let root: string;
let m: Monitor;
let punched: string[];
let failPunch: string | null;
const logged = captureMonitorLog();
beforeEach(() => {
  root = tempDir("ariel-watch-");
  m = createMonitor(root, join(root, ".ariel/monitor.sock"));
  m.cap = CAP;
  punched = [];
  failPunch = null;
  m.puncher = {
    punch: async (path, offset, length) => {
      punched.push(`${path.slice(path.lastIndexOf("/") + 1)} ${offset} ${length}`);
      if (failPunch !== null) throw new Error(failPunch);
    },
    close: () => {},
  };
});
afterEach(() => {
  for (const k of Object.keys(process.env)) if (!(k in saved)) delete process.env[k];
  Object.assign(process.env, saved);
  removeDir(root);
});

/** An active run whose streams hold `out` and `err` bytes. */
function run(out: number, err = 0): Active {
  const runId = newRunId();
  const paths = runPaths(root, runId);
  mkdirSync(paths.dir, { recursive: true });
  writeFileSync(paths.stdout, "o".repeat(out));
  writeFileSync(paths.stderr, "e".repeat(err));
  const a = newActive(runId, {});
  m.active.set(runId, a);
  return a;
}

const dropMark = (a: Active, stream: "stdout" | "stderr") =>
  JSON.parse(readFileSync(`${runPaths(root, a.runId)[stream]}.dropped`, "utf8")) as unknown;
const lines = (prefix: string) => logged.filter((l) => l.startsWith(prefix)).length;
const said = () => logged.map((line) => line.replace(/^\S+ monitor \d+: /, ""));

/** Count the test pause lines at `point` (one per pass or check). */
function countPauses(point: string): void {
  Object.assign(process.env, { ARIEL_TEST_HOOKS: "1", ARIEL_TEST_PAUSE_AT: point, ARIEL_TEST_PAUSE_MS: "1" });
}

describe("capRun", () => {
  it("over the cap: whole segments dropped from the head of each stream, the drop recorded first", async () => {
    const a = run(3 * CAP + 10, 2 * CAP + 1);
    await capRun(m, a);
    expect(punched).toEqual([`stdout 0 ${2 * CAP}`, `stderr 0 ${CAP}`]);
    expect([dropMark(a, "stdout"), dropMark(a, "stderr")]).toEqual([
      { dropped: 2 * CAP, resume: 2 * CAP },
      { dropped: CAP, resume: CAP },
    ]);
    expect([a.capping, [...a.uncapped], said()]).toEqual([null, [], []]);
  });

  it("at the cap or under it, or no file: nothing dropped", async () => {
    const a = run(CAP, 10);
    const gone = run(0);
    removeDir(runPaths(root, gone.runId).dir);
    await capRun(m, a);
    await capRun(m, gone);
    expect(punched).toEqual([]);
  });

  it("one pass at a time: a second call while one goes is that pass", async () => {
    const a = run(2 * CAP);
    const first = capRun(m, a);
    expect(capRun(m, a)).toBe(first);
    expect(a.capping).toBe(first);
    await first;
    expect([a.capping, punched]).toEqual([null, [`stdout 0 ${CAP}`]]);
  });
});

describe("capRun: what cannot be capped, and passes", () => {
  it("a stream that cannot be capped: said once, output.uncapped, then kept whole", async () => {
    failPunch = "no holes here";
    const a = run(2 * CAP);
    await capRun(m, a);
    writeFileSync(runPaths(root, a.runId).stdout, "o".repeat(4 * CAP));
    await capRun(m, a);
    expect(punched).toEqual([`stdout 0 ${CAP}`]);
    expect([...a.uncapped]).toEqual(["stdout"]);
    expect(said()).toEqual([`output cap of ${a.runId} stdout: no holes here; kept whole\n`]);
    expect(history(root, a.runId)).toMatchObject([
      {
        event: "output.uncapped",
        runId: a.runId,
        source: null,
        stream: "stdout",
        cap: CAP,
        reason: "no holes here",
      },
    ]);
    expect(dropMark(a, "stdout")).toEqual({ dropped: 0, resume: 0 }); // the record went back
  });

  it("a pass that fails: said in monitor.log, the run left as it was", async () => {
    const a = run(2 * CAP);
    mkdirSync(`${runPaths(root, a.runId).stdout}.dropped/x`, { recursive: true });
    await capRun(m, a);
    expect(said()).toHaveLength(1);
    const mark = `${runPaths(root, a.runId).stdout}.dropped`;
    expect(
      said()[0]?.startsWith(`output cap of ${a.runId}: EISDIR: illegal operation on a directory, rename '`),
    ).toBe(true);
    expect(said()[0]?.endsWith(`' -> '${mark}'\n`)).toBe(true);
    expect([a.capping, [...a.uncapped], punched]).toEqual([null, [], []]);
  });

  it("settleOutput: after the pass going, one more (what was written meanwhile is capped too)", async () => {
    countPauses("monitor:output-checked");
    const a = run(2 * CAP);
    const going = capRun(m, a);
    writeFileSync(runPaths(root, a.runId).stdout, "o".repeat(3 * CAP));
    await settleOutput(m, a);
    await going;
    expect(lines("ariel-test-paused monitor:output-checked")).toBe(2);
    expect(dropMark(a, "stdout")).toEqual({ dropped: 2 * CAP, resume: 2 * CAP });
  });
});

describe("watchOutput", () => {
  it("every poll: a pass for each active run with none going", async () => {
    process.env.ARIEL_RUN_OUTPUT_POLL_MS = "20";
    const a = run(2 * CAP);
    const busy = run(2 * CAP);
    busy.capping = new Promise(() => {});
    const t = watchOutput(m);
    try {
      expect(await until(() => punched.length > 0)).toBe(true);
      expect(punched).toEqual([`stdout 0 ${CAP}`]);
      expect(dropMark(a, "stdout")).toEqual({ dropped: CAP, resume: CAP });
    } finally {
      clearInterval(t);
    }
  });
});

const config = (min: number, worktreeRoot?: string) =>
  writeFileSync(
    join(root, "ariel.config.json"),
    JSON.stringify({ minFreeBytes: min, ...(worktreeRoot ? { worktreeRoot } : {}) }),
  );
const lows = (a: Active) => {
  try {
    return history(root, a.runId).filter((e) => e.event === "disk.low");
  } catch {
    return [];
  }
};
const checks = () => lines("ariel-test-paused monitor:disk-checked");
/** Disk checks every 20 ms, each counted. */
function pollDisk(): void {
  process.env.ARIEL_DISK_POLL_MS = "20";
  countPauses("monitor:disk-checked");
}

describe("watchDisk", () => {
  beforeEach(pollDisk);

  it("under minFreeBytes: disk.low once to every active run, again only after a rise", async () => {
    const HUGE = 2 ** 52;
    config(HUGE, "wts");
    mkdirSync(join(root, "wts"));
    const [a, b] = [run(0), run(0)];
    const t = watchDisk(m);
    try {
      expect(await until(() => lows(b).length === 1)).toBe(true);
      const low = lows(a)[0] as { free: number };
      expect(lows(a)).toEqual([
        {
          v: 1,
          type: "event",
          event: "disk.low",
          runId: a.runId,
          ts: lows(a)[0]?.ts,
          source: null,
          free: low.free,
          minFreeBytes: HUGE,
          path: join(root, "wts"),
        },
      ]);
      expect(Number.isInteger(low.free) && low.free < HUGE).toBe(true);
      const seen = checks();
      expect(await until(() => checks() >= seen + 3)).toBe(true);
      expect([lows(a).length, lows(b).length]).toEqual([1, 1]); // still low: not said again
      config(1);
      const risen = checks();
      expect(await until(() => checks() >= risen + 2)).toBe(true);
      config(HUGE);
      expect(await until(() => lows(a).length === 2)).toBe(true);
      // the default worktree root (.ariel/worktrees, not there yet): its first existing parent
      expect(lows(a)[1]).toMatchObject({ minFreeBytes: HUGE, path: join(root, ".ariel") });
    } finally {
      clearInterval(t);
    }
  });
});

describe("watchDisk: when it does not look", () => {
  beforeEach(pollDisk);

  it("no run active: not checked; no minFreeBytes: checked, never low", async () => {
    const t = watchDisk(m);
    try {
      await new Promise((r) => setTimeout(r, 100));
      expect(checks()).toBe(0);
      const a = run(0);
      expect(await until(() => checks() >= 2)).toBe(true);
      expect(lows(a)).toEqual([]);
    } finally {
      clearInterval(t);
    }
  });
});
