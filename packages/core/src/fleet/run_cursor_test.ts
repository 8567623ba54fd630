import { describe, expect, it } from "vitest";
import { eachMaps } from "../testing/cases.ts";
import { formatRunCursor, parseRunCursor, RUN_CURSOR_START } from "./run_cursor.ts";

describe("run cursor", () => {
  eachMaps(
    parseRunCursor,
    [
      ["7", { seq: 7, stdout: 0, stderr: 0 }],
      ["3.120.5", { seq: 3, stdout: 120, stderr: 5 }],
      ["12.0.34", { seq: 12, stdout: 0, stderr: 34 }],
      ["1.999999999999999.999999999999999", { seq: 1, stdout: 999999999999999, stderr: 999999999999999 }],
      ["999999999999999", { seq: 999999999999999, stdout: 0, stderr: 0 }],
      ["", null],
      ["x7", null],
      ["7x", null],
      ["-1", null],
      ["3.120", null],
      ["3..5", null],
      ["3.1.2.4", null],
      ["1000000000000000", null],
      ["1.1000000000000000.0", null],
    ],
    "parses %j as %j",
  );

  it("starts before every line", () => {
    expect(RUN_CURSOR_START).toEqual({ seq: 0, stdout: 0, stderr: 0 });
  });

  it("writes the offsets for a detached run only", () => {
    const c = { seq: 3, stdout: 120, stderr: 7 };
    expect([formatRunCursor(c, true), formatRunCursor(c, false)]).toEqual(["3.120.7", "3"]);
    expect(parseRunCursor(formatRunCursor(c, true))).toEqual(c);
  });
});
