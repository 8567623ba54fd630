import { describe, expect, it } from "vitest";
import { escapeCell, renderRows } from "./table.ts";

describe("renderRows", () => {
  it("pipes: one tab-separated line per row, no header, cells escaped", () => {
    expect(
      renderRows(
        ["NAME", "SIZE"],
        [
          ["a", "1"],
          ["b\tc", "x\ny"],
        ],
        false,
      ),
    ).toBe("a\t1\nb\\tc\tx\\ny\n");
    expect(renderRows(["NAME"], [], false)).toBe("");
  });

  it("terminals: a header, columns two spaces apart, the last column not padded", () => {
    expect(
      renderRows(
        ["NAME", "STATE"],
        [
          ["a", "kept"],
          ["bbbbbb", "gone"],
        ],
        true,
      ),
    ).toBe("NAME    STATE\na       kept\nbbbbbb  gone\n");
  });

  it("right-aligns the columns asked for, and trims trailing blanks", () => {
    expect(
      renderRows(
        ["NAME", "SIZE", "NOTE"],
        [
          ["a", "1 KiB", ""],
          ["bb", "10 MiB", "x"],
        ],
        true,
        ["left", "right"],
      ),
    ).toBe("NAME    SIZE  NOTE\na      1 KiB\nbb    10 MiB  x\n");
  });

  it("widths count escaped cells and a header longer than every cell", () => {
    expect(renderRows(["LONGHEADER", "B"], [["a\tb", "c"]], true)).toBe("LONGHEADER  B\na\\tb        c\n");
  });

  it("a row shorter than the header leaves the missing cells out", () => {
    expect(renderRows(["A", "B", "C"], [["x"]], true)).toBe("A  B  C\nx\n");
  });
});

describe("escapeCell", () => {
  it("escapes backslash, tab, newline and carriage return, and nothing else", () => {
    expect(escapeCell("a\\b\tc\nd\re f")).toBe("a\\\\b\\tc\\nd\\re f");
    expect(escapeCell("plain: ü ✓")).toBe("plain: ü ✓");
  });
});
