import { basename, dirname, isAbsolute, join, resolve } from "node:path";
import { compareBytewise } from "../../discovery/compare.ts";
import { toArielError } from "../../errors.ts";
import { childMessage } from "../../fingerprint.ts";
import { isWithin } from "../../paths.ts";
import type { FsPort } from "../../ports.ts";
import type {
  DirFact,
  PortLeaseFact,
  ReconcileFacts,
  RepoFact,
  StaleLockFact,
  TaskFact,
  WorkFact,
  WorktreeFact,
} from "../../reconcile/facts.ts";
import { taskOfPath } from "../../reconcile/plan.ts";
import { sandboxesDir } from "../../sandbox/paths.ts";
import type { Leg, TaskRecord } from "../../schema/task.ts";
import { leasesDir, STATE_DIR, taskOfStateFile, tasksDir } from "../../state_paths.ts";
import { commonGitDir } from "../../workspace.ts";
import { taskOfBranch, taskOfLock } from "../../worktree/ours.ts";
import type { WorktreeEntry } from "../../worktree/porcelain.ts";
import { snapshotRef } from "../../worktree/record.ts";
import { splitZ } from "../git.ts";
import { listPortLeases } from "../lifecycle/port_registry.ts";
import { inspectLock } from "../lock-file.ts";
import { REPO_LOCK_NAME } from "../repo-lock.ts";
import { listWorktrees, resolveCommit } from "../worktree/facts.ts";
import { gitRaw } from "../worktree/git.ts";
import {
  changedOverlay,
  indexEntries,
  MAX_ITEMS,
  modifiedHidden,
  nestedWork,
  reflogOnlyCommits,
  submoduleCommits,
  unreachableCommits,
} from "../worktree/leg_facts.ts";
import { keptRefs, ownRefsOf, worktreeTree } from "../worktree/snapshot.ts";
import { readTask } from "../worktree/store.ts";
import type { WorktreeWorkspace } from "../worktree/workspace.ts";

/**
 * What `reconcile` looks at (records, leases, worktree admin entries, `ariel/*` branches,
 * directories under the worktree root, local work of candidate worktrees, stale lock files),
 * gathered for the pure planner. Reads only, all through the workspace's FsPort.
 * @internal
 */
export async function listNames(
  fs: FsPort,
  dir: string,
): Promise<{ name: string; kind: "dir" | "file" | "other" }[]> {
  try {
    const entries = await fs.readDir(dir);
    return entries.map((d) => ({
      name: d.name,
      kind: d.kind === "dir" ? "dir" : d.kind === "file" ? "file" : "other",
    }));
  } catch (e) {
    const code = (e as { code?: string }).code;
    if (code === "ENOENT" || code === "ENOTDIR") return [];
    throw e;
  }
}

/** Whether anything (a link too) is at `p`; an unreadable path counts as absent. */
export async function exists(ws: WorktreeWorkspace, p: string): Promise<boolean> {
  try {
    return (await ws.ports.fs.lstat(p)) !== null;
  } catch {
    return false;
  }
}

async function gatherTasks(ws: WorktreeWorkspace): Promise<TaskFact[]> {
  const ids = new Set<string>();
  const leased = new Set<string>();
  for (const e of await listNames(ws.ports.fs, tasksDir(ws.root))) {
    const task = e.kind === "file" ? taskOfStateFile(e.name) : null;
    if (task !== null) ids.add(task);
  }
  for (const e of await listNames(ws.ports.fs, leasesDir(ws.root))) {
    const task = e.kind === "file" ? taskOfStateFile(e.name) : null;
    if (task !== null) {
      ids.add(task);
      leased.add(task);
    }
  }
  const out: TaskFact[] = [];
  for (const taskId of [...ids].sort(compareBytewise)) {
    const fact: TaskFact = { taskId, record: null, leased: leased.has(taskId) };
    try {
      const rec = await readTask(ws.root, ws.hash, taskId, ws.ports.fs);
      if (rec) fact.record = await withSnapshots(ws, rec, recordFact(rec));
    } catch (e) {
      fact.problem = toArielError(e).message;
    }
    out.push(fact);
  }
  return out;
}

