import { isArielError } from "../../../errors.ts";
import { runWorktreeOutcome } from "../../../runs/kept.ts";
import type { ExitRecord, LegOutcome, RunRecord } from "../../../runs/record.ts";
import { exitState } from "../../../runs/state.ts";
import { hostPorts } from "../../ports.ts";
import { readRunSync, writeExitOnce } from "../../runs/store.ts";
import { worktreeIsolation } from "../../spawn/isolation.ts";
import { testPause } from "../../test-hooks.ts";
import { type Active, attempt, emit, failed, type Monitor, underRunLock, updateOwned } from "./context.ts";
import { runHook } from "./hook.ts";
import { sandboxHome } from "./sandbox.ts";
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
  // The sandbox's commits are on the task's branches before the end is: whoever waits for the
  // run finds them there.
  await sandboxHome(m, a, rec);
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
  await a.moves;
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

/** What became of one leg of an isolated run's worktrees, with its event's fields. */
interface LegSettled extends LegOutcome {
  fields: Record<string, unknown>;
}

/**
 * Settle an isolated run's worktrees (its `--on-exit` policy), every leg it works in (each leg
 * of the task with --span: a clean one removed, one with local work kept, each on its own): one
 * `worktree.*` event per leg, then `worktreeOutcome` in run.json (with each leg's for --span).
 */
async function finishWorktree(m: Monitor, rec: RunRecord): Promise<void> {
  const legs = rec.legs ?? [
    { source: rec.source ?? ".", worktree: rec.worktree ?? rec.cwd, branch: rec.branch ?? "" },
  ];
  const settled = await settleLegs(
    m,
    rec,
    legs.map((l) => l.source),
  );
  // The events first: whoever reads worktreeOutcome in run.json finds them in the history.
  for (const [i, leg] of settled.entries()) {
    await emit(m, rec.runId, `worktree.${leg.outcome}`, leg.source, {
      task: rec.task,
      worktree: legs[i]?.worktree ?? rec.worktree,
      branch: legs[i]?.branch ?? rec.branch,
      ...(leg.reason !== null ? { reason: leg.reason } : {}),
      ...leg.fields,
    });
  }
  const outcome = runWorktreeOutcome(settled, rec.source === null && legs.length > 1);
  await attempt(rec.runId, "run.json worktreeOutcome", () =>
    underRunLock(m, rec.runId, () => updateOwned(m, rec.runId, () => ({ worktreeOutcome: outcome }))),
  );
}

/**
 * Each leg through the isolation driver, one at a time: a leg it could not settle (an error, not
 * a refusal) is kept with its error, and the legs after it are still settled.
 */
async function settleLegs(m: Monitor, rec: RunRecord, sources: readonly string[]): Promise<LegSettled[]> {
  const out: LegSettled[] = [];
  for (const source of sources) {
    try {
      const [r] = await worktreeIsolation.finish(hostPorts(), {
        root: m.root,
        taskId: rec.task!,
        sources: [source],
        onExit: rec.isolate!.onExit,
        runId: rec.runId,
      });
      out.push({ source, outcome: r?.outcome ?? "kept", reason: r?.reason ?? null, fields: r?.fields ?? {} });
    } catch (e) {
      failed(rec.runId, "worktree settle", e);
      const reason = isArielError(e) ? e.code : "ERR_INTERNAL";
      out.push({ source, outcome: "kept", reason, fields: { message: (e as Error).message } });
    }
  }
  return out;
}
