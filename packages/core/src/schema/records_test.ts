import { readFileSync } from "node:fs";
import { describe, expect, it } from "vitest";
import { taskLeg, taskRecord } from "../worktree/_fixture.ts";
import { formatIssue, issuePath } from "./issues.ts";
import { renderSchemaFiles } from "./json_schema.ts";
import { checkRecord, publishedSchemas, RECORD_SCHEMAS } from "./mod.ts";

const A = "a".repeat(40);
const H64 = "f".repeat(64);
const T = "2026-01-01T00:00:00.000Z";

const leg = taskLeg("api", { overlay: [{ path: ".env", sha256: H64, skipWorktree: true }] });
const task = taskRecord({
  legs: [leg],
  artifacts: [
    { kind: "snapshot", ref: "refs/ariel/snapshots/t/api", commit: A, sha256: H64, bytes: 0, createdAt: T },
  ],
  fencingToken: 0,
  version: 0,
});
const lease = {
  v: 1,
  type: "lease",
  taskId: "t",
  owner: "alice",
  token: 1,
  pid: 0,
  processStart: null,
  host: "box",
  acquiredAt: T,
  expiresAt: T,
};
const base = { v: 1, type: "event", runId: "20261202T110943Z-k3x9a2", ts: T, source: null };
const events: Record<string, Record<string, unknown>> = {
  "run.started": { ...base, event: "run.started", argv: ["x"], targets: ["api"], mode: "span", jobs: 1 },
  "worktree.created": { ...base, event: "worktree.created", task: "t", worktree: "/w", branch: null },
  "process.started": { ...base, event: "process.started", pid: 1, cwd: "/w", argv: [] },
  output: { ...base, event: "output", stream: "stderr", line: "x", partial: true },
  "process.exited": { ...base, event: "process.exited", code: null, signal: "SIGTERM", status: 143 },
  "worktree.removed": { ...base, event: "worktree.removed", task: "t", worktree: null, branch: "b" },
  "worktree.kept": {
    ...base,
    event: "worktree.kept",
    task: "t",
    worktree: "/w",
    branch: "b",
    reason: "ERR_DIRTY",
  },
  "worktree.snapshotted": { ...base, event: "worktree.snapshotted", task: "t", worktree: "/w", branch: "b" },
  "run.finished": {
    ...base,
    event: "run.finished",
    summary: { targets: 0, succeeded: 0, failed: 0, skipped: 0, exit: 0 },
    interrupted: "SIGINT",
  },
};

/** The first problem `checkRecord` names for `record` of `type`, or "ok". */
function verdict(type: string, record: unknown): string {
  try {
    checkRecord(RECORD_SCHEMAS[type]!, record, "r");
    return "ok";
  } catch (e) {
    return (e as Error).message;
  }
}

const legWith = (over: Record<string, unknown>) => ({ ...task, legs: [{ ...leg, ...over }] });
const ISO = /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d(\.\d+)?Z$/.toString();

