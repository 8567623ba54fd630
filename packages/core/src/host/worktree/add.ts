import { compareBytewise } from "../../discovery/compare.ts";
import { ArielError, toArielError } from "../../errors.ts";
import { childMessage } from "../../fingerprint.ts";
import type { TaskPorts } from "../../lifecycle/ports.ts";
import { quoteValue } from "../../names.ts";
import type { Ports } from "../../ports.ts";
import type { Leg, OverlayEntry, TaskRecord } from "../../schema/task.ts";
import { taskDirPath } from "../../state_paths.ts";
import { requireStateRoot, type WorkspaceVia } from "../../workspace.ts";
import { generateTaskId, validateBranchName, validateRequestNames } from "../../worktree/_deps.ts";
import { checkLegCount, checkTaskBounds } from "../../worktree/bounds.ts";
import { legDirNames } from "../../worktree/leg_dir.ts";
import { lockReason, taskBranch } from "../../worktree/ours.ts";
import {
  type AddLegPlan,
  type AddPlan,
  type AddRequest,
  type AddSourceFacts,
  planAdd,
} from "../../worktree/plan_add.ts";
import { newTaskRecord } from "../../worktree/record.ts";
import { checkMinFree } from "../free_space.ts";
import { acquireLease, assertLeaseFree, type HeldLease } from "../lease-store.ts";
import { type LifecyclePlan, planLegsLifecycle } from "../lifecycle/plan_hooks.ts";
import { leaseTaskPorts, releaseTaskPorts } from "../lifecycle/port_registry.ts";
import type { RunHooksResult } from "../lifecycle/run_hooks.ts";
import { runPostCreate, taskPortNames } from "../lifecycle/task_setup.ts";
import type { OnProgress } from "../progress.ts";
import { ensureWorkspaceState } from "../workspace/state_dir.ts";
import { canonicalize, type Lease, sourceFingerprint, testPause, withRepoLock } from "./_deps.ts";
import { applyWorkingCopy, captureWorkingCopy, type WorkingCopy } from "./carry.ts";
import { branchCommit, listWorktrees, resolveBase, resolveCommit } from "./facts.ts";
import { isFenced, leaseOptions, repoStep } from "./fence.ts";
import { git, gitError, gitRaw } from "./git.ts";
import { statusFacts } from "./leg_facts.ts";
import { copyOverlay, selectOverlay, sha256Hex } from "./overlay.ts";
import { ownerOf } from "./owner.ts";
import { readTask, writeTask } from "./store.ts";
import {
  checkSourceName,
  openWorkspace,
  type ResolvedSource,
  resolveSource,
  type WorktreeWorkspace,
} from "./workspace.ts";

/** Input of {@link addTask}. */
export interface AddTaskOptions {
  /** Workspace root (canonicalized again here). */
  root: string;
  /** Task id; generated as `<slug>-<6 chars>` from the first source when absent. */
  taskId?: string;
  /** Source names (workspace-relative, `.` for the root); at least one. */
  sources: readonly string[];
  /** Base commit-ish for every leg (default: each source's HEAD). */
  base?: string;
  /** Branch for every leg (default `ariel/<task>`). */
  branch?: string;
  /** Plan only: change nothing. */
  dryRun?: boolean;
  /**
   * Carry each source's uncommitted changes (staged, unstaged, untracked; not ignored) into its
   * new leg, leaving the source untouched. Needs the legs to start at the sources' HEAD.
   */
  withChanges?: boolean;
  /** Disk floor in bytes (default: config `minFreeBytes`): under it, ERR_DISK_LOW before any change. */
  minFreeBytes?: number;
  /** Cone-mode sparse checkout of these directories in every new leg (recorded in the leg). */
  sparse?: readonly string[];
  /**
   * How the root was found (default `flag`: a caller that names a root gives it). A root that
   * is only the cwd cannot hold `.ariel/`: ERR_NOT_A_WORKSPACE (exit 66).
   */
  via?: WorkspaceVia;
  /** Called as each leg is being made. */
  onProgress?: OnProgress;
  /**
   * Keep the task's lease when the add succeeds and return it (`lease`), renewing, for the
   * caller to release: `ariel-spawn --isolate` holds it while its command runs in the task.
   */
  holdLease?: boolean;
  /** --no-hooks: run no post-create hook (legs that have one are recorded `setup: "skipped"`). */
  noHooks?: boolean;
  /**
   * Called once the new task is recorded, before its post-create hooks: the legs' shared
   * directories (--share) are made here, so a hook's install finds them.
   */
  beforeHooks?: (record: TaskRecord) => Promise<void>;
}

