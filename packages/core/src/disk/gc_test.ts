import { describe, expect, it } from "vitest";
import type { LeaseRecord } from "../schema/lease.ts";
import type { Leg, TaskRecord } from "../schema/task.ts";
import {
  type GcAction,
  type GcPolicy,
  type GcRunFacts,
  type GcStoreFacts,
  type GcTaskFacts,
  gcSteps,
  planGc,
} from "./gc.ts";

const DAY = 86_400_000;
const NOW = Date.parse("2026-06-10T00:00:00.000Z");
const OID = "a".repeat(40);
const SNAP = "b".repeat(40);

function leg(source: string, state: Leg["state"]): Leg {
  return {
    source,
    sourcePath: `/w/${source}`,
    fingerprint: "f".repeat(64),
    branch: "ariel/t",
    base: OID,
    head: OID,
    worktreePath: `/w/.ariel/worktrees/t/${source}`,
    overlay: [],
    state,
  };
}

interface T {
  id: string;
  state: TaskRecord["state"];
  ageDays: number;
  legs?: Leg["state"][];
  present?: string[];
  bytes?: number;
  leased?: boolean;
  /** Detached runs still at work in it. */
  runs?: string[];
  merged?: string[];
  /** Legs whose branch no longer exists. */
  gone?: string[];
  snapshots?: string[];
}

function task(t: T): GcTaskFacts {
  const legs = (t.legs ?? ["removed"]).map((s, i) => ({ ...leg(`s${i}`, s), branch: `ariel/${t.id}` }));
  const at = new Date(NOW - t.ageDays * DAY).toISOString();
  const record: TaskRecord = {
    v: 1,
    type: "task",
    taskId: t.id,
    workspace: { root: "/w", hash: "0".repeat(16) },
    owner: "o",
    state: t.state,
    legs,
    artifacts: (t.snapshots ?? []).map((s) => ({
      kind: "snapshot",
      ref: `refs/ariel/snapshots/${t.id}/${s}`,
      source: s,
      commit: SNAP,
    })),
    fencingToken: 1,
    version: 1,
    createdAt: at,
    updatedAt: at,
  };
  const lease: LeaseRecord | null = t.leased
    ? {
        v: 1,
        type: "lease",
        taskId: t.id,
        owner: "x",
        token: 2,
        pid: 1,
        processStart: null,
        host: "h",
        acquiredAt: new Date(NOW - 1000).toISOString(),
        expiresAt: new Date(NOW + 30_000).toISOString(),
      }
    : null;
  return {
    record,
    lease,
    bytes: t.bytes ?? 0,
    present: t.present ?? [],
    merged: t.merged ?? [],
    ...(t.gone ? { gone: t.gone } : {}),
    ...(t.runs ? { runs: t.runs } : {}),
  };
}

const POLICY: GcPolicy = { olderThanMs: 7 * DAY, states: ["closed"], pruneMerged: false };
const short = (a: GcAction) =>
  a.action === "run.drop"
    ? `run.drop ${a.run}`
    : a.action === "task.remove"
      ? `task.remove ${a.task} (${a.reason})`
      : a.action === "branch.delete" || a.action === "snapshot.drop"
        ? `${a.action} ${a.task}/${a.source}`
        : a.action === "share.drop"
          ? `share.drop ${a.store}`
          : `${a.action} ${a.task}`;

