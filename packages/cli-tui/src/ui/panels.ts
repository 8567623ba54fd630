/**
 * What a key does in a panel that takes text or scrolls: a line edited, a pager scrolled (by
 * line, page, or to the next file of a diff), the new-run form moved, filled, completed, toggled.
 * Pure but for the panel's own state, which the key changes; the answer says whether the panel
 * closes or asks for something (the form's request, once it is whole).
 */
import { complete, completeLast, FIELDS, type NewRunRequest, requestOf, toggles } from "../model/form.ts";
import { wrap } from "./draw.ts";
import type { Mode } from "./state.ts";

type Pager = Extract<Mode, { kind: "pager" }>;
type Form = Extract<Mode, { kind: "form" }>;

/**
 * A line edited by one key: a printable character added, Backspace, Ctrl-U clears.
 *
 * @example
 * ```ts
 * edit("ab", "backspace"); // "a"
 * edit("ab", "space"); // "ab "
 * ```
 */
export function edit(text: string, key: string): string {
  if (key === "backspace") return [...text].slice(0, -1).join("");
  if (key === "ctrl-u") return "";
  if (key === "space") return `${text} `;
  if ([...key].length === 1) return text + key;
  return text;
}

/** A pager's key: "close", or null after scrolling (`height` rows shown, `cols` wide). */
export function pagerKey(m: Pager, key: string, cols: number, height: number): "close" | null {
  const lines = wrap(m.lines, cols);
  const page = Math.max(1, height - 2);
  const max = Math.max(0, lines.length - page);
  const files = lines.flatMap((l, i) => (l.startsWith("diff --git") || l.startsWith("── ") ? [i] : []));
  if (key === "q" || key === "escape" || key === "enter") return "close";
  if (key === "down" || key === "j") m.scroll = Math.min(max, m.scroll + 1);
  else if (key === "up" || key === "k" || key === "K") m.scroll = Math.max(0, m.scroll - 1);
  else if (key === "pagedown" || key === "space") m.scroll = Math.min(max, m.scroll + page);
  else if (key === "pageup") m.scroll = Math.max(0, m.scroll - page);
  else if (key === "]") m.scroll = Math.min(max, files.find((i) => i > m.scroll) ?? m.scroll);
  else if (key === "[") m.scroll = [...files].reverse().find((i) => i < m.scroll) ?? 0;
  return null;
}

/**
 * The new-run form's key: ↑/↓ (Shift-Tab) move between rows; Tab completes the field's name
 * (a source, a task, an agent) or, with nothing to add, moves on; Space toggles a toggle row;
 * typing fills a field; Enter asks to start (or says what is missing); Esc closes.
 */
export function formKey(m: Form, key: string): "close" | { start: NewRunRequest } | null {
  const f = m.form;
  const rows = FIELDS.length + toggles().length;
  const field = FIELDS[f.row];
  f.error = null;
  if (key === "escape") return "close";
  if (key === "down") f.row = (f.row + 1) % rows;
  else if (key === "up" || key === "backtab") f.row = (f.row + rows - 1) % rows;
  else if (key === "tab") {
    const names = field ? m.complete[field] : undefined;
    const fill = field === "source" ? completeLast : complete;
    const done = field && names ? fill(f.values[field], names) : undefined;
    if (field && done !== undefined && done !== f.values[field]) f.values[field] = done;
    else f.row = (f.row + 1) % rows;
  } else if (key === "enter") {
    const req = requestOf(f);
    if ("error" in req) f.error = req.error;
    else return { start: req };
  } else if (field) f.values[field] = edit(f.values[field], key);
  else if (key === "space") {
    const t = toggles()[f.row - FIELDS.length];
    if (t) f.on = f.on.includes(t.id) ? f.on.filter((x) => x !== t.id) : [...f.on, t.id];
  }
  return null;
}
