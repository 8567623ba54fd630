/**
 * How ariel-discover prints sources: NDJSON records, a table for a person, tab-separated lines
 * for a pipe, or NUL-terminated paths (docs/contract.md).
 */
import type { Source } from "@ariel/core";
import { renderRows, type SourceStatus } from "@ariel/core/host";

/** A discovered source with its --status fields when they were asked for. */
export type Row = Source & Partial<SourceStatus>;

/** `{"v":1,"type":"source",…}` with the fields in the contract's order. */
export function sourceRecord(row: Row, withStatus: boolean): Record<string, unknown> {
  const rec: Record<string, unknown> = {
    v: 1,
    type: "source",
    name: row.name,
    path: row.path,
    kind: row.kind,
    gitDir: row.gitDir,
    head: row.head,
    branch: row.branch,
  };
  if (withStatus && row.fingerprint !== undefined) {
    rec.dirty = row.dirty;
    rec.ahead = row.ahead;
    rec.behind = row.behind;
    rec.upstream = row.upstream;
    rec.fingerprint = row.fingerprint;
  }
  return rec;
}

export function renderJson(rows: readonly Row[], withStatus: boolean): string {
  let s = "";
  for (const r of rows) s += `${JSON.stringify(sourceRecord(r, withStatus))}\n`;
  return s;
}

export function renderNul(rows: readonly Row[]): string {
  let s = "";
  for (const r of rows) s += `${r.path}\0`;
  return s;
}

const num = (n: number | null | undefined) => (n === null || n === undefined ? "-" : String(n));
const dirty = (d: boolean | undefined) => (d === undefined ? "-" : d ? "dirty" : "clean");

/**
 * Tab-separated lines (`name kind branch head path [dirty ahead behind]`, `-` for null) when
 * piped; an aligned table with a header and short heads on a TTY.
 */
export function renderText(rows: readonly Row[], withStatus: boolean, tty: boolean): string {
  const header = ["NAME", "KIND", "BRANCH", "HEAD", "PATH"];
  if (withStatus) header.splice(4, 0, "DIRTY", "AHEAD", "BEHIND");
  const cells = rows.map((r) => {
    const branch = r.branch ?? (tty ? "(detached)" : "-");
    const head = r.head === null ? (tty ? "(unborn)" : "-") : tty ? r.head.slice(0, 7) : r.head;
    const line = [r.name, r.kind, branch, head];
    if (withStatus && tty) line.push(dirty(r.dirty), num(r.ahead), num(r.behind));
    line.push(r.path);
    if (withStatus && !tty) line.push(dirty(r.dirty), num(r.ahead), num(r.behind));
    return line;
  });
  return renderRows(header, cells, tty);
}