describe("planGc", () => {
  it.each<[string, Partial<GcPolicy>, T[], string[], string[]]>([
    ["nothing to do", {}, [], [], []],
    [
      "an old closed task is archived",
      {},
      [{ id: "a", state: "closed", ageDays: 8 }],
      ["task.archive a"],
      [],
    ],
    ["a young closed task stays", {}, [{ id: "a", state: "closed", ageDays: 6 }], [], []],
    [
      "--older-than 0 takes it",
      { olderThanMs: 0 },
      [{ id: "a", state: "closed", ageDays: 0 }],
      ["task.archive a"],
      [],
    ],
    [
      "a snapshotted leg keeps the record (restore reads it)",
      {},
      [{ id: "a", state: "closed", ageDays: 30, legs: ["removed", "snapshotted"] }],
      [],
      ["a snapshot-kept"],
    ],
    [
      "an active task is left alone by default",
      {},
      [{ id: "a", state: "active", ageDays: 30, legs: ["active"], present: ["s0"], bytes: 100 }],
      [],
      [],
    ],
    [
      "--state active removes its worktrees (snapshot first, in apply)",
      { states: ["active"] },
      [{ id: "a", state: "active", ageDays: 30, legs: ["active"], present: ["s0"], bytes: 100 }],
      ["task.remove a (policy)"],
      [],
    ],
    [
      "a leased task is skipped",
      { states: ["active", "closed"] },
      [
        { id: "a", state: "active", ageDays: 30, legs: ["active"], present: ["s0"], leased: true },
        { id: "b", state: "closed", ageDays: 30, leased: true },
      ],
      [],
      ["a leased", "b leased"],
    ],
    [
      "a task a detached run still works in is skipped (said when the policy would take it), its snapshots kept",
      { states: ["active", "closed"] },
      [
        { id: "a", state: "active", ageDays: 30, legs: ["active"], present: ["s0"], runs: ["r1", "r2"] },
        {
          id: "b",
          state: "active",
          ageDays: 0,
          legs: ["active"],
          present: ["s0"],
          snapshots: ["s0"],
          runs: ["r3"],
        },
        { id: "c", state: "active", ageDays: 30, legs: ["active"], present: ["s0"], runs: [] },
      ],
      ["task.remove c (policy)"],
      ["a running (r1, r2)"],
    ],
    [
      "a leased task neither due nor on disk is no news",
      {},
      [{ id: "a", state: "closed", ageDays: 1, leased: true }],
      [],
      [],
    ],
    [
      "a run in a task neither due nor on disk is no news, even with --keep-bytes",
      { keepBytes: 0 },
      [{ id: "a", state: "active", ageDays: 1, legs: ["active"], runs: ["r1"] }],
      [],
      [],
    ],
    [
      "a lease held and a run at work: the lease is named",
      { states: ["active"] },
      [
        {
          id: "a",
          state: "active",
          ageDays: 30,
          legs: ["active"],
          present: ["s0"],
          leased: true,
          runs: ["r1"],
        },
      ],
      [],
      ["a leased"],
    ],
    [
      "--keep-bytes never takes a task a run works in",
      { keepBytes: 0 },
      [{ id: "a", state: "active", ageDays: 9, legs: ["active"], present: ["s0"], bytes: 100, runs: ["r1"] }],
      [],
      ["a running (r1)"],
    ],
    [
      "--keep-bytes removes oldest first until under the cap",
      { keepBytes: 150 },
      [
        { id: "new", state: "active", ageDays: 1, legs: ["active"], present: ["s0"], bytes: 100 },
        { id: "old", state: "active", ageDays: 9, legs: ["active"], present: ["s0"], bytes: 100 },
        { id: "mid", state: "active", ageDays: 5, legs: ["active"], present: ["s0"], bytes: 100 },
      ],
      ["task.remove old (keep-bytes)", "task.remove mid (keep-bytes)"],
      [],
    ],
    [
      "--keep-bytes counts what the policy removes as gone",
      { keepBytes: 150 },
      [
        { id: "done", state: "closed", ageDays: 9, present: ["s0"], bytes: 100 },
        { id: "old", state: "active", ageDays: 9, legs: ["active"], present: ["s0"], bytes: 100 },
        { id: "new", state: "active", ageDays: 1, legs: ["active"], present: ["s0"], bytes: 100 },
      ],
      ["task.remove done (policy)", "task.remove old (keep-bytes)"],
      [],
    ],
    [
      "--keep-bytes takes only tasks with worktrees on disk",
      { keepBytes: 0 },
      [
        { id: "bare", state: "active", ageDays: 20, legs: ["active"] },
        { id: "a", state: "active", ageDays: 9, legs: ["active"], present: ["s0"], bytes: 100 },
      ],
      ["task.remove a (keep-bytes)"],
      [],
    ],
    [
      "--keep-bytes never takes a leased task",
      { keepBytes: 0 },
      [{ id: "a", state: "active", ageDays: 9, legs: ["active"], present: ["s0"], bytes: 100, leased: true }],
      [],
      ["a leased"],
    ],
    [
      "--prune-merged deletes merged branches of archived tasks only",
      { pruneMerged: true },
      [{ id: "a", state: "closed", ageDays: 9, legs: ["removed", "removed"], merged: ["s0"] }],
      ["task.archive a", "branch.delete a/s0"],
      ["a not-merged"],
    ],
    [
      "--prune-merged says nothing of a branch that is gone (land --remove deleted it)",
      { pruneMerged: true },
      [
        {
          id: "a",
          state: "closed",
          ageDays: 9,
          legs: ["removed", "removed", "removed"],
          merged: ["s0"],
          gone: ["s1"],
        },
      ],
      ["task.archive a", "branch.delete a/s0"],
      ["a not-merged"],
    ],
    [
      "a restored snapshot (leg active and on disk) is dropped",
      {},
      [
        {
          id: "a",
          state: "active",
          ageDays: 0,
          legs: ["active", "active"],
          present: ["s0"],
          snapshots: ["s0", "s1"],
        },
      ],
      ["snapshot.drop a/s0"],
      [],
    ],
    [
      "a snapshot of a task the plan removes is left to the remove",
      { states: ["active"] },
      [
        {
          id: "a",
          state: "active",
          ageDays: 30,
          legs: ["active"],
          present: ["s0"],
          snapshots: ["s0"],
          bytes: 1,
        },
      ],
      ["task.remove a (policy)"],
      [],
    ],
    [
      "a snapshot of a leg on disk but not active again is kept",
      {},
      [{ id: "a", state: "active", ageDays: 0, legs: ["snapshotted"], present: ["s0"], snapshots: ["s0"] }],
      [],
      [],
    ],
    [
      "a snapshot of a leg still snapshotted is kept",
      { olderThanMs: 0 },
      [{ id: "a", state: "closed", ageDays: 0, legs: ["snapshotted"], snapshots: ["s0"] }],
      [],
      ["a snapshot-kept"],
    ],
  ])("%s", (_name, policy, tasks, actions, skipped) => {
    const plan = planGc(NOW, { ...POLICY, ...policy }, tasks.map(task), []);
    expect(plan.actions.map(short)).toEqual(actions);
    expect(
      plan.skipped.map(
        (s) => `${"task" in s ? s.task : s.run} ${s.reason}${s.reason === "running" ? ` (${s.detail})` : ""}`,
      ),
    ).toEqual(skipped);
  });

  it("drops only snapshot artifacts with a commit and a leg", () => {
    const t = task({ id: "a", state: "active", ageDays: 0, legs: ["active"], present: ["s0"] });
    t.record.artifacts = [
      { kind: "patch", ref: "refs/ariel/snapshots/a/p", source: "s0", commit: SNAP },
      { kind: "snapshot", ref: "refs/ariel/snapshots/a/s0", source: "s0" },
      { kind: "snapshot", ref: "refs/ariel/snapshots/a/x", commit: SNAP },
      { kind: "snapshot", ref: "refs/ariel/snapshots/a/old", source: "old", commit: SNAP },
    ];
    expect(planGc(NOW, POLICY, [t], []).actions).toEqual([]);
  });

  it("drops finished runs past the age, never a running or settling one; counts the bytes freed", () => {
    const runs: GcRunFacts[] = [
      {
        runId: "r-old",
        paths: ["/w/.ariel/runs/r-old.ndjson"],
        finished: true,
        atMs: NOW - 8 * DAY,
        bytes: 10,
      },
      { runId: "r-new", paths: ["/w/.ariel/runs/r-new.ndjson"], finished: true, atMs: NOW - DAY, bytes: 20 },
      {
        runId: "r-live",
        paths: ["/w/.ariel/runs/r-live.ndjson"],
        finished: false,
        atMs: NOW - 9 * DAY,
        bytes: 40,
      },
      {
        runId: "r-settling",
        paths: ["/w/.ariel/runs/r-settling.ndjson", "/w/.ariel/runs/r-settling"],
        finished: false,
        settling: true,
        atMs: NOW - 9 * DAY,
        bytes: 80,
      },
      {
        runId: "r-settling-new",
        paths: ["/w/.ariel/runs/r-settling-new"],
        finished: false,
        settling: true,
        atMs: NOW - DAY,
        bytes: 80,
      },
    ];
    const plan = planGc(
      NOW,
      { ...POLICY, states: ["active"] },
      [task({ id: "a", state: "active", ageDays: 8, legs: ["active"], present: ["s0"], bytes: 100 })],
      runs,
    );
    expect(plan.actions.map(short)).toEqual(["task.remove a (policy)", "run.drop r-old"]);
    // A run its monitor still settles is skipped (a later gc takes it), once it is old enough.
    expect(plan.skipped).toEqual([
      { run: "r-settling", reason: "settling", detail: "its monitor is still settling it" },
    ]);
    expect(plan.bytes).toBe(110);
  });
});

