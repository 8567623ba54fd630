/**
 * gc (`ariel-worktree gc`) on real repositories, with a fake clock: which tasks and runs it
 * takes (ages at their edges, states, --keep-bytes), that a dry run changes nothing, that a
 * worktree goes only through `remove --snapshot`, and that every refusal, held lease and moved
 * branch keeps everything.
 */
import { createHash } from "node:crypto";
import {
  chmodSync,
  existsSync,
  lstatSync,
  lutimesSync,
  mkdirSync,
  readdirSync,
  readFileSync,
  readlinkSync,
  renameSync,
  symlinkSync,
  utimesSync,
  writeFileSync,
} from "node:fs";
import { hostname } from "node:os";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import type { GcAction, GcPolicy } from "../../disk/gc.ts";
import type { Ports } from "../../ports.ts";
import type { RunRecord } from "../../runs/record.ts";
import { sandboxPaths } from "../../sandbox/paths.ts";
import type { TaskRecord } from "../../schema/task.ts";
import { git, initRepo, removeDir, writeFile } from "../_fixture.ts";
import { selfMonitorRef } from "../runs/identity.ts";
import { createRun, writeExitOnce } from "../runs/store.ts";
import { faultyPorts, gitPicture, makeRoot, names } from "../worktree/_fixture.ts";
import { addTask } from "../worktree/add.ts";
import { removeTask } from "../worktree/remove.ts";
import { restoreTask } from "../worktree/restore.ts";
import { shareLegs } from "../worktree/share.ts";
import { openWorkspace } from "../worktree/workspace.ts";
import { ARCHIVE_FILE, gc } from "./gc.ts";

let root = "";
afterEach(() => removeDir(root));

const T0 = Date.parse("2026-01-01T00:00:00.000Z");
const DAY = 86_400_000;
const iso = (ms: number) => new Date(ms).toISOString();

/** Host ports whose clock stands still at `now`. */
const at = (now: number): Ports => ({ ...faultyPorts(), clock: { now: () => now } });
const policy = (p: Partial<GcPolicy> = {}): GcPolicy => ({
  olderThanMs: DAY,
  states: ["closed"],
  pruneMerged: false,
  ...p,
});
const plan = (now: number, p: Partial<GcPolicy> = {}) =>
  gc(at(now), { root, policy: policy(p), dryRun: true });

const leg = (task: string, source: string) => join(root, ".ariel/worktrees", task, source);
const recordPath = (task: string) => join(root, ".ariel/tasks", `${task}.json`);
const recordText = (task: string) => readFileSync(recordPath(task), "utf8");
const record = (task: string) => JSON.parse(recordText(task));
const refs = (repo: string) => git(repo, "for-each-ref", "--format=%(refname) %(objectname)");
const head = (repo: string, ref: string) => git(repo, "rev-parse", ref);

/** Allocated bytes under `p` (lstat, links not followed, a multiply-linked file once). */
function alloc(p: string, seen = new Set<string>()): number {
  const st = lstatSync(p);
  const key = `${st.dev}:${st.ino}`;
  let n = 0;
  if (st.isDirectory() || st.nlink === 1 || !seen.has(key)) {
    if (!st.isDirectory() && st.nlink > 1) seen.add(key);
    n += st.blocks * 512;
  }
  if (st.isDirectory()) for (const name of readdirSync(p)) n += alloc(join(p, name), seen);
  return n;
}

/** Every entry under `dir`: path, kind, mode, and a file's content hash and mtime or a link's target. */
function listing(dir: string): string[] {
  const out: string[] = [];
  const walk = (p: string, rel: string) => {
    const st = lstatSync(p);
    const what = st.isDirectory()
      ? "dir"
      : st.isSymbolicLink()
        ? `-> ${readlinkSync(p)}`
        : `${createHash("sha256").update(readFileSync(p)).digest("hex")} ${st.mtimeMs}`;
    out.push(`${rel} ${st.mode.toString(8)} ${what}`);
    if (st.isDirectory()) for (const n of readdirSync(p).sort()) walk(join(p, n), rel ? `${rel}/${n}` : n);
  };
  walk(dir, ".");
  return out;
}

/**
 * The whole state gc could change: every file under the root, and git's worktrees and refs;
 * without the lease files when `leases` is false (a refused action took and released its task's lease).
 */
const picture = (sources: readonly string[] = ["api"], leases = true) => ({
  files: listing(root).filter((l) => leases || !l.startsWith("./.ariel/leases/")),
  git: sources.map((s) => gitPicture(join(root, s))),
});

async function add(taskId: string, sources: readonly string[] = ["api"], now = T0) {
  return (await addTask(at(now), { root, taskId, sources })).record;
}

/** Task `taskId` made and removed at `now` (closed, every leg removed, branches kept). */
async function closed(taskId: string, now = T0, sources: readonly string[] = ["api"]) {
  await add(taskId, sources, now);
  const r = await removeTask(at(now), { root, taskId, allow: ["overlay-changed"] });
  expect(r.refused).toBe(false);
}

/** A lease file on `task` held until `expiresAt` by process `pid` of this host (`processStart` as given). */
function writeLease(task: string, expiresAt: number, processStart: string | null = null) {
  const lease = {
    v: 1,
    type: "lease",
    taskId: task,
    owner: "racer",
    token: 9,
    pid: process.pid,
    processStart,
    host: hostname(),
    acquiredAt: iso(T0),
    expiresAt: iso(expiresAt),
  };
  const text = `${JSON.stringify(lease)}\n`;
  writeFileSync(join(root, ".ariel/leases", `${task}.json`), text);
  return { lease, text };
}

const archived = () =>
  readFileSync(join(root, ARCHIVE_FILE), "utf8")
    .trimEnd()
    .split("\n")
    .map((l) => JSON.parse(l));

describe("gc: which tasks, by age and state", () => {
  it("a closed task is archived from exactly --older-than after its last update, not a millisecond before", async () => {
    root = makeRoot(["api"]);
    await closed("t1");
    const text = recordText("t1");
    const rec = JSON.parse(text);
    expect(rec.updatedAt).toBe(iso(T0));
    const empty = { actions: [], skipped: [], bytes: 0 };
    expect(await plan(T0 + DAY - 1)).toEqual({ plan: empty, outcomes: [], problems: [] });
    const archive: GcAction = { action: "task.archive", task: "t1" };
    expect(await plan(T0 + DAY)).toEqual({
      plan: { actions: [archive], skipped: [], bytes: 0 },
      outcomes: [],
      problems: [],
    });
    const young = await gc(at(T0 + DAY - 1), { root, policy: policy() });
    expect(young.outcomes).toEqual([]);
    expect(recordText("t1")).toBe(text);
    const r = await gc(at(T0 + DAY), { root, policy: policy() });
    expect(r.outcomes).toEqual([{ action: archive, outcome: "done" }]);
    expect(archived()).toEqual([rec]);
    expect(names(join(root, ".ariel/tasks"))).toEqual([]);
    expect(names(join(root, ".ariel/leases"))).toEqual([]);
    // The branch is kept: only --prune-merged deletes one.
    expect(head(join(root, "api"), "refs/heads/ariel/t1")).toBe(rec.legs[0].head);
  });

  it("an old active task is left alone under the default state; with state active it is removed from exactly --older-than, measured", async () => {
    root = makeRoot(["api", "web"]);
    await add("t1", ["api", "web"]);
    writeFile(join(leg("t1", "web"), "build.bin"), "b".repeat(40_000));
    expect((await plan(T0 + 30 * DAY)).plan.actions).toEqual([]);
    expect((await plan(T0 + DAY - 1, { states: ["active"] })).plan.actions).toEqual([]);
    const bytes = alloc(leg("t1", "api")) + alloc(leg("t1", "web"));
    expect((await plan(T0 + DAY, { states: ["active"] })).plan).toEqual({
      actions: [{ action: "task.remove", task: "t1", bytes, reason: "policy" }],
      skipped: [],
      bytes,
    });
    // Nor is a closed task touched when only active ones are asked for.
    await closed("t2");
    expect((await plan(T0 + DAY, { states: ["active"] })).plan.actions.map((a) => a.action)).toEqual([
      "task.remove",
    ]);
  });

  it("--keep-bytes removes the oldest tasks' worktrees until at most that many bytes stay, whatever their age", async () => {
    root = makeRoot(["api"]);
    for (const [i, t] of ["t3", "t1", "t2"].entries()) {
      // Made in another order than their ages: t1 oldest, t3 youngest.
      await add(t, ["api"], T0 + { t1: 0, t2: 1000, t3: 2000 }[t]!);
      writeFile(join(leg(t, "api"), "out.bin"), "o".repeat(10_000 * (i + 1)));
    }
    const b = Object.fromEntries(["t1", "t2", "t3"].map((t) => [t, alloc(leg(t, "api"))]));
    const remove = (t: string) => ({ action: "task.remove", task: t, bytes: b[t], reason: "keep-bytes" });
    // Nothing is old enough for the policy: only the byte budget acts.
    const keep = (keepBytes: number) => plan(T0 + 3000, { olderThanMs: DAY, states: ["active"], keepBytes });
    expect((await keep(b.t1! + b.t2! + b.t3!)).plan.actions).toEqual([]);
    expect((await keep(b.t2! + b.t3!)).plan).toEqual({ actions: [remove("t1")], skipped: [], bytes: b.t1 });
    expect((await keep(b.t2! + b.t3! - 1)).plan.actions).toEqual([remove("t1"), remove("t2")]);
    expect((await keep(0)).plan.actions).toEqual([remove("t1"), remove("t2"), remove("t3")]);
    const r = await gc(at(T0 + 3000), { root, policy: policy({ keepBytes: b.t2! + b.t3! }) });
    // out.bin is untracked work: snapshotted, then removed.
    expect(r.outcomes).toEqual([
      {
        action: remove("t1"),
        outcome: "done",
        snapshots: [
          {
            source: "api",
            ref: "refs/ariel/snapshots/t1/api",
            commit: head(join(root, "api"), "refs/ariel/snapshots/t1/api"),
          },
        ],
      },
    ]);
    expect(names(join(root, ".ariel/worktrees"))).toEqual(["t2", "t3"]);
    expect(git(join(root, "api"), "show", "refs/ariel/snapshots/t1/api:out.bin")).toBe("o".repeat(20_000));
  });
});

