/**
 * gatherFacts on a task left in state `cleaning` by a `remove --snapshot` killed part-way: the
 * snapshot ref of each active leg, the commit the record knows for it, and whether the snapshot
 * still covers the worktree (removing it now would lose nothing). Built with the real modules:
 * addTask, snapshotLeg (remove's own snapshot step) and writeTask, on real repositories.
 */
import { realpathSync, rmSync } from "node:fs";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import type { Artifact, TaskRecord } from "../../schema/task.ts";
import { commitAll, git, removeDir, writeFile } from "../_fixture.ts";
import { withLease } from "../lease-store.ts";
import { faultyPorts, makeRoot } from "../worktree/_fixture.ts";
import { addTask } from "../worktree/add.ts";
import { snapshotLeg } from "../worktree/remove.ts";
import { readTask, writeTask } from "../worktree/store.ts";
import { openWorkspace } from "../worktree/workspace.ts";
import { gatherFacts } from "./facts.ts";

let root: string;
afterEach(() => removeDir(root));

const ports = faultyPorts();
const REF = (task: string, leg: string) => `refs/ariel/snapshots/${task}/${leg}`;

interface Setup {
  /** Task state written to the record. */
  state?: TaskRecord["state"];
  /** Legs (by source) snapshotted. */
  snap?: readonly string[];
  /** Whether the snapshot artifacts are in the record (the record write happened). */
  recorded?: boolean;
  /** Extra artifacts written into the record. */
  artifacts?: (r: TaskRecord) => Artifact[];
  /** Leg states to write, by source. */
  legState?: Record<string, TaskRecord["legs"][number]["state"]>;
}

/**
 * A task `t1` over `sources`, its record set to `state`, the legs in `snap` snapshotted: the
 * artifacts recorded (a record write after the snapshot) or not (a remove killed before it).
 */
async function cleaningTask(sources: readonly string[], s: Setup = {}): Promise<Map<string, string>> {
  root = realpathSync(makeRoot(sources));
  const { record } = await addTask(ports, { root, taskId: "t1", sources: [...sources] });
  const commits = new Map<string, string>();
  await withLease(root, "t1", { owner: "tester" }, async (lease) => {
    const artifacts: Artifact[] = [];
    const legs = record.legs.map((l) => ({ ...l, state: s.legState?.[l.source] ?? l.state }));
    const base = { ...record, legs, state: s.state ?? "cleaning" };
    const extra = s.artifacts?.(record) ?? [];
    const first = await writeTask(ports, { ...base, artifacts: extra }, record.version, lease);
    for (const leg of record.legs.filter((l) => s.snap?.includes(l.source))) {
      commits.set(leg.source, (await snapshotLeg(ports, lease, "t1", leg, artifacts)).commit);
    }
    if (s.recorded)
      await writeTask(ports, { ...base, artifacts: [...extra, ...artifacts] }, first.version, lease);
  });
  return commits;
}

/** The worktree path of leg `source` of t1. */
const wt = (source: string) => join(root, ".ariel/worktrees/t1", source);

/** The snapshot fact of each leg of t1, by source (undefined: none). */
async function snapshots(): Promise<Record<string, unknown>> {
  const facts = await gatherFacts(await openWorkspace(ports, root));
  const t1 = facts.tasks.find((t) => t.taskId === "t1");
  return Object.fromEntries((t1?.record?.legs ?? []).map((l) => [l.source, l.snapshot]));
}

describe("gatherFacts: the snapshot of a cleaning task's legs", () => {
  it("a snapshot the record lists: its commit and the recorded one, covers not asked", async () => {
    const c = await cleaningTask(["api"], { snap: ["api"], recorded: true });
    expect(await snapshots()).toEqual({
      api: { ref: REF("t1", "api"), commit: c.get("api"), recorded: c.get("api") },
    });
  });

  it("a snapshot the record does not list, nothing changed since: covers", async () => {
    const c = await cleaningTask(["api"], { snap: ["api"] });
    expect(await snapshots()).toEqual({
      api: { ref: REF("t1", "api"), commit: c.get("api"), recorded: null, covers: true },
    });
  });

  it("only the leg with a snapshot ref has a fact; the second leg's own worktree is checked", async () => {
    const c = await cleaningTask(["api", "web"], { snap: ["web"] });
    expect(await snapshots()).toEqual({
      api: undefined,
      web: { ref: REF("t1", "web"), commit: c.get("web"), recorded: null, covers: true },
    });
  });

  it("the record names an older snapshot of the ref: recorded is that one, covers asked", async () => {
    await cleaningTask(["api"], { snap: ["api"], recorded: true });
    const older = git(wt("api"), "rev-parse", REF("t1", "api"));
    // A second remove took a new snapshot (on top of the first) and died before its record write.
    await withLease(root, "t1", { owner: "tester" }, async (lease) => {
      const { record } = await addTaskRecord();
      await snapshotLeg(ports, lease, "t1", record.legs[0]!, []);
    });
    const newer = git(wt("api"), "rev-parse", REF("t1", "api"));
    expect(newer).not.toBe(older);
    expect(await snapshots()).toEqual({
      api: { ref: REF("t1", "api"), commit: newer, recorded: older, covers: true },
    });
  });

  it("an artifact of another kind or another ref is not the snapshot's record", async () => {
    const c = await cleaningTask(["api"], {
      snap: ["api"],
      artifacts: () => [
        { kind: "bundle", ref: REF("t1", "api"), commit: "a".repeat(40) },
        { kind: "snapshot", ref: REF("t1", "web"), commit: "b".repeat(40) },
      ],
    });
    expect(await snapshots()).toEqual({
      api: { ref: REF("t1", "api"), commit: c.get("api"), recorded: null, covers: true },
    });
  });

  it.each(["active", "closed"] as const)(
    "a task in state %s: no snapshot fact although the ref exists",
    async (state) => {
      await cleaningTask(["api"], { state, snap: ["api"] });
      expect(git(join(root, "api"), "for-each-ref", "--format=%(refname)", "refs/ariel/")).toBe(
        REF("t1", "api"),
      );
      expect(await snapshots()).toEqual({ api: undefined });
    },
  );

  it("a leg no longer active (removed): no snapshot fact although the ref exists", async () => {
    await cleaningTask(["api", "web"], { snap: ["api", "web"], legState: { api: "removed" } });
    const got = await snapshots();
    expect(got.api).toBeUndefined();
    expect(got.web).toEqual({
      ref: REF("t1", "web"),
      commit: git(join(root, "web"), "rev-parse", REF("t1", "web")),
      recorded: null,
      covers: true,
    });
  });

  it("the leg's .git is gone (remove got that far): covers not asked", async () => {
    const c = await cleaningTask(["api"], { snap: ["api"] });
    rmSync(join(wt("api"), ".git"));
    expect(await snapshots()).toEqual({
      api: { ref: REF("t1", "api"), commit: c.get("api"), recorded: null },
    });
  });
});