describe("planGc: share stores", () => {
  const store = (key: string, users: GcStoreFacts["users"]): GcStoreFacts => ({
    key,
    path: `/w/.ariel/share/${key}`,
    users,
    bytes: 7,
  });
  // Task a is removed by the plan (closed, old); task b stays (active).
  it.each<[string, GcStoreFacts[], string[], number]>([
    ["an unused store is dropped", [store("k1", [])], ["task.remove a (policy)", "share.drop k1"], 107],
    [
      "a store a kept task's leg uses stays",
      [store("k1", [{ task: "b", path: "/w/b/s0" }])],
      ["task.remove a (policy)"],
      100,
    ],
    [
      "a store used only by a task this plan removes is dropped after it",
      [store("k1", [{ task: "a", path: "/w/a/s0" }])],
      ["task.remove a (policy)", "share.drop k1"],
      107,
    ],
    [
      "a store used by a removed and a kept task stays",
      [
        store("k1", [
          { task: "a", path: "/w/a/s0" },
          { task: "b", path: "/w/b/s0" },
        ]),
      ],
      ["task.remove a (policy)"],
      100,
    ],
    [
      "a store a worktree no record names uses stays",
      [store("k1", [{ task: null, path: "/w/x/s0" }])],
      ["task.remove a (policy)"],
      100,
    ],
  ])("%s", (_name, stores, actions, bytes) => {
    const tasks = [
      task({ id: "a", state: "closed", ageDays: 8, legs: ["active"], present: ["s0"], bytes: 100 }),
      task({ id: "b", state: "active", ageDays: 8, legs: ["active"], present: ["s0"], bytes: 100 }),
    ];
    const plan = planGc(NOW, POLICY, tasks, [], stores);
    expect(plan.actions.map(short)).toEqual(actions);
    expect(plan.bytes).toBe(bytes);
  });
});