describe("gc -n: a plan, nothing changed", () => {
  it("plans a removal, an archive, a branch deletion and a run drop, and changes no file, worktree or ref", async () => {
    root = makeRoot(["api"]);
    await add("t1");
    writeFile(join(leg("t1", "api"), "README.md"), "edited\n");
    writeFile(join(leg("t1", "api"), "notes/new.txt"), "untracked\n");
    await closed("t2");
    mkdirSync(join(root, ".ariel/runs"));
    const history = join(root, ".ariel/runs/r1.ndjson");
    writeFileSync(history, '{"v":1,"type":"event","event":"run.finished"}\n');
    utimesSync(history, new Date(T0), new Date(T0));
    const before = picture();
    const r = await plan(T0 + DAY, { states: ["active", "closed"], pruneMerged: true });
    const t2 = record("t2");
    expect(r).toEqual({
      plan: {
        actions: [
          { action: "task.remove", task: "t1", bytes: alloc(leg("t1", "api")), reason: "policy" },
          { action: "task.archive", task: "t2" },
          {
            action: "branch.delete",
            task: "t2",
            source: "api",
            sourcePath: join(root, "api"),
            branch: "ariel/t2",
            commit: t2.legs[0].head,
          },
          { action: "run.drop", run: "r1", paths: [history], bytes: alloc(history) },
        ],
        skipped: [],
        bytes: alloc(leg("t1", "api")) + alloc(history),
      },
      outcomes: [],
      problems: [],
    });
    expect(picture()).toEqual(before);
  });

  it("a workspace without tasks: an empty plan, and a dry run writes nothing, not even .ariel", async () => {
    root = makeRoot(["api"]);
    const before = picture();
    const empty = { plan: { actions: [], skipped: [], bytes: 0 }, outcomes: [], problems: [] };
    expect(await plan(T0, { olderThanMs: 0, states: ["active", "closed", "unknown", "cleaning"] })).toEqual(
      empty,
    );
    expect(picture()).toEqual(before);
    expect(existsSync(join(root, ".ariel"))).toBe(false);
    expect(await gc(at(T0), { root, policy: policy({ olderThanMs: 0, keepBytes: 0 }) })).toEqual(empty);
    expect(picture().git).toEqual(before.git);
  });
});

describe("gc removes a worktree only through remove --snapshot", () => {
  it("each leg's local work is saved under its snapshot ref first, commits stay on the branch; a clean leg gets none", async () => {
    root = makeRoot(["api", "web"]);
    await add("t1", ["api", "web"]);
    const [api, web] = [leg("t1", "api"), leg("t1", "web")];
    writeFile(join(api, "README.md"), "edited\n");
    writeFile(join(api, "notes/new.txt"), "untracked work\n");
    writeFile(join(web, "feature.txt"), "committed\n");
    git(web, "add", "feature.txt");
    git(web, "commit", "-qm", "feature");
    const tip = head(web, "HEAD");
    const apiHead = head(api, "HEAD");
    const r = await gc(at(T0 + DAY), { root, policy: policy({ states: ["active"] }) });
    const snap = head(join(root, "api"), "refs/ariel/snapshots/t1/api");
    expect(r.outcomes).toEqual([
      {
        action: { action: "task.remove", task: "t1", bytes: expect.any(Number), reason: "policy" },
        outcome: "done",
        snapshots: [{ source: "api", ref: "refs/ariel/snapshots/t1/api", commit: snap }],
      },
    ]);
    const repo = join(root, "api");
    expect(git(repo, "show", `${snap}:README.md`)).toBe("edited");
    expect(git(repo, "show", `${snap}:notes/new.txt`)).toBe("untracked work");
    expect(git(repo, "rev-parse", `${snap}^1`)).toBe(apiHead);
    expect(head(join(root, "web"), "refs/heads/ariel/t1")).toBe(tip);
    expect(refs(join(root, "web"))).not.toContain("refs/ariel/snapshots/");
    expect(names(join(root, ".ariel/worktrees"))).toEqual([]);
    for (const s of ["api", "web"])
      expect(git(join(root, s), "worktree", "list", "--porcelain")).not.toContain(".ariel");
    const rec = record("t1");
    expect([rec.state, rec.legs.map((l: { state: string }) => l.state)]).toEqual([
      "closed",
      ["snapshotted", "removed"],
    ]);
    // Its record stays for restore: never archived while a leg is snapshotted.
    expect((await plan(T0 + 2 * DAY)).plan).toEqual({
      actions: [],
      skipped: [{ task: "t1", reason: "snapshot-kept", detail: "restore reads its record" }],
      bytes: 0,
    });
  });
});

