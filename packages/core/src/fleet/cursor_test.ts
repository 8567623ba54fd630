import { describe, expect, it } from "vitest";
import {
  advanceCursor,
  advanceOutput,
  compareEvents,
  cursorAdmits,
  formatCursor,
  MAX_CURSOR_CHARS,
  parseCursor,
  pinRun,
  startCursor,
} from "./cursor.ts";

const W = "ae89cb2b620ea8fc";
const at = (s: number) => new Date(Date.UTC(2026, 11, 2, 11, 0, s)).toISOString();
const e = (runId: string, seq: number, s: number) => ({ ts: at(s), workspace: W, runId, seq });

describe("fleet cursor", () => {
  it("admits events at or after its start for runs it has not seen", () => {
    const c = startCursor(Date.parse(at(10)));
    expect(cursorAdmits(c, e("r1", 1, 9))).toBe(false);
    expect(cursorAdmits(c, e("r1", 1, 10))).toBe(true);
  });

  it("admits only later seqs of a run it has seen, whatever their time", () => {
    const c = advanceCursor(startCursor(Date.parse(at(10))), e("r1", 4, 11));
    expect(cursorAdmits(c, e("r1", 4, 12))).toBe(false);
    expect(cursorAdmits(c, e("r1", 5, 5))).toBe(true);
    expect(cursorAdmits(c, e("r2", 1, 12))).toBe(true);
  });

  it("round-trips through its text form", () => {
    let c = startCursor(Date.parse(at(0)));
    c = advanceCursor(advanceCursor(c, e("r1", 4, 1)), e("20261202T110943Z-k3x9a2", 12, 2));
    const text = formatCursor(c);
    expect(text).toBe(`${Date.parse(at(0)).toString(36)};${W}/r1:4;${W}/20261202T110943Z-k3x9a2:12`);
    expect(parseCursor(text)).toEqual(c);
  });

  it("holds a detached run's output offsets beside its history seq, and round-trips them", () => {
    let c = advanceCursor(startCursor(0), e("r1", 3, 1));
    c = advanceOutput(c, { workspace: W, runId: "r1" }, "stdout", 120);
    c = advanceOutput(c, { workspace: W, runId: "r2" }, "stderr", 7);
    const text = formatCursor(c);
    expect(text).toBe(`0;${W}/r1:3.120.0;${W}/r2:0.0.7`);
    expect(parseCursor(text)).toEqual(c);
    expect(c.seen.get(`${W}/r1`)).toEqual({ seq: 3, stdout: 120, stderr: 0 });
    // A history event of r2 is new after its output: its seq is still 0.
    expect(cursorAdmits(c, e("r2", 1, 0))).toBe(true);
  });

  it("pins a run it has no entry for, and keeps an entry it has", () => {
    const c = advanceCursor(startCursor(0), e("r1", 3, 1));
    const at = { seq: 2, stdout: 40, stderr: 0 };
    expect(formatCursor(pinRun(c, { workspace: W, runId: "r2" }, at))).toBe(`0;${W}/r1:3;${W}/r2:2.40.0`);
    expect(pinRun(c, { workspace: W, runId: "r1" }, at)).toBe(c);
  });

  it("does not change the cursor it advances", () => {
    const c = startCursor(0);
    advanceCursor(c, e("r1", 1, 1));
    expect(c.seen.size).toBe(0);
  });

  it.each([
    ["empty", ""],
    ["not base36", "ZZ"],
    ["a path in the key", "0;ae89cb2b620ea8fc/../x:1"],
    ["a short hash", "0;ae89/r1:1"],
    ["no seq", "0;ae89cb2b620ea8fc/r1"],
    ["a negative seq", "0;ae89cb2b620ea8fc/r1:-1"],
    ["one output offset", "0;ae89cb2b620ea8fc/r1:1.5"],
    ["an empty output offset", "0;ae89cb2b620ea8fc/r1:1..5"],
    ["too long", `0;${"ae89cb2b620ea8fc/r1:1;".repeat(2000)}`],
    ["a capital in its start", "1Z"],
    ["a capital before its start", "Z1"],
    ["a start of 13 characters", "1234567890123"],
  ])("rejects %s", (_n, text) => {
    expect(parseCursor(text)).toBeNull();
  });

  it("reads a stderr offset of several digits", () => {
    expect(parseCursor(`0;${W}/r1:1.2.34`)?.seen.get(`${W}/r1`)).toEqual({ seq: 1, stdout: 2, stderr: 34 });
  });

  it(`takes back a cursor of ${MAX_CURSOR_CHARS} characters, not one more`, () => {
    const cursorOf = (length: number) => {
      let text = "0";
      for (let i = 0; text.length + 100 < length; i++) text += `;${W}/r${i}:1`;
      return `${text};${W}/${"x".repeat(length - text.length - 20)}:1`;
    };
    const text = cursorOf(MAX_CURSOR_CHARS);
    expect(text.length).toBe(MAX_CURSOR_CHARS);
    expect(formatCursor(parseCursor(text)!)).toBe(text);
    expect(parseCursor(cursorOf(MAX_CURSOR_CHARS + 1))).toBeNull();
  });

  it("orders by time, workspace, run, seq", () => {
    const list = [e("b", 1, 2), e("a", 2, 1), e("a", 1, 1), e("b", 0, 1)];
    expect(list.sort(compareEvents).map((x) => `${x.runId}${x.seq}`)).toEqual(["a1", "a2", "b0", "b1"]);
  });

  it("orders events of the same time by workspace, then run, then seq", () => {
    const x = { ts: at(1), workspace: "aaaaaaaaaaaaaaaa", runId: "r2", seq: 9 };
    const y = { ...x, workspace: W, runId: "r1", seq: 1 };
    const z = { ...x, runId: "r3", seq: 1 };
    const w = { ...x, seq: 6 };
    expect([compareEvents(x, y), compareEvents(y, x)]).toEqual([-1, 1]);
    expect([compareEvents(x, z), compareEvents(z, x)]).toEqual([-1, 1]);
    expect([compareEvents(w, x), compareEvents(x, w)]).toEqual([-3, 3]);
  });
});
