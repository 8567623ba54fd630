/**
 * A frame from the state: the title line, the list, the preview, the message and the keys; or a
 * panel (help, a question, a prompt, the form, a pager) in place of the list and preview. Pure:
 * rows of exactly `cols` columns, styled by `paint` (plain under NO_COLOR).
 */
import type { LegDiff } from "@ariel/core/host";
import { commandLine, FIELD_LABELS, FIELDS, toggles } from "../model/form.ts";
import { ellipsis, runLine, taskLine } from "../model/format.ts";
import { GROUP_TITLES, type Item, type Row } from "../model/items.ts";
import { KEYS } from "../model/keys.ts";
import { fit, type Paint, painter, printable } from "../text.ts";
import type { UiState } from "./state.ts";

/** What the preview shows, already read. */
export type PreviewView =
  | { kind: "screen"; lines: (cols: number, rows: number) => string[]; live: boolean }
  | { kind: "log"; lines: string[] }
  | { kind: "task"; legs: LegDiff[] }
  | { kind: "text"; lines: string[] };

export interface Frame {
  cols: number;
  rows: number;
  now: number;
  state: UiState;
  list: Row[];
  /** Runs per task (for a task's line). */
  taskRuns: (item: Item) => number;
  preview: PreviewView;
  workspaces: number;
  colour: boolean;
}

/** How the rows split: the list's height and the preview's. */
export function layout(rows: number): { list: number; preview: number } {
  const body = Math.max(2, rows - 4);
  const list = Math.max(1, Math.min(body - 1, Math.round(body * 0.45)));
  return { list, preview: body - list };
}

export function draw(f: Frame): string[] {
  const paint = painter(f.colour);
  const out: string[] = [title(f, paint)];
  const { list, preview } = layout(f.rows);
  const mode = f.state.mode;
  if (mode.kind === "list" || mode.kind === "filter" || mode.kind === "busy") {
    out.push(...listRows(f, list, paint));
    out.push(previewTitle(f, paint));
    out.push(...previewRows(f, preview, paint));
  } else out.push(...panel(f, list + preview + 1, paint));
  out.push(messageRow(f, paint), keysRow(f, paint));
  return out.slice(0, f.rows).map((r) => fit(r, f.cols));
}

function title(f: Frame, paint: Paint): string {
  const items = f.list.flatMap((r) => (r.kind === "item" ? [r] : []));
  const runs = items.filter((r) => r.item.kind === "run").length;
  // What needs you: as many as the Needs you group lists (a task and its runs, each a row).
  const header = f.list.find((r) => r.kind === "header" && r.group === "needs");
  const n = header?.kind === "header" ? header.count : 0;
  const ws = `${f.workspaces} workspace${f.workspaces === 1 ? "" : "s"}`;
  const filter = f.state.filter ? `  filter: ${f.state.filter}` : "";
  const text = ` ariel  ${runs} run${runs === 1 ? "" : "s"} · ${n} need${n === 1 ? "s" : ""} you · ${ws}${filter}`;
  return paint("inverse", fit(text, f.cols));
}

function listRows(f: Frame, height: number, paint: Paint): string[] {
  const plainPaint = painter(false);
  const rows: string[] = [];
  for (const row of f.list.slice(f.state.scroll, f.state.scroll + height)) {
    if (row.kind === "header") {
      const t = `${GROUP_TITLES[row.group]} (${row.count})`;
      rows.push(paint(row.group === "needs" && row.count > 0 ? "waiting" : "header", t));
    } else if (row.kind === "empty") rows.push(paint("dim", `  ${row.text}`));
    else {
      const selected = row.item.key === f.state.selected;
      const p = selected ? plainPaint : paint;
      const line =
        row.item.kind === "run"
          ? runLine(row.item, row.depth, f.cols, f.now, p)
          : taskLine(row.item, f.taskRuns(row.item), f.cols, p);
      rows.push(
        selected ? paint(f.state.focus === "list" ? "selected" : "underline", fit(line, f.cols)) : line,
      );
    }
  }
  while (rows.length < height) rows.push("");
  return rows;
}