describe("task records", () => {
  it.each<[string, unknown, string]>([
    ["the full record", task, "ok"],
    ["a 64-hex (sha256) commit id", legWith({ base: "b".repeat(64) }), "ok"],
    ["times without a fraction", { ...task, createdAt: "2026-01-01T00:00:00Z" }, "ok"],
    [
      "leg states",
      { ...task, legs: ["removed", "snapshotted", "unknown"].map((state) => ({ ...leg, state })) },
      "ok",
    ],
    ["a cleaning task", { ...task, state: "cleaning" }, "ok"],
    ["a closed task", { ...task, state: "closed" }, "ok"],
    ["a task in state unknown", { ...task, state: "unknown" }, "ok"],
    ["64 legs", { ...task, legs: Array(64).fill(leg) }, "ok"],
    [
      "64 artifacts, a 2048-character ref",
      { ...task, artifacts: Array(64).fill({ kind: "k", ref: "r".repeat(2048) }) },
      "ok",
    ],
    ["a 128-character task id", { ...task, taskId: "a".repeat(128) }, "ok"],
    ["a 256-character owner", { ...task, owner: "o".repeat(256) }, "ok"],
    [
      "an overlay path with dots that is no ..",
      legWith({ overlay: [{ path: "a/..b/c..", sha256: H64 }] }),
      "ok",
    ],
    ["another type", { ...task, type: "lease" }, 'r: type: must be "task"'],
    ["65 legs", { ...task, legs: Array(65).fill(leg) }, "r: legs: must have at most 64 item(s)"],
    ["no legs", { ...task, legs: [] }, "r: legs: must have at least 1 item(s)"],
    [
      "65 artifacts",
      { ...task, artifacts: Array(65).fill({ kind: "k", ref: "r" }) },
      "r: artifacts: must have at most 64 item(s)",
    ],
    [
      "a 2049-character ref",
      { ...task, artifacts: [{ kind: "k", ref: "r".repeat(2049) }] },
      "r: artifacts[0].ref: must have at most 2048 character(s)",
    ],
    [
      "an empty ref",
      { ...task, artifacts: [{ kind: "k", ref: "" }] },
      "r: artifacts[0].ref: must have at least 1 character(s)",
    ],
    [
      "an empty artifact kind",
      { ...task, artifacts: [{ kind: "", ref: "r" }] },
      "r: artifacts[0].kind: must have at least 1 character(s)",
    ],
    [
      "negative artifact bytes",
      { ...task, artifacts: [{ kind: "k", ref: "r", bytes: -1 }] },
      "r: artifacts[0].bytes: must be at least 0",
    ],
    [
      "a 257-character owner",
      { ...task, owner: "o".repeat(257) },
      "r: owner: must have at most 256 character(s)",
    ],
    ["an empty owner", { ...task, owner: "" }, "r: owner: must have at least 1 character(s)"],
    ["a negative fencing token", { ...task, fencingToken: -1 }, "r: fencingToken: must be at least 0"],
    ["a negative version", { ...task, version: -1 }, "r: version: must be at least 0"],
    ["a fractional version", { ...task, version: 1.5 }, "r: version: expected int"],
    [
      "a bad task state",
      { ...task, state: "gone" },
      'r: state: must be "active" or "cleaning" or "closed" or "unknown"',
    ],
    [
      "a bad leg state",
      legWith({ state: "gone" }),
      'r: legs[0].state: must be "active" or "removed" or "snapshotted" or "unknown"',
    ],
    [
      "a task id with a space",
      { ...task, taskId: "a b" },
      "r: taskId: must match /^[A-Za-z0-9][A-Za-z0-9._-]{0,127}$/",
    ],
    [
      "a 129-character task id",
      { ...task, taskId: "a".repeat(129) },
      "r: taskId: must match /^[A-Za-z0-9][A-Za-z0-9._-]{0,127}$/",
    ],
    [
      "a 15-hex workspace hash",
      { ...task, workspace: { root: "/w", hash: "0".repeat(15) } },
      "r: workspace.hash: must match /^[0-9a-f]{16}$/",
    ],
    [
      "a 17-hex workspace hash",
      { ...task, workspace: { root: "/w", hash: "0".repeat(17) } },
      "r: workspace.hash: must match /^[0-9a-f]{16}$/",
    ],
    [
      "a relative workspace root",
      { ...task, workspace: { root: "w/", hash: "0123456789abcdef" } },
      "r: workspace.root: must match /^\\//",
    ],
    ["a time with a prefix", { ...task, createdAt: `x${T}` }, `r: createdAt: must match ${ISO}`],
    ["a time with a suffix", { ...task, updatedAt: `${T}x` }, `r: updatedAt: must match ${ISO}`],
    [
      "a time with a bare dot",
      { ...task, updatedAt: "2026-01-01T00:00:00.Z" },
      `r: updatedAt: must match ${ISO}`,
    ],
    ["a short year", { ...task, updatedAt: "226-01-01T00:00:00Z" }, `r: updatedAt: must match ${ISO}`],
    [
      "a 41-hex commit",
      legWith({ base: "a".repeat(41) }),
      "r: legs[0].base: must match /^[0-9a-f]{40}([0-9a-f]{24})?$/",
    ],
    [
      "a commit with a non-hex tail",
      legWith({ head: `${A}${"g".repeat(24)}` }),
      "r: legs[0].head: must match /^[0-9a-f]{40}([0-9a-f]{24})?$/",
    ],
    [
      "a prefixed commit",
      legWith({ head: `x${A}` }),
      "r: legs[0].head: must match /^[0-9a-f]{40}([0-9a-f]{24})?$/",
    ],
    [
      "a 63-hex fingerprint",
      legWith({ fingerprint: "f".repeat(63) }),
      "r: legs[0].fingerprint: must match /^[0-9a-f]{64}$/",
    ],
    [
      "a 65-hex fingerprint",
      legWith({ fingerprint: "f".repeat(65) }),
      "r: legs[0].fingerprint: must match /^[0-9a-f]{64}$/",
    ],
    ["an empty source", legWith({ source: "" }), "r: legs[0].source: must have at least 1 character(s)"],
    ["an empty branch", legWith({ branch: "" }), "r: legs[0].branch: must have at least 1 character(s)"],
    [
      "a relative worktree path",
      legWith({ worktreePath: "w" }),
      "r: legs[0].worktreePath: must match /^\\//",
    ],
    [
      "an absolute overlay path",
      legWith({ overlay: [{ path: "/etc/x", sha256: H64 }] }),
      "r: legs[0].overlay[0].path: Invalid input",
    ],
    [
      "an overlay path climbing out",
      legWith({ overlay: [{ path: "a/../../x", sha256: H64 }] }),
      "r: legs[0].overlay[0].path: Invalid input",
    ],
    [
      "an empty overlay path",
      legWith({ overlay: [{ path: "", sha256: H64 }] }),
      "r: legs[0].overlay[0].path: must have at least 1 character(s)",
    ],
    [
      "skipWorktree not a boolean",
      legWith({ overlay: [{ path: "a", sha256: H64, skipWorktree: 1 }] }),
      "r: legs[0].overlay[0].skipWorktree: expected boolean",
    ],
  ])("%s", (_name, record, expected) => {
    expect(verdict("task", record)).toBe(expected);
  });
});

