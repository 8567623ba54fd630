/**
 * The hook runner: run one lifecycle event's hooks for a task's legs (docs/lifecycle.md). Each
 * leg hears its source's config then the workspace's ({@link hookSetsFor}); a repository's hooks
 * that are not trusted with their current content are skipped with a warning that shows them
 * and the command that approves them. Output goes to `.ariel/hooks/<task>.log`.
 *
 * Every command that fires an event calls this one function: add (post-create), remove and gc
 * (pre-remove), restore (post-restore), `hooks run`, and land (pre-land, post-land).
 *
 * @example
 * ```ts
 * const r = await runHooks(ports, { root, hash, record, event: "post-create" });
 * for (const f of r.failed) console.error(`${f.source}: ${f.hook} exited ${f.exit}`);
 * ```
 */
import { appendFileSync } from "node:fs";
import { CONFIG_FILE, HOOK_TIMEOUT_DEFAULT_MS } from "../../config.ts";
import { GUARD_EVENTS, type HookEvent } from "../../lifecycle/events.ts";
import { describeHook, type Hook, hookArgv, hookSteps } from "../../lifecycle/hooks.ts";
import { portEnv } from "../../lifecycle/ports.ts";
import { quoteValue } from "../../names.ts";
import { joinPosix } from "../../paths.ts";
import type { Ports } from "../../ports.ts";
import type { Leg, TaskRecord } from "../../schema/task.ts";
import { shellWords } from "../../shell_words.ts";
import { hookLogPath, hooksDir } from "../../state_paths.ts";
import type { OnProgress } from "../progress.ts";
import { type ConfigSet, type HookSetProblem, hookSetsFor } from "./hook_sets.ts";
import { runHook } from "./run_hook.ts";
import { readTrust, type TrustEntry } from "./trust_store.ts";

/** Input of {@link runHooks}. */
export interface RunHooksOptions {
  root: string;
  hash: string;
  record: TaskRecord;
  event: HookEvent;
  /** The legs to run for (default: the task's active legs), each needing its worktree. */
  legs?: readonly Leg[];
  onProgress?: OnProgress;
  /** --no-hooks: run nothing, warn of nothing; legs that have a hook for the event are marked `skipped`. */
  skip?: boolean;
}

/** One hook that ran (or could not start). */
export interface HookResult {
  event: HookEvent;
  source: string;
  origin: ConfigSet["origin"];
  file: string;
  /** The hook as written, for people. */
  hook: string;
  status: "ok" | "failed" | "timeout" | "not-started";
  exit: number;
  signal: string | null;
  durationMs: number;
}

/** A warning of the runner: untrusted hooks skipped, a source's config invalid. */
export interface HookWarning {
  code: "WARN_HOOK_UNTRUSTED" | HookSetProblem["code"];
  message: string;
  hint: string;
  context: Record<string, unknown>;
}

export interface RunHooksResult {
  results: HookResult[];
  /** The results that did not end with 0. */
  failed: HookResult[];
  warnings: HookWarning[];
  /** Per leg: how its hooks went (absent: the leg has no hook for the event). */
  legs: Map<string, "ok" | "failed" | "skipped">;
  /** The task's hook log (workspace-relative path for messages: `.ariel/hooks/<task>.log`). */
  log: string;
}

/** The environment of a hook: ariel's own, then `ARIEL_*` of the leg and the task's ports. */
export function hookEnv(
  base: Readonly<Record<string, string | undefined>>,
  o: { root: string; hash: string; record: TaskRecord; leg: Leg; event: HookEvent },
): Record<string, string> {
  const env: Record<string, string> = {};
  for (const [k, v] of Object.entries(base)) if (v !== undefined && !k.startsWith("ARIEL_PORT_")) env[k] = v;
  return {
    ...env,
    ARIEL_WORKSPACE_ROOT: o.root,
    ARIEL_WORKSPACE_HASH: o.hash,
    ARIEL_SOURCE: o.leg.source,
    ARIEL_SOURCE_PATH: o.leg.sourcePath,
    ARIEL_TASK: o.record.taskId,
    ARIEL_WORKTREE: o.leg.worktreePath,
    ARIEL_BRANCH: o.leg.branch,
    ARIEL_BASE: o.leg.base,
    ARIEL_HOOK: o.event,
    ...portEnv(Object.keys(o.record.ports ?? {}), o.record.ports),
  };
}

/**
 * WARN_HOOK_UNTRUSTED: what was skipped (a plan: what would be), shown, and the command that
 * approves it.
 */
export function untrustedWarning(
  set: ConfigSet,
  event: HookEvent,
  source: string,
  root: string,
  skipped = "skipped",
): HookWarning {
  const why = set.untrusted === "changed" ? "changed since it was approved" : "not approved";
  const hook = describeHook(set.hooks[event] as Hook);
  const trust = ["ariel-worktree", "-C", root, "trust", ...(source === "." ? [] : ["--source", source])];
  return {
    code: "WARN_HOOK_UNTRUSTED",
    message: `${skipped} the ${event} hook of ${set.file} (the repository's, ${why}): ${hook}`,
    hint: `review ${set.file}, then approve its hooks: ${shellWords(trust)}`,
    context: {
      file: set.file,
      event,
      source,
      hook: set.hooks[event],
      sha256: set.sha256,
      reason: set.untrusted,
    },
  };
}

