/**
 * One line per item, in columns: name, where (source or task with its legs), activity or state,
 * duration, exit status, then the last line of output (for a waiting run: why it waits). Pure.
 */
import { fit, type Paint, printable, width } from "../text.ts";
import type { RunItem, TaskItem } from "./items.ts";

/**
 * A duration as the list shows it, coarse on purpose (a finer one would redraw every second):
 * `<1m`, `12m`, `3h05m`, `2d04h`.
 *
 * @example
 * ```ts
 * duration(30_000); // "<1m"
 * duration(3 * 3600_000 + 5 * 60_000); // "3h05m"
 * ```
 */
export function duration(ms: number): string {
  const m = Math.floor(Math.max(0, ms) / 60_000);
  if (m < 1) return "<1m";
  if (m < 60) return `${m}m`;
  const h = Math.floor(m / 60);
  if (h < 24) return `${h}h${String(m % 60).padStart(2, "0")}m`;
  return `${Math.floor(h / 24)}d${String(h % 24).padStart(2, "0")}h`;
}

/** When the text {@link duration} gives for a run that began at `startMs` next changes (ms from now). */
export function nextDurationChange(startMs: number, nowMs: number): number {
  const ms = nowMs - startMs;
  const unit = ms < 24 * 3600_000 ? 60_000 : 3600_000;
  return unit - (ms % unit);
}

/**
 * Optional fields a run record may carry, shown when present: each is one row here. `legs` (a
 * task's legs of a `--span` run), `sandbox` (a run started with `--sandbox`).
 */
export const RUN_TAGS: readonly { field: string; tag: (v: unknown) => string | null }[] = [
  {
    field: "sandbox",
    tag: (v) => (v ? ((v as { net?: string }).net === "none" ? "sandbox no-net" : "sandbox") : null),
  },
];

/** A run's "where": its task (with its legs when the run spans several), else its source(s). */
export function runWhere(r: RunItem["run"]): string {
  const legs = (r as { legs?: { source?: string }[] }).legs;
  if (r.task && Array.isArray(legs) && legs.length > 0) {
    return `${r.task}(${legs.map((l) => l.source ?? "?").join(",")})`;
  }
  if (r.task) return `${r.task}:${r.sources.join(",") || "."}`;
  return r.sources.join(",") || ".";
}

/** A run's status column: its activity while live, else its state and exit status. */
export function runStatus(r: RunItem["run"]): string {
  if (r.state === "running" || r.state === "starting") return r.activity ?? r.state;
  if (r.state === "exited" || r.state === "failed") return `${r.state} ${r.status ?? "?"}`;
  return r.state;
}

/** What the last column says: why a waiting run waits, else the last line of its output. */
export function runDetail(item: RunItem): string {
  const r = item.run;
  const tags = RUN_TAGS.flatMap((t) => {
    const v = (r as unknown as Record<string, unknown>)[t.field];
    const tag = v === undefined ? null : t.tag(v);
    return tag ? [`[${tag}]`] : [];
  });
  if (r.activity === "waiting" && item.attention?.to === "waiting") {
    const by = item.attention.source ? ` (${item.attention.source})` : "";
    // Why first: it is what a person reads the line for; the tags after it.
    return [`waiting${by}: ${item.attention.reason}`, ...tags].join(" ");
  }
  const tool = item.tool ? [`tool ${item.tool}`] : [];
  return [...tags, ...tool, r.lastLine ?? ""].filter((s) => s !== "").join(" ");
}

/** Column widths for `cols` columns: name, where, status, duration; the rest is the detail. */
function columns(cols: number): [number, number, number, number] {
  if (cols >= 120) return [22, 22, 12, 6];
  if (cols >= 90) return [18, 18, 11, 6];
  return [14, 14, 10, 5];
}

/** A run's line, `cols` wide (indented under its task at depth 1); `now` for its duration. */
export function runLine(item: RunItem, depth: number, cols: number, now: number, paint: Paint): string {
  const r = item.run;
  const [n, w, s, d] = columns(cols);
  const mark = item.fresh ? paint("waiting", "● ") : r.activity === "waiting" ? paint("yellow", "● ") : "  ";
  const indent = depth > 0 ? "  " : "";
  const start = Date.parse(r.startedAt ?? "") || now;
  const end = r.endedAt ? Date.parse(r.endedAt) : now;
  const status = runStatus(r);
  const statusStyle =
    r.activity === "waiting"
      ? "waiting"
      : r.state === "failed" || r.state === "lost" || r.state === "crashed"
        ? "red"
        : r.state === "running"
          ? "green"
          : "dim";
  const fixed = [
    mark,
    fit(indent + printable(r.name ?? r.runId), n),
    " ",
    fit(printable(runWhere(r)), w),
    " ",
    paint(statusStyle, fit(status, s)),
    " ",
    fit(duration(end - start), d),
    " ",
  ].join("");
  return fit(fixed + paint("dim", printable(runDetail(item))), cols);
}

/** A task's line: its id, its legs (source and state), how many runs work in it. */
export function taskLine(t: TaskItem, runs: number, cols: number, paint: Paint): string {
  const legs = t.legs.map((l) => (l.state === "active" ? l.source : `${l.source}(${l.state})`)).join(", ");
  const text = `${paint("magenta", "▸ ")}${paint("bold", `task ${printable(t.taskId)}`)}  ${printable(legs)}  ${paint("dim", `${runs} run${runs === 1 ? "" : "s"}${t.state === "active" ? "" : `, ${t.state}`}`)}`;
  return fit(text, cols);
}

/** `text` cut to `cols` with `…` when it does not fit (for titles); no room: nothing. */
export function ellipsis(text: string, cols: number): string {
  if (width(text) <= cols) return text;
  if (cols <= 0) return "";
  return `${fit(text, Math.max(0, cols - 1)).trimEnd()}…`;
}