/** A coded warning about the task being made; the add goes on. */
export interface AddWarning {
  code: "WARN_CHANGES_LEFT_OUT";
  message: string;
  hint: string;
  context: Record<string, unknown>;
}

/** Result of {@link addTask}. */
export interface AddTaskResult {
  /** The task record (for a dry run of a new task: the record it would write, version 0). */
  record: TaskRecord;
  plan: AddPlan;
  /** True when this call made worktrees; false for an idempotent repeat or a dry run. */
  created: boolean;
  /** Sources whose uncommitted changes the new legs do not get (without `withChanges`). */
  warnings: AddWarning[];
  /** The task's lease, still held, with `holdLease` (not in a dry run): the caller releases it. */
  lease?: HeldLease;
  /** What the post-create hooks did (only when this call made the task). */
  hooks?: RunHooksResult;
  /** A dry run of a new task: the ports it would lease and the post-create hooks it would run. */
  lifecycle?: LifecyclePlan;
}

/**
 * Make (or return) a task: one locked worktree per source on branch `ariel/<task>`, the parity
 * overlay copied in, and the record written by CAS, all under the task's lease and each
 * repository's lock. Repeating the same add returns the existing task unchanged; a conflicting
 * one throws ERR_TASK_CONFLICT (exit 3). A failure part-way removes every worktree, directory and
 * branch this call made, and writes no record.
 *
 * @example
 * ```ts
 * const { record, created } = await addTask(hostPorts(), { root: "/w", taskId: "fix-login", sources: ["api", "web"] });
 * for (const leg of record.legs) console.log(leg.source, leg.worktreePath, leg.branch);
 * ```
 */
export async function addTask(ports: Ports, options: AddTaskOptions): Promise<AddTaskResult> {
  const ctx = await prepareAdd(ports, options);
  if (options.dryRun) return dryRunAdd(ctx);
  const { ws, taskId } = ctx;
  // Captured before the lease: it only writes objects into the source's repository.
  const carried = await captureChanges(ctx);
  await ensureWorkspaceState(ports, ws);
  const lease = await acquireLease(ws.root, taskId, leaseOptions(ports, ctx.owner, ws.leaseTtlMs));
  let result: AddTaskResult;
  try {
    await testPause("add:after-lease");
    const { existing, facts } = await gatherAdd(ctx);
    const plan = planAdd(ctx.request, existing, facts);
    result =
      plan.kind === "existing"
        ? { record: plan.record, plan, created: false, warnings: [] }
        : await createTask(ctx, plan, lease, carried);
  } catch (e) {
    await lease.release().catch(() => {});
    throw e;
  }
  if (options.holdLease) return { ...result, lease };
  await lease.release().catch(() => {});
  return result;
}

/** What {@link addTask} settles before it takes the task's lease: the task, its sources and their fixed facts. */
interface AddContext {
  ws: WorktreeWorkspace;
  options: AddTaskOptions;
  sources: ResolvedSource[];
  taskId: string;
  branch: string;
  taskDir: string;
  /** Each source's leg directory under `taskDir`. */
  dirs: Map<string, string>;
  fixed: Map<string, FixedFacts>;
  /** WARN_CHANGES_LEFT_OUT of each source with changes (none with `withChanges`). */
  warnings: AddWarning[];
  owner: string;
  request: AddRequest;
  sparse: string[] | undefined;
  fingerprintOf: (source: string) => Promise<string>;
}

/**
 * Check the request, resolve its sources and name the task; gather what does not depend on the
 * task's state. Nothing is written (not even the state dir): a bad --base or an overlay link out
 * of a source changes nothing at all.
 */