describe("gc: a refusal keeps everything", () => {
  /** t1 with api holding uncommitted and untracked work, and web set up by `spoil` so remove refuses it. */
  async function refusedTask(spoil: (web: string) => void) {
    root = makeRoot(["api", "web"]);
    initRepo(join(root, "lib"), { "lib.txt": "lib\n" });
    await add("t1", ["api", "web"]);
    writeFile(join(leg("t1", "api"), "README.md"), "edited\n");
    writeFile(join(leg("t1", "api"), "notes/new.txt"), "untracked work\n");
    spoil(leg("t1", "web"));
  }

  it.each([
    [
      "another branch checked out",
      (web: string) => {
        git(web, "switch", "-q", "-c", "other");
        git(web, "commit", "-q", "--allow-empty", "-m", "on other");
      },
      "ERR_BRANCH_MISMATCH",
      (web: string) => `${web} has other checked out, not ariel/t1`,
    ],
    [
      "a detached HEAD holding a commit no ref reaches",
      (web: string) => {
        git(web, "switch", "-q", "--detach");
        git(web, "commit", "-q", "--allow-empty", "-m", "detached work");
      },
      "ERR_BRANCH_MISMATCH",
      (web: string) => `${web} has a detached HEAD checked out, not ariel/t1`,
    ],
    [
      "a lock of someone else's",
      (web: string) => {
        git(join(root, "web"), "worktree", "unlock", web);
        git(join(root, "web"), "worktree", "lock", "--reason", "held by a backup job", web);
      },
      "ERR_FOREIGN_LOCK",
      (web: string) => `${web} is locked by someone else (held by a backup job)`,
    ],
    [
      "a submodule holding a commit that exists only there",
      (web: string) => {
        git(web, "submodule", "add", "-q", join(root, "lib"), "sub");
        git(web, "commit", "-qm", "add sub");
        writeFile(join(web, "sub/new.txt"), "submodule work\n");
        git(join(web, "sub"), "add", "-A");
        git(join(web, "sub"), "commit", "-qm", "local submodule work");
        git(web, "commit", "-qam", "bump sub");
      },
      "ERR_SUBMODULE_COMMITS",
      (web: string) =>
        `submodules of ${web} hold 1 commit(s) that exist only there: sub@${head(join(web, "sub"), "HEAD")}`,
    ],
  ] as const)(
    "%s: the whole task is kept, refused (nothing snapshotted, no leg removed)",
    async (_n, spoil, code, message) => {
      await refusedTask(spoil);
      const web = leg("t1", "web");
      const before = { ...picture(["api", "web"], false), head: head(web, "HEAD") };
      const r = await gc(at(T0 + DAY), { root, policy: policy({ states: ["active"] }) });
      expect(r.outcomes).toEqual([
        {
          action: { action: "task.remove", task: "t1", bytes: r.plan.bytes, reason: "policy" },
          outcome: "skipped",
          reason: { code, message: message(web) },
          refused: true,
        },
      ]);
      expect({ ...picture(["api", "web"], false), head: head(web, "HEAD") }).toEqual(before);
      // The lease gc took for the removal is released.
      const lease = JSON.parse(readFileSync(join(root, ".ariel/leases/t1.json"), "utf8"));
      expect([lease.owner, lease.expiresAt]).toEqual(["tester", iso(T0 + DAY)]);
    },
  );

  it("the share store a refused task's leg links into is kept too: its drop, planned with the removal, is skipped", async () => {
    root = makeRoot(["api"]);
    const api = join(root, "api");
    writeFile(join(api, ".gitignore"), ".env\nnode_modules/\n");
    writeFile(join(api, "package-lock.json"), '{"lockfileVersion":3}\n');
    git(api, "add", "-A");
    git(api, "commit", "-qm", "lockfile");
    writeFile(join(api, "node_modules/a/index.js"), "module.exports = 1;\n");
    const rec = await add("t1");
    expect((await shareLegs(at(T0), root, rec.legs, ["node_modules"], "store")).warnings).toEqual([]);
    const [key] = names(join(root, ".ariel/share")).filter((n) => !n.startsWith("."));
    const store = join(root, ".ariel/share", key as string);
    const l = leg("t1", "api");
    git(l, "switch", "-q", "-c", "other");
    const before = picture(["api"], false);
    const r = await gc(at(T0 + DAY), { root, policy: policy({ states: ["active"] }) });
    const drop = { action: "share.drop", store: key, path: store, bytes: expect.any(Number) };
    expect(r.plan.actions).toEqual([expect.objectContaining({ action: "task.remove", task: "t1" }), drop]);
    expect(r.outcomes).toEqual([
      {
        action: r.plan.actions[0],
        outcome: "skipped",
        reason: { code: "ERR_BRANCH_MISMATCH", message: `${l} has other checked out, not ariel/t1` },
        refused: true,
      },
      { action: drop, outcome: "skipped", reason: { code: "ERR_CONFLICT", message: `in use by ${l}` } },
    ]);
    expect(picture(["api"], false)).toEqual(before);
    expect(readFileSync(join(l, "node_modules/a/index.js"), "utf8")).toBe("module.exports = 1;\n");
  });
});

describe("gc: leases", () => {
  it("a live lease is skipped (leased), a dead holder's is free (its pid now another process), one that cannot be read counts as held", async () => {
    root = makeRoot(["api"]);
    for (const t of ["t1", "t2", "t3"]) await closed(t);
    const now = T0 + DAY;
    const live = writeLease("t1", now + 60_000);
    // This process's pid with another start time: the holder died and its pid was reused.
    writeLease("t2", now + 60_000, "1");
    writeFileSync(join(root, ".ariel/leases/t3.json"), "{ torn");
    const [t1, t3] = [recordText("t1"), recordText("t3")];
    const t2 = record("t2");
    const r = await gc(at(now), { root, policy: policy() });
    expect(r.plan).toEqual({
      actions: [{ action: "task.archive", task: "t2" }],
      skipped: [
        { task: "t1", reason: "leased" },
        { task: "t3", reason: "leased" },
      ],
      bytes: 0,
    });
    expect(r.outcomes).toEqual([{ action: { action: "task.archive", task: "t2" }, outcome: "done" }]);
    expect(archived()).toEqual([t2]);
    expect(names(join(root, ".ariel/tasks"))).toEqual(["t1.json", "t3.json"]);
    expect([recordText("t1"), recordText("t3")]).toEqual([t1, t3]);
    expect(readFileSync(join(root, ".ariel/leases/t1.json"), "utf8")).toBe(live.text);
    expect(readFileSync(join(root, ".ariel/leases/t3.json"), "utf8")).toBe("{ torn");
    // Expired (by the clock gc is given), the same lease is free.
    const later = await plan(now + 60_000);
    expect(later.plan.actions).toEqual([{ action: "task.archive", task: "t1" }]);
  });

  it("a lease taken after the plan: the removal is skipped (ERR_LEASE_HELD, no refusal), the worktree and its work untouched", async () => {
    root = makeRoot(["api"]);
    await add("t1");
    writeFile(join(leg("t1", "api"), "notes/new.txt"), "untracked work\n");
    const now = T0 + DAY;
    let lease = "";
    const seen: [number, number, string][] = [];
    const before = picture(["api"], false);
    const r = await gc(at(now), {
      root,
      policy: policy({ states: ["active"] }),
      onProgress: (i, n, a) => {
        seen.push([i, n, a.action]);
        lease = writeLease("t1", now + 60_000).text;
      },
    });
    expect(seen).toEqual([[1, 1, "task.remove"]]);
    expect(r.outcomes).toEqual([
      {
        action: { action: "task.remove", task: "t1", bytes: alloc(leg("t1", "api")), reason: "policy" },
        outcome: "skipped",
        reason: {
          code: "ERR_LEASE_HELD",
          message: `task t1 is leased by racer (pid ${process.pid} on ${hostname()}) until ${iso(now + 60_000)}`,
        },
      },
    ]);
    expect(picture(["api"], false)).toEqual(before);
    expect(readFileSync(join(root, ".ariel/leases/t1.json"), "utf8")).toBe(lease);
  });
});