function recordFact(rec: TaskRecord): NonNullable<TaskFact["record"]> {
  return {
    taskId: rec.taskId,
    state: rec.state,
    version: rec.version,
    legs: rec.legs.map((l) => ({
      source: l.source,
      sourcePath: l.sourcePath,
      branch: l.branch,
      worktreePath: l.worktreePath,
      state: l.state,
    })),
  };
}

/**
 * The snapshot ref of each active leg of a `cleaning` task (the legs a killed `remove` may have
 * snapshotted before its record write), with the commit the record knows for it.
 */
async function withSnapshots(
  ws: WorktreeWorkspace,
  rec: TaskRecord,
  fact: NonNullable<TaskFact["record"]>,
): Promise<NonNullable<TaskFact["record"]>> {
  if (rec.state !== "cleaning") return fact;
  for (const leg of fact.legs) {
    if (leg.state !== "active") continue;
    const ref = snapshotRef(rec.taskId, leg.worktreePath);
    const commit = await resolveCommit(ws.ports, leg.sourcePath, ref);
    if (commit === null) continue;
    const art = rec.artifacts.find((a) => a.kind === "snapshot" && a.ref === ref);
    const recorded = art?.commit ?? null;
    leg.snapshot = { ref, commit, recorded };
    const full = rec.legs.find((l) => l.worktreePath === leg.worktreePath);
    if (commit !== recorded && full && (await exists(ws, join(leg.worktreePath, ".git")))) {
      leg.snapshot.covers = await snapshotCovers(ws, full, commit);
    }
  }
  return fact;
}

/**
 * Whether removing a leg's worktree now would lose nothing that the snapshot `commit` does not
 * hold: HEAD is the snapshot's first parent, every commit only HEAD's reflog or a per-worktree ref
 * holds is reachable from it, every per-worktree ref is one it names, no submodule holds commits,
 * and the worktree's content (as a snapshot would take it) differs from the snapshot's tree only
 * by files it no longer has (a `git worktree remove` that was stopped half-way deletes files, it
 * never writes any). Anything git cannot answer counts as "no".
 */
async function snapshotCovers(ws: WorktreeWorkspace, leg: Leg, commit: string): Promise<boolean> {
  const ports = ws.ports;
  const wt = leg.worktreePath;
  try {
    const head = await resolveCommit(ports, wt, "HEAD");
    if (head === null || head !== (await resolveCommit(ports, wt, `${commit}^1`))) return false;
    const index = await indexEntries(ports, wt);
    if ((await submoduleCommits(ports, wt, index)).length > 0) return false;
    if ((await nestedWork(ports, wt, [], index)).length > 0) return false;
    const tips = (await reflogOnlyCommits(ports, wt)).tips;
    if (tips.length > 0) {
      const r = await gitRaw(ports, wt, ["rev-list", "-n1", "--stdin"], {
        input: `${[...tips, `^${commit}`].join("\n")}\n`,
      });
      if (r.code !== 0 || r.stdout.trim() !== "") return false;
    }
    const kept = new Set((await keptRefs(ports, wt, commit)).map((r) => `${r.name} ${r.oid}`));
    if ((await ownRefsOf(ports, wt)).some((r) => !kept.has(`${r.name} ${r.oid}`))) return false;
    const overlay = { all: leg.overlay.map((o) => o.path), changed: await changedOverlay(ports, wt, leg) };
    const tree = await worktreeTree(ports, wt, overlay, head);
    const diff = await gitRaw(ports, wt, [
      "diff-tree",
      "-r",
      "--no-renames",
      "--name-status",
      "-z",
      `${commit}^{tree}`,
      tree,
    ]);
    if (diff.code !== 0) return false;
    const fields = splitZ(diff.stdout);
    for (let i = 0; i < fields.length; i += 2) if (fields[i] !== "D") return false;
    return true;
  } catch {
    return false;
  }
}

