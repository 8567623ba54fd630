import { redactText } from "../../fingerprint.ts";
import { serializeRecord } from "../../ndjson.ts";
import type { RunView } from "../../runs/backend.ts";
import { taskCell, worktreeCell } from "../../runs/kept.ts";
import type { TextSink } from "../output.ts";
import { renderRows } from "../table.ts";
import type { RunAttentionNow } from "./activity.ts";

/**
 * The columns of a run row, in the one order `ariel-spawn --detach`, `ariel-runs list` and `wait`
 * print. A new column is added at the end, so the field numbers a pipeline reads (`cut -f6`)
 * never change (decision 0107).
 */
export const RUN_COLUMNS = [
  "RUN",
  "NAME",
  "GROUP",
  "STATE",
  "ACTIVITY",
  "SOURCE",
  "PID",
  "EXIT",
  "WORKTREE",
  "COMMAND",
  "TASK",
  "SANDBOX",
] as const;

/** A run's SANDBOX cell: `net` or `no-net` when it runs in a sandbox (docs/sandbox.md), else `-`. */
export function sandboxCell(r: { sandbox?: { net: string } | null }): string {
  if (!r.sandbox) return "-";
  return r.sandbox.net === "none" ? "no-net" : "net";
}

/**
 * One run as a row of {@link RUN_COLUMNS}: `-` for what it has not (yet), the command redacted.
 *
 * @example
 * ```ts
 * runRow(view); // ["20261202T110943Z-k3x9a2", "agent@chalk", "20261202T110943Z-q7w1e0", "exited", "-",
 * //               "chalk", "4242", "0", "kept (dirty)", "claude -p fix", "chalk-3k9x2a:chalk", "net"]
 * ```
 */
export function runRow(v: RunView, activity = "-"): string[] {
  const r = v.record;
  return [
    r.runId,
    r.name ?? "-",
    r.group ?? "-",
    v.state,
    activity,
    r.source ?? "-",
    String(r.child?.pid ?? "-"),
    v.exit ? String(v.exit.status) : "-",
    worktreeCell(r),
    r.argv.map(redactText).join(" "),
    taskCell(r),
    sandboxCell(r),
  ];
}

/**
 * Runs as a table on a TTY (with a header), tab-separated lines in a pipe; ACTIVITY is what
 * `activity` says of a run (`ariel-runs list`), else `-`.
 */
export function renderRunRows(
  views: readonly RunView[],
  tty: boolean,
  activity?: (v: RunView) => string | null,
): string {
  return renderRows(
    RUN_COLUMNS,
    views.map((v) => runRow(v, activity?.(v) ?? "-")),
    tty,
  );
}

/** The `run` record printed on stdout: run.json's fields with the state derived now. */
export function runRecordOut(view: {
  record: Record<string, unknown> | object;
  state: string;
  exit: unknown;
}): Record<string, unknown> {
  const { v: _1, type: _2, ...rest } = view.record as Record<string, unknown>;
  if (Array.isArray(rest.argv)) rest.argv = rest.argv.map((a) => redactText(String(a)));
  return { v: 1, type: "run", ...rest, state: view.state };
}

/** How {@link writeRuns} prints: records or rows, and what it says of each run's activity. */
export interface WriteRunsOptions {
  json: boolean;
  /** stdout is a terminal: rows as a table with a header. */
  tty: boolean;
  activity?: (v: RunView) => string | null;
  /** A live run's attention (activity.ts): with --json, its `attention` and `reported` fields too. */
  attention?: (v: RunView) => RunAttentionNow | null;
}

/**
 * Runs on stdout, one per line, as `ariel-runs list`, `wait` and `ariel-spawn --detach` print
 * them: a `run` record each with --json (with its `activity`, `attention` and `reported` when
 * known), else rows of
 * {@link RUN_COLUMNS} (nothing at all for no runs).
 *
 * @example
 * ```ts
 * writeRuns(ctx.out, views, { json: false, tty: false });
 * // "20261202T110943Z-k3x9a2	agent@chalk	20261202T110943Z-q7w1e0	running	-	chalk	4242	-	-	claude -p fix	chalk	-\n"
 * ```
 */
export function writeRuns(out: TextSink, views: readonly RunView[], o: WriteRunsOptions): void {
  const activity =
    o.activity ?? (o.attention ? (v: RunView) => o.attention?.(v)?.activity ?? null : undefined);
  if (o.json) {
    for (const v of views) {
      const a = activity?.(v) ?? null;
      const at = o.attention?.(v) ?? null;
      const rec = a === null ? runRecordOut(v) : { ...runRecordOut(v), activity: a };
      out.write(
        `${serializeRecord(at ? { ...rec, attention: at.attention, reported: at.reported } : rec)}\n`,
      );
    }
    return;
  }
  if (views.length > 0) out.write(renderRunRows(views, o.tty, activity));
}