describe("gc --prune-merged", () => {
  it("deletes a merged branch, keeps and names one not merged, says nothing of one gone; without the flag no branch is touched", async () => {
    root = makeRoot(["api"]);
    const api = join(root, "api");
    await add("t1");
    await add("t2");
    git(leg("t2", "api"), "commit", "-q", "--allow-empty", "-m", "not merged");
    const t2tip = head(leg("t2", "api"), "HEAD");
    await add("t3");
    for (const t of ["t1", "t2", "t3"]) {
      expect((await removeTask(at(T0), { root, taskId: t, allow: ["overlay-changed"] })).refused).toBe(false);
    }
    // land --remove deleted t3's branch.
    git(api, "branch", "-D", "ariel/t3");
    const main = head(api, "main");
    const archives = ["t1", "t2", "t3"].map((task) => ({ action: "task.archive", task }));
    const without = await plan(T0 + DAY);
    expect(without.plan).toEqual({ actions: archives, skipped: [], bytes: 0 });
    const t1 = record("t1");
    const r = await gc(at(T0 + DAY), { root, policy: policy({ pruneMerged: true }) });
    const del = {
      action: "branch.delete",
      task: "t1",
      source: "api",
      sourcePath: api,
      branch: "ariel/t1",
      commit: t1.legs[0].head,
    };
    expect(r.plan).toEqual({
      actions: [archives[0], del, archives[1], archives[2]],
      skipped: [{ task: "t2", reason: "not-merged", detail: "ariel/t2", source: "api" }],
      bytes: 0,
    });
    expect(r.outcomes.map((o) => [o.action, o.outcome])).toEqual([
      [archives[0], "done"],
      [del, "done"],
      [archives[1], "done"],
      [archives[2], "done"],
    ]);
    expect(refs(api)).toBe([`refs/heads/ariel/t2 ${t2tip}`, `refs/heads/main ${main}`].join("\n"));
  });

  it("a branch that moved after the plan is not deleted: git branch -d refuses, skipped (ERR_GIT), the branch where it moved", async () => {
    root = makeRoot(["api"]);
    const api = join(root, "api");
    await closed("t1");
    let moved = "";
    const r = await gc(at(T0 + DAY), {
      root,
      policy: policy({ pruneMerged: true }),
      onProgress: (_i, _n, a) => {
        if (a.action !== "branch.delete") return;
        // New work lands on the branch between the plan and the deletion.
        moved = git(
          api,
          "commit-tree",
          "-p",
          "ariel/t1",
          "-m",
          "late work",
          `${head(api, "ariel/t1")}^{tree}`,
        );
        git(api, "update-ref", "refs/heads/ariel/t1", moved);
      },
    });
    expect(r.outcomes.map((o) => [o.action.action, o.outcome, o.reason, o.refused])).toEqual([
      ["task.archive", "done", undefined, undefined],
      [
        "branch.delete",
        "skipped",
        { code: "ERR_GIT", message: "error: The branch 'ariel/t1' is not fully merged." },
        undefined,
      ],
    ]);
    expect(head(api, "refs/heads/ariel/t1")).toBe(moved);
  });
});

describe("gc: finished runs' output", () => {
  it("drops a finished run from exactly --older-than after it ended; keeps one still going, one with a directory but no exit.json, and a young one", async () => {
    root = makeRoot(["api"]);
    const runs = join(root, ".ariel/runs");
    const FINISHED =
      '{"v":1,"type":"event","event":"run.started"}\n{"v":1,"type":"event","event":"run.finished"}\n';
    const file = (name: string, text: string, mtime: number) => {
      writeFile(join(runs, name), text);
      utimesSync(join(runs, name), new Date(mtime), new Date(mtime));
      return join(runs, name);
    };
    const old = T0 - 30 * DAY;
    const done = file("done.ndjson", FINISHED, T0);
    file("going.ndjson", '{"v":1,"type":"event","event":"run.started"}\n', old);
    file("live.ndjson", FINISHED, old);
    mkdirSync(join(runs, "live"));
    file("young.ndjson", FINISHED, T0 + 1000);
    // Ended (exit.json) with no run.json: no monitor of ours settles it. Its age is exit.json's.
    file("ended.ndjson", FINISHED, old);
    const ended = join(runs, "ended");
    file("ended/exit.json", '{"code":0}\n', T0);
    file("late.ndjson", FINISHED, old);
    file("late/exit.json", '{"code":0}\n', T0 + 1000);
    const bytes = { done: alloc(done), ended: alloc(ended) + alloc(`${ended}.ndjson`) };
    const r = await gc(at(T0 + DAY), { root, policy: policy() });
    const drops = [
      { action: "run.drop", run: "done", paths: [done], bytes: bytes.done },
      { action: "run.drop", run: "ended", paths: [ended, `${ended}.ndjson`], bytes: bytes.ended },
    ];
    expect(r.plan).toEqual({ actions: drops, skipped: [], bytes: bytes.done + bytes.ended });
    expect(r.outcomes).toEqual(drops.map((action) => ({ action, outcome: "done" })));
    expect(names(runs)).toEqual([
      "going.ndjson",
      "late",
      "late.ndjson",
      "live",
      "live.ndjson",
      "young.ndjson",
    ]);
  });
});

describe("gc: what it cannot read, and legs gone", () => {
  it("a task record that cannot be read is reported and never touched; the rest of the sweep is done", async () => {
    root = makeRoot(["api"]);
    await closed("t1");
    const bad = recordPath("t0");
    writeFileSync(bad, "{ not json\n");
    const r = await gc(at(T0 + DAY), { root, policy: policy({ states: ["closed", "active", "unknown"] }) });
    expect(r.problems).toEqual([
      { code: "ERR_RECORD_CORRUPT", message: `task record ${bad}: not valid JSON` },
    ]);
    expect(r.outcomes).toEqual([{ action: { action: "task.archive", task: "t1" }, outcome: "done" }]);
    expect(readFileSync(bad, "utf8")).toBe("{ not json\n");
    expect(names(join(root, ".ariel/tasks"))).toEqual(["t0.json"]);
  });

  it("an active task whose worktrees are all gone: nothing to remove, nor to archive (it is not closed)", async () => {
    root = makeRoot(["api", "web"]);
    await add("t1", ["api", "web"]);
    removeDir(join(root, ".ariel/worktrees/t1"));
    const before = picture(["api", "web"]);
    const r = await gc(at(T0 + DAY), {
      root,
      policy: policy({ states: ["active", "closed"], keepBytes: 0 }),
    });
    expect(r).toEqual({ plan: { actions: [], skipped: [], bytes: 0 }, outcomes: [], problems: [] });
    expect(picture(["api", "web"])).toEqual(before);
  });

  it("a task with one leg gone: the removal measures and snapshots the leg left, and closes the task", async () => {
    root = makeRoot(["api", "web"]);
    await add("t1", ["api", "web"]);
    removeDir(leg("t1", "web"));
    writeFile(join(leg("t1", "api"), "notes/new.txt"), "untracked work\n");
    const bytes = alloc(leg("t1", "api"));
    const r = await gc(at(T0 + DAY), { root, policy: policy({ states: ["active"] }) });
    const snap = head(join(root, "api"), "refs/ariel/snapshots/t1/api");
    expect(r.outcomes).toEqual([
      {
        action: { action: "task.remove", task: "t1", bytes, reason: "policy" },
        outcome: "done",
        snapshots: [{ source: "api", ref: "refs/ariel/snapshots/t1/api", commit: snap }],
      },
    ]);
    expect(git(join(root, "api"), "show", `${snap}:notes/new.txt`)).toBe("untracked work");
    expect(names(join(root, ".ariel/worktrees"))).toEqual([]);
    const rec = record("t1");
    expect([rec.state, rec.legs.map((l: { state: string }) => l.state)]).toEqual([
      "closed",
      ["snapshotted", "removed"],
    ]);
    for (const s of ["api", "web"])
      expect(git(join(root, s), "worktree", "list", "--porcelain")).not.toContain(".ariel");
  });
});

describe("gc: a restored task's snapshot ref", () => {
  it("a ref deleted by hand since: the drop is skipped (ERR_CONFLICT, gone), the record's artifact kept", async () => {
    root = makeRoot(["api"]);
    const api = join(root, "api");
    await add("t1");
    writeFile(join(leg("t1", "api"), "notes/new.txt"), "untracked work\n");
    expect((await removeTask(at(T0), { root, taskId: "t1", snapshot: true })).refused).toBe(false);
    await restoreTask(at(T0), { root, taskId: "t1" });
    const ref = "refs/ariel/snapshots/t1/api";
    const was = head(api, ref);
    const drop = { action: "snapshot.drop", task: "t1", source: "api", sourcePath: api, ref, commit: was };
    expect((await plan(T0)).plan.actions).toEqual([drop]);
    git(api, "update-ref", "-d", ref);
    const text = recordText("t1");
    const r = await gc(at(T0), { root, policy: policy() });
    expect(r.outcomes).toEqual([
      {
        action: drop,
        outcome: "skipped",
        reason: { code: "ERR_CONFLICT", message: `${ref} is gone (was ${was}); kept` },
      },
    ]);
    expect(recordText("t1")).toBe(text);
    expect(readFileSync(join(leg("t1", "api"), "notes/new.txt"), "utf8")).toBe("untracked work\n");
  });
});