async function gatherDirs(fs: FsPort, worktreeRoot: string): Promise<DirFact[]> {
  const out: DirFact[] = [];
  for (const t of await listNames(fs, worktreeRoot)) {
    if (t.kind !== "dir") continue;
    const taskDir = join(worktreeRoot, t.name);
    const legs = await listNames(fs, taskDir);
    out.push({ path: taskDir, depth: 1, entries: legs.map((l) => l.name).sort(compareBytewise) });
    for (const l of legs) {
      if (l.kind !== "dir") continue;
      const p = join(taskDir, l.name);
      out.push({
        path: p,
        depth: 2,
        entries: (await listNames(fs, p)).map((e) => e.name).sort(compareBytewise),
      });
    }
  }
  return out;
}

/** Every checkout that may lead to a repository holding worktrees of ours. */
async function candidateCheckouts(
  ws: WorktreeWorkspace,
  tasks: TaskFact[],
  dirs: DirFact[],
): Promise<string[]> {
  const out: string[] = [];
  if (await exists(ws, join(ws.root, ".git"))) out.push(ws.root);
  for (const e of await listNames(ws.ports.fs, ws.root)) {
    if (e.kind !== "dir" || e.name === STATE_DIR || e.name === "node_modules") continue;
    if (await exists(ws, join(ws.root, e.name, ".git"))) out.push(join(ws.root, e.name));
  }
  for (const t of tasks) for (const l of t.record?.legs ?? []) out.push(l.sourcePath);
  for (const d of dirs) if (d.depth === 2 && d.entries.includes(".git")) out.push(d.path);
  return out;
}

/** The common git dir of a checkout (canonical), or null when it is none any more. */
export async function commonOf(ws: WorktreeWorkspace, checkout: string): Promise<string | null> {
  try {
    const c = await commonGitDir(ws.ports.fs, checkout);
    if (c === null || !(await exists(ws, join(c, "HEAD")))) return null;
    return await ws.ports.fs.realpath(c);
  } catch {
    return null;
  }
}

/** `<common>/worktrees/<id>` by the worktree path its `gitdir` file names. */
async function adminDirs(fs: FsPort, common: string): Promise<Map<string, string>> {
  const map = new Map<string, string>();
  for (const e of await listNames(fs, join(common, "worktrees"))) {
    if (e.kind !== "dir") continue;
    const admin = join(common, "worktrees", e.name);
    try {
      const gitdir = (await fs.readText(join(admin, "gitdir"))).trim();
      const abs = isAbsolute(gitdir) ? gitdir : resolve(admin, gitdir);
      map.set(basename(abs) === ".git" ? dirname(abs) : abs, admin);
    } catch {}
  }
  return map;
}

