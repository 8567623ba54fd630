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
 * runRow(view); // ["20261202T110943Z-k3x9a2", "agent@chalk", "20261202T110943Z-q7w1e0", "exited",
 * //               "chalk", "4242", "0", "kept (dirty)", "claude -p fix"]
 * ```
 */
export function runRow(v: RunView): string[] {
  const r = v.record;
  return [
    r.runId,
    r.name ?? "-",
    r.group ?? "-",
    v.state,
    r.source ?? "-",
    String(r.child?.pid ?? "-"),
    v.exit ? String(v.exit.status) : "-",
    worktreeCell(r),
    r.argv.map(redactText).join(" "),
  ];
}

/**
 * Runs as a table on a TTY (with a header), tab-separated lines in a pipe. With `activity`
 * (`ariel-runs list`), an ACTIVITY column follows STATE.
 */
export function renderRunRows(
  views: readonly RunView[],
  tty: boolean,
  activity?: (v: RunView) => string | null,
): string {
  if (!activity) return renderRows(RUN_COLUMNS, views.map(runRow), tty);
  const at = RUN_COLUMNS.indexOf("STATE") + 1;
  const withActivity = (row: readonly string[], cell: string) => [
    ...row.slice(0, at),
    cell,
    ...row.slice(at),
  ];
  return renderRows(
    withActivity(RUN_COLUMNS, "ACTIVITY"),
    views.map((v) => withActivity(runRow(v), activity(v) ?? "-")),
    tty,
  );
}
