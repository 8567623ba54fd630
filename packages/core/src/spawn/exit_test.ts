import { describe, expect, it } from "vitest";
import { eventRecord } from "./events.ts";
import { childStatus, summarize } from "./exit.ts";
import { makeRunId, RUN_ID_PATTERN } from "./run_id.ts";

describe("summarize", () => {
  it.each([
    [
      "one target passes its status through",
      [3],
      undefined,
      { targets: 1, succeeded: 0, failed: 1, skipped: 0, exit: 3 },
    ],
    [
      "one target killed by SIGKILL",
      [137],
      undefined,
      { targets: 1, succeeded: 0, failed: 1, skipped: 0, exit: 137 },
    ],
    ["several, all fine", [0, 0], undefined, { targets: 2, succeeded: 2, failed: 0, skipped: 0, exit: 0 }],
    [
      "several, one failed",
      [0, 3, null],
      undefined,
      { targets: 3, succeeded: 1, failed: 1, skipped: 1, exit: 1 },
    ],
    ["interrupted by SIGINT", [0, null], 2, { targets: 2, succeeded: 1, failed: 0, skipped: 1, exit: 130 }],
    ["interrupted by SIGTERM", [0], 15, { targets: 1, succeeded: 1, failed: 0, skipped: 0, exit: 143 }],
  ])("%s", (_name, statuses, interruptedBy, expected) => {
    const outcomes = statuses.map((status, i) => ({ source: `s${i}`, status }));
    expect(summarize(outcomes, { interruptedBy: interruptedBy ?? null })).toEqual(expected);
  });

  it.each([
    [0, null, 0],
    [3, null, 3],
    [null, 9, 137],
    [null, 15, 143],
    [null, null, 1],
  ])("childStatus(%s, %s) = %i", (code, sig, expected) => {
    expect(childStatus(code, sig)).toBe(expected);
  });
});

describe("run ids and events", () => {
  it("makes a sortable run id from the clock and random bytes", () => {
    const id = makeRunId(
      { now: () => Date.UTC(2026, 11, 2, 11, 9, 43) },
      { bytes: (n) => new Uint8Array(n).fill(37) },
    );
    expect(id).toBe("20261202T110943Z-111111");
    expect(id).toMatch(RUN_ID_PATTERN);
  });

  it("builds an event whose fixed fields cannot be overridden", () => {
    expect(
      eventRecord("r", 0, "process.exited", "api", { code: 0, signal: null, v: 9, source: "x" }),
    ).toEqual({
      v: 1,
      type: "event",
      event: "process.exited",
      runId: "r",
      ts: "1970-01-01T00:00:00.000Z",
      source: "api",
      code: 0,
      signal: null,
    });
  });
});

describe("RUN_ID_PATTERN", () => {
  it.each([
    ["20261202T110943Z-k3x9a2", true],
    ["x20261202T110943Z-k3x9a2", false],
    ["20261202T110943Z-k3x9a2x", false],
    ["20261202T110943Z-K3X9A2", false],
  ])("%j → %s", (id, expected) => {
    expect(RUN_ID_PATTERN.test(id)).toBe(expected);
  });
});