async function prepareAdd(ports: Ports, options: AddTaskOptions): Promise<AddContext> {
  if (options.sources.length === 0) throw new ArielError("ERR_USAGE", "add needs at least one --source");
  validateRequestNames(options);
  for (const name of options.sources) checkSourceName(name);
  checkLegCount(new Set(options.sources).size);
  const sparse = options.sparse && options.sparse.length > 0 ? checkSparse(options.sparse) : undefined;
  requireStateRoot({ root: options.root, via: options.via ?? "flag" });
  const ws = await openWorkspace(ports, options.root);
  await checkMinFree(ws.worktreeRoot, options.minFreeBytes ?? ws.minFreeBytes, "add");
  // Independent git calls per source run together: a git process costs tens of milliseconds.
  const sources: ResolvedSource[] = await Promise.all(
    [...new Set(options.sources)].map((name) => resolveSource(ws, name)),
  );
  const first = sources[0]?.name ?? "task";
  const seed = first === "." ? (ws.root.split("/").pop() ?? "root") : first;
  const taskId = options.taskId ?? generateTaskId(seed, ports.random);
  const branch = validateBranchName(options.branch ?? taskBranch(taskId));
  const dirs = legDirNames(
    sources.map((s) => s.name),
    ws.root,
  );
  const taskDir = taskDirPath(ws.worktreeRoot, taskId);
  await readTask(ws.root, ws.hash, taskId); // a corrupt or foreign record fails here, first
  const fixed = new Map<string, FixedFacts>();
  await Promise.all(sources.map(async (s) => fixed.set(s.name, await fixedFacts(ws, s, options))));
  const owner = ownerOf(ports);
  const request = {
    taskId,
    sources: sources.map((s) => s.name),
    branch,
    root: ws.root,
    owner,
    ...(options.base !== undefined ? { base: options.base } : {}),
  };
  // The plan checks the bounds again; checking them here, before the state dir, the lease or
  // git are touched, leaves nothing behind for a task that could never be recorded.
  checkTaskBounds(
    request,
    sources.map((s) => ({
      name: s.name,
      path: s.path,
      worktreePath: `${taskDir}/${dirs.get(s.name)}`,
      ...fixed.get(s.name)!,
    })),
  );
  const warnings = options.withChanges ? [] : leftOutWarnings(sources, fixed);
  const fingerprintOf = (name: string) => fixed.get(name)!.fingerprint;
  return {
    ws,
    options,
    sources,
    taskId,
    branch,
    taskDir,
    dirs,
    fixed,
    warnings,
    owner,
    request,
    sparse,
    fingerprintOf,
  };
}

/** WARN_CHANGES_LEFT_OUT of each source with uncommitted changes. */
function leftOutWarnings(
  sources: readonly ResolvedSource[],
  fixed: ReadonlyMap<string, FixedFacts>,
): AddWarning[] {
  return sources.flatMap((s) => {
    const changes = fixed.get(s.name)!.changes;
    if (changes.length === 0) return [];
    return [leftOutWarning(s.name, changes)];
  });
}

/** The task's record (if any) and each source's facts now (under the lease, or looked at in a dry run). */
async function gatherAdd(ctx: AddContext): Promise<{ existing: TaskRecord | null; facts: AddSourceFacts[] }> {
  const { ws, taskId } = ctx;
  const existing = await readTask(ws.root, ws.hash, taskId);
  const facts = await Promise.all(ctx.sources.map((s) => sourceFacts(ctx, s)));
  return { existing, facts };
}

