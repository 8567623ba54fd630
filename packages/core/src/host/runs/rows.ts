import { redactText } from "../../fingerprint.ts";
import type { RunView } from "../../runs/backend.ts";
import { worktreeCell } from "../../runs/kept.ts";
import { renderRows } from "../table.ts";

/** The columns of a run row, in the one order `ariel-spawn --detach`, `ariel-runs list` and `wait` print. */
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
] as const;

/**
 * One run as a row of {@link RUN_COLUMNS}: `-` for what it has not (yet), the command redacted.
 *
 * @example
 * ```ts
 * runRow(view); // ["20261202T110943Z-k3x9a2", "agent@chalk", "20261202T110943Z-q7w1e0", "exited", "-",
 * //               "chalk", "4242", "0", "kept (dirty)", "claude -p fix"]
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
