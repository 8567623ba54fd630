import { readFileSync } from "node:fs";
import { describe, expect, it } from "vitest";
import { apiReferenceIsCurrent } from "../../../../scripts/fleet-api-table.ts";
import { COMMON_ERRORS, ROUTES } from "./routes.ts";

// The route table is what docs/fleet.md's API reference is made from (`npm run schema`): a route,
// a summary, a query parameter or an error status changed here and not there is caught here too.

describe("the route table", () => {
  it("is what docs/fleet.md's API reference says", () => {
    const doc = readFileSync(new URL("../../../../docs/fleet.md", import.meta.url), "utf8");
    expect(apiReferenceIsCurrent(doc)).toBe(true);
  });

  it("names each route once, by method and path", () => {
    const keys = ROUTES.map((r) => `${r.method} ${r.path}`);
    expect(new Set(keys).size).toBe(keys.length);
    expect(new Set(ROUTES.map((r) => r.name)).size).toBe(ROUTES.length);
    expect(COMMON_ERRORS.map((e) => e.status)).toEqual([...COMMON_ERRORS.map((e) => e.status)].sort());
  });
});
