import { describe, expect, it } from "vitest";
import { initialAttention, onReport, onScreen } from "./arbiter.ts";

const waitingScreen = { activity: "waiting", reason: "pattern: \\(y/n\\)" } as const;
const busyScreen = { activity: "busy", reason: "output" } as const;

describe("attention: what the agent reports wins over its screen", () => {
  it("the screen decides while the agent has reported nothing", () => {
    const s = onScreen(initialAttention(0), waitingScreen, "Proceed? (y/n)", "all", 5);
    expect(s).toEqual({
      activity: "waiting",
      reason: "pattern: \\(y/n\\)",
      by: "screen",
      sinceMs: 5,
      reported: null,
    });
  });

  it("a report moves the run at once, and a screen that looks like a question does not undo it (covers all)", () => {
    let s = onReport(
      initialAttention(0),
      { activity: "busy", reason: "prompt submitted", atMs: 10 },
      "$",
      12,
    );
    expect(s).toMatchObject({ activity: "busy", by: "agent", reason: "prompt submitted", sinceMs: 0 });
    s = onScreen(s, waitingScreen, "Proceed? (y/n)", "all", 20);
    expect(s).toMatchObject({ activity: "busy", by: "agent" });
    s = onReport(
      s,
      { activity: "waiting", reason: "Claude needs your permission to use Bash", atMs: 30 },
      "x",
      31,
    );
    expect(s).toMatchObject({
      activity: "waiting",
      by: "agent",
      sinceMs: 31,
      reason: "Claude needs your permission to use Bash",
    });
  });

  it("a report older than the last one (hooks run in parallel) changes nothing", () => {
    const s = onReport(initialAttention(0), { activity: "waiting", reason: "asks", atMs: 50 }, null, 51);
    expect(onReport(s, { activity: "busy", reason: "late", atMs: 49 }, null, 52)).toBe(s);
  });

  it("the reason of the move stands: a second report of the same activity keeps it", () => {
    let s = onReport(
      initialAttention(0),
      { activity: "waiting", reason: "Claude needs your permission to use Bash", atMs: 1 },
      null,
      1,
    );
    s = onReport(s, { activity: "waiting", reason: "Claude needs your permission", atMs: 2 }, null, 2);
    expect(s).toMatchObject({
      activity: "waiting",
      reason: "Claude needs your permission to use Bash",
      sinceMs: 1,
    });
    expect(s.reported?.atMs).toBe(2);
  });

  it("covers turn-end (Codex): a report holds until the screen changes, then the screen decides again", () => {
    let s = onReport(initialAttention(0), { activity: "idle", reason: "turn complete", atMs: 10 }, "› ", 10);
    s = onScreen(s, busyScreen, "› ", "turn-end", 20);
    expect(s).toMatchObject({ activity: "idle", by: "agent" });
    s = onScreen(s, busyScreen, "› fix the tests", "turn-end", 30);
    expect(s).toEqual({ activity: "busy", reason: "output", by: "screen", sinceMs: 30, reported: null });
  });

  it("the screen keeps the reason of its own move while it says the same", () => {
    const s = onScreen(initialAttention(0), { activity: "busy", reason: "output" }, "a", null, 1);
    expect(s).toEqual({ activity: "busy", reason: "start", by: "screen", sinceMs: 0, reported: null });
  });
});