async function gatherRepo(
  ws: WorktreeWorkspace,
  common: string,
  tasks: Map<string, TaskFact>,
  recordPaths: Set<string>,
): Promise<RepoFact | null> {
  const ports = ws.ports;
  let entries: WorktreeEntry[];
  try {
    entries = await listWorktrees(ports, common);
  } catch {
    return null;
  }
  const main = entries.find((e) => e.main);
  if (!main) return null;
  const sourcePath = main.path;
  const admins = await adminDirs(ports.fs, common);
  const worktrees: WorktreeFact[] = [];
  for (const e of entries) {
    if (e.main) continue;
    worktrees.push({
      path: e.path,
      head: e.head,
      branch: e.branch,
      locked: e.locked,
      exists: await exists(ws, join(e.path, ".git")),
      adminDir: admins.get(e.path) ?? null,
    });
  }
  // The checkouts an overlay copy may come from: not a worktree of ours outside the root (a
  // lock names its task), whose own files would otherwise be copies of themselves.
  const sources = entries
    .filter((e) => !e.bare && !isWithin(ws.worktreeRoot, e.path) && taskOfLock(e.locked) === null)
    .map((e) => e.path);
  const work: Record<string, WorkFact> = {};
  const halfMadeBranches = new Set<string>();
  for (const w of worktrees) {
    const task = taskOfLock(w.locked) ?? taskOfPath(ws.worktreeRoot, w.path);
    if (task === null || !w.exists || recordPaths.has(w.path)) continue;
    if (taskOfLock(w.locked) === null && !isWithin(ws.worktreeRoot, w.path)) continue;
    work[w.path] = await workOf(ws, w, sources);
    if (w.branch) halfMadeBranches.add(w.branch.replace(/^refs\/heads\//, ""));
  }
  const branches: RepoFact["branches"] = [];
  const refs = await gitRaw(ports, common, [
    "for-each-ref",
    "--format=%(refname:short)%00%(objectname)",
    "refs/heads/ariel/",
  ]);
  for (const line of refs.stdout.split("\n")) {
    const [name, tip] = line.split("\0");
    if (!name || !tip) continue;
    const task = taskOfBranch(name);
    const t = task === null ? undefined : tasks.get(task);
    const candidate = halfMadeBranches.has(name) || (t !== undefined && t.record === null && t.leased);
    if (!candidate) continue;
    branches.push({ name, tip, reachableElsewhere: await reachableElsewhere(ws, common, tip, name) });
  }
  return { sourcePath, commonGitDir: common, worktrees, branches, work };
}

const OTHER_REFS = ["--branches", "--tags", "--remotes", "--glob=refs/ariel/*"];

/** True when another ref than `branch` reaches `tip` (so deleting the branch loses nothing). */
async function reachableElsewhere(ws: WorktreeWorkspace, cwd: string, tip: string, branch: string) {
  const r = await gitRaw(ws.ports, cwd, [
    "rev-list",
    "-n1",
    tip,
    "--not",
    `--exclude=${branch}`,
    ...OTHER_REFS,
  ]);
  return r.code === 0 && r.stdout.trim() === "";
}

async function sameBytes(fs: FsPort, a: string, b: string): Promise<boolean> {
  try {
    const [x, y] = await Promise.all([fs.readBytes(a), fs.readBytes(b)]);
    return x.length === y.length && x.every((byte, i) => byte === y[i]);
  } catch {
    return false;
  }
}

/** A file identical to the same path in one of the repository's checkouts is an overlay copy. */
async function isOverlayCopy(
  fs: FsPort,
  wt: string,
  rel: string,
  sources: readonly string[],
): Promise<boolean> {
  for (const s of sources) {
    const st = await fs.lstat(join(s, rel)).catch(() => null);
    if (st?.kind === "file" && (await sameBytes(fs, join(wt, rel), join(s, rel)))) return true;
  }
  return false;
}

/** Local work in a worktree that reconcile might remove: anything that exists nowhere else. */
async function workOf(ws: WorktreeWorkspace, w: WorktreeFact, sources: readonly string[]): Promise<WorkFact> {
  const ports = ws.ports;
  const changes: string[] = [];
  // Submodules' own files: nestedWork below (git status would run git inside them, under their config).
  const status = await gitRaw(ports, w.path, [
    "status",
    "--porcelain=v1",
    "-z",
    "--untracked-files=all",
    "--ignore-submodules=dirty",
  ]);
  if (status.code !== 0) {
    return {
      changes: [`(git status failed: ${childMessage(status.stderr, `exit ${status.code}`)})`],
      unreachableHead: false,
    };
  }
  const fields = splitZ(status.stdout);
  for (let i = 0; i < fields.length; i++) {
    const f = fields[i] ?? "";
    const xy = f.slice(0, 2);
    const rel = f.slice(3);
    if (xy[0] === "R" || xy[0] === "C") i++; // the source path of a rename follows
    if (xy === "??") {
      if (!(await isOverlayCopy(ports.fs, w.path, rel, sources))) changes.push(rel);
    } else if (xy === " D" && w.locked === "initializing") {
      // A checkout git never finished: missing files are not work.
    } else changes.push(rel);
  }
  // The rest as `remove` finds it (leg_facts.ts): modified skip-worktree / assume-unchanged
  // files (an identical overlay copy is none), submodule commits, commits only HEAD's reflog or
  // per-worktree refs hold, a detached HEAD's commits no lasting ref reaches.
  const index = await indexEntries(ports, w.path).catch(() => null);
  if (index === null) return { changes: ["(git ls-files failed)"], unreachableHead: false };
  const [hidden, submodules, reflog, nested] = await Promise.all([
    modifiedHidden(ports, w.path, new Set(), index),
    submoduleCommits(ports, w.path, index),
    reflogOnlyCommits(ports, w.path, MAX_ITEMS),
    nestedWork(ports, w.path, [], index),
  ]);
  for (const rel of hidden) if (!(await isOverlayCopy(ports.fs, w.path, rel, sources))) changes.push(rel);
  changes.push(...nested);
  // A detached HEAD: `remove`'s own `unreachable` question (per-worktree refs hold nothing); a
  // question git cannot answer counts as work.
  const unreachableHead =
    w.branch === null && w.head !== null
      ? (await unreachableCommits(ports, w.path).catch(() => [w.path])).length > 0
      : false;
  return {
    changes: [...new Set(changes)].sort(compareBytewise),
    unreachableHead,
    ...(submodules.length > 0 ? { submoduleCommits: submodules } : {}),
    ...(reflog.commits.length > 0 ? { reflogOnly: reflog.commits } : {}),
  };
}

/** Everything reconcile looks at, in one pass. */
export async function gatherFacts(ws: WorktreeWorkspace): Promise<ReconcileFacts> {
  const tasks = await gatherTasks(ws);
  const dirs = await gatherDirs(ws.ports.fs, ws.worktreeRoot);
  const byId = new Map(tasks.map((t) => [t.taskId, t]));
  const recordPaths = new Set<string>();
  for (const t of tasks) for (const l of t.record?.legs ?? []) recordPaths.add(l.worktreePath);
  const commons = new Set<string>();
  for (const c of await candidateCheckouts(ws, tasks, dirs)) {
    const common = await commonOf(ws, c);
    if (common) commons.add(common);
  }
  const repos: RepoFact[] = [];
  for (const common of [...commons].sort(compareBytewise)) {
    const r = await gatherRepo(ws, common, byId, recordPaths);
    if (r) repos.push(r);
  }
  return {
    worktreeRoot: ws.worktreeRoot,
    repos,
    tasks,
    dirs,
    staleLocks: await gatherStaleLocks(ws, repos),
    portLeases: await gatherPortLeases(ws),
  };
}

/** This workspace's port leases by task; none when the registry cannot be read (nothing to release). */
async function gatherPortLeases(ws: WorktreeWorkspace): Promise<PortLeaseFact[]> {
  const leases = await listPortLeases(ws.ports).catch(() => []);
  const byTask = new Map<string, number[]>();
  for (const l of leases) {
    if (l.workspace.hash !== ws.hash) continue;
    byTask.set(l.task, [...(byTask.get(l.task) ?? []), l.port]);
  }
  return [...byTask].map(([task, ports]) => ({ task, ports }));
}

/** ariel's lock files (repository, lease, record and sandbox locks, and their break guards) left by dead processes. */
async function gatherStaleLocks(ws: WorktreeWorkspace, repos: RepoFact[]): Promise<StaleLockFact[]> {
  const candidates: StaleLockFact[] = [];
  for (const r of repos) {
    for (const name of [REPO_LOCK_NAME, `${REPO_LOCK_NAME}.break`]) {
      candidates.push({ path: join(r.commonGitDir, name), task: null });
    }
  }
  for (const dir of [leasesDir(ws.root), tasksDir(ws.root)]) {
    for (const e of await listNames(ws.ports.fs, dir)) {
      const m = /^(.+)\.json\.lock(\.break)?$/.exec(e.name);
      if (e.kind === "file" && m?.[1]) candidates.push({ path: join(dir, e.name), task: m[1] });
    }
  }
  // A sandbox's lock, left by a process killed while it brought the sandbox home.
  const sandboxes = sandboxesDir(ws.root);
  for (const e of await listNames(ws.ports.fs, sandboxes)) {
    if (e.kind === "file" && /\.lock(\.break)?$/.test(e.name))
      candidates.push({ path: join(sandboxes, e.name), task: null });
  }
  const out: StaleLockFact[] = [];
  for (const c of candidates) if ((await inspectLock(c.path, ws.ports.fs)) === "stale") out.push(c);
  return out;
}