describe("lease records", () => {
  it.each<[string, unknown, string]>([
    ["the full record", lease, "ok"],
    ["a process start time", { ...lease, processStart: "555" }, "ok"],
    ["token 0", { ...lease, token: 0 }, "r: token: must be at least 1"],
    ["a negative pid", { ...lease, pid: -1 }, "r: pid: must be at least 0"],
    ["another type", { ...lease, type: "task" }, 'r: type: must be "lease"'],
    ["version 2", { ...lease, v: 2 }, "r: v: must be 1"],
    ["an empty owner", { ...lease, owner: "" }, "r: owner: must have at least 1 character(s)"],
    [
      "a 257-character owner",
      { ...lease, owner: "o".repeat(257) },
      "r: owner: must have at most 256 character(s)",
    ],
    [
      "a task id with a slash",
      { ...lease, taskId: "a/b" },
      "r: taskId: must match /^[A-Za-z0-9][A-Za-z0-9._-]{0,127}$/",
    ],
    [
      "a 129-character task id",
      { ...lease, taskId: "a".repeat(129) },
      "r: taskId: must match /^[A-Za-z0-9][A-Za-z0-9._-]{0,127}$/",
    ],
    ["a time with a suffix", { ...lease, expiresAt: `${T}x` }, `r: expiresAt: must match ${ISO}`],
    ["a time with a prefix", { ...lease, acquiredAt: `x${T}` }, `r: acquiredAt: must match ${ISO}`],
    ["a missing host", { ...lease, host: undefined }, "r: host: expected string"],
  ])("%s", (_name, record, expected) => {
    expect(verdict("lease", record)).toBe(expected);
  });
});

describe("event records", () => {
  it.each(Object.keys(events))("accepts %s", (name) => {
    expect(verdict("event", events[name])).toBe("ok");
  });
  const RUN = /^\d{8}T\d{6}Z-[0-9a-z]{6}$/.toString();
  it.each<[string, unknown, string]>([
    ["mode shared", { ...events["run.started"], mode: "shared" }, "ok"],
    ["mode isolate", { ...events["run.started"], mode: "isolate" }, "ok"],
    ["a stdout line", { ...events.output, stream: "stdout" }, "ok"],
    [
      "mode other",
      { ...events["run.started"], mode: "other" },
      'r: mode: must be "shared" or "isolate" or "span"',
    ],
    ["zero jobs", { ...events["run.started"], jobs: 0 }, "r: jobs: must be at least 1"],
    ["a run id with a prefix", { ...events.output, runId: `x${base.runId}` }, `r: runId: must match ${RUN}`],
    ["a run id with a suffix", { ...events.output, runId: `${base.runId}x` }, `r: runId: must match ${RUN}`],
    [
      "a run id with a short date",
      { ...events.output, runId: "2026120T110943Z-k3x9a2" },
      `r: runId: must match ${RUN}`,
    ],
    [
      "a run id with a short suffix",
      { ...events.output, runId: "20261202T110943Z-k3x9a" },
      `r: runId: must match ${RUN}`,
    ],
    [
      "a run id with upper case",
      { ...events.output, runId: "20261202T110943Z-K3X9A2" },
      `r: runId: must match ${RUN}`,
    ],
    ["a time with a suffix", { ...events.output, ts: `${T}x` }, `r: ts: must match ${ISO}`],
    ["a time without fraction", { ...events.output, ts: "2026-01-01T00:00:00Z" }, "ok"],
    ["a time with a prefix", { ...events.output, ts: `x${T}` }, `r: ts: must match ${ISO}`],
    [
      "a negative summary count",
      { ...events["run.finished"], summary: { targets: 0, succeeded: -1, failed: 0, skipped: 0, exit: 0 } },
      "r: summary.succeeded: must be at least 0",
    ],
    [
      "a summary without exit",
      { ...events["run.finished"], summary: { targets: 0, succeeded: 0, failed: 0, skipped: 0 } },
      "r: summary.exit: expected number",
    ],
    ["another type", { ...events.output, type: "task" }, 'r: type: must be "event"'],
    [
      "an unknown event",
      { ...events.output, event: "process.paused" },
      "r: event: matches none of the allowed forms",
    ],
    [
      "an exited event without status",
      { ...events["process.exited"], status: undefined },
      "r: status: expected number",
    ],
    [
      "a kept worktree without task",
      { ...events["worktree.kept"], task: undefined },
      "r: task: expected string",
    ],
  ])("%s", (_name, record, expected) => {
    expect(verdict("event", record)).toBe(expected);
  });
});

