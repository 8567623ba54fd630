import { describe, expect, it } from "vitest";
import { isArielError } from "../errors.ts";
import { eachMaps } from "../testing/cases.ts";
import { splitOutput, splitRead, tailStart } from "./chunks.ts";
import { parseDuration } from "./duration.ts";
import { planPrune } from "./prune.ts";
import { newestFirst, type RunRef, resolveRun, runArg } from "./resolve.ts";
import { decideRestart, parseRestart } from "./restart.ts";
import { dropTo, keptPart, lineResume, segmentSize } from "./segments.ts";
import { deriveRunState, exitState, type RunFacts } from "./state.ts";

const enc = (s: string) => new TextEncoder().encode(s);
const codeOf = (fn: () => unknown) => {
  try {
    fn();
    return null;
  } catch (e) {
    return isArielError(e) ? e.code : String(e);
  }
};

function facts(over: Partial<RunFacts> = {}): RunFacts {
  return {
    record: {
      monitor: { pid: 10, startTime: "5", bootId: "boot-a" },
      child: { pid: 11, pgid: 11, startTime: "6" },
    },
    exit: null,
    bootId: "boot-a",
    monitorAlive: true,
    ...over,
  };
}

describe("deriveRunState", () => {
  it.each<[string, Partial<RunFacts>, string]>([
    ["monitor alive, child recorded", {}, "running"],
    [
      "monitor alive, no child yet (or between restarts)",
      { record: { monitor: null, child: null } },
      "starting",
    ],
    ["monitor gone without exit.json", { monitorAlive: false }, "lost"],
    [
      "exit.json decides, even with the monitor gone",
      { exit: { state: "killed" }, monitorAlive: false },
      "killed",
    ],
    ["another boot: crashed, never running", { bootId: "boot-b" }, "crashed"],
    [
      "another boot but ended before: the exit wins",
      { bootId: "boot-b", exit: { state: "exited" } },
      "exited",
    ],
    ["no boot id anywhere: liveness decides", { bootId: null, monitorAlive: false }, "lost"],
  ])("%s", (_name, over, want) => {
    expect(deriveRunState(facts(over))).toBe(want);
  });

  it.each([
    [0, false, "exited"],
    [1, false, "failed"],
    [127, false, "failed"],
    [0, true, "killed"],
    [143, true, "killed"],
  ] as const)("exitState(%i, killed=%s) = %s", (status, killed, want) => {
    expect(exitState(status, killed)).toBe(want);
  });
});

describe("parseDuration", () => {
  it.each([
    ["500ms", 500],
    ["10s", 10_000],
    ["1.5", 1500],
    ["5m", 300_000],
    ["2h", 7_200_000],
    ["7d", 604_800_000],
    ["0s", 0],
    ["1.25", 1250],
    ["365d", 31_536_000_000],
  ])("%s = %i ms", (text, ms) => {
    expect(parseDuration(text, "--x")).toBe(ms);
  });
  it.each(["", "soon", "-1s", "10 s", "1y", "400d", "366d", "1.25.5s"])("refuses %j (ERR_USAGE)", (text) => {
    expect(() => parseDuration(text, "--x")).toThrow(
      expect.objectContaining({
        code: "ERR_USAGE",
        message: `--x needs a duration such as 10s, 5m, 2h or 7d, got ${JSON.stringify(text)}`,
      }),
    );
  });
});

