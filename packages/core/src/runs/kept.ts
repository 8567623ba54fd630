import { nextRemoveCommand } from "../worktree/next_step.ts";
import type { LegOutcome, RunRecord, WorktreeOutcomeRecord } from "./record.ts";

/** A worktree a detached isolated run left for the user, and the command that deals with it. */
export interface KeptRunWorktree {
  task: string;
  /** The leg kept (the first one kept, for a run over several legs). */
  source: string;
  /** A run over several legs (`--span`): every leg it kept, in the task's order. */
  sources?: string[];
  /** Why it was kept: a refusal reason (`dirty`, ...), `keep` (asked for), or an error code; several joined by ", ". */
  reason: string;
  /** `ariel-worktree remove --task T --source S [--snapshot]`: removes it without losing work. */
  next: string;
}

type KeptFields = Pick<RunRecord, "task" | "source" | "worktreeOutcome"> & Partial<Pick<RunRecord, "legs">>;

/**
 * The legs an ended isolated run kept, each with why: its own leg, or each kept leg of a
 * `--span` run (`worktreeOutcome.legs`).
 */
function keptLegs(r: KeptFields): { source: string; reason: string }[] {
  const o = r.worktreeOutcome;
  if (o?.outcome !== "kept" || r.task === null) return [];
  if (o.legs)
    return o.legs
      .filter((l) => l.outcome === "kept")
      .map((l) => ({ source: l.source, reason: l.reason ?? "keep" }));
  return [{ source: r.source ?? ".", reason: o.reason ?? "keep" }];
}

/**
 * What an ended isolated run left behind: its leg (or, for a `--span` run, each leg it kept),
 * kept (dirty, asked for, or not removable), with the next command; null when the run was not
 * isolated or its worktrees were removed or snapshotted. The command names the run's own legs
 * only, so it never touches a leg another run works in; `root` adds `-C ROOT` (when the cwd
 * would not find the workspace).
 *
 * @example
 * ```ts
 * keptWorktree({ task: "t1", source: "chalk", worktreeOutcome: { outcome: "kept", reason: "dirty" } });
 * // { task: "t1", source: "chalk", reason: "dirty",
 * //   next: "ariel-worktree remove --task t1 --source chalk --snapshot" }
 * ```
 */
export function keptWorktree(r: KeptFields, root?: string): KeptRunWorktree | null {
  const legs = keptLegs(r);
  const first = legs[0];
  if (first === undefined || r.task === null) return null;
  const reasons = [...new Set(legs.map((l) => l.reason))];
  const next = nextRemoveCommand({
    task: r.task,
    reasons,
    sources: legs.map((l) => l.source),
    ...(root !== undefined ? { root } : {}),
  });
  return {
    task: r.task,
    source: first.source,
    ...(r.worktreeOutcome?.legs ? { sources: legs.map((l) => l.source) } : {}),
    reason: reasons.join(", "),
    next,
  };
}

/** A run as {@link supersededKept} sees it: where it works, what it kept, when it began, whether it is live. */
export type LegUser = KeptFields & Pick<RunRecord, "runId" | "createdAt"> & { live: boolean };

/**
 * The runs whose kept worktree is no longer theirs to report: every leg they kept is worked in
 * now by a live run (of the same task and source: a respawn, a run started in the task), or was
 * kept again by a run that began later (which reports it). So a kept worktree is named once, by
 * the newest run that kept it, and never while a run works in it (its next command would remove
 * a worktree in use).
 *
 * @example
 * ```ts
 * const old = { runId: "r1", createdAt: "2026-12-04T09:00:00.000Z", live: false, task: "t1",
 *   source: "api", worktreeOutcome: { outcome: "kept", reason: "dirty" } } as const;
 * supersededKept([old, { ...old, runId: "r2", createdAt: "2026-12-04T09:05:00.000Z",
 *   live: true, worktreeOutcome: undefined }]); // Set { "r1" }
 * ```
 */