async function sourceFacts(ctx: AddContext, s: ResolvedSource): Promise<AddSourceFacts> {
  const ports = ctx.ws.ports;
  const worktreePath = `${ctx.taskDir}/${ctx.dirs.get(s.name)}`;
  const [branchTip, st, linked] = await Promise.all([
    branchCommit(ports, s.path, `refs/heads/${ctx.branch}`),
    ports.fs.lstat(worktreePath),
    ports.fs.lstat(`${s.commonGitDir}/worktrees`),
  ]);
  // git keeps every linked worktree's admin dir under <common>/worktrees/. Without that
  // dir and without the branch, the list holds only the main worktree, which the plan
  // never looks at then (it is not at the leg's path, and there is no branch to hold).
  const worktrees = branchTip === null && linked === null ? [] : await listWorktrees(ports, s.path);
  return {
    name: s.name,
    path: s.path,
    worktreePath,
    baseCommit: ctx.fixed.get(s.name)!.baseCommit,
    branchCommit: branchTip,
    worktrees,
    pathExists: st !== null,
    overlay: ctx.fixed.get(s.name)!.overlay,
  };
}

/**
 * The dry run: the real add takes the task's lease (an existing task's or a new one's) before it
 * plans, so its refusal comes first here too, the lease only looked at (a spawn --isolate holds it).
 */
async function dryRunAdd(ctx: AddContext): Promise<AddTaskResult> {
  const { ws, taskId } = ctx;
  await assertLeaseFree(ws.root, taskId, leaseOptions(ws.ports, ctx.owner, ws.leaseTtlMs));
  const { existing, facts } = await gatherAdd(ctx);
  const plan = planAdd(ctx.request, existing, facts);
  if (plan.kind === "existing") return { record: plan.record, plan, created: false, warnings: [] };
  const record = await draftRecord(ws, taskId, plan.legs, ctx.fingerprintOf, ctx.sparse);
  const lifecycle = await planTaskLifecycle(ctx, record);
  return { record, plan, created: false, warnings: ctx.warnings, lifecycle };
}

/** The ports a new task would lease ({@link leasePortsFor}'s names) and its post-create hooks. */
async function planTaskLifecycle(ctx: AddContext, record: TaskRecord): Promise<LifecyclePlan> {
  const { ws } = ctx;
  return planLegsLifecycle(ws.ports, {
    root: ws.root,
    portRange: ws.portRange,
    sourcePaths: ctx.sources.map((s) => s.path),
    event: "post-create",
    legs: record.legs,
    ...(ctx.options.noHooks ? { skip: true } : {}),
  });
}

/** With `withChanges`: each changed source's working copy, captured for its new leg. */
async function captureChanges(ctx: AddContext): Promise<Map<string, WorkingCopy>> {
  const carried = new Map<string, WorkingCopy>();
  if (!ctx.options.withChanges) return carried;
  for (const s of ctx.sources) {
    if (ctx.fixed.get(s.name)!.changes.length === 0) continue;
    const wc = await captureWorkingCopy(ctx.ws.ports, s.path);
    if (wc) carried.set(s.name, wc);
  }
  return carried;
}

/**
 * Make the planned task under its lease: its ports leased, its legs made and recorded
 * ({@link applyAdd}; the ports given back if that fails), then its post-create hooks.
 */
async function createTask(
  ctx: AddContext,
  plan: AddPlan & { kind: "create" },
  lease: HeldLease,
  carried: ReadonlyMap<string, WorkingCopy>,
): Promise<AddTaskResult> {
  const { ws, taskId, options } = ctx;
  const ports = ws.ports;
  const taskPorts = await leasePortsFor(ws, taskId, ctx.sources);
  let made: TaskRecord;
  try {
    made = await applyAdd(ws, taskId, ctx.owner, plan.legs, ctx.sources, lease, ctx.fingerprintOf, {
      carried,
      ...(ctx.sparse ? { sparse: ctx.sparse } : {}),
      ...(taskPorts ? { ports: taskPorts } : {}),
      ...(options.onProgress ? { onProgress: options.onProgress } : {}),
    });
  } catch (e) {
    if (taskPorts && !isFenced(e)) await releaseTaskPorts(ports, { hash: ws.hash, tasks: [taskId] });
    throw e;
  }
  await options.beforeHooks?.(made);
  const { record, hooks } = await runPostCreate(ports, {
    root: ws.root,
    hash: ws.hash,
    record: made,
    lease,
    ...(options.noHooks ? { skip: true } : {}),
    ...(options.onProgress ? { onProgress: options.onProgress } : {}),
  });
  return { record, plan, created: true, warnings: ctx.warnings, hooks };
}

