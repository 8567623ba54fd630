/**
 * The sync: what a sandboxed run made brought home (docs/sandbox.md, The sync; decision 0111).
 * For each repository, in this order: the refs of the shadow read once; every new object put in
 * the real store; each ref the run may move set by compare-and-swap (`git update-ref REF NEW
 * OLD`), any other ref it changed kept under `refs/ariel/sandbox/<run>/`; in place, the main
 * worktree's HEAD and index. Each step is safe to run again, so no journal is needed: a sync
 * killed half-way is finished by the next one (the monitor's settle, the next command that
 * reads the task, `reconcile`). The sandbox's directory goes only once everything is home.
 */
import { existsSync, readdirSync, rmdirSync, statSync, unlinkSync, writeFileSync } from "node:fs";
import { ArielError } from "../../errors.ts";
import { runPaths } from "../../runs/paths.ts";
import { manifestProblem, type SandboxManifest, type SandboxRepo } from "../../sandbox/manifest.ts";
import { parseRefLines, refLines, sandboxesDir, sandboxPaths } from "../../sandbox/paths.ts";
import { parkedRef, planRefSync, type RefStep } from "../../sandbox/ref_sync.ts";
import type { RepoSync, SandboxSync } from "../../sandbox/report.ts";
import { syncEventFields } from "../../sandbox/report.ts";
import { eventRecord } from "../../spawn/events.ts";
import { nodeChildProcess } from "../builtins.ts";
import { gitEnv, gitExecutable } from "../git.ts";
import { withLockFile } from "../lock-file.ts";
import { isSameProcess } from "../runs/identity.ts";
import { appendHistory } from "../runs/store.ts";
import { testPause } from "../test-hooks.ts";
import { mainStateHome } from "./main_state.ts";
import { objectsHome } from "./objects.ts";
import { readOrNull, readRefs, reflogValues, replaceFile } from "./refs.ts";

export type { RepoSync, SandboxSync };

/** Whether a sandbox's run has ended: its bubblewrap is gone (or, never recorded, its owner is). */
export function sandboxEnded(m: SandboxManifest): boolean {
  if (m.child !== null) return !isSameProcess({ ...m.child, bootId: m.owner.bootId });
  return !isSameProcess(m.owner);
}

/** The manifest of run `runId`'s sandbox, or null when it has none (never prepared, or gone). */
export function readManifest(root: string, runId: string): SandboxManifest | null {
  const path = sandboxPaths(root, runId).manifest;
  const text = readOrNull(path);
  if (text === null) return null;
  let parsed: unknown;
  let why: string | null = "not JSON";
  try {
    parsed = JSON.parse(text);
    why = manifestProblem(parsed);
  } catch {}
  if (why !== null) {
    throw new ArielError("ERR_RECORD_CORRUPT", `${path} is not a sandbox manifest (${why})`, {
      context: { path, field: why },
    });
  }
  const m = parsed as SandboxManifest;
  return { ...m, child: m.child ?? recordedChild(root, runId) };
}

/** Record the sandbox's bubblewrap process once started (its end is the sandbox's end). */
export function recordSandboxChild(
  root: string,
  runId: string,
  child: NonNullable<SandboxManifest["child"]>,
): void {
  const paths = sandboxPaths(root, runId);
  if (existsSync(paths.dir)) replaceFile(paths.child, `${JSON.stringify(child)}\n`);
}

/** The child a sandbox's owner recorded, when it did (read beside the manifest). */
function recordedChild(root: string, runId: string): SandboxManifest["child"] {
  try {
    const c = JSON.parse(readOrNull(sandboxPaths(root, runId).child) ?? "null") as {
      pid?: unknown;
      startTime?: unknown;
    } | null;
    if (c && Number.isInteger(c.pid) && (c.startTime === null || typeof c.startTime === "string"))
      return { pid: c.pid as number, startTime: c.startTime as string | null };
  } catch {}
  return null;
}

/**
 * `git update-ref` in the real repository: true when it moved the ref. `from`: the value it
 * must have (null: it must not exist; undefined: any, for ariel's own parking refs).
 */
function updateRef(common: string, runId: string, ref: string, to: string, from?: string | null): boolean {
  const args = [`--git-dir=${common}`, "update-ref", "-m", `ariel: sandbox ${runId}`, ref, to];
  if (from !== undefined) args.push(from ?? "0".repeat(to.length));
  const r = nodeChildProcess().spawnSync(gitExecutable(), args, {
    env: gitEnv(process.env),
    encoding: "utf8",
  });
  return r.status === 0;
}

/**
 * Whether every object reachable from `oids` and not from a real ref is in the real store. The
 * refs under `refs/` only, not `--all`: `--all` also reads every worktree's HEAD, and a
 * `git worktree add` in progress (another run's task being made) holds a HEAD of zeros for a
 * moment, which fails the walk ("bad object") and would refuse a whole commit as broken.
 */
