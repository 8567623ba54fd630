import { ArielError } from "../../errors.ts";
import type { Ports } from "../../ports.ts";
import type { Leg, TaskRecord } from "../../schema/task.ts";
import { requireStateRoot, type WorkspaceVia } from "../../workspace.ts";
import { generateTaskId, isWithin, validateRequestNames } from "../../worktree/_deps.ts";
import { lockReason, taskOfLock } from "../../worktree/ours.ts";
import { type AdoptFacts, planAdopt } from "../../worktree/plan_adopt.ts";
import { newTaskRecord, taskStateOf } from "../../worktree/record.ts";
import { ensureWorkspaceState } from "../workspace/state_dir.ts";
import { type Lease, sourceFingerprint, withLease } from "./_deps.ts";
import { listWorktrees } from "./facts.ts";
import { isFenced, leaseOptions, repoStep } from "./fence.ts";
import { git, gitRaw } from "./git.ts";
import { ownerOf } from "./owner.ts";
import { readTask, writeTask } from "./store.ts";
import { readAllTasks } from "./tasks.ts";
import { openWorkspace, repoLockDir, resolveSource, type WorktreeWorkspace } from "./workspace.ts";

/** Input of {@link adoptWorktree}. */
export interface AdoptOptions {
  root: string;
  /** The worktree's directory (absolute). */
  path: string;
  /** The task to take it into: a new one, or an existing one without a leg of that source. */
  taskId?: string;
  dryRun?: boolean;
  via?: WorkspaceVia;
}

export interface AdoptResult {
  record: TaskRecord;
  leg: Leg;
  /** The task was made by this adopt (false: a leg added to an existing task). */
  created: boolean;
}

/** The canonical path, or ERR_NOINPUT (66) when there is nothing there. */
async function canonicalDir(ports: Ports, path: string): Promise<string> {
  try {
    return await ports.fs.realpath(path);
  } catch {
    throw new ArielError("ERR_NOINPUT", `${path} does not exist`, { context: { path } });
  }
}

/** The workspace source of the repository whose main worktree is `main`, or null. */
export async function sourceOf(
  ws: WorktreeWorkspace,
  main: string,
): Promise<{ name: string; path: string } | null> {
  if (!isWithin(ws.root, main)) return null;
  const name = main === ws.root ? "." : main.slice(ws.root.length + 1);
  try {
    const s = await resolveSource(ws, name);
    return s.path === main ? { name, path: s.path } : null;
  } catch {
    return null;
  }
}

/** A task of the workspace that already has `path` as a leg, or null. */
async function taskHolding(ws: WorktreeWorkspace, path: string): Promise<string | null> {
  const { records } = await readAllTasks(ws);
  return (
    records.find((r) => r.legs.some((l) => l.worktreePath === path && l.state === "active"))?.taskId ?? null
  );
}