/**
 * Lease the task's ports (config `ports` of the workspace and of the sources), or undefined
 * when it wants none. Under the task's lease: a crash from here until the record is written
 * leaves leases that reconcile gives back.
 */
async function leasePortsFor(
  ws: WorktreeWorkspace,
  taskId: string,
  sources: readonly ResolvedSource[],
): Promise<TaskPorts | undefined> {
  const names = await taskPortNames(
    ws.ports,
    ws.root,
    sources.map((s) => s.path),
  );
  if (names.length === 0) return undefined;
  const got = await leaseTaskPorts(ws.ports, {
    root: ws.root,
    hash: ws.hash,
    task: taskId,
    names,
    range: ws.portRange,
  });
  await testPause("add:after-ports");
  return got;
}

/** What is known of a source before the task's lease is taken (it does not depend on the task). */
interface FixedFacts {
  baseCommit: string;
  overlay: string[];
  fingerprint: Promise<string>;
  /** Uncommitted paths a new leg would not get (overlay files and `.ariel/` left out), sorted. */
  changes: string[];
}

async function fixedFacts(
  ws: WorktreeWorkspace,
  s: ResolvedSource,
  options: Pick<AddTaskOptions, "base" | "withChanges">,
): Promise<FixedFacts> {
  const ports = ws.ports;
  const fingerprint = sourceFingerprint(ports.git, s.path);
  fingerprint.catch(() => {});
  // One `git status` gives both the uncommitted paths and HEAD (the base without --base).
  const statusRead = statusFacts(ports, s.path);
  statusRead.catch(() => {});
  const [baseCommit, overlay, status] = await Promise.all([
    options.base === undefined
      ? statusRead.then((st) => resolveBase(ports, s.path, s.name, undefined, st.head))
      : resolveBase(ports, s.path, s.name, options.base),
    selectOverlay(ports, s.path, ws.overlay),
    statusRead,
  ]);
  // Overlay files reach the leg anyway (copied); everything else uncommitted does not.
  const inOverlay = new Set(overlay);
  const changes = [...new Set(status.paths.filter((p) => !inOverlay.has(p) && !isStatePath(p)))].sort(
    compareBytewise,
  );
  if (options.withChanges && options.base !== undefined && changes.length > 0) {
    if (status.head !== baseCommit) {
      throw new ArielError(
        "ERR_USAGE",
        `--with-changes carries the changes of ${quoteValue(s.name)} made on its HEAD; --base names another commit`,
        { hint: "drop --base (the leg then starts at the source's HEAD), or commit the changes first" },
      );
    }
  }
  return { baseCommit, overlay, fingerprint, changes };
}

/** ariel's own state (a root checkout's `.ariel/`) is never work to carry. */
function isStatePath(path: string): boolean {
  return path === ".ariel" || path.startsWith(".ariel/");
}

/** WARN_CHANGES_LEFT_OUT: a new leg starts from HEAD, without the source's uncommitted changes. */
function leftOutWarning(source: string, changes: readonly string[]): AddWarning {
  const shown = changes.slice(0, 3).join(", ");
  const more = changes.length > 3 ? ` and ${changes.length - 3} more` : "";
  return {
    code: "WARN_CHANGES_LEFT_OUT",
    message: `${quoteValue(source)} has uncommitted changes its new worktree starts without: ${shown}${more}`,
    hint: "pass --with-changes to carry them into the worktree (the source stays as it is), or commit them first",
    context: { source, paths: changes.slice(0, 10) },
  };
}