function whole(common: string, oids: readonly string[]): boolean {
  if (oids.length === 0) return true;
  const r = nodeChildProcess().spawnSync(
    gitExecutable(),
    [`--git-dir=${common}`, "rev-list", "--objects", "--quiet", "--stdin", "--not", "--glob=refs/*"],
    { env: gitEnv(process.env), input: `${oids.join("\n")}\n`, encoding: "utf8", maxBuffer: 1 << 26 },
  );
  return r.status === 0;
}

/**
 * The steps whose target is whole in the real store; any other becomes `missing` (the sandbox
 * deleted objects, or wrote some whose content did not match their name): no ref is ever set to
 * a commit the repository cannot read.
 */
function onlyWhole(common: string, steps: readonly RefStep[]): RefStep[] {
  const targets = steps.flatMap((s) => (s.op === "update" || s.op === "park" ? [s.to] : []));
  if (whole(common, targets)) return [...steps];
  return steps.map((s) =>
    (s.op === "update" || s.op === "park") && !whole(common, [s.to])
      ? { op: "missing", ref: s.ref, to: s.to }
      : s,
  );
}

/** Apply the ref steps; an update whose compare fails (moved meanwhile) is parked instead. */
async function refsHome(
  root: string,
  runId: string,
  repo: SandboxRepo,
  steps: RefStep[],
): Promise<RefStep[]> {
  const paths = sandboxPaths(root, runId);
  const synced = parseRefLines(readOrNull(paths.syncedRefs(repo.n)) ?? "");
  const done: RefStep[] = [];
  for (const s of steps) {
    let step = s;
    if (s.op === "update" && !updateRef(repo.common, runId, s.ref, s.to, s.from)) {
      // Moved outside since it was read: the sandbox's commit is kept, the real ref is left.
      step = { op: "park", ref: s.ref, to: s.to, as: parkedRef(runId, s.ref), why: "moved-outside" };
    }
    if (step.op === "park" && !updateRef(repo.common, runId, step.as, step.to)) {
      throw new ArielError("ERR_GIT", `could not keep ${step.ref} as ${step.as} in ${repo.common}`, {
        context: { ref: step.ref, common: repo.common },
      });
    }
    if (step.op === "update" || step.op === "home") {
      synced.set(step.ref, step.to);
      replaceFile(paths.syncedRefs(repo.n), refLines(synced));
    }
    done.push(step);
    await testPause("sandbox:after-ref");
  }
  return done;
}

/** One repository: refs read, objects home, refs home; in place and final, the main worktree's state. */
async function repoHome(m: SandboxManifest, repo: SandboxRepo, final: boolean): Promise<RepoSync> {
  const paths = sandboxPaths(m.root, m.runId);
  const shadow = paths.shadow(repo.n);
  // The shadow's refs first: every object they name is in its store by then (git writes objects
  // before the refs that name them), so the objects copied next cover them even mid-run.
  const now = readRefs(shadow);
  // The stash entries: its reflog, and refs/stash's own value (a reflog expired or never
  // written inside still leaves the newest entry there).
  const top = now.get("refs/stash");
  now.delete("refs/stash");
  const stash = reflogValues(`${shadow}/logs/refs/stash`);
  if (top !== undefined && !stash.includes(top)) stash.push(top);
  const objects = objectsHome(shadow, repo.common);
  await testPause("sandbox:after-objects");
  const steps = planRefSync({
    runId: m.runId,
    own: repo.own,
    start: parseRefLines(readOrNull(paths.startRefs(repo.n)) ?? ""),
    synced: parseRefLines(readOrNull(paths.syncedRefs(repo.n)) ?? ""),
    now,
    real: readRefs(repo.common),
    stash,
  });
  const refs = await refsHome(m.root, m.runId, repo, onlyWhole(repo.common, steps));
  const state =
    final && repo.main
      ? mainStateHome(repo, { shadow, start: paths.startState(repo.n), kept: `${paths.kept}/${repo.n}` })
      : [];
  return { common: repo.common, objects: objects.copied, unsound: objects.unsound, refs, state };
}

/**
 * Bring run `runId`'s sandbox home (under its lock). `final` once the run has ended (it is
 * decided here when not given): then the main worktrees' state too, and the sandbox removed.
 * Mid-run (a command reading the task while the run works): objects and refs only. Returns
 * null when the run has no sandbox (left).
 */