/** Run `event`'s hooks for the legs, one leg after the other; see the module's comment. */
export async function runHooks(ports: Ports, options: RunHooksOptions): Promise<RunHooksResult> {
  const { root, record } = options;
  const legs = options.legs ?? record.legs.filter((l) => l.state === "active");
  const out: RunHooksResult = {
    results: [],
    failed: [],
    warnings: [],
    legs: new Map(),
    log: hookLogPath(root, record.taskId),
  };
  const trust = await readTrust(ports);
  for (const [i, leg] of legs.entries()) {
    const progress = (action: string) =>
      options.onProgress?.({ index: i + 1, total: legs.length, source: leg.source, action });
    await runLegHooks(ports, options, leg, trust, progress, out);
    // A guard (pre-remove, pre-land) that failed refuses the step: no other leg's runs.
    if (GUARD_EVENTS.includes(options.event) && out.failed.length > 0) break;
  }
  return out;
}

/** One leg's hooks of the event, its config sets in order; the outcome goes into `out`. */
async function runLegHooks(
  ports: Ports,
  options: RunHooksOptions,
  leg: Leg,
  trust: readonly TrustEntry[],
  progress: (action: string) => void,
  out: RunHooksResult,
): Promise<void> {
  const { root, event } = options;
  const { sets, problems } = await hookSetsFor(ports, root, leg.sourcePath, trust);
  out.warnings.push(...problems);
  const workspaceTimeout = sets.find((s) => s.file === joinPosix(root, CONFIG_FILE))?.timeoutMs;
  for (const { set, hook, runs } of hookSteps(sets, event)) {
    if (options.skip || !runs) {
      if (!options.skip) out.warnings.push(untrustedWarning(set, event, leg.source, root));
      if (out.legs.get(leg.source) !== "failed") out.legs.set(leg.source, "skipped");
      continue;
    }
    const timeoutMs = set.timeoutMs ?? workspaceTimeout ?? HOOK_TIMEOUT_DEFAULT_MS;
    const result = await runOne(ports, options, leg, set, hook, timeoutMs, out.log, progress);
    out.results.push(result);
    if (result.status === "ok") {
      if (!out.legs.has(leg.source)) out.legs.set(leg.source, "ok");
      continue;
    }
    out.failed.push(result);
    out.legs.set(leg.source, "failed");
    return; // the leg's later hooks build on this one
  }
}

/** Run one hook in the leg's worktree, framed by `==` lines in the log. */
async function runOne(
  ports: Ports,
  options: RunHooksOptions,
  leg: Leg,
  set: ConfigSet,
  hook: Hook,
  timeoutMs: number,
  log: string,
  progress: (action: string) => void,
): Promise<HookResult> {
  const { root, hash, record, event } = options;
  progress(`${event} hook`);
  await ports.fs.mkdirp(hooksDir(root));
  const now = new Date(ports.clock.now()).toISOString();
  appendFileSync(
    log,
    `== ${now} ${event} ${leg.source} (${set.origin}: ${set.file}): ${describeHook(hook)}\n`,
  );
  const run = await runHook({
    argv: hookArgv(hook),
    cwd: leg.worktreePath,
    env: hookEnv(ports.env, { root, hash, record, leg, event }),
    timeoutMs,
    log,
    onLine: (line) => progress(`${event}: ${line.slice(0, 120)}`),
  });
  const ended = run.status === "timeout" ? `timed out (killed, ${run.exit})` : `exit ${run.exit}`;
  appendFileSync(log, `== ${ended} after ${(run.durationMs / 1000).toFixed(1)} s\n`);
  return {
    event,
    source: leg.source,
    origin: set.origin,
    file: set.file,
    hook: describeHook(hook),
    status: run.status,
    exit: run.exit,
    signal: run.signal,
    durationMs: run.durationMs,
  };
}

/**
 * A hook as a failure line names it: a string quoted (`"npm ci"`), an argv as its JSON already
 * is (`["make","check"]`), not quoted again.
 */
function shownHook(described: string): string {
  try {
    const v: unknown = JSON.parse(described);
    if (Array.isArray(v) && v.every((w) => typeof w === "string")) return described;
  } catch {}
  return quoteValue(described);
}

/** One line about a failed hook: `api: post-create hook "npm ci" exited 1` (or timed out). */
export function hookFailureLine(f: HookResult): string {
  const how =
    f.status === "timeout"
      ? `timed out after ${(f.durationMs / 1000).toFixed(1)} s`
      : f.status === "not-started"
        ? `could not start (${f.exit})`
        : `exited ${f.exit}`;
  return `${f.source}: ${f.event} hook ${shownHook(f.hook)} ${how}`;
}