/** The record a dry run would write (version 0; overlay hashes of the source files). */
async function draftRecord(
  ws: WorktreeWorkspace,
  taskId: string,
  legs: readonly AddLegPlan[],
  fingerprintOf: (source: string) => Promise<string>,
  sparse: string[] | undefined,
): Promise<TaskRecord> {
  const ports = ws.ports;
  const out: Leg[] = [];
  for (const l of legs) {
    const overlay = [];
    for (const p of l.overlay) {
      const bytes = await ports.fs.readBytes(await canonicalize(ports.fs, `${l.sourcePath}/${p}`));
      overlay.push({ path: p, sha256: sha256Hex(bytes) });
    }
    out.push(legRecord(l, await fingerprintOf(l.source), l.base, overlay, sparse));
  }
  const now = new Date(ports.clock.now()).toISOString();
  const record = newTaskRecord({
    taskId,
    root: ws.root,
    hash: ws.hash,
    owner: ownerOf(ports),
    legs: out,
    fencingToken: 0,
    now,
  });
  return { ...record, version: 0 };
}

/**
 * What this call made, each entry added only after git (or the filesystem) said it succeeded:
 * the unwind of a failure deletes exactly these and nothing else.
 */
interface Made {
  taskDir: string | null;
  branches: { leg: AddLegPlan; source: ResolvedSource }[];
  worktrees: { leg: AddLegPlan; source: ResolvedSource }[];
}

/** What {@link applyAdd} needs besides the plan. */
interface ApplyExtra {
  carried: ReadonlyMap<string, WorkingCopy>;
  onProgress?: OnProgress;
  sparse?: string[];
  ports?: TaskPorts;
}

/** One leg being made: the task, its lease and what this call made so far (for the unwind). */
interface LegStep {
  ws: WorktreeWorkspace;
  taskId: string;
  lease: Lease;
  made: Made;
  extra: ApplyExtra;
  fingerprintOf: (source: string) => Promise<string>;
}

/** Apply a create plan; on any failure undo what this call made and rethrow. */
async function applyAdd(
  ws: WorktreeWorkspace,
  taskId: string,
  owner: string,
  legs: readonly AddLegPlan[],
  sources: readonly ResolvedSource[],
  lease: Lease,
  fingerprintOf: (source: string) => Promise<string>,
  extra: ApplyExtra,
): Promise<TaskRecord> {
  const ports = ws.ports;
  const made: Made = { taskDir: null, branches: [], worktrees: [] };
  const step: LegStep = { ws, taskId, lease, made, extra, fingerprintOf };
  try {
    const out: Leg[] = [];
    for (const [i, leg] of legs.entries()) {
      extra.onProgress?.({
        index: i + 1,
        total: legs.length,
        source: leg.source,
        action: leg.mode === "create" ? "creating worktree" : "adopting worktree",
      });
      out.push(await makeLeg(step, leg, sources.find((s) => s.name === leg.source)!));
    }
    const record = newTaskRecord({
      taskId,
      root: ws.root,
      hash: ws.hash,
      owner,
      legs: out,
      fencingToken: lease.token,
      now: new Date(ports.clock.now()).toISOString(),
    });
    if (extra.ports) record.ports = extra.ports;
    const written = await writeTask(ports, record, 0, lease);
    await testPause("add:after-record");
    return written;
  } catch (e) {
    throw await unwound(ws, lease, taskId, made, e);
  }
}

/**
 * The error a failed add throws once what it made is undone ({@link unwind}), with what could
 * not be undone in its context. Fenced out, another process owns the task now, and what we made
 * may be its: nothing is touched.
 */
async function unwound(
  ws: WorktreeWorkspace,
  lease: Lease,
  taskId: string,
  made: Made,
  e: unknown,
): Promise<unknown> {
  if (isFenced(e) || lease.signal.aborted) return isFenced(e) ? e : lease.signal.reason;
  const err = toArielError(e);
  try {
    const problems = await unwind(ws, lease, taskId, made);
    if (problems.length > 0) err.context.unwindProblems = problems;
  } catch (u) {
    if (isFenced(u)) throw u;
    err.context.unwindProblems = [toArielError(u).message];
  }
  return err;
}

/**
 * Make one leg under its repository's lock (a new locked worktree, or an adopted one relocked for
 * the task), then carry the changes and copy the overlay in; its record entry.
 */