/** The current record of t1, as stored. */
async function addTaskRecord(): Promise<{ record: TaskRecord }> {
  const ws = await openWorkspace(ports, root);
  const record = await readTask(ws.root, ws.hash, "t1", ports.fs);
  if (!record) throw new Error("no record");
  return { record };
}

/** covers of leg api of a cleaning t1 whose unrecorded snapshot was taken after `before`, then `after` ran. */
async function coversAfter(before: () => void, after: () => void): Promise<unknown> {
  root = realpathSync(makeRoot(["api"]));
  await addTask(ports, { root, taskId: "t1", sources: ["api"] });
  before();
  await withLease(root, "t1", { owner: "tester" }, async (lease) => {
    const { record } = await addTaskRecord();
    const next = await writeTask(ports, { ...record, state: "cleaning" }, record.version, lease);
    await snapshotLeg(ports, lease, "t1", next.legs[0]!, []);
  });
  after();
  const snap = (await snapshots()).api as { covers?: boolean; recorded: string | null };
  expect(snap.recorded).toBeNull();
  return snap.covers;
}

const none = (): void => {};

describe("gatherFacts: whether an unrecorded snapshot covers the worktree", () => {
  it.each<[string, boolean, () => void, () => void]>([
    ["nothing changed", true, none, none],
    ["local work taken into the snapshot", true, () => writeFile(join(wt("api"), "work.txt"), "w\n"), none],
    [
      "a tracked file deleted after it (a removal stopped half-way)",
      true,
      none,
      () => rmSync(join(wt("api"), "README.md")),
    ],
    ["a file added after it", false, none, () => writeFile(join(wt("api"), "late.txt"), "late\n")],
    [
      "a tracked file modified after it",
      false,
      none,
      () => writeFile(join(wt("api"), "README.md"), "edited\n"),
    ],
    [
      "the overlay file changed after it",
      false,
      none,
      () => writeFile(join(wt("api"), ".env"), "SECRET=new\n"),
    ],
    ["HEAD moved after it (a commit)", false, none, () => void commitAll(wt("api"), "later")],
    [
      "a commit only the reflog holds, made after it",
      false,
      none,
      () => {
        commitAll(wt("api"), "dropped");
        git(wt("api"), "reset", "-q", "--hard", "HEAD~1");
      },
    ],
    [
      "a commit only the reflog holds, made before it (the snapshot keeps it)",
      true,
      () => {
        writeFile(join(wt("api"), "kept.txt"), "k\n");
        commitAll(wt("api"), "kept");
        git(wt("api"), "reset", "-q", "--hard", "HEAD~1");
      },
      none,
    ],
    [
      "a per-worktree ref made after it",
      false,
      none,
      () => void git(wt("api"), "update-ref", "refs/worktree/mine", "HEAD"),
    ],
    [
      "a per-worktree ref made before it (the snapshot names it)",
      true,
      () => void git(wt("api"), "update-ref", "refs/worktree/mine", "HEAD"),
      none,
    ],
    [
      "a per-worktree ref moved after it",
      false,
      () => void git(wt("api"), "update-ref", "refs/worktree/mine", "HEAD"),
      () => {
        commitAll(wt("api"), "x");
        git(wt("api"), "update-ref", "refs/worktree/mine", "HEAD");
        git(wt("api"), "reset", "-q", "--soft", "HEAD~1");
      },
    ],
    ["the ref moved to a commit with no parent", false, none, () => parentlessRef()],
  ])("%s: covers %s", async (_name, want, before, after) => {
    expect(await coversAfter(before, after)).toBe(want);
  });
});

/** Point the snapshot ref at a root commit of the same tree: HEAD is then not its first parent. */
function parentlessRef(): void {
  const api = join(root, "api");
  git(
    api,
    "update-ref",
    REF("t1", "api"),
    git(api, "commit-tree", `${REF("t1", "api")}^{tree}`, "-m", "parentless"),
  );
}