describe("restart policy", () => {
  eachMaps(
    parseRestart,
    [
      [undefined, { policy: "no", max: 0, count: 0 }],
      ["no", { policy: "no", max: 0, count: 0 }],
      ["on-failure", { policy: "on-failure", max: 5, count: 0 }],
      ["on-failure:3", { policy: "on-failure", max: 3, count: 0 }],
      ["on-failure:1", { policy: "on-failure", max: 1, count: 0 }],
      ["on-failure:10", { policy: "on-failure", max: 10, count: 0 }],
      ["on-failure:100", { policy: "on-failure", max: 100, count: 0 }],
    ],
    "parseRestart(%j)",
  );
  it.each(["always", "on-failure:0", "on-failure:101", "on-failure:x", "xon-failure", "on-failure:1000"])(
    "refuses %j",
    (text) => {
      expect(() => parseRestart(text)).toThrow(
        expect.objectContaining({
          code: "ERR_USAGE",
          message: `--restart needs no, on-failure or on-failure:N (1-100), got ${JSON.stringify(text)}`,
        }),
      );
    },
  );

  const p3 = { policy: "on-failure" as const, max: 3, count: 0 };
  it.each([
    ["success never restarts", p3, { status: 0, killed: false, ranMs: 1 }, { restart: false, count: 0 }],
    ["a kill never restarts", p3, { status: 143, killed: true, ranMs: 1 }, { restart: false, count: 0 }],
    [
      "first fast failure",
      p3,
      { status: 1, killed: false, ranMs: 1 },
      { restart: true, delayMs: 250, count: 1 },
    ],
    [
      "third fast failure",
      { ...p3, count: 2 },
      { status: 1, killed: false, ranMs: 1 },
      { restart: true, delayMs: 1000, count: 3 },
    ],
    [
      "gives up after max",
      { ...p3, count: 3 },
      { status: 1, killed: false, ranMs: 1 },
      { restart: false, count: 3 },
    ],
    [
      "a slow failure starts over",
      { ...p3, count: 3 },
      { status: 1, killed: false, ranMs: 60_000 },
      { restart: true, delayMs: 250, count: 1 },
    ],
    [
      "a failure after exactly the fast-failure time starts over",
      { ...p3, count: 3 },
      { status: 1, killed: false, ranMs: 10_000 },
      { restart: true, delayMs: 250, count: 1 },
    ],
    [
      "no policy, whatever its count allows",
      { policy: "no" as const, max: 3, count: 0 },
      { status: 1, killed: false, ranMs: 1 },
      { restart: false, count: 0 },
    ],
    [
      "no policy",
      { policy: "no" as const, max: 0, count: 0 },
      { status: 1, killed: false, ranMs: 1 },
      { restart: false, count: 0 },
    ],
  ])("%s", (_name, policy, ended, want) => {
    expect(decideRestart(policy, ended)).toEqual(want);
  });
});

describe("resolveRun", () => {
  const runs = [
    { runId: "20261202T110943Z-abc123", name: "agent" },
    { runId: "20261202T110944Z-def456", name: "agent" },
    { runId: "20261203T000000Z-zzzzzz", name: null },
  ];
  it.each([
    ["an exact id", "20261202T110943Z-abc123", "20261202T110943Z-abc123"],
    ["a name: the newest run of that name", "agent", "20261202T110944Z-def456"],
    ["a unique prefix", "20261203", "20261203T000000Z-zzzzzz"],
  ])("%s", (_name, ref, want) => {
    expect(resolveRun(runs, ref).runId).toBe(want);
  });
  it.each([
    ["an ambiguous prefix", "20261202", "ERR_RUN_AMBIGUOUS"],
    ["a prefix too short", "202", "ERR_RUN_NOT_FOUND"],
    ["nothing", "other", "ERR_RUN_NOT_FOUND"],
  ])("%s", (_name, ref, code) => {
    expect(codeOf(() => resolveRun(runs, ref))).toBe(code);
  });
  it.each([
    [
      "an exact id wins over a run of that name",
      [{ runId: "20261204T000000Z-decoy0", name: runs[0]!.runId }, ...runs],
      runs[0]!.runId,
      runs[0]!.runId,
    ],
    ["a prefix of four characters", [runs[2]!], "2026", runs[2]!.runId],
  ])("%s", (_name, list, ref, want) => {
    expect(resolveRun(list, ref).runId).toBe(want);
  });
  it("an ambiguous prefix names the first five runs it matches", () => {
    const many = Array.from({ length: 6 }, (_, i) => ({ runId: `20261202T11094${i}Z-abc123`, name: null }));
    let err: unknown;
    try {
      resolveRun(many, "20261202T1109");
    } catch (e) {
      err = e;
    }
    expect(err).toMatchObject({
      code: "ERR_RUN_AMBIGUOUS",
      message: 'run "20261202T1109" matches 6 runs',
      context: { run: "20261202T1109", matches: many.slice(0, 5).map((r) => r.runId) },
    });
  });
  it("a run not found says which", () => {
    let err: unknown;
    try {
      resolveRun(runs, "other");
    } catch (e) {
      err = e;
    }
    expect(err).toMatchObject({ context: { run: "other" } });
  });
  it("a name made twice in one second: the later createdAt wins, whatever the random suffix", () => {
    const same = [
      { runId: "20261202T110943Z-zzzzzz", name: "agent", createdAt: "2026-12-02T11:09:43.100Z" },
      { runId: "20261202T110943Z-aaaaaa", name: "agent", createdAt: "2026-12-02T11:09:43.900Z" },
    ];
    expect(resolveRun(same, "agent").runId).toBe("20261202T110943Z-aaaaaa");
    expect(resolveRun([...same].reverse(), "agent").runId).toBe("20261202T110943Z-aaaaaa");
  });
  it.each([
    ["a name one edit off", "agnet", 'did you mean "agent"? ariel-runs list --all shows every run'],
    ["a name two edits off", "agen", 'did you mean "agent"? ariel-runs list --all shows every run'],
    ["nothing near", "frobnicate", "ariel-runs list --all shows every run"],
  ])("a run not found: %s", (_name, ref, hint) => {
    let err: unknown;
    try {
      resolveRun(runs, ref);
    } catch (e) {
      err = e;
    }
    expect(err).toMatchObject({ code: "ERR_RUN_NOT_FOUND", message: `no run "${ref}"`, hint });
  });
});

