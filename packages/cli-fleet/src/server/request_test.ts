import { formatCursor, startCursor } from "@ariel/core";
import { Hono } from "hono";
import { describe, expect, it } from "vitest";
import { fleetCursorOf, runCursorOf } from "./request.ts";

// Where a stream starts: `?from=`, else the `Last-Event-ID` a reconnecting EventSource sends.

const app = new Hono();
app.get("/run", (c) => c.json(runCursorOf(c, true)));
app.get("/run-query-only", (c) => c.json(runCursorOf(c, false)));
app.get("/fleet", (c) => c.json(formatCursor(fleetCursorOf(c, Date.UTC(2026, 11, 5)))));

const get = async (path: string, lastEventId?: string) => {
  const res = await app.request(
    path,
    lastEventId === undefined ? {} : { headers: { "last-event-id": lastEventId } },
  );
  return res.json();
};

describe("runCursorOf", () => {
  it("?from= wins; else Last-Event-ID; an empty ?from= counts as none", async () => {
    expect(await get("/run?from=7", "3")).toEqual({ seq: 7, stdout: 0, stderr: 0 });
    expect(await get("/run", "3.10.20")).toEqual({ seq: 3, stdout: 10, stderr: 20 });
    expect(await get("/run?from=", "3")).toEqual({ seq: 3, stdout: 0, stderr: 0 });
    expect(await get("/run?from=")).toEqual({ seq: 0, stdout: 0, stderr: 0 });
    expect(await get("/run-query-only", "3")).toEqual({ seq: 0, stdout: 0, stderr: 0 });
  });
});

describe("fleetCursorOf", () => {
  it("?from= wins; else Last-Event-ID; an empty ?from= counts as none; else now", async () => {
    const later = formatCursor(startCursor(Date.UTC(2026, 11, 5, 1)));
    const earlier = formatCursor(startCursor(Date.UTC(2026, 11, 4)));
    expect(await get(`/fleet?from=${encodeURIComponent(later)}`, earlier)).toBe(later);
    expect(await get("/fleet", earlier)).toBe(earlier);
    expect(await get("/fleet?from=", earlier)).toBe(earlier);
    expect(await get("/fleet?from=")).toBe(formatCursor(startCursor(Date.UTC(2026, 11, 5))));
  });
});
