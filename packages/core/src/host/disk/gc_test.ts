/**
 * gc (`ariel-worktree gc`) on real repositories, with a fake clock: which tasks and runs it
 * takes (ages at their edges, states, --keep-bytes), that a dry run changes nothing, that a
 * worktree goes only through `remove --snapshot`, and that every refusal, held lease and moved
 * branch keeps everything.
 */
import { createHash } from "node:crypto";
import {
  existsSync,
  lstatSync,
  mkdirSync,
  readdirSync,
  readFileSync,
  readlinkSync,
  utimesSync,
  writeFileSync,
} from "node:fs";
import { hostname } from "node:os";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import type { GcAction, GcPolicy } from "../../disk/gc.ts";
import type { Ports } from "../../ports.ts";
import { git, initRepo, removeDir, writeFile } from "../_fixture.ts";
import { faultyPorts, gitPicture, makeRoot, names } from "../worktree/_fixture.ts";
import { addTask } from "../worktree/add.ts";
import { removeTask } from "../worktree/remove.ts";
import { restoreTask } from "../worktree/restore.ts";
import { shareLegs } from "../worktree/share.ts";
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
