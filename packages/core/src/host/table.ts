/** How a column is aligned in a human table. */
export type Align = "left" | "right";

/**
 * Render rows for a person (aligned columns with a header, on a TTY) or for a pipe (stable
 * tab-separated lines, no header). Tabs and newlines inside a cell are escaped so a line is
 * always one record. `align` right-aligns columns (sizes, counts) in the human table.
 *
 * @example
 * ```ts
 * renderRows(["NAME", "SIZE"], [["a", "1 KiB"], ["bb", "10 MiB"]], true, ["left", "right"]);
 * // "NAME    SIZE\na      1 KiB\nbb    10 MiB\n"
 * ```
 */
export function renderRows(
  header: readonly string[],
  rows: readonly (readonly string[])[],
  tty: boolean,
  align: readonly Align[] = [],
): string {
  if (!tty) return rows.map((r) => `${r.map(escapeCell).join("\t")}\n`).join("");
  const all = [header, ...rows.map((r) => r.map(escapeCell))];
  const widths = header.map((_, i) => Math.max(...all.map((r) => (r[i] ?? "").length)));
  return all
    .map((r) =>
      r
        .map((c, i) => {
          if (align[i] === "right") return c.padStart(widths[i] ?? 0);
          return i === r.length - 1 ? c : c.padEnd(widths[i] ?? 0);
        })
        .join("  ")
        .trimEnd(),
    )
    .map((l) => `${l}\n`)
    .join("");
}

/** Escape `\`, tab, newline and carriage return in one cell of a tab-separated line. */
export function escapeCell(cell: string): string {
  return cell.replace(/[\\\t\n\r]/g, (c) =>
    c === "\\" ? "\\\\" : c === "\t" ? "\\t" : c === "\n" ? "\\n" : "\\r",
  );
}
