import { readFileSync } from "node:fs";
import { describe, expect, it } from "vitest";
import { COMMON_ERRORS, ROUTES, type RouteSpec } from "./routes.ts";

// The route table is what docs/fleet.md's API reference is made from (`npm run schema` writes it,
// `--check` compares): a route's method, path, summary, query or errors changed here and not
// there is caught here too, row by row.

const doc = readFileSync(new URL("../../../../docs/fleet.md", import.meta.url), "utf8");
const rows = doc.split("\n").filter((l) => l.startsWith("| "));
const cells = (line: string) =>
  line
    .slice(1, -1)
    .split(/(?<!\\)\|/)
    .map((c) => c.trim().replace(/\\\|/g, "|"));

describe("the route table", () => {
  it.each(ROUTES.map((r): [string, RouteSpec] => [`${r.method} ${r.path}`, r]))(
    "%s: its row in docs/fleet.md",
    (_, r) => {
      const path = `\`${r.path.replace(/:(\w+)/g, "{$1}")}\``;
      const row = rows.map(cells).find((c) => c[0] === r.method && c[1] === path);
      expect(row?.[2]).toBe(`${r.kind === "sse" ? "SSE: " : ""}${r.summary}`.replace(/\n/g, " "));
      const query = (r.query ?? [])
        .map((q) => `\`${q.split(":")[0]}\`:${q.slice(q.indexOf(":") + 1)}`)
        .join("; ");
      expect(row?.[3]).toBe(query);
      expect(row?.[4]).toBe(r.errors.join(", "));
    },
  );

  it("every route has its row, once; the statuses every route may answer are listed", () => {
    const apiRows = rows.map(cells).filter((c) => c[0] === "GET" || c[0] === "POST");
    expect(apiRows.length).toBe(ROUTES.length);
    for (const e of COMMON_ERRORS) {
      expect(rows.map(cells).some((c) => c[0] === String(e.status) && c[1] === e.when)).toBe(true);
    }
  });
});