describe("gc: a git repository nested in a leg (not a submodule)", () => {
  /** t1 whose api leg holds vendor/lib, a repository of its own: a commit, and a file not committed. */
  async function nestedRepo(commit: boolean) {
    root = makeRoot(["api"]);
    await add("t1");
    const nested = join(leg("t1", "api"), "vendor/lib");
    writeFile(join(nested, "a.txt"), "committed in the nested repository\n");
    git(nested, "init", "-q", "-b", "main");
    if (commit) {
      git(nested, "add", "-A");
      git(nested, "commit", "-qm", "nested work");
    }
    writeFile(join(nested, "b.txt"), "not committed anywhere\n");
    return nested;
  }

  // A snapshot cannot keep a nested repository (a `git add` records its commit id at most, whose
  // objects live in its own .git and go with the worktree): gc once removed such a leg, `done`,
  // and its commit and uncommitted file were gone for good. Now the leg is refused.
  it("its commits and uncommitted files: the whole task is kept, refused (ERR_NESTED_WORK)", async () => {
    const nested = await nestedRepo(true);
    const api = leg("t1", "api");
    const before = picture(["api"], false);
    const r = await gc(at(T0 + DAY), { root, policy: policy({ states: ["active"] }) });
    expect(r.outcomes).toEqual([
      {
        action: { action: "task.remove", task: "t1", bytes: r.plan.bytes, reason: "policy" },
        outcome: "skipped",
        reason: {
          code: "ERR_NESTED_WORK",
          message: `git repositories nested in ${api} hold work that exists only there: vendor/lib/`,
        },
        refused: true,
      },
    ]);
    expect(picture(["api"], false)).toEqual(before);
    expect(readFileSync(join(nested, "b.txt"), "utf8")).toBe("not committed anywhere\n");
    expect(record("t1").state).toBe("active");
  });

  // With no commit yet, a snapshot's `git add -A` failed on it (ERR_GIT, exit 1), which stopped
  // the whole sweep and left t1's record `unknown`; its files are local work like any other.
  it("with no commit yet, its files refuse the task too, and the sweep goes on", async () => {
    const nested = await nestedRepo(false);
    await closed("t2");
    const r = await gc(at(T0 + DAY), { root, policy: policy({ states: ["active", "closed"] }) });
    expect(r.outcomes.map((o) => [o.action.action, o.outcome, o.reason?.code ?? null])).toEqual([
      ["task.remove", "skipped", "ERR_NESTED_WORK"],
      ["task.archive", "done", null],
    ]);
    expect(r.outcomes[0]!.reason!.message).toMatch(/: vendor\/lib\/$/);
    expect(record("t1").state).toBe("active");
    expect(readFileSync(join(nested, "b.txt"), "utf8")).toBe("not committed anywhere\n");
  });

  it("refused whatever it holds, and git is never run inside it (its config is the agent's: an fsmonitor command there does not run)", async () => {
    root = makeRoot(["api"]);
    await add("t1");
    const api = leg("t1", "api");
    git(api, "clone", "-q", join(root, "api"), "clone");
    const ran = join(root, "fsmonitor-ran");
    git(join(api, "clone"), "config", "core.fsmonitor", `touch ${ran}; false`);
    const r = await gc(at(T0 + DAY), { root, policy: policy({ states: ["active"] }) });
    expect(r.outcomes.map((o) => [o.outcome, o.reason?.message])).toEqual([
      ["skipped", `git repositories nested in ${api} hold work that exists only there: clone/`],
    ]);
    expect(existsSync(ran)).toBe(false);
  });

  it("removed when the user names that loss: left out of the snapshot (not even as a commit id)", async () => {
    root = makeRoot(["api"]);
    await add("t1");
    const api = leg("t1", "api");
    git(api, "init", "-q", "empty");
    git(api, "clone", "-q", join(root, "api"), "clone");
    writeFile(join(api, "notes.txt"), "the leg's own work\n");
    const r = await removeTask(at(T0), { root, taskId: "t1", snapshot: true, allow: ["nested-work"] });
    expect(r.refused).toBe(false);
    expect(existsSync(api)).toBe(false);
    const snapshot = r.results[0]!.snapshot!.commit;
    expect(git(join(root, "api"), "ls-tree", "-r", "--name-only", snapshot)).toBe(
      ".gitignore\nREADME.md\nnotes.txt",
    );
  });
});

/** Task record `task` rewritten in place by hand (another process's write, seen between plan and apply). */
function rewrite(task: string, change: (r: TaskRecord) => TaskRecord) {
  writeFileSync(recordPath(task), `${JSON.stringify(change(record(task)))}\n`);
}

/**
 * A reference-transaction hook in `repo`: at `prepared` it copies ariel's repository lock file to
 * `seen` (what holds the lock while git changes the ref), then refuses with `say` on stderr, or
 * lets the change go when `say` is null.
 */
function refHook(repo: string, seen: string, say: string | null) {
  const hook = join(repo, ".git/hooks/reference-transaction");
  const lock = join(repo, ".git/ariel-worktree.lock");
  const end = say === null ? "  exit 0" : `  printf '${say}' >&2; exit 1`;
  writeFile(
    hook,
    ["#!/bin/sh", 'if [ "$1" = prepared ]; then', `  cp '${lock}' '${seen}'`, end, "fi", ""].join("\n"),
  );
  chmodSync(hook, 0o755);
}

/** What stderr the hook above prints: a blank line and indentation before the reason, a line after it. */
const HOOK_SAYS = "\\n   refused by a policy hook\\nsee the wiki\\n";

/** t1 with untracked work in each of `sources`, removed with --snapshot and restored: one snapshot.drop a leg. */
async function restored(sources: readonly string[] = ["api"]) {
  await add("t1", sources);
  for (const s of sources) writeFile(join(leg("t1", s), "notes/new.txt"), `${s} work\n`);
  expect((await removeTask(at(T0), { root, taskId: "t1", snapshot: true })).refused).toBe(false);
  await restoreTask(at(T0), { root, taskId: "t1" });
  return sources.map((s) => {
    const ref = `refs/ariel/snapshots/t1/${s}`;
    const sourcePath = join(root, s);
    return { action: "snapshot.drop", task: "t1", source: s, sourcePath, ref, commit: head(sourcePath, ref) };
  });
}

describe("gc: a restored task's snapshot ref, checked again when applied", () => {
  it("git refuses to delete the ref: skipped (ERR_GIT, git's first line), the ref and the record's artifact kept; the ref changed under the repository lock", async () => {
    root = makeRoot(["api"]);
    const [drop] = await restored();
    const api = join(root, "api");
    const seen = join(root, "lock-seen.json");
    refHook(api, seen, HOOK_SAYS);
    const text = recordText("t1");
    const r = await gc(at(T0), { root, policy: policy() });
    expect(r.outcomes).toEqual([
      { action: drop, outcome: "skipped", reason: { code: "ERR_GIT", message: "refused by a policy hook" } },
    ]);
    expect(head(api, drop!.ref)).toBe(drop!.commit);
    expect(recordText("t1")).toBe(text);
    const lock = JSON.parse(readFileSync(seen, "utf8"));
    expect([lock.purpose, lock.pid]).toEqual(["gc t1", process.pid]);
  });

  it("dropped: the ref and only its own artifact go (the other leg's snapshot and any other artifact stay), leg by leg", async () => {
    root = makeRoot(["api", "web"]);
    const drops = await restored(["api", "web"]);
    const note = { kind: "note", ref: drops[0]!.ref };
    rewrite("t1", (r) => ({ ...r, artifacts: [...r.artifacts, note] }));
    const artifacts = record("t1").artifacts;
    expect(artifacts.map((a: { kind: string; ref: string }) => [a.kind, a.ref])).toEqual([
      ["snapshot", drops[0]!.ref],
      ["snapshot", drops[1]!.ref],
      ["note", drops[0]!.ref],
    ]);
    let between: unknown[] = [];
    const r = await gc(at(T0), {
      root,
      policy: policy(),
      onProgress: (i) => {
        if (i !== 2) return;
        between = record("t1").artifacts;
        // api's worktree goes by hand: web's drop is judged by web's own leg, still there.
        removeDir(leg("t1", "api"));
      },
    });
    expect(r.outcomes).toEqual(drops.map((action) => ({ action, outcome: "done" })));
    expect(between).toEqual([artifacts[1], artifacts[2]]);
    expect(record("t1").artifacts).toEqual([artifacts[2]]);
    for (const s of ["api", "web"]) expect(refs(join(root, s))).not.toContain("refs/ariel/snapshots/");
  });

  it.each([
    ["its worktree was removed by hand", () => removeDir(leg("t1", "api"))],
    [
      "its leg is no longer active (unknown: a removal cut short), the worktree still there",
      () => rewrite("t1", (r) => ({ ...r, legs: r.legs.map((l) => ({ ...l, state: "unknown" as const })) })),
    ],
    [
      "the record no longer has that leg (a new t1, of another source)",
      () => rewrite("t1", (r) => ({ ...r, legs: r.legs.map((l) => ({ ...l, source: "web" })) })),
    ],
    ["the record is gone", () => removeDir(recordPath("t1"))],
  ])("%s after the plan: skipped (ERR_CONFLICT, the task changed), the ref kept", async (_n, change) => {
    root = makeRoot(["api"]);
    const [drop] = await restored();
    let text: string | null = null;
    const r = await gc(at(T0), {
      root,
      policy: policy(),
      onProgress: () => {
        change();
        text = existsSync(recordPath("t1")) ? recordText("t1") : null;
      },
    });
    expect(r.outcomes).toEqual([
      { action: drop, outcome: "skipped", reason: { code: "ERR_CONFLICT", message: "the task changed" } },
    ]);
    expect(head(join(root, "api"), drop!.ref)).toBe(drop!.commit);
    expect(existsSync(recordPath("t1")) ? recordText("t1") : null).toBe(text);
  });
});