export async function syncSandbox(
  root: string,
  runId: string,
  options: { final?: boolean } = {},
): Promise<SandboxSync | null> {
  const paths = sandboxPaths(root, runId);
  if (!existsSync(paths.dir)) return null;
  return withLockFile(paths.lock, { what: "sandbox lock", timeoutMs: 60_000 }, async () => {
    // Another sync (the monitor's, a command's) may have finished it while this one waited.
    if (!existsSync(paths.dir)) return null;
    if (existsSync(paths.done)) {
      const task = manifestTask(root, runId);
      return removeSandbox(root, runId, { runId, task, repos: [], finished: true });
    }
    const m = readManifest(root, runId);
    if (m === null) return abandoned(root, runId);
    const final = options.final ?? sandboxEnded(m);
    const repos: RepoSync[] = [];
    for (const repo of m.repos) repos.push(await repoHome(m, repo, final));
    if (!final) return { runId, task: m.task, repos, finished: false };
    writeFileSync(paths.done, `${new Date().toISOString()}\n`);
    await testPause("sandbox:before-cleanup");
    return removeSandbox(root, runId, { runId, task: m.task, repos, finished: true });
  });
}

/** The task a sandbox's manifest names, or null (none, or no manifest any more). */
function manifestTask(root: string, runId: string): string | null {
  try {
    return readManifest(root, runId)?.task ?? null;
  } catch {
    return null;
  }
}

/** Run a removal; a path already gone is removed (the monitor unlinks its socket as it closes, outside the lock). */
function gone(remove: () => void): void {
  try {
    remove();
  } catch (e) {
    if ((e as NodeJS.ErrnoException).code !== "ENOENT") throw e;
  }
}

/** Remove a directory tree without following links (a plain walk: rmSync's own costs more than the tree). */
function removeTree(path: string): void {
  let entries: import("node:fs").Dirent[];
  try {
    entries = readdirSync(path, { withFileTypes: true });
  } catch (e) {
    if ((e as NodeJS.ErrnoException).code === "ENOENT") return;
    if ((e as NodeJS.ErrnoException).code !== "ENOTDIR") throw e;
    gone(() => unlinkSync(path));
    return;
  }
  for (const e of entries) {
    if (e.isDirectory()) removeTree(`${path}/${e.name}`);
    else gone(() => unlinkSync(`${path}/${e.name}`));
  }
  gone(() => rmdirSync(path));
}

/** Everything is home: the sandbox's directory goes (its lock last, beside it). */
function removeSandbox(root: string, runId: string, report: SandboxSync | null): SandboxSync {
  removeTree(sandboxPaths(root, runId).dir);
  return report ?? { runId, task: null, repos: [], finished: true };
}

/** How long a sandbox directory without a manifest may be in the making. */
const PREPARING_MS = 60_000;

/**
 * A sandbox directory without a manifest never started (the manifest is written last): removed
 * once it is old enough not to be in the making, and only while no shadow holds an object (a
 * manifest lost some other way must not cost a commit: such a directory is left, for a person).
 */
function abandoned(root: string, runId: string): SandboxSync | null {
  const paths = sandboxPaths(root, runId);
  const made = (() => {
    try {
      return statSync(paths.dir).mtimeMs;
    } catch {
      return null;
    }
  })();
  if (made === null || Date.now() - made < PREPARING_MS) return null;
  const held = readdirSync(paths.dir).some((n) => holdsObjects(`${paths.dir}/${n}/objects`));
  return held ? null : removeSandbox(root, runId, null);
}

/** Whether an object store holds an object (loose, or in a pack). */
function holdsObjects(objects: string): boolean {
  const list = (d: string) => {
    try {
      return readdirSync(d);
    } catch {
      return [];
    }
  };
  return list(objects).some(
    (d) => (/^[0-9a-f]{2}$/.test(d) || d === "pack") && list(`${objects}/${d}`).length > 0,
  );
}

/** The run ids of the workspace's sandboxes (left to sync, or being used). */
export function sandboxRunIds(root: string): string[] {
  try {
    return readdirSync(sandboxesDir(root)).filter((n) => /^\d{8}T\d{6}Z-[0-9a-z]{6}$/.test(n));
  } catch {
    return [];
  }
}

/**
 * Before a command reads task `task` (diff, land, remove, snapshot, gc, export; null: every
 * task): every sandbox of a run in it synced, finished when its run ended (`endedOnly`: only
 * those, as reconcile does). What a sync did goes into the run's history when it has one
 * (`sandbox.synced`). Cheap when there is no sandbox: one readdir.
 */
export async function syncTaskSandboxes(
  root: string,
  task: string | null,
  options: { endedOnly?: boolean } = {},
): Promise<SandboxSync[]> {
  const out: SandboxSync[] = [];
  for (const runId of sandboxRunIds(root)) {
    let m: SandboxManifest | null = null;
    try {
      m = readManifest(root, runId);
    } catch {
      continue; // a damaged manifest: reconcile notes it (W_RECORD_UNREADABLE)
    }
    if (m !== null && task !== null && m.task !== task) continue;
    if (m !== null && options.endedOnly && !sandboxEnded(m)) continue;
    const r = await syncSandbox(root, runId);
    if (!r) continue;
    out.push(r);
    if (existsSync(runPaths(root, runId).history)) {
      await appendHistory(
        root,
        runId,
        eventRecord(runId, Date.now(), "sandbox.synced", null, syncEventFields(r)),
      );
    }
  }
  return out;
}
