import { describe, expect, it } from "vitest";
import {
  advanceCursor,
  compareEvents,
  cursorAdmits,
  formatCursor,
  parseCursor,
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
    ["too long", `0;${"ae89cb2b620ea8fc/r1:1;".repeat(2000)}`],
  ])("rejects %s", (_n, text) => {
    expect(parseCursor(text)).toBeNull();
  });

  it("orders by time, workspace, run, seq", () => {
    const list = [e("b", 1, 2), e("a", 2, 1), e("a", 1, 1), e("b", 0, 1)];
    expect(list.sort(compareEvents).map((x) => `${x.runId}${x.seq}`)).toEqual(["a1", "a2", "b0", "b1"]);
  });
});
