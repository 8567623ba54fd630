/**
 * The output size cap on detached runs (docs/runs.md, "Size cap"): a child that writes past the
 * cap and never exits has the head of its stream dropped (a hole punched in its file) while it
 * runs; sequence numbers are byte offsets for good, so `logs`, `logs -f` and `attach --from`
 * resume with no gap and no duplicate, and say so when a sequence asked for was dropped.
 */
import { type ChildProcess, spawn } from "node:child_process";
import { closeSync, existsSync, mkdirSync, openSync, readFileSync, statSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { capWithOnly, toolDir } from "./e2e/runs_cap_cases.ts";
import { register, serve, stateHome } from "./fleet_helpers.ts";
import { cliCommand, records, testStateHome } from "./helpers/cli.ts";
import { removeDir } from "./helpers/git.ts";
import { watchJsonLines } from "./helpers/json_lines.ts";
import {
  alive,
  cleanUp,
  countedHooks,
  groupAlive,
  NODE,
  passes,
  readJson,
  runDir,
  runs,
  runsWorkspace,
  spawnD,
  TEST_ENV,
  until,
} from "./runs_helpers.ts";

const readers: ChildProcess[] = [];
afterEach(() => {
  for (const c of readers.splice(0)) if (c.exitCode === null && c.signalCode === null) c.kill("SIGKILL");
  cleanUp();
});

const CAP = 16384; // segments of 4096 bytes
const SEG = 4096;
const LINE = 16; // every line the writer prints is 16 bytes: line i starts at sequence 16 * i
const CAP_ENV = { ARIEL_RUN_OUTPUT_CAP: String(CAP), ARIEL_RUN_OUTPUT_POLL_MS: "50" };

/** Line i as the writer prints it. */
const line = (i: number) => `${String(i).padStart(LINE - 1, "0")}\n`;
const lines = (from: number, to: number) => Array.from({ length: to - from }, (_, k) => line(from + k));

/**
 * A child that prints BURSTS bursts of N lines (one write each); with a GO directory it waits
 * for `GO/go-<k>` after burst k, so the test sets the pace. Then it sleeps and never exits.
 */
const WRITER = `
const { writeSync, existsSync } = require("node:fs");
const [bursts, n, go] = [Number(process.argv[1]), Number(process.argv[2]), process.argv[3]];
const nap = new Int32Array(new SharedArrayBuffer(4));
let i = 0;
for (let k = 0; k < bursts; k++) {
  let s = "";
  for (let j = 0; j < n; j++, i++) s += String(i).padStart(15, "0") + "\\n";
  writeSync(1, s);
  if (go !== "-") while (!existsSync(go + "/go-" + k)) Atomics.wait(nap, 0, 0, 20);
}
setInterval(() => {}, 1 << 30);
`;
const writer = (bursts: number, n: number, go = "-") => [
  "--",
  NODE,
  "-e",
  WRITER,
  String(bursts),
  String(n),
  go,
];

async function start(root: string, args: readonly string[], env: Record<string, string> = CAP_ENV) {
  // --shared: several of these runs work in the workspace's checkout at once.
  const r = await spawnD(root, ["--json", "--shared", ...args], { env });
  expect([r.code, r.stderr]).toEqual([0, ""]);
  return records(r.stdout)[0] as { runId: string; child: { pgid: number }; monitor: { pid: number } };
}

/** `ariel-runs ARGS` with its stdout readable while it runs. */
function live(
  root: string,
  args: readonly string[],
): { child: ChildProcess; out: () => string; err: () => string } {
  const [exe, ...pre] = cliCommand("runs");
  const [cmd, ...rest] = args;
  const child = spawn(exe!, [...pre, cmd!, "-C", root, ...rest], {
    env: { ...process.env, NO_COLOR: "1", ARIEL_STATE_HOME: testStateHome(), ...TEST_ENV },
    stdio: ["ignore", "pipe", "pipe"],
  });
  watchJsonLines(child, `ariel-runs ${cmd}`, rest);
  readers.push(child);
  let out = "";
  let err = "";
  child.stdout!.setEncoding("utf8").on("data", (s: string) => {
    out += s;
  });
  child.stderr!.setEncoding("utf8").on("data", (s: string) => {
    err += s;
  });
  return { child, out: () => out, err: () => err };
}

const ended = (c: ChildProcess) =>
  new Promise<number | null>((resolve) => {
    if (c.exitCode !== null) resolve(c.exitCode);
    else c.once("exit", (code) => resolve(code));
  });

const dropped = (root: string, runId: string) => {
  const p = join(runDir(root, runId), "stdout.dropped");
  return existsSync(p) ? (readJson(p).dropped as number) : 0;
};

/** The expected `dropped` once `size` bytes were written (the core rule, spelled out). */
const droppedAt = (size: number) => (size <= CAP ? 0 : Math.floor((size - CAP) / SEG) * SEG);

describe("output cap on lines of any length", () => {
  // Lines "0\n" .. "29999\n" (168890 bytes) with a 64 KiB cap: the end-of-run pass drops
  // 6 segments of 16 KiB, up to 98304, two bytes into line 18235 ("18235\n" at 98300).
  const N = 30_000;
  const big = { ARIEL_RUN_OUTPUT_CAP: "65536", ARIEL_RUN_OUTPUT_POLL_MS: "50" };
  const numbered = Array.from({ length: N }, (_, i) => `${i}\n`);
  const startOf = (i: number) => numbered.slice(0, i).join("").length;
  /** `[seq, data]` of every line from line `i` on. */
  const withSeqs = (i: number) => {
    let seq = startOf(i);
    return numbered.slice(i).map((l) => {
      const at = seq;
      seq += l.length;
      return [at, l];
    });
  };
  const script = `const { writeSync } = require("node:fs"); let s = ""; for (let i = 0; i < ${N}; i++) s += i + "\\n"; writeSync(1, s);`;

  async function capped(root: string): Promise<string> {
    const rec = await start(root, ["--", NODE, "-e", script], big);
    expect((await runs(root, ["wait", rec.runId], { timeoutMs: 30_000 })).code).toBe(0);
    expect(readJson(join(runDir(root, rec.runId), "stdout.dropped"))).toEqual({
      dropped: 98304,
      resume: startOf(18236),
    });
    expect([startOf(18235), startOf(18236)]).toEqual([98300, 98306]);
    return rec.runId;
  }

  it("logs --json goes on at the first whole line after a drop that cut one: no fragment, no line twice", async () => {
    const root = runsWorkspace();
    const runId = await capped(root);
    const j = await runs(root, ["logs", "--json", "--stream", "stdout", runId]);
    expect(j.code).toBe(0);
    expect(records(j.stdout).map((x) => [x.seq, x.data])).toEqual(withSeqs(18236));
    expect(records(j.stderr)).toMatchObject([
      {
        code: "WARN_OUTPUT_DROPPED",
        message: "stdout sequences 0 to 98305 were dropped by the output cap; continuing at 98306",
        from: 0,
        to: 98306,
      },
    ]);
    // --from inside the dropped range: the same; --from a kept sequence: exactly there.
    const from = await runs(root, ["logs", "--json", "--stream", "stdout", "--from", "98000", runId]);
    expect(records(from.stdout)[0]).toMatchObject({ seq: 98306, data: "18236\n" });
    const kept = await runs(root, [
      "logs",
      "--json",
      "--stream",
      "stdout",
      "--from",
      String(startOf(20000)),
      runId,
    ]);
    expect([kept.stderr, records(kept.stdout)[0]]).toMatchObject([
      "",
      { seq: startOf(20000), data: "20000\n" },
    ]);
  });

  it("plain logs prints the drop warning before the data, in order on one terminal", async () => {
    const root = runsWorkspace();
    const runId = await capped(root);
    const both = join(root, "both.txt");
    const fd = openSync(both, "w");
    const [exe, ...pre] = cliCommand("runs");
    const child = spawn(exe!, [...pre, "logs", "-C", root, "--stream", "stdout", runId], {
      env: { ...process.env, NO_COLOR: "1", ARIEL_STATE_HOME: testStateHome(), ...TEST_ENV },
      stdio: ["ignore", fd, fd],
    });
    closeSync(fd);
    expect(await ended(child)).toBe(0);
    expect(readFileSync(both, "utf8")).toBe(
      [
        "ariel-runs: warning: stdout sequences 0 to 98305 were dropped by the output cap; continuing at 98306\n",
        "ariel-runs: hint: the monitor keeps the last ARIEL_RUN_OUTPUT_CAP bytes (64 MiB unless set) of each stream; read sooner or raise the cap\n",
        ...numbered.slice(18236),
      ].join(""),
    );
  });
});

describe("output cap on a child that never exits", () => {
  it("drops whole segments while it runs; logs -f follows across the drops with no gap and no duplicate", async () => {
    const root = runsWorkspace();
    const go = join(root, ".go");
    mkdirSync(go);
    const BURSTS = 12;
    const N = 128; // 2048 bytes a burst: 24 KiB in all, the cap is 16 KiB
    const rec = await start(root, writer(BURSTS, N, go));
    const f = live(root, ["logs", "-f", "--json", "--stream", "stdout", rec.runId]);
    for (let k = 0; k < BURSTS; k++) {
      // the next burst only once the follower has printed this one: it never falls a cap behind
      await until(() => f.out().includes(`"data":"${line((k + 1) * N - 1).trimEnd()}\\n"`), 20_000);
      writeFileSync(join(go, `go-${k}`), "");
    }
    const size = BURSTS * N * LINE;
    await until(() => dropped(root, rec.runId) === droppedAt(size));
    expect(droppedAt(size)).toBe(8192);
    const file = join(runDir(root, rec.runId), "stdout");
    const st = statSync(file);
    expect(st.size).toBe(size); // the file keeps its length: sequence numbers are offsets
    expect(st.blocks * 512).toBeLessThanOrEqual(CAP + SEG); // only the kept part takes space
    const bytes = readFileSync(file);
    expect(bytes.subarray(0, 8192).every((b) => b === 0)).toBe(true); // the hole
    expect(bytes.subarray(8192).toString()).toBe(lines(512, BURSTS * N).join(""));
    expect(groupAlive(rec.child.pgid)).toBe(true);

    // logs -f ends by itself once the run is killed; it printed every line once, in order
    const k = await runs(root, ["kill", rec.runId, "--grace", "2s"]);
    expect(k.code).toBe(0);
    expect(await ended(f.child)).toBe(0);
    expect(f.err()).toBe("");
    const followed = records(f.out());
    // Its last record is the run's end (killed by ariel: SIGTERM, 143).
    expect(followed.pop()).toMatchObject({ type: "end", runId: rec.runId, state: "killed", status: 143 });
    expect(followed.map((x) => [x.seq, x.data])).toEqual(lines(0, BURSTS * N).map((l, i) => [i * LINE, l]));
  });

  it("a logs -f that fell more than the cap behind says what it missed and goes on with no duplicate", async () => {
    const root = runsWorkspace();
    const go = join(root, ".go");
    mkdirSync(go);
    const rec = await start(root, writer(4, 512, go)); // 8 KiB bursts
    const f = live(root, ["logs", "-f", "--json", "--stream", "stdout", rec.runId]);
    await until(() => f.out().includes(line(511).trimEnd()), 20_000);
    f.child.kill("SIGSTOP"); // the reader stalls at sequence 8192
    for (let k = 0; k < 3; k++) writeFileSync(join(go, `go-${k}`), "");
    await until(() => dropped(root, rec.runId) === droppedAt(4 * 8192));
    expect(droppedAt(4 * 8192)).toBe(16384);
    f.child.kill("SIGCONT");
    await until(() => f.out().includes(line(2047).trimEnd()), 20_000);
    expect((await runs(root, ["kill", rec.runId, "--grace", "2s"])).code).toBe(0);
    expect(await ended(f.child)).toBe(0);
    expect(records(f.out()).at(-1)).toMatchObject({ type: "end", state: "killed" });
    expect(
      records(f.out())
        .slice(0, -1)
        .map((x) => [x.seq, x.data]),
    ).toEqual([
      ...lines(0, 512).map((l, i) => [i * LINE, l]),
      ...lines(1024, 2048).map((l, i) => [16384 + i * LINE, l]),
    ]);
    expect(records(f.err())).toMatchObject([
      {
        type: "warning",
        code: "WARN_OUTPUT_DROPPED",
        message: "stdout sequences 8192 to 16383 were dropped by the output cap; continuing at 16384",
        from: 8192,
        to: 16384,
      },
    ]);
  });

  it("logs prints the kept tail with its sequence numbers and says what was dropped; attach --from a dropped seq too", async () => {
    const root = runsWorkspace();
    const rec = await start(root, writer(3, 512)); // 3 x 8 KiB at once, then sleeps
    const size = 3 * 512 * LINE;
    await until(() => dropped(root, rec.runId) === droppedAt(size));
    expect(droppedAt(size)).toBe(8192);

    const j = await runs(root, ["logs", "--json", "--stream", "stdout", rec.runId]);
    expect(j.code).toBe(0);
    expect(records(j.stdout).map((x) => [x.seq, x.data])).toEqual(
      lines(512, 1536).map((l, i) => [8192 + i * LINE, l]),
    );
    expect(records(j.stderr)).toEqual([
      {
        v: 1,
        type: "warning",
        code: "WARN_OUTPUT_DROPPED",
        message: "stdout sequences 0 to 8191 were dropped by the output cap; continuing at 8192",
        hint: "the monitor keeps the last ARIEL_RUN_OUTPUT_CAP bytes (64 MiB unless set) of each stream; read sooner or raise the cap",
        stream: "stdout",
        from: 0,
        to: 8192,
      },
    ]);

    const human = await runs(root, ["logs", "--stream", "stdout", rec.runId]);
    expect(human.stdout).toBe(lines(512, 1536).join(""));
    expect(human.stderr).toContain(
      "warning: stdout sequences 0 to 8191 were dropped by the output cap; continuing at 8192",
    );

    // a kept sequence: exactly from there, no warning
    const from = await runs(root, [
      "logs",
      "--json",
      "--stream",
      "stdout",
      "--from",
      String(1500 * LINE),
      rec.runId,
    ]);
    expect([from.stderr, records(from.stdout).map((x) => x.seq)]).toEqual([
      "",
      lines(1500, 1536).map((_, i) => (1500 + i) * LINE),
    ]);
    const tail = await runs(root, ["logs", "--tail", "2", "--stream", "stdout", rec.runId]);
    expect(tail.stdout).toBe(lines(1534, 1536).join(""));

    // attach --from a dropped sequence: the warning, then from the oldest kept byte, live
    const a = live(root, ["attach", "--json", "--stream", "stdout", "--from", "100", rec.runId]);
    await until(() => a.out().includes(line(1535).trimEnd()));
    expect((await runs(root, ["kill", rec.runId, "--grace", "2s"])).code).toBe(0);
    expect(await ended(a.child)).toBe(0);
    expect(records(a.err())).toMatchObject([
      {
        type: "warning",
        code: "WARN_OUTPUT_DROPPED",
        message: "stdout sequences 100 to 8191 were dropped by the output cap; continuing at 8192",
      },
    ]);
    expect(records(a.out()).map((x) => x.seq)).toEqual(lines(512, 1536).map((_, i) => 8192 + i * LINE));
  });

  it("one shared monitor caps every run of the workspace; a --timeout run ends capped", async () => {
    const root = runsWorkspace();
    const a = await start(root, writer(3, 512));
    const b = await start(root, ["--timeout", "1s", ...writer(4, 512)]);
    expect(b.monitor.pid).toBe(a.monitor.pid);
    const w = await runs(root, ["wait", b.runId, "--json"], { timeoutMs: 30_000 });
    expect([w.code, records(w.stdout)[0]?.state]).toEqual([143, "killed"]);
    expect(dropped(root, b.runId)).toBe(droppedAt(4 * 8192)); // the last look, before exit.json
    expect(droppedAt(4 * 8192)).toBe(16384);
    await until(() => dropped(root, a.runId) === 8192);
    for (const [run, n] of [
      [a, 1536],
      [b, 2048],
    ] as const) {
      const j = await runs(root, ["logs", "--json", "--stream", "stdout", run.runId]);
      const first = dropped(root, run.runId) / LINE;
      expect(records(j.stdout).map((x) => x.data)).toEqual(lines(first, n));
    }
  });

  it("the fleet API replays a capped run's kept output once, from the oldest kept line", async () => {
    const root = runsWorkspace();
    const rec = await start(root, writer(3, 512));
    await until(() => dropped(root, rec.runId) === 8192);
    expect((await runs(root, ["kill", rec.runId, "--grace", "2s"])).code).toBe(0);
    const state = stateHome();
    await register(state.dir, root);
    const server = await serve([], state.env);
    try {
      const res = await fetch(`${server.url}api/runs/${rec.runId}/events`);
      expect(res.status).toBe(200);
      const events = (await res.json()) as { event: string; stream?: string; data?: string }[];
      const out = events.filter((e) => e.event === "output" && e.stream === "stdout").map((e) => e.data);
      expect(out).toEqual(lines(512, 1536));
    } finally {
      await server.stop();
      removeDir(state.dir);
    }
  });

  it("a restarting child writes on in the same file: the cap counts every attempt's output", async () => {
    const root = runsWorkspace();
    const script =
      "const { writeSync } = require('node:fs'); for (let i = 0; i < 640; i++) writeSync(1, String(i).padStart(15, '0') + '\\n'); process.exit(1)";
    const rec = await start(root, ["--restart", "on-failure:2", "--", NODE, "-e", script]);
    expect((await runs(root, ["wait", rec.runId], { timeoutMs: 30_000 })).code).toBe(1);
    const size = 3 * 640 * LINE; // 30720
    expect(dropped(root, rec.runId)).toBe(droppedAt(size));
    expect(droppedAt(size)).toBe(12288); // attempt 2 (from 10240), line 128
    const j = await runs(root, ["logs", "--json", "--stream", "stdout", rec.runId]);
    const want = [...lines(128, 640), ...lines(0, 640)].map((l, i) => [12288 + i * LINE, l]);
    expect(records(j.stdout).map((x) => [x.seq, x.data])).toEqual(want);
  });

  it("a SIGKILLed monitor: the run reads lost, the child writes on, everything not dropped is readable", async () => {
    const root = runsWorkspace();
    const go = join(root, ".go");
    mkdirSync(go);
    const rec = await start(root, writer(4, 512, go)); // 8 KiB bursts
    const file = join(runDir(root, rec.runId), "stdout");
    await until(() => statSync(file).size === 8192);
    writeFileSync(join(go, "go-0"), "");
    await until(() => statSync(file).size === 16384);
    writeFileSync(join(go, "go-1"), "");
    await until(() => dropped(root, rec.runId) === droppedAt(3 * 8192));
    expect(droppedAt(3 * 8192)).toBe(8192);
    process.kill(rec.monitor.pid, "SIGKILL");
    await until(() => !alive(rec.monitor.pid));
    writeFileSync(join(go, "go-2"), ""); // the child writes on with nobody to cap it
    await until(() => statSync(file).size === 4 * 8192);
    const list = records((await runs(root, ["list", "--json"])).stdout);
    expect(list.map((x) => [x.runId, x.state, x.exit])).toEqual([[rec.runId, "lost", null]]);
    expect(groupAlive(rec.child.pgid)).toBe(true);
    expect(dropped(root, rec.runId)).toBe(8192);
    const j = await runs(root, ["logs", "--json", "--stream", "stdout", rec.runId]);
    expect(records(j.stdout).map((x) => [x.seq, x.data])).toEqual(
      lines(512, 2048).map((l, i) => [8192 + i * LINE, l]),
    );
  });

  // The monitor punches through its perl helper, else util-linux `fallocate` (decision 0040).
  it("with only perl on the monitor's PATH the helper punches", () => capWithOnly("perl"));
  it("with only fallocate on the monitor's PATH fallocate(1) punches, and the log says so once", () =>
    capWithOnly("fallocate"));

  it("without perl and fallocate the stream is kept whole, and the run's history says so once", async () => {
    const root = runsWorkspace();
    const point = "monitor:output-checked";
    const rec = await start(root, writer(3, 512), {
      ...CAP_ENV,
      PATH: toolDir(root, ["git"]),
      ...countedHooks(root, point),
    });
    const file = join(runDir(root, rec.runId), "stdout");
    await until(() =>
      readFileSync(join(root, ".ariel/runs", `${rec.runId}.ndjson`), "utf8").includes("output.uncapped"),
    );
    // At least three more whole passes over the streams (four lines: the first may be the pass
    // that said it): still said once.
    const seen = passes(root, point);
    await until(() => passes(root, point) >= seen + 4);
    const events = readFileSync(join(root, ".ariel/runs", `${rec.runId}.ndjson`), "utf8")
      .trim()
      .split("\n")
      .map((l) => JSON.parse(l) as Record<string, unknown>)
      .filter((e) => e.event === "output.uncapped");
    expect(events).toMatchObject([{ stream: "stdout", cap: CAP, reason: "fallocate: ENOENT" }]);
    expect(readJson(join(runDir(root, rec.runId), "stdout.dropped"))).toEqual({ dropped: 0, resume: 0 }); // put back
    expect(readFileSync(file, "utf8")).toBe(lines(0, 1536).join(""));
    const j = await runs(root, ["logs", "--json", "--stream", "stdout", rec.runId]);
    expect([j.stderr, records(j.stdout).length]).toEqual(["", 1536]);
  });
});