async function gatherAdoptFacts(ws: WorktreeWorkspace, path: string, taskId: string): Promise<AdoptFacts> {
  const ports = ws.ports;
  const facts: AdoptFacts = {
    path,
    insideRoot: isWithin(ws.root, path) && path !== ws.root,
    topLevel: false,
    source: null,
    main: false,
    lock: null,
    branch: null,
    inTask: null,
    legExists: false,
  };
  if (!facts.insideRoot) return facts;
  const top = await gitRaw(ports, path, ["rev-parse", "--show-toplevel"]);
  facts.topLevel = top.code === 0 && top.stdout.trim() === path;
  if (!facts.topLevel) return facts;
  const wts = await listWorktrees(ports, path);
  const entry = wts.find((w) => w.path === path);
  facts.source = wts[0] ? await sourceOf(ws, wts[0].path) : null;
  facts.main = entry?.main === true;
  facts.lock = entry?.locked ?? null;
  facts.branch = entry?.branch?.replace(/^refs\/heads\//, "") ?? null;
  facts.inTask = taskOfLock(facts.lock) ?? (await taskHolding(ws, path));
  const existing = await readTask(ws.root, ws.hash, taskId);
  facts.legExists = existing?.legs.some((l) => l.source === facts.source?.name) ?? false;
  return facts;
}

/** The leg recorded for an adopted worktree: no overlay copy; its base where it left the source's HEAD. */
async function adoptedLeg(
  ports: Ports,
  path: string,
  source: { name: string; path: string },
  branch: string,
): Promise<Leg> {
  const head = (await git(ports, path, ["rev-parse", "HEAD"])).trim();
  const sourceHead = (
    await gitRaw(ports, source.path, ["rev-parse", "-q", "--verify", "HEAD^{commit}"])
  ).stdout.trim();
  const base = sourceHead
    ? (await gitRaw(ports, path, ["merge-base", head, sourceHead])).stdout.trim() || head
    : head;
  return {
    source: source.name,
    sourcePath: source.path,
    fingerprint: await sourceFingerprint(ports.git, source.path),
    branch,
    base,
    head,
    worktreePath: path,
    overlay: [],
    state: "active",
    adopted: true,
  };
}

/**
 * Take a worktree made by git or another tool (Claude Code, …) into a task: recorded as a leg
 * (`adopted: true`, no overlay copy), locked `ariel:<task>`, fingerprinted. Refused (nothing
 * changed) for a path outside the workspace root (77), not a worktree's top directory (66), a
 * worktree of a repository that is none of the workspace's sources, a main worktree, one already
 * in a task, one locked by someone else, one with a detached HEAD (3).
 *
 * @example
 * ```ts
 * const { record } = await adoptWorktree(hostPorts(), { root: "/w", path: "/w/api/.claude/worktrees/x", taskId: "x" });
 * ```
 */
export async function adoptWorktree(ports: Ports, options: AdoptOptions): Promise<AdoptResult> {
  validateRequestNames(options);
  requireStateRoot({ root: options.root, via: options.via ?? "flag" });
  const ws = await openWorkspace(ports, options.root);
  const path = await canonicalDir(ports, options.path);
  const taskId = options.taskId ?? generateTaskId(path.split("/").pop() ?? "adopted", ports.random);
  const decide = async () => {
    const d = planAdopt(await gatherAdoptFacts(ws, path, taskId), taskId);
    if (!d.ok) {
      throw new ArielError(d.code, d.message, {
        hint: `${d.reason === "outside-root" ? "move it inside the workspace (git worktree move) and adopt it there" : "nothing was changed"}`,
        context: { path, task: taskId, reason: d.reason },
      });
    }
    return { ...d, leg: await adoptedLeg(ports, path, d.source, d.branch) };
  };
  if (options.dryRun) {
    const { leg } = await decide();
    const existing = await readTask(ws.root, ws.hash, taskId);
    return { record: existing ?? newRecord(ws, taskId, [leg], 0, ports), leg, created: existing === null };
  }
  await ensureWorkspaceState(ports, ws);
  return withLease(ws.root, taskId, leaseOptions(ports, ownerOf(ports), ws.leaseTtlMs), async (lease) => {
    const { leg, source } = await decide();
    const common = await repoLockDir(ports, source.path);
    await repoStep(ports, lease, common, `adopt ${taskId}`, () =>
      git(ports, source.path, ["worktree", "lock", "--reason", lockReason(taskId), path]),
    );
    try {
      return await recordLeg(ws, taskId, leg, lease);
    } catch (e) {
      if (!isFenced(e)) await gitRaw(ports, source.path, ["worktree", "unlock", path]);
      throw e;
    }
  });
}

function newRecord(
  ws: WorktreeWorkspace,
  taskId: string,
  legs: Leg[],
  token: number,
  ports: Ports,
): TaskRecord {
  return newTaskRecord({
    taskId,
    root: ws.root,
    hash: ws.hash,
    owner: ownerOf(ports),
    legs,
    fencingToken: token,
    now: new Date(ports.clock.now()).toISOString(),
  });
}

async function recordLeg(
  ws: WorktreeWorkspace,
  taskId: string,
  leg: Leg,
  lease: Lease,
): Promise<AdoptResult> {
  const existing = await readTask(ws.root, ws.hash, taskId);
  if (existing === null) {
    const record = await writeTask(ws.ports, newRecord(ws, taskId, [leg], lease.token, ws.ports), 0, lease);
    return { record, leg, created: true };
  }
  const legs = [...existing.legs, leg];
  const record = await writeTask(
    ws.ports,
    { ...existing, legs, state: taskStateOf(legs) },
    existing.version,
    lease,
  );
  return { record, leg, created: false };
}
