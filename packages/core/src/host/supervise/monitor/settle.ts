import { isArielError } from "../../../errors.ts";
import type { ExitRecord, RunRecord } from "../../../runs/record.ts";
import { exitState } from "../../../runs/state.ts";
import { hostPorts } from "../../ports.ts";
import { readRunSync, writeExitOnce } from "../../runs/store.ts";
import { worktreeIsolation } from "../../spawn/isolation.ts";
import { testPause } from "../../test-hooks.ts";
import { type Active, attempt, emit, failed, type Monitor, underRunLock, updateOwned } from "./context.ts";
import { runHook } from "./hook.ts";
import { settleOutput } from "./watch.ts";

/** How a run's child ended: its exit code or signal, and the status ariel reports for it. */
export interface ChildEnd {
  code: number | null;
  signal: string | null;
  status: number;
}

/** A run whose end is recorded: its record as the end was decided, and its exit. */
export interface RecordedEnd {
  rec: RunRecord;
  exit: ExitRecord;
}

/** Clear the run's timers: nothing of its child may signal or restart it any more. */
function clearTimers(a: Active): void {
  for (const t of a.timers) clearTimeout(t as ReturnType<typeof setTimeout>);
  a.timers.clear();
}

/**
 * Under the run's lock: `exit.json` (the first final state wins) and the end in `run.json`.
 * The run's timers go first: nothing of this child may signal or restart after its end.
 */
export async function recordEnd(
  m: Monitor,
  a: Active,
  rec: RunRecord,
  how: ChildEnd,
  reason: string | null,
): Promise<RecordedEnd> {
  clearTimers(a);
  const endedAt = new Date().toISOString();
  const ours: ExitRecord = {
    v: 1,
    type: "exit",
    runId: a.runId,
    code: how.code,
    signal: how.signal,
    status: how.status,
    endedAt,
    state: exitState(how.status, rec.kill !== null),
    reason: rec.kill?.reason ?? reason,
  };
  // A write that fails is logged and the end goes on (worktree, hook, run.finished) with ours.
  const exit = (await attempt(a.runId, "exit.json", () => writeExitOnce(m.root, ours))) ?? ours;
  await testPause("monitor:after-exit-json"); // a test kills the monitor here
  const { v: _v, type: _t, runId: _r, ...info } = exit;
  await attempt(a.runId, "run.json end", () =>
    updateOwned(m, a.runId, () => ({ exit: info, endedAt: exit.endedAt })),
  );
  return { rec, exit };
}

/** After the end is recorded: the worktree (isolated runs), the --on-exit hook, `run.finished`. */
export async function afterEnd(m: Monitor, a: Active, { rec, exit }: RecordedEnd): Promise<void> {
  await testPause("monitor:before-settle"); // a test holds the monitor here (exit.json, endedAt written)
  if (rec.isolate?.created && rec.task) {
    await finishWorktree(m, rec);
  }
  const hook = rec.onExit ? await runHook(m.root, rec, a.env, exit) : null;
  // The reports its hooks made as it ended are told; one that comes later is refused (counted).
  const reports = a.report;
  a.report = null;
  await reports?.chain;
  await emit(m, a.runId, "run.finished", null, {
    state: exit.state,
    status: exit.status,
    code: exit.code,
    signal: exit.signal,
    ...(hook ? { onExit: hook } : {}),
  });
  if (rec.notify) await m.ttys.notifyExit(rec, a.env, exit.status, exit.state);
}

/**
 * exit.json, then the final events; then the worktree (isolated runs) and the --on-exit hook.
 * Never throws: a run it cannot end (its lock or `run.json` unreadable) is said once as step
 * `end`, as when its child exits (`ended`), and is no longer supervised.
 */
export async function finish(m: Monitor, a: Active, how: ChildEnd, reason: string | null): Promise<void> {
  m.busy++;
  try {
    clearTimers(a);
    await settleOutput(m, a);
    await testPause("monitor:before-end"); // a test breaks the run's lock here
    const end = await underRunLock(m, a.runId, async () =>
      recordEnd(m, a, readRunSync(m.root, a.runId), how, reason),
    );
    await afterEnd(m, a, end);
  } catch (e) {
    failed(a.runId, "end", e);
  } finally {
    m.active.delete(a.runId);
    m.busy--;
    m.lastActivity = Date.now();
  }
}

/** What became of an isolated run's worktree. */
interface WorktreeOutcome {
  outcome: "removed" | "kept" | "snapshotted";
  reason: string | null;
  fields: Record<string, unknown>;
}

/** Settle an isolated run's worktree (its `--on-exit` policy): the event, then `worktreeOutcome`. */
async function finishWorktree(m: Monitor, rec: RunRecord): Promise<void> {
  let outcome: WorktreeOutcome;
  try {
    const [r] = await worktreeIsolation.finish(hostPorts(), {
      root: m.root,
      taskId: rec.task!,
      sources: [rec.source ?? "."],
      onExit: rec.isolate!.onExit,
      runId: rec.runId,
    });
    outcome = { outcome: r?.outcome ?? "kept", reason: r?.reason ?? null, fields: r?.fields ?? {} };
  } catch (e) {
    failed(rec.runId, "worktree settle", e);
    outcome = {
      outcome: "kept",
      reason: isArielError(e) ? e.code : "ERR_INTERNAL",
      fields: { message: (e as Error).message },
    };
  }
  // The event first: whoever reads worktreeOutcome in run.json finds the event in the history.
  await emit(m, rec.runId, `worktree.${outcome.outcome}`, rec.source, {
    task: rec.task,
    worktree: rec.worktree,
    branch: rec.branch,
    ...(outcome.reason !== null ? { reason: outcome.reason } : {}),
    ...outcome.fields,
  });
  await attempt(rec.runId, "run.json worktreeOutcome", () =>
    underRunLock(m, rec.runId, () =>
      updateOwned(m, rec.runId, () => ({
        worktreeOutcome: { outcome: outcome.outcome, reason: outcome.reason },
      })),
    ),
  );
}