async function makeLeg(step: LegStep, leg: AddLegPlan, source: ResolvedSource): Promise<Leg> {
  const { ws, taskId, lease, extra } = step;
  const ports = ws.ports;
  await withRepoLock(
    source.commonGitDir,
    async () => {
      if (leg.mode === "create") {
        await createWorktree(step, leg, source);
        await testPause("add:after-worktree");
      } else {
        await lease.fenced(async () => {
          await gitRaw(ports, source.path, ["worktree", "unlock", leg.worktreePath]);
          await git(ports, source.path, [
            "worktree",
            "lock",
            "--reason",
            lockReason(taskId),
            leg.worktreePath,
          ]);
        });
      }
    },
    { purpose: `add ${taskId}`, fs: ports.fs },
  );
  await testPause("add:after-lock");
  // Carried changes first: the overlay's skip-worktree bits must survive their index.
  const wc = extra.carried.get(leg.source);
  if (wc && leg.mode === "create") {
    await lease.fenced(() => applyWorkingCopy(ports, leg.worktreePath, wc));
    // A sparse leg's cone is set only now, over the whole checkout: carrying resets the index,
    // which would drop the skip-worktree bits (the files outside read as deleted), and a
    // carried change outside the cone stays in place, as git leaves one (createWorktree).
    if (extra.sparse) {
      const sparse = extra.sparse;
      await lease.fenced(() => sparseCheckout(ports, leg.worktreePath, sparse));
    }
  }
  // Nothing to copy changes nothing: no fenced step (and no lease lock) for it.
  const overlay =
    leg.overlay.length === 0
      ? []
      : await lease.fenced(() => copyOverlay(ports, source.path, leg.worktreePath, leg.overlay));
  // A new branch starts at the base; an adopted worktree may have moved on.
  const head =
    leg.mode === "create" ? leg.base : (await git(ports, leg.worktreePath, ["rev-parse", "HEAD"])).trim();
  return legRecord(leg, await step.fingerprintOf(leg.source), head, overlay, extra.sparse);
}

/**
 * The task directory (made under the first repository lock, never before it is held: an add
 * killed, or refused ERR_LOCKED, while waiting for the lock leaves no directory behind), the
 * branch and the locked worktree, in one fenced step: the lease lock is taken once, and no
 * successor can appear between the branch and its worktree.
 */
async function createWorktree(step: LegStep, leg: AddLegPlan, source: ResolvedSource): Promise<void> {
  const { ws, taskId, lease, made, extra } = step;
  const ports = ws.ports;
  const taskDir = taskDirPath(ws.worktreeRoot, taskId);
  await lease.fenced(async () => {
    await lease.fenced(async () => {
      if ((await ports.fs.lstat(taskDir)) !== null) return;
      await ports.fs.mkdirp(taskDir);
      made.taskDir = taskDir;
    });
    await git(ports, source.path, ["branch", "--no-track", leg.branch, leg.base]);
    made.branches.push({ leg, source });
    const args = ["worktree", "add", "--quiet", "--lock", "--reason", lockReason(taskId)];
    // With carried changes, the cone is set after them (makeLeg): the whole checkout first.
    const sparseNow = extra.sparse && !extra.carried.has(leg.source) ? extra.sparse : null;
    if (sparseNow) args.push("--no-checkout");
    const r = await gitRaw(ports, source.path, [...args, leg.worktreePath, leg.branch]);
    if (r.code === 0) {
      made.worktrees.push({ leg, source });
      if (sparseNow) await sparseCheckout(ports, leg.worktreePath, sparseNow);
      return;
    }
    // git failed, but may have made the worktree first (a post-checkout hook that
    // fails). The path was free and we hold the locks, so an entry there is ours.
    const wts = await listWorktrees(ports, source.path);
    if (wts.some((w) => w.path === leg.worktreePath && w.locked === lockReason(taskId))) {
      made.worktrees.push({ leg, source });
    }
    throw gitError(args, r, source.path);
  });
}

/** A planned leg's record entry: `active`, at `head`, with its overlay (and a new leg's sparse dirs). */
function legRecord(
  leg: AddLegPlan,
  fingerprint: string,
  head: string,
  overlay: OverlayEntry[],
  sparse: string[] | undefined,
): Leg {
  return {
    source: leg.source,
    sourcePath: leg.sourcePath,
    fingerprint,
    branch: leg.branch,
    base: leg.base,
    head,
    worktreePath: leg.worktreePath,
    overlay,
    state: "active",
    ...(sparse && leg.mode === "create" ? { sparse } : {}),
  };
}