function selectedItem(f: Frame): Item | null {
  for (const r of f.list) if (r.kind === "item" && r.item.key === f.state.selected) return r.item;
  return null;
}

function previewTitle(f: Frame, paint: Paint): string {
  const item = selectedItem(f);
  let what = "nothing selected";
  if (item?.kind === "run") {
    const r = item.run;
    const kind = r.tty ? (f.preview.kind === "screen" && f.preview.live ? "live screen" : "screen") : "log";
    const why =
      r.activity === "waiting" && item.attention?.reason ? ` — waiting: ${item.attention.reason}` : "";
    what = `${r.name ?? r.runId} · ${kind} · ${r.runId}${why}`;
  } else if (item?.kind === "task") what = `task ${item.taskId} · legs · ${item.workspace.root}`;
  const focus = f.state.focus === "preview" ? "▶ " : "";
  return paint(
    f.state.focus === "preview" ? "bold" : "dim",
    `── ${focus}${ellipsis(printable(what), f.cols - 8)} ${"─".repeat(f.cols)}`,
  );
}

function taskLines(legs: readonly LegDiff[], paint: Paint): string[] {
  const lines: string[] = [];
  for (const d of legs) {
    const n = (k: number, one: string) => `${k} ${one}${k === 1 ? "" : "s"}`;
    lines.push(
      `${paint("bold", d.source)}  ${d.branch}  ${n(d.commits.length, "commit")} ahead, ${n(d.files.length, "file")} changed, ${d.uncommitted.length} uncommitted${d.state === "active" ? "" : ` (${d.state})`}`,
    );
    for (const c of d.commits)
      lines.push(`  ${paint("yellow", c.commit.slice(0, 10))} ${printable(c.subject)}`);
    for (const file of d.files) {
      lines.push(
        `    ${file.status} ${printable(file.path)} ${paint("green", `+${file.added ?? "-"}`)} ${paint("red", `-${file.deleted ?? "-"}`)}`,
      );
    }
    for (const p of d.uncommitted) lines.push(`    ${paint("magenta", "uncommitted")} ${printable(p)}`);
  }
  if (lines.length === 0) lines.push("the task has no legs");
  return lines;
}