describe("gc --prune-merged: what git cannot tell, and tasks it does not ask about", () => {
  it("a source git no longer reads as a repository: its branch is named not merged (never taken for gone), the task archived", async () => {
    root = makeRoot(["api"]);
    await closed("t1");
    const api = join(root, "api");
    const rec = record("t1");
    renameSync(join(api, ".git"), join(root, "api.git"));
    const r = await gc(at(T0 + DAY), { root, policy: policy({ pruneMerged: true }) });
    const archive = { action: "task.archive", task: "t1" };
    expect(r.plan).toEqual({
      actions: [archive],
      skipped: [{ task: "t1", reason: "not-merged", detail: "ariel/t1", source: "api" }],
      bytes: 0,
    });
    expect(r.outcomes).toEqual([{ action: archive, outcome: "done" }]);
    expect(archived()).toEqual([rec]);
    renameSync(join(root, "api.git"), join(api, ".git"));
    expect(head(api, "refs/heads/ariel/t1")).toBe(rec.legs[0].head);
  });

  it("without the flag no git is asked: a closed task whose source repository is gone is archived", async () => {
    root = makeRoot(["api"]);
    await closed("t1");
    const rec = record("t1");
    removeDir(join(root, "api"));
    const r = await gc(at(T0 + DAY), { root, policy: policy() });
    expect(r.outcomes).toEqual([{ action: { action: "task.archive", task: "t1" }, outcome: "done" }]);
    expect(archived()).toEqual([rec]);
  });

  it("with the flag only closed tasks are asked about: an active task with a removed leg whose repository is gone is left alone", async () => {
    root = makeRoot(["api", "web"]);
    await add("t1", ["api", "web"]);
    const r0 = await removeTask(at(T0), { root, taskId: "t1", sources: ["web"], allow: ["overlay-changed"] });
    expect(r0.refused).toBe(false);
    expect(record("t1").legs.map((l: { state: string }) => l.state)).toEqual(["active", "removed"]);
    removeDir(join(root, "web"));
    const before = picture(["api"]);
    const r = await gc(at(T0 + DAY), { root, policy: policy({ pruneMerged: true }) });
    expect(r).toEqual({ plan: { actions: [], skipped: [], bytes: 0 }, outcomes: [], problems: [] });
    expect(picture(["api"])).toEqual(before);
  });

  it("a branch -d git refuses for its own reason: skipped (ERR_GIT, git's first line), the branch kept; deleted under the repository lock", async () => {
    root = makeRoot(["api"]);
    await closed("t1");
    const api = join(root, "api");
    const tip = head(api, "refs/heads/ariel/t1");
    const seen = join(root, "lock-seen.json");
    refHook(api, seen, HOOK_SAYS);
    const r = await gc(at(T0 + DAY), { root, policy: policy({ pruneMerged: true }) });
    expect(r.outcomes.map((o) => [o.action.action, o.outcome, o.reason])).toEqual([
      ["task.archive", "done", undefined],
      ["branch.delete", "skipped", { code: "ERR_GIT", message: "refused by a policy hook" }],
    ]);
    expect(head(api, "refs/heads/ariel/t1")).toBe(tip);
    const lock = JSON.parse(readFileSync(seen, "utf8"));
    expect([lock.purpose, lock.pid]).toEqual(["gc t1", process.pid]);
  });

  it("a lease taken while its archive batch waits: that task's archive and its merged branch are both skipped with the lease's reason", async () => {
    root = makeRoot(["api"]);
    await closed("t1");
    await closed("t2");
    const api = join(root, "api");
    const now = T0 + DAY;
    const [t1, t2] = [record("t1"), recordText("t2")];
    const r = await gc(at(now), {
      root,
      policy: policy({ pruneMerged: true }),
      onProgress: (_i, _n, a) => {
        if (a.action === "task.archive" && a.task === "t2") writeLease("t2", now + 60_000);
      },
    });
    const held = {
      code: "ERR_LEASE_HELD",
      message: `task t2 is leased by racer (pid ${process.pid} on ${hostname()}) until ${iso(now + 60_000)}`,
    };
    expect(
      r.outcomes.map((o) => [
        o.action.action,
        "task" in o.action ? o.action.task : null,
        o.outcome,
        o.reason,
      ]),
    ).toEqual([
      ["task.archive", "t1", "done", undefined],
      ["branch.delete", "t1", "done", undefined],
      ["task.archive", "t2", "skipped", held],
      ["branch.delete", "t2", "skipped", held],
    ]);
    expect(archived()).toEqual([t1]);
    expect(recordText("t2")).toBe(t2);
    expect(
      refs(api)
        .split("\n")
        .map((l) => l.split(" ")[0]),
    ).toEqual(["refs/heads/ariel/t2", "refs/heads/main"]);
  });
});

/** A detached run's `run.json` (a local run; no monitor, no child, unless `fields` say). */
async function detachedRun(runId: string, fields: Partial<RunRecord> = {}) {
  const { hash } = await openWorkspace(at(T0), root);
  await createRun(root, {
    v: 1,
    type: "run",
    runId,
    name: null,
    backend: "local",
    workspace: { root, hash },
    source: "api",
    cwd: join(root, "api"),
    task: null,
    worktree: null,
    branch: null,
    argv: ["agent"],
    createdAt: iso(T0),
    startedAt: null,
    endedAt: null,
    monitor: null,
    child: null,
    restart: { policy: "no", max: 0, count: 0 },
    respawnOf: null,
    exit: null,
    timeoutMs: null,
    graceMs: 0,
    onExit: null,
    interactive: false,
    isolate: null,
    kill: null,
    worktreeOutcome: null,
    ...fields,
  });
}

/** Run `runId` ended (its `exit.json`, dated `at`). */
async function ended(runId: string, at = T0 - DAY) {
  const exit = join(root, ".ariel/runs", runId, "exit.json");
  await writeExitOnce(root, {
    v: 1,
    type: "exit",
    runId,
    code: 0,
    signal: null,
    status: 0,
    endedAt: iso(at),
    state: "exited",
    reason: null,
  });
  utimesSync(exit, new Date(at), new Date(at));
}

const RUN_A = "20260101T000000Z-aaaaaa";
const RUN_B = "20260101T000001Z-bbbbbb";
const STARTED = '{"v":1,"type":"event","event":"run.started"}\n';
const FINISHED = `${STARTED}{"v":1,"type":"event","event":"run.finished"}\n`;