describe("published JSON Schemas", () => {
  it("are exactly the files under docs/schema (npm run schema writes them)", () => {
    const files = renderSchemaFiles();
    expect(Object.keys(files)).toEqual(
      Object.keys(publishedSchemas())
        .sort()
        .map((n) => `${n}.schema.json`),
    );
    for (const [name, text] of Object.entries(files)) {
      expect(text, name).toBe(
        readFileSync(new URL(`../../../../docs/schema/${name}`, import.meta.url), "utf8"),
      );
    }
  });
});

describe("issue formatting", () => {
  it.each<[readonly PropertyKey[], string]>([
    [[], "(root)"],
    [["a"], "a"],
    [["legs", 0, "overlay", 12, "path"], "legs[0].overlay[12].path"],
    [[0, "x"], "[0].x"],
  ])("issuePath(%j) = %j", (path, expected) => {
    expect(issuePath(path)).toBe(expected);
  });

  it.each<[string, Record<string, unknown>, string]>([
    ["one unknown key", { code: "unrecognized_keys", keys: ["x"], path: [] }, '(root): unknown key "x"'],
    [
      "two unknown keys",
      { code: "unrecognized_keys", keys: ["x", "y"], path: ["a"] },
      'a: unknown keys "x", "y"',
    ],
    ["a union", { code: "invalid_union", errors: [], path: ["a"] }, "a: matches none of the allowed forms"],
    ["a multiple", { code: "not_multiple_of", divisor: 5, path: ["n"] }, "n: must be a multiple of 5"],
    [
      "a format without pattern",
      { code: "invalid_format", format: "email", path: ["e"] },
      "e: must be a valid email",
    ],
    [
      "a number too big",
      { code: "too_big", origin: "number", maximum: 9, path: ["n"] },
      "n: must be at most 9",
    ],
    [
      "a number too small",
      { code: "too_small", origin: "number", minimum: 1, path: ["n"] },
      "n: must be at least 1",
    ],
    ["a set too big", { code: "too_big", origin: "set", maximum: 2, path: ["s"] }, "s: must be at most 2"],
    [
      "a string too long",
      { code: "too_big", origin: "string", maximum: 2, path: ["s"] },
      "s: must have at most 2 character(s)",
    ],
    [
      "an array too short",
      { code: "too_small", origin: "array", minimum: 2, path: ["s"] },
      "s: must have at least 2 item(s)",
    ],
    ["a custom message", { code: "custom", message: "nope", path: ["c"] }, "c: nope"],
    ["a custom issue without message", { code: "custom", message: "", path: ["c"] }, "c: is invalid"],
  ])("%s", (_n, issue, expected) => {
    expect(formatIssue(issue as never)).toBe(expected);
  });

  it("checkRecord names the first issue, counts the rest, and keeps ten in the context", () => {
    let err: { message: string; context: { issues: string[] } } | undefined;
    try {
      checkRecord(RECORD_SCHEMAS.task!, {}, "r");
    } catch (e) {
      err = e as typeof err;
    }
    expect(err?.message).toBe("r: v: must be 1 (and 11 more)");
    expect(err?.context.issues).toEqual([
      "v: must be 1",
      'type: must be "task"',
      "taskId: expected string",
      "workspace: expected object",
      "owner: expected string",
      'state: must be "active" or "cleaning" or "closed" or "unknown"',
      "legs: expected array",
      "artifacts: expected array",
      "fencingToken: expected number",
      "version: expected number",
    ]);
  });
});
