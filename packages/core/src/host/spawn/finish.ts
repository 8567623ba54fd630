import type { ArielError } from "../../errors.ts";
import { quoteValue } from "../../names.ts";
import type { Ports } from "../../ports.ts";
import type { SpawnUnit } from "../../spawn/plan.ts";
import type { KeptWorktree } from "../../spawn/summary.ts";
import { nextRemoveCommand } from "../../worktree/next_step.ts";
import type { Reporter } from "../cli/mod.ts";
import type { ProgressLine } from "../progress.ts";
import { warnWithHint } from "../warn.ts";
import type { EmitEvent } from "./execute.ts";
import type { IsolatedTask, IsolateRequest, IsolationDriver, WorktreeOutcome } from "./run.ts";

/** What {@link WorktreeFinisher} needs from the run. */
export interface FinisherOptions {
  ports: Ports;
  root: string;
  task: IsolatedTask;
  onExit: IsolateRequest["onExit"];
  driver: IsolationDriver;
  emit: EmitEvent;
  log: Reporter;
  progress: ProgressLine;
  /** `{ root }` when the next command must name the root with -C. */
  rootArg: { root?: string };
  /** The run's count of legs handed to the driver, shared by the finishers of its tasks (progress). */
  legs: { settled: number; total: number };
}

/**
 * The end of each isolated process: its legs are handed to the driver (removed, kept, or
 * snapshotted), each outcome becomes a `worktree.*` event, a refused leg a WARN_WORKTREE_KEPT
 * with the command that deals with it, and every kept leg is remembered for the summary line.
 * A task that existed before the run is only used: its legs end `worktree.kept` (`existing-task`).
 * Once the run's lease on the task is lost (ERR_FENCED), every leg is kept with that reason.
 */
export class WorktreeFinisher {
  readonly kept: KeptWorktree[] = [];
  readonly #o: FinisherOptions;

  constructor(options: FinisherOptions) {
    this.#o = options;
  }

  async finish(unit: SpawnUnit): Promise<void> {
    const { task } = this.#o;
    if (!task.created) {
      for (const source of unit.sources)
        this.#event("kept", { source, outcome: "kept", reason: "existing-task" });
      return;
    }
    for (const r of await this.#results(unit)) {
      this.#event(r.outcome, r);
      if (r.outcome !== "kept") continue;
      this.kept.push({ source: r.source, reason: r.reason ?? "keep", task: this.#o.task.taskId });
      if (r.reason !== "keep") this.#warnKept(r);
    }
  }

  /** The driver's outcomes; a driver that failed keeps every leg, with the error as the reason. */
  async #results(unit: SpawnUnit): Promise<WorktreeOutcome[]> {
    const { ports, root, task, onExit, driver, progress, log, legs } = this.#o;
    await log.flush(); // a message still queued must not land on the progress line
    try {
      return await driver.finish(ports, {
        root,
        taskId: task.taskId,
        sources: unit.sources,
        onExit,
        ...(task.lease ? { lease: task.lease } : {}),
        ...(task.noHooks ? { noHooks: true } : {}),
        onLeg: (source, action) =>
          progress.report({ index: ++legs.settled, total: legs.total, source, action }),
      });
    } catch (e) {
      const err = e as ArielError;
      return unit.sources.map((source) => ({
        source,
        outcome: "kept" as const,
        reason: err.code ?? "ERR_INTERNAL",
        fields: { message: err.message },
      }));
    } finally {
      progress.clear();
    }
  }

  #event(outcome: WorktreeOutcome["outcome"], r: WorktreeOutcome): void {
    const leg = this.#o.task.legs.get(r.source);
    this.#o.emit(`worktree.${outcome}`, r.source, {
      task: this.#o.task.taskId,
      worktree: leg?.worktree ?? null,
      branch: leg?.branch ?? null,
      ...(r.reason !== undefined ? { reason: r.reason } : {}),
      ...r.fields,
    });
  }

  /** WARN_WORKTREE_KEPT for a leg the driver refused to remove: why, and the next command. */
  #warnKept(r: WorktreeOutcome): void {
    const why = typeof r.fields?.message === "string" ? r.fields.message : r.reason;
    const next = nextRemoveCommand({
      task: this.#o.task.taskId,
      reasons: [r.reason ?? "keep"],
      sources: [r.source],
      ...this.#o.rootArg,
    });
    warnWithHint(this.#o.log, {
      code: "WARN_WORKTREE_KEPT",
      message: `kept the worktree of ${quoteValue(r.source)} (${r.reason}): ${why}`,
      hint: next,
      context: {
        source: r.source,
        worktree: this.#o.task.legs.get(r.source)?.worktree ?? null,
        reason: r.reason,
      },
    });
  }
}