describe("gc: detached runs at work in a task", () => {
  it("a task two runs still work in is skipped as running, naming both, oldest first; nothing is removed", async () => {
    root = makeRoot(["api"]);
    await add("t1");
    const at1 = { task: "t1", cwd: leg("t1", "api"), worktree: leg("t1", "api"), branch: "ariel/t1" };
    await detachedRun(RUN_B, { ...at1, createdAt: iso(T0 + 1000), monitor: selfMonitorRef() });
    await detachedRun(RUN_A, { ...at1, monitor: selfMonitorRef() });
    const before = picture();
    const r = await gc(at(T0 + DAY), { root, policy: policy({ states: ["active"] }) });
    expect(r).toEqual({
      plan: {
        actions: [],
        skipped: [{ task: "t1", reason: "running", detail: `${RUN_A}, ${RUN_B}` }],
        bytes: 0,
      },
      outcomes: [],
      problems: [],
    });
    expect(picture()).toEqual(before);
  });
});

describe("gc: which files under .ariel/runs are runs", () => {
  it("regular <id>.ndjson files and run directories only: a link, a file of another name, never dropped; a directory with exit.json is finished whatever its history says", async () => {
    root = makeRoot(["api"]);
    const runs = join(root, ".ariel/runs");
    const old = new Date(T0 - DAY);
    const put = (path: string, text: string) => {
      writeFile(path, text);
      utimesSync(path, old, old);
      return path;
    };
    const done = put(join(runs, "done.ndjson"), FINISHED);
    put(join(runs, "notes.txt"), FINISHED);
    // Links to a finished history and to an ended run's directory, both outside .ariel/runs.
    const elsewhere = join(root, "elsewhere");
    put(join(elsewhere, "h.ndjson"), FINISHED);
    put(join(elsewhere, "d/exit.json"), '{"code":0}\n');
    symlinkSync(join(elsewhere, "h.ndjson"), join(runs, "link.ndjson"));
    symlinkSync(join(elsewhere, "d"), join(runs, "linkdir"));
    for (const l of ["link.ndjson", "linkdir"]) lutimesSync(join(runs, l), old, old);
    // Ended (exit.json) while its monitor died before run.finished; and one with no history at all.
    const cut = join(runs, "cut");
    put(join(cut, "exit.json"), '{"code":0}\n');
    put(`${cut}.ndjson`, STARTED);
    const bare = join(runs, "bare");
    put(join(bare, "exit.json"), '{"code":0}\n');
    const bytes = { bare: alloc(bare), cut: alloc(cut) + alloc(`${cut}.ndjson`), done: alloc(done) };
    const outside = listing(elsewhere);
    const r = await gc(at(T0 + DAY), { root, policy: policy() });
    const drops = [
      { action: "run.drop", run: "bare", paths: [bare], bytes: bytes.bare },
      { action: "run.drop", run: "cut", paths: [cut, `${cut}.ndjson`], bytes: bytes.cut },
      { action: "run.drop", run: "done", paths: [done], bytes: bytes.done },
    ];
    expect(r.plan).toEqual({ actions: drops, skipped: [], bytes: bytes.bare + bytes.cut + bytes.done });
    expect(r.outcomes).toEqual(drops.map((action) => ({ action, outcome: "done" })));
    expect(names(runs)).toEqual(["link.ndjson", "linkdir", "notes.txt"]);
    expect(listing(elsewhere)).toEqual(outside);
  });
});

describe("gc: a run's drop, checked again under its run lock", () => {
  /** Runs A (a directory only) and B (a directory and a history), ended long ago, no monitor: both planned. */
  async function twoEnded() {
    root = makeRoot(["api"]);
    for (const id of [RUN_A, RUN_B]) {
      await detachedRun(id);
      await ended(id);
    }
    const runs = join(root, ".ariel/runs");
    const history = join(runs, `${RUN_B}.ndjson`);
    writeFile(history, STARTED);
    utimesSync(history, new Date(T0 - DAY), new Date(T0 - DAY));
    const drops = [
      { action: "run.drop", run: RUN_A, paths: [join(runs, RUN_A)], bytes: alloc(join(runs, RUN_A)) },
      {
        action: "run.drop",
        run: RUN_B,
        paths: [join(runs, RUN_B), history],
        bytes: alloc(join(runs, RUN_B)) + alloc(history),
      },
    ];
    expect((await plan(T0 + DAY)).plan.actions).toEqual(drops);
    return { runs, drops };
  }

  it("a monitor that started settling a run after the plan: skipped (ERR_RUN_LIVE), with a history file or without, every file kept", async () => {
    const { runs, drops } = await twoEnded();
    const r = await gc(at(T0 + DAY), {
      root,
      policy: policy(),
      onProgress: (_i, _n, a) => {
        if (a.action !== "run.drop") return;
        // Its monitor (this process) took it over: exit.json there, run.finished not yet written.
        const file = join(runs, a.run, "run.json");
        writeFileSync(
          file,
          `${JSON.stringify({ ...JSON.parse(readFileSync(file, "utf8")), monitor: selfMonitorRef() })}\n`,
        );
      },
    });
    const live = { code: "ERR_RUN_LIVE", message: "its monitor is still settling it" };
    expect(r.outcomes).toEqual(drops.map((action) => ({ action, outcome: "skipped", reason: live })));
    expect(names(runs)).toEqual([RUN_A, RUN_B, `${RUN_B}.ndjson`]);
    for (const id of [RUN_A, RUN_B]) expect(names(join(runs, id))).toEqual(["exit.json", "run.json"]);
  });

  it("a run directory removed meanwhile (ariel-runs rm): what is left of the run goes, done", async () => {
    const { runs, drops } = await twoEnded();
    const r = await gc(at(T0 + DAY), {
      root,
      policy: policy(),
      onProgress: (_i, _n, a) => {
        if (a.action === "run.drop") removeDir(join(runs, a.run));
      },
    });
    expect(r.outcomes).toEqual(drops.map((action) => ({ action, outcome: "done" })));
    expect(names(runs)).toEqual([]);
  });

  it("a file that cannot be removed stops gc with that error (not a skip, not a retry), the run's files kept", async () => {
    const { runs } = await twoEnded();
    const dir = join(runs, RUN_A);
    const ports = {
      ...faultyPorts([{ op: "remove", path: dir, code: "EIO", times: 1 }]),
      clock: { now: () => T0 + DAY },
    };
    const err = await gc(ports, { root, policy: policy() }).then(
      () => null,
      (e: { code?: string; message?: string }) => [e.code, e.message],
    );
    expect(err).toEqual(["ERR_INTERNAL", expect.stringMatching(/^internal error: EIO/)]);
    expect(names(runs)).toEqual([RUN_A, RUN_B, `${RUN_B}.ndjson`]);
    expect(names(dir)).toEqual(["exit.json", "run.json"]);
  });
});

/** What dropping the tree at `p` frees: its directories and the files no other name holds (lstat). */
function freed(p: string): number {
  const st = lstatSync(p);
  if (!st.isDirectory()) return st.nlink === 1 ? st.blocks * 512 : 0;
  return st.blocks * 512 + readdirSync(p).reduce((n, name) => n + freed(join(p, name)), 0);
}

/** api with a lockfile and node_modules; `tasks` made, each leg's node_modules shared from one store. */
async function sharedTasks(tasks: readonly string[]) {
  root = makeRoot(["api"]);
  const api = join(root, "api");
  writeFile(join(api, ".gitignore"), ".env\nnode_modules/\n");
  writeFile(join(api, "package-lock.json"), '{"lockfileVersion":3}\n');
  git(api, "add", "-A");
  git(api, "commit", "-qm", "lockfile");
  writeFile(join(api, "node_modules/a/index.js"), `module.exports = "${"a".repeat(9000)}";\n`);
  for (const t of tasks) {
    const rec = await add(t);
    expect((await shareLegs(at(T0), root, rec.legs, ["node_modules"], "store")).warnings).toEqual([]);
  }
  const keys = names(join(root, ".ariel/share")).filter((n) => !n.startsWith("."));
  expect(keys).toHaveLength(1);
  return { key: keys[0] as string, store: join(root, ".ariel/share", keys[0] as string) };
}