export function supersededKept(runs: readonly LegUser[]): Set<string> {
  const byLeg = new Map<string, LegUser[]>();
  const key = (task: string, source: string) => `${task}\0${source}`;
  for (const r of runs) {
    if (r.task === null) continue;
    const sources = r.legs ? r.legs.map((l) => l.source) : [r.source ?? "."];
    for (const s of sources) byLeg.set(key(r.task, s), [...(byLeg.get(key(r.task, s)) ?? []), r]);
  }
  const out = new Set<string>();
  for (const r of runs) {
    const task = r.task;
    const legs = keptLegs(r);
    if (task === null || legs.length === 0) continue;
    const taken = (source: string) =>
      (byLeg.get(key(task, source)) ?? []).some(
        (o) =>
          o.runId !== r.runId &&
          (o.live || (o.createdAt > r.createdAt && keptLegs(o).some((l) => l.source === source))),
      );
    if (legs.every((l) => taken(l.source))) out.add(r.runId);
  }
  return out;
}

/**
 * How a run's worktree ended, in a word or two for a table cell: `kept (dirty)`, `removed`,
 * `snapshotted`, `-` when the run was not isolated or has not settled it yet. A `--span` run
 * that kept some legs names them: `kept web (dirty)`.
 *
 * @example
 * ```ts
 * worktreeCell({ task: "t1", source: "api", worktreeOutcome: { outcome: "kept", reason: "dirty" } });
 * // "kept (dirty)"
 * ```
 */
export function worktreeCell(r: KeptFields): string {
  const kept = keptWorktree(r);
  if (kept?.sources) return `kept ${kept.sources.join(",")} (${kept.reason})`;
  if (kept) return `kept (${kept.reason})`;
  return r.worktreeOutcome?.outcome ?? "-";
}

/**
 * Where a run works, for the TASK cell of a run row: `<task>:<leg>,<leg>` for an isolated run
 * (every leg of a `--span` run), the source for a run in its checkout, `-` when neither is known.
 *
 * @example
 * ```ts
 * taskCell({ task: "login", source: null, legs: [{ source: "api", worktree: "/w/a", branch: "b" },
 *   { source: "web", worktree: "/w/b", branch: "b" }] }); // "login:api,web"
 * taskCell({ task: null, source: "api" }); // "api"
 * ```
 */
export function taskCell(r: Pick<RunRecord, "task" | "source"> & Partial<Pick<RunRecord, "legs">>): string {
  if (r.task === null) return r.source ?? "-";
  const legs = r.legs ? r.legs.map((l) => l.source) : r.source !== null ? [r.source] : [];
  return legs.length > 0 ? `${r.task}:${legs.join(",")}` : r.task;
}

/**
 * An isolated run's `worktreeOutcome` from its legs' outcomes: `kept` when any leg was (with the
 * first kept leg's reason), else `snapshotted` when any was, else `removed`; `perLeg` (a `--span`
 * run) adds each leg's own.
 *
 * @example
 * ```ts
 * runWorktreeOutcome([{ source: "api", outcome: "removed", reason: null },
 *   { source: "web", outcome: "kept", reason: "dirty" }], true);
 * // { outcome: "kept", reason: "dirty", legs: [{ source: "api", outcome: "removed", reason: null },
 * //   { source: "web", outcome: "kept", reason: "dirty" }] }
 * ```
 */
export function runWorktreeOutcome(legs: readonly LegOutcome[], perLeg: boolean): WorktreeOutcomeRecord {
  const kept = legs.find((l) => l.outcome === "kept");
  const outcome = kept ? "kept" : legs.some((l) => l.outcome === "snapshotted") ? "snapshotted" : "removed";
  return {
    outcome,
    reason: kept?.reason ?? null,
    ...(perLeg
      ? { legs: legs.map((l) => ({ source: l.source, outcome: l.outcome, reason: l.reason })) }
      : {}),
  };
}