describe("runArg: how a hint names a run", () => {
  const old = { runId: "20261202T110943Z-abc123", name: "agent", createdAt: "2026-12-02T11:09:43.000Z" };
  const fresh = { runId: "20261202T120000Z-def456", name: "agent", createdAt: "2026-12-02T12:00:00.000Z" };
  const bare = { runId: "20261203T000000Z-zzzzzz", name: null };
  it.each<[string, RunRef, RunRef[], string]>([
    ["its name, while it is the newest of that name", fresh, [old, fresh, bare], "agent"],
    ["its id once a newer run took the name over (a respawn)", old, [old, fresh, bare], old.runId],
    ["its id when it has no name", bare, [old, fresh, bare], bare.runId],
    ["a name a shell would split, quoted", { ...fresh, name: "agent@libs/web x" }, [], "'agent@libs/web x'"],
    ["alone: its name", old, [], "agent"],
  ])("%s", (_name, run, runs, want) => {
    expect(runArg(run, runs.length > 0 ? runs : [run])).toBe(want);
  });
  it("among runs of other names: its name", () => {
    expect(runArg(fresh, [bare])).toBe("agent");
  });
  it("with no runs given: its name", () => {
    expect(runArg(old)).toBe("agent");
  });
});

describe("newestFirst", () => {
  const at = (runId: string, createdAt?: string) => ({
    runId,
    name: null,
    ...(createdAt ? { createdAt } : {}),
  });
  it.each([
    [
      "later createdAt first",
      at("20261202T110943Z-zzzzzz", "2026-12-02T11:09:43.1Z"),
      at("20261202T110943Z-aaaaaa", "2026-12-02T11:09:43.9Z"),
      1,
    ],
    [
      "earlier createdAt last",
      at("20261202T110943Z-aaaaaa", "2026-12-02T11:09:43.9Z"),
      at("20261202T110943Z-zzzzzz", "2026-12-02T11:09:43.1Z"),
      -1,
    ],
    ["same time: the larger id first", at("20261202T110943Z-bbbbbb"), at("20261202T110943Z-aaaaaa"), -1],
    ["same time: the smaller id last", at("20261202T110943Z-aaaaaa"), at("20261202T110943Z-bbbbbb"), 1],
    ["the same run", at("20261202T110943Z-aaaaaa"), at("20261202T110943Z-aaaaaa"), 0],
  ])("%s", (_name, a, b, want) => {
    expect(newestFirst(a, b)).toBe(want);
  });
});

describe("output chunks", () => {
  it.each([
    [
      "whole lines",
      "a\nbc\n",
      0,
      false,
      [
        [0, "a\n"],
        [2, "bc\n"],
      ],
      5,
    ],
    ["a torn last line is held back while live", "a\nb", 10, false, [[10, "a\n"]], 12],
    [
      "and printed once final",
      "a\nb",
      10,
      true,
      [
        [10, "a\n"],
        [12, "b"],
      ],
      13,
    ],
    ["only a torn line", "xyz", 4, false, [], 4],
    [
      "multi-byte characters count in bytes",
      "é\nz\n",
      0,
      false,
      [
        [0, "é\n"],
        [3, "z\n"],
      ],
      5,
    ],
  ] as const)("%s", (_name, text, base, final, lines, next) => {
    const r = splitOutput(enc(text), base, final);
    expect(r.lines.map((l) => [l.seq, l.data])).toEqual(lines);
    expect(r.next).toBe(next);
  });
  it.each([
    ["a full read with no newline is a line piece of its own", "abcd", 4, [[7, "abcd"]], 11],
    ["a full read holding a newline keeps its torn rest", "ab\ncd", 5, [[7, "ab\n"]], 10],
    ["a read short of the limit holds its torn line", "abcd", 5, [], 7],
  ] as const)("splitRead: %s", (_name, text, limit, lines, next) => {
    const r = splitRead(enc(text), 7, false, limit);
    expect(r.lines.map((l) => [l.seq, l.data])).toEqual(lines);
    expect(r.next).toBe(next);
  });
  it("splitRead: a piece ends at a whole character (the rest comes with the next read)", () => {
    const r = splitRead(enc("abc\u00e9").subarray(0, 4), 7, false, 4);
    expect(r.lines.map((l) => [l.seq, l.data])).toEqual([[7, "abc"]]);
    expect(r.next).toBe(10);
  });
  it.each([
    ["a\nb\nc\n", 2, 2],
    ["a\nb\nc\n", 5, 0],
    ["a\nb\nc", 1, 4],
    ["a\nb\nc\n", 0, 6],
  ])("tailStart(%j, %i) = %i", (text, n, want) => {
    expect(tailStart(enc(text), 0, n)).toBe(want);
  });
});