describe("gc: share stores", () => {
  it("a half-made store (.tmp-*) in a workspace with no task: dropped, all its bytes, under the share lock", async () => {
    root = makeRoot(["api"]);
    const stray = join(root, ".ariel/share/.tmp-1a2b3c");
    writeFile(join(stray, "node_modules/a/index.js"), "module.exports = 1;\n");
    const drop = { action: "share.drop", store: ".tmp-1a2b3c", path: stray, bytes: alloc(stray) };
    expect((await plan(T0)).plan).toEqual({ actions: [drop], skipped: [], bytes: drop.bytes });
    let holder: { purpose?: string; pid?: number } = {};
    const ports = {
      ...faultyPorts([
        {
          op: "remove",
          path: stray,
          before: () => {
            holder = JSON.parse(readFileSync(join(root, ".ariel/share/.lock"), "utf8"));
          },
        },
      ]),
      clock: { now: () => T0 },
    };
    const r = await gc(ports, { root, policy: policy() });
    expect(r.outcomes).toEqual([{ action: drop, outcome: "done" }]);
    expect(existsSync(stray)).toBe(false);
    expect([holder.purpose, holder.pid]).toEqual(["gc .tmp-1a2b3c", process.pid]);
  });

  it("beside a store a young task uses, a half-made one is dropped and the store in use kept", async () => {
    const { store } = await sharedTasks(["t1"]);
    const stray = join(root, ".ariel/share/.tmp-1a2b3c");
    writeFile(join(stray, "x"), "half\n");
    const inStore = listing(store);
    const r = await gc(at(T0 + DAY), { root, policy: policy() });
    const drop = { action: "share.drop", store: ".tmp-1a2b3c", path: stray, bytes: expect.any(Number) };
    expect(r.outcomes).toEqual([{ action: drop, outcome: "done" }]);
    expect(existsSync(stray)).toBe(false);
    expect(listing(store)).toEqual(inStore);
  });

  it("planned with the removals of the two tasks using it, both refused: kept, naming both legs; its bytes are the store's own, not the files it shares", async () => {
    const { key, store } = await sharedTasks(["t1", "t2"]);
    for (const t of ["t1", "t2"]) git(leg(t, "api"), "switch", "-q", "-c", `other-${t}`);
    const bytes = freed(store);
    expect(bytes).toBeLessThan(alloc(store));
    const r = await gc(at(T0 + DAY), { root, policy: policy({ states: ["active"] }) });
    const drop = { action: "share.drop", store: key, path: store, bytes };
    expect(r.plan.actions.map((a) => (a.action === "share.drop" ? a : a.action))).toEqual([
      "task.remove",
      "task.remove",
      drop,
    ]);
    expect(r.outcomes.at(-1)).toEqual({
      action: drop,
      outcome: "skipped",
      reason: { code: "ERR_CONFLICT", message: `in use by ${leg("t1", "api")}, ${leg("t2", "api")}` },
    });
    expect(existsSync(join(store, "node_modules/a/index.js"))).toBe(true);
  });
});

describe("gc: what only the real run does", () => {
  it("a finished sandbox is synced home (its directory goes) by gc, never by gc -n", async () => {
    root = makeRoot(["api"]);
    const sandbox = sandboxPaths(root, RUN_A);
    writeFile(sandbox.done, `${iso(T0)}\n`);
    const before = picture();
    expect((await plan(T0 + DAY)).plan.actions).toEqual([]);
    expect(picture()).toEqual(before);
    await gc(at(T0 + DAY), { root, policy: policy() });
    expect(existsSync(sandbox.dir)).toBe(false);
  });

  it("gc -n lists the pre-remove hooks of each task it removes (planned with --snapshot: local work does not refuse it), none for a snapshot drop", async () => {
    root = makeRoot(["api"]);
    await add("t1");
    writeFile(join(leg("t1", "api"), "notes/new.txt"), "untracked work\n");
    // t2: restored a day later, too young to remove; its snapshot ref is dropped.
    await add("t2");
    writeFile(join(leg("t2", "api"), "notes/new.txt"), "t2 work\n");
    expect((await removeTask(at(T0 + DAY), { root, taskId: "t2", snapshot: true })).refused).toBe(false);
    await restoreTask(at(T0 + DAY), { root, taskId: "t2" });
    writeFileSync(
      join(root, "ariel.config.json"),
      `${JSON.stringify({ hooks: { "pre-remove": "make stop" } })}\n`,
    );
    const r = await plan(T0 + DAY, { states: ["active"] });
    expect(r.plan.actions.map((a) => [a.action, "task" in a ? a.task : null])).toEqual([
      ["task.remove", "t1"],
      ["snapshot.drop", "t2"],
    ]);
    const hook = {
      event: "pre-remove",
      source: "api",
      path: leg("t1", "api"),
      origin: "workspace",
      file: join(root, "ariel.config.json"),
      hook: "make stop",
      argv: ["sh", "-c", "make stop"],
      trusted: true,
    };
    expect(r.lifecycle).toEqual([
      { task: "t1", plan: { ports: [], portRange: [20000, 29999], hooks: [hook], warnings: [] } },
    ]);
  });
});

describe("gc: a source repository or a leg git cannot read", () => {
  it("gc -n with a leg whose .git link is broken: its removal is planned, no hook listed for it (its dry run fails), no error", async () => {
    root = makeRoot(["api"]);
    await add("t1");
    writeFileSync(
      join(root, "ariel.config.json"),
      `${JSON.stringify({ hooks: { "pre-remove": "make stop" } })}\n`,
    );
    writeFileSync(join(leg("t1", "api"), ".git"), "gitdir: /nonexistent\n");
    const bytes = alloc(leg("t1", "api"));
    expect(await plan(T0 + DAY, { states: ["active"] })).toEqual({
      plan: { actions: [{ action: "task.remove", task: "t1", bytes, reason: "policy" }], skipped: [], bytes },
      outcomes: [],
      problems: [],
    });
  });

  // removeTask's git call in the broken leg throws ERR_GIT (exit 1, `git ls-files` failed), which
  // applyOne rethrew: the whole sweep stopped there and t2 was never archived. A task gc cannot
  // take is skipped with its reason and the sweep goes on (docs/disk.md: "Every skip is a warning
  // and gc goes on with the next action").
  it("a leg whose .git link is broken: that task is skipped, the rest of the sweep goes on", async () => {
    root = makeRoot(["api"]);
    await add("t1");
    await closed("t2");
    writeFileSync(join(leg("t1", "api"), ".git"), "gitdir: /nonexistent\n");
    const r = await gc(at(T0 + DAY), { root, policy: policy({ states: ["active", "closed"] }) });
    expect(r.outcomes.map((o) => [o.action.action, o.outcome])).toEqual([
      ["task.remove", "skipped"],
      ["task.archive", "done"],
    ]);
    expect(r.outcomes[0]).toMatchObject({ reason: { code: "ERR_GIT" } });
    expect(r.outcomes[0]).not.toHaveProperty("refused");
    expect(readFileSync(join(leg("t1", "api"), ".git"), "utf8")).toBe("gitdir: /nonexistent\n");
  });

  // With --prune-merged, `git for-each-ref` was started in the leg's sourcePath, which no longer
  // exists; spawning git with a missing cwd fails with ENOENT, which runGit reports as
  // ERR_GIT_MISSING ("git not found", exit 69, hint "install git"): the whole gc failed, nothing
  // archived. gc.ts's own rule is "none when git cannot tell": the branch is named not merged
  // and the task archived, as for a source that is no longer a repository (above).
  it("--prune-merged with a closed task whose source repository is gone: the task archived, its branch named not merged", async () => {
    root = makeRoot(["api"]);
    await closed("t1");
    const rec = record("t1");
    removeDir(join(root, "api"));
    const r = await gc(at(T0 + DAY), { root, policy: policy({ pruneMerged: true }) });
    expect(r.plan.skipped).toEqual([{ task: "t1", reason: "not-merged", detail: "ariel/t1", source: "api" }]);
    expect(r.outcomes).toEqual([{ action: { action: "task.archive", task: "t1" }, outcome: "done" }]);
    expect(archived()).toEqual([rec]);
  });
});