describe("gcSteps", () => {
  const archive = (task: string): GcAction => ({ action: "task.archive", task });
  const branch = (task: string): GcAction => ({
    action: "branch.delete",
    task,
    source: "s0",
    sourcePath: "/w/s0",
    branch: `ariel/${task}`,
    commit: OID,
  });
  const remove = (task: string): GcAction => ({ action: "task.remove", task, bytes: 1, reason: "policy" });
  const run = (id: string): GcAction => ({ action: "run.drop", run: id, paths: [], bytes: 0 });

  it.each<[string, GcAction[], number, ReturnType<typeof gcSteps>]>([
    ["nothing", [], 2, []],
    ["other actions one by one", [remove("a"), run("r")], 2, [{ one: 0 }, { one: 1 }]],
    [
      "archives batched, each batch at most `size`",
      [archive("a"), archive("b"), archive("c")],
      2,
      [
        { archive: [0, 1], after: [] },
        { archive: [2], after: [] },
      ],
    ],
    [
      "a branch.delete waits for its task's batch",
      [archive("a"), branch("a"), archive("b"), branch("b"), archive("c"), branch("c")],
      2,
      [
        { archive: [0, 2], after: [1, 3] },
        { archive: [4], after: [5] },
      ],
    ],
    [
      "another action ends the batch, in the plan's order",
      [remove("x"), archive("a"), run("r"), archive("b")],
      64,
      [{ one: 0 }, { archive: [1], after: [] }, { one: 2 }, { archive: [3], after: [] }],
    ],
    [
      "another action of an archived task runs on its own",
      [archive("a"), remove("a")],
      64,
      [{ archive: [0], after: [] }, { one: 1 }],
    ],
    [
      "a branch.delete after the batch was ended runs on its own",
      [archive("a"), run("r"), branch("a")],
      64,
      [{ archive: [0], after: [] }, { one: 1 }, { one: 2 }],
    ],
    [
      "a branch.delete of a task not in the open batch runs on its own",
      [archive("a"), branch("z")],
      64,
      [{ archive: [0], after: [] }, { one: 1 }],
    ],
  ])("%s", (_name, actions, size, steps) => {
    expect(gcSteps(actions, size)).toEqual(steps);
  });
});