/**
 * Undo a failed add: remove the worktrees (and their admin entries) and the branches this call
 * made, then the task directory if this call made it and it is empty. Every step proves the
 * lease first; losing it stops the unwind (ERR_FENCED) with nothing more changed. Returns what
 * could not be undone.
 */
async function unwind(ws: WorktreeWorkspace, lease: Lease, taskId: string, made: Made): Promise<string[]> {
  const ports = ws.ports;
  const problems: string[] = [];
  for (const { leg, source } of [...made.worktrees].reverse()) {
    await repoStep(ports, lease, source.commonGitDir, `unwind ${leg.branch}`, async () => {
      const wt = (await listWorktrees(ports, source.path)).find((w) => w.path === leg.worktreePath);
      if (!wt) return problems.push(`worktree ${leg.worktreePath}: gone already`);
      if (wt.locked !== lockReason(taskId)) {
        return problems.push(`worktree ${leg.worktreePath}: lock changed; kept`);
      }
      // --force twice removes it locked: the lock was just checked to be this task's.
      const r = await gitRaw(ports, source.path, [
        "worktree",
        "remove",
        "--force",
        "--force",
        leg.worktreePath,
      ]);
      if (r.code !== 0)
        problems.push(`worktree ${leg.worktreePath}: ${childMessage(r.stderr, `exit ${r.code}`)}`);
    });
  }
  for (const { leg, source } of [...made.branches].reverse()) {
    await repoStep(ports, lease, source.commonGitDir, `unwind ${leg.branch}`, async () => {
      if ((await listWorktrees(ports, source.path)).some((w) => w.branch === `refs/heads/${leg.branch}`)) {
        return problems.push(`branch ${leg.branch} is checked out; kept`);
      }
      const tip = await resolveCommit(ports, source.path, `refs/heads/${leg.branch}`);
      if (tip !== leg.base) {
        if (tip !== null) problems.push(`branch ${leg.branch} moved; kept`);
        return;
      }
      // With the old value: git refuses if the branch moved since we looked.
      const r = await gitRaw(ports, source.path, ["update-ref", "-d", `refs/heads/${leg.branch}`, leg.base]);
      if (r.code !== 0) problems.push(`branch ${leg.branch}: ${childMessage(r.stderr, `exit ${r.code}`)}`);
    });
  }
  const taskDir = made.taskDir;
  if (taskDir !== null) {
    await lease.fenced(async () => {
      // Never recursive: a directory that is not empty holds something that is not ours.
      await ports.fs
        .rmdir(taskDir)
        .catch((e) => problems.push(`directory ${taskDir}: ${(e as Error).message}`));
    });
  }
  return problems;
}

/** Sparse paths checked: relative directories inside the checkout, deduplicated, sorted. */
function checkSparse(paths: readonly string[]): string[] {
  const out = new Set<string>();
  for (const raw of paths) {
    const p = raw.replace(/\/+$/, "");
    if (
      p === "" ||
      p.startsWith("/") ||
      p.split("/").some((c) => c === ".." || c === "." || c === "") ||
      p.includes("\0")
    ) {
      throw new ArielError(
        "ERR_USAGE",
        `--sparse: not a directory inside the checkout: ${JSON.stringify(raw)}`,
        {
          hint: "name directories relative to the source's top, e.g. --sparse packages/api",
          context: { value: raw },
        },
      );
    }
    out.add(p);
  }
  return [...out].sort(compareBytewise);
}

/** Cone-mode sparse checkout of `paths` in a worktree made with --no-checkout, then its checkout. */
export async function sparseCheckout(
  ports: Ports,
  worktree: string,
  paths: readonly string[],
): Promise<void> {
  await git(ports, worktree, ["sparse-checkout", "set", "--cone", "--", ...paths]);
  await git(ports, worktree, ["checkout", "--quiet"]);
}