/** Every line the preview holds, its end last. */
function previewLines(f: Frame, paint: Paint): string[] {
  const p = f.preview;
  let lines: string[];
  if (p.kind === "screen") {
    const all = p.lines(f.cols, 500);
    let last = all.length - 1;
    while (last > 0 && all[last]!.replace(/\x1b\[[0-9;]*m/g, "").trim() === "") last--;
    lines = all.slice(0, last + 1);
  } else if (p.kind === "log") lines = p.lines.map(printable);
  else if (p.kind === "task") lines = taskLines(p.legs, paint);
  else lines = p.lines.map((l) => paint("dim", l));
  return lines;
}

/**
 * How far back the preview scrolls at most: until its first line is at the top (as `less`
 * stops), 0 when it all fits.
 */
export function previewBackMax(f: Frame): number {
  return Math.max(0, previewLines(f, painter(false)).length - layout(f.rows).preview);
}

function previewRows(f: Frame, height: number, paint: Paint): string[] {
  const lines = previewLines(f, paint);
  const back = Math.min(f.state.previewBack, Math.max(0, lines.length - height));
  const end = lines.length - back;
  const shown = lines.slice(Math.max(0, end - height), end);
  while (shown.length < height) shown.push("");
  return shown;
}

function panel(f: Frame, height: number, paint: Paint): string[] {
  const m = f.state.mode;
  let lines: string[] = [];
  if (m.kind === "help") {
    lines = [
      paint("header", "Keys"),
      ...KEYS.map((k) => `  ${fit(k.label, 12)} ${k.help}`),
      "",
      "  In a panel: Esc closes; y answers yes to a question, any other key no.",
      "  Attached: the detach key (Ctrl-] unless --detach-key) comes back to this list.",
    ];
  } else if (m.kind === "confirm") {
    lines = [
      paint("bold", m.title),
      "",
      ...m.lines.map((l) => `  ${l}`),
      "",
      `  ${paint("waiting", "y")} yes   any other key: no`,
    ];
  } else if (m.kind === "input") {
    lines = [
      paint("bold", m.title),
      "",
      `  > ${m.text}${paint("inverse", " ")}`,
      "",
      "  Enter sends (then Enter in the run), Esc cancels",
    ];
  } else if (m.kind === "form") lines = formLines(m, paint);
  else if (m.kind === "pager") {
    const all = wrap(m.lines, f.cols);
    const body = all.slice(m.scroll, m.scroll + height - 2);
    const where = `${Math.min(m.scroll + 1, all.length)}-${Math.min(m.scroll + height - 2, all.length)} of ${all.length}`;
    lines = [paint("bold", `${m.title}  ${paint("dim", where)}`), ...body.map((l) => colourDiff(l, paint))];
  }
  const out = lines.slice(0, height);
  while (out.length < height) out.push("");
  return out;
}

/** Lines cut into rows of `cols` columns (a long refusal or hint is read whole). */
export function wrap(lines: readonly string[], cols: number): string[] {
  const out: string[] = [];
  for (const line of lines) {
    const chars = [...printable(line)];
    if (chars.length <= cols) out.push(chars.join(""));
    else for (let i = 0; i < chars.length; i += cols) out.push(chars.slice(i, i + cols).join(""));
  }
  return out;
}

/** A diff line in the colours git uses. */
export function colourDiff(line: string, paint: Paint): string {
  const l = printable(line);
  if (l.startsWith("diff --git") || l.startsWith("commit ")) return paint("bold", l);
  if (l.startsWith("@@")) return paint("cyan", l);
  if (l.startsWith("+") && !l.startsWith("+++")) return paint("green", l);
  if (l.startsWith("-") && !l.startsWith("---")) return paint("red", l);
  return l;
}

function formLines(m: Extract<UiState["mode"], { kind: "form" }>, paint: Paint): string[] {
  const { form } = m;
  const lines = [paint("bold", m.title), ""];
  FIELDS.forEach((field, i) => {
    const here = form.row === i;
    const value = form.values[field];
    const hint = m.complete[field]?.length
      ? paint("dim", `  (Tab completes: ${m.complete[field]!.slice(0, 6).join(" ")})`)
      : "";
    lines.push(
      `${here ? paint("waiting", "▶") : " "} ${fit(FIELD_LABELS[field], 8)} ${value}${here ? paint("inverse", " ") : ""}${here ? hint : ""}`,
    );
  });
  toggles().forEach((t, j) => {
    const here = form.row === FIELDS.length + j;
    const on = form.on.includes(t.id);
    lines.push(
      `${here ? paint("waiting", "▶") : " "} [${on ? "x" : " "}] ${t.label}  ${paint("dim", t.flag)}`,
    );
  });
  lines.push("", paint("dim", `  ${commandLine(form) || "(name an agent or a command)"}`));
  if (form.error) lines.push(paint("red", `  ${form.error}`));
  lines.push("", "  ↑↓ move · type to fill · Space toggles · Enter starts · Esc cancels");
  return lines;
}

function messageRow(f: Frame, paint: Paint): string {
  const m = f.state.mode;
  if (m.kind === "filter")
    return `/${m.text}${paint("inverse", " ")}  ${paint("dim", "Enter keeps it, Esc clears")}`;
  if (m.kind === "busy") return paint("yellow", `${m.title}…`);
  if (!f.state.message) return "";
  return paint(f.state.message.ok ? "green" : "red", printable(f.state.message.text));
}

function keysRow(f: Frame, paint: Paint): string {
  const m = f.state.mode;
  if (m.kind === "pager")
    return paint("dim", " ↑↓ j K scroll · PgUp PgDn · ] [ next/previous file · q Esc close");
  if (m.kind !== "list") return paint("dim", " Esc closes");
  const keys = KEYS.filter((k) => k.status).map((k) => `${paint("bold", k.label)} ${k.status}`);
  return ` ${keys.join("  ")}`;
}
