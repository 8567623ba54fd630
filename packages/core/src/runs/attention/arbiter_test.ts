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

  const ask = "Claude needs your permission to use Bash";
  const asks = "Claude needs your permission";

  it.each([
    ["the request read first, made first", [30, 31], [true, false]],
    ["the request read first, made last", [31, 30], [true, false]],
    ["the notification read first, made first", [30, 31], [false, true]],
    ["the notification read first, made last", [31, 30], [false, true]],
    ["both made in the same instant", [30, 30], [false, true]],
  ] as const)(
    "a permission request and its notification in one move (%s): the request's words",
    (_n, at, precise) => {
      let s = onReport(
        initialAttention(0),
        { activity: "busy", reason: "prompt submitted", atMs: 10 },
        null,
        10,
      );
      for (let i = 0; i < 2; i++) {
        const reason = precise[i] ? ask : asks;
        s = onReport(s, { activity: "waiting", reason, atMs: at[i]!, precise: precise[i]! }, null, 40 + i);
      }
      expect(s).toMatchObject({ activity: "waiting", by: "agent", reason: ask, sinceMs: 40 });
      expect(s.reported).toMatchObject({ atMs: Math.max(...at), beforeAtMs: 10, words: { precise: true } });
    },
  );

  it("of equally precise words in one move, the earliest report's, whichever came first", () => {
    let s = onReport(initialAttention(0), { activity: "waiting", reason: "second", atMs: 31 }, null, 40);
    s = onReport(s, { activity: "waiting", reason: "first", atMs: 30 }, null, 41);
    expect(s).toMatchObject({ reason: "first", reported: { atMs: 31, words: { atMs: 30 } } });
    expect(onReport(s, { activity: "waiting", reason: "third", atMs: 32 }, null, 42).reason).toBe("first");
  });

  it.each([
    ["a late report of another activity", "busy", 25, false],
    ["a late report of the same activity made before the last report of another", "waiting", 5, true],
    ["a late report of the same move, no more precise", "waiting", 35, false],
  ] as const)("%s changes nothing", (_name, activity, atMs, precise) => {
    let s = onReport(initialAttention(0), { activity: "waiting", reason: "first ask", atMs: 1 }, null, 1);
    s = onReport(s, { activity: "busy", reason: "answered", atMs: 10 }, null, 10);
    s = onReport(s, { activity: "waiting", reason: "asks again", atMs: 30 }, null, 30);
    s = onReport(s, { activity: "waiting", reason: "asks again, later", atMs: 40 }, null, 40);
    expect(onReport(s, { activity, reason: "late", atMs, precise }, null, 41)).toBe(s);
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