describe("planPrune", () => {
  const day = 86_400_000;
  it("removes final runs past the age, keeps live and recent ones", () => {
    const plan = planPrune(
      [
        { runId: "c", state: "running", endedAtMs: null, createdAtMs: 0 },
        { runId: "a", state: "exited", endedAtMs: 0, createdAtMs: 0 },
        { runId: "b", state: "failed", endedAtMs: 9 * day, createdAtMs: 0 },
        { runId: "d", state: "lost", endedAtMs: null, createdAtMs: day },
      ],
      10 * day,
      7 * day,
    );
    expect(plan).toEqual({
      remove: [
        { runId: "a", state: "exited" },
        { runId: "d", state: "lost" },
      ],
      keep: [
        { runId: "b", state: "failed", reason: "recent" },
        { runId: "c", state: "running", reason: "live" },
      ],
    });
  });
});

describe("output cap", () => {
  eachMaps(
    segmentSize,
    [
      [64 * 1024 * 1024, 16 * 1024 * 1024],
      [16384, 4096],
      [20000, 4096],
      [40000, 8192],
      [10, 4096],
    ],
    "segmentSize(%i) = %i",
  );
  it.each([
    ["under the cap", 16000, 0, 16384, null],
    ["at the cap", 16384, 0, 16384, null],
    ["over by less than a segment", 20479, 0, 16384, null],
    ["over by a segment", 20480, 0, 16384, 4096],
    ["over by two and a bit", 25000, 0, 16384, 8192],
    ["already dropped enough", 24000, 4096, 16384, null],
    ["more to drop", 29000, 4096, 16384, 12288],
    ["a cap under one block", 9000, 0, 10, 8192],
  ] as const)("dropTo %s", (_name, size, dropped, cap, want) => {
    expect(dropTo(size, dropped, cap)).toBe(want);
  });
  it("keeps at least the cap and less than the cap plus a segment, for every size", () => {
    const cap = 10_000;
    const seg = segmentSize(cap);
    let dropped = 0;
    for (let size = 0; size < 200_000; size += 777) {
      dropped = dropTo(size, dropped, cap) ?? dropped;
      expect(dropped % 4096).toBe(0);
      if (size >= cap) expect(size - dropped).toBeGreaterThanOrEqual(cap);
      expect(size - dropped).toBeLessThan(cap + seg);
    }
  });
  it.each([
    ["nothing dropped", 100, 50, 0, { start: 100, skip: 0 }],
    ["dropped before the read", 100, 50, 100, { start: 100, skip: 0 }],
    ["dropped into the read", 100, 50, 120, { start: 120, skip: 20 }],
    ["dropped past the read", 100, 50, 400, { start: 400, skip: 50 }],
  ] as const)("keptPart: %s", (_name, start, length, dropped, want) => {
    expect(keptPart(start, length, dropped)).toEqual(want);
  });

  // `head` is the bytes from `to - 1` on: the last byte dropped, then what is kept.
  it.each([
    ["the drop ended a line", "\nabc\n", 100, 100],
    ["the drop cut a line: its tail goes too", "12\n3\n", 100, 102],
    ["the drop's last byte is the line's first", "x\n", 100, 101],
    ["no line end in sight: the tail is read as it is", "xyz", 100, 100],
    ["nothing kept yet", "", 100, 100],
  ] as const)("lineResume: %s", (_name, head, to, want) => {
    expect(lineResume(new TextEncoder().encode(head), to)).toBe(want);
  });
});
