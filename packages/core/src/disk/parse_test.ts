import { describe, expect, it } from "vitest";
import { eachMaps } from "../testing/cases.ts";
import { parseSize } from "./parse.ts";

describe("parseSize", () => {
  eachMaps(
    parseSize,
    [
      ["0", 0],
      ["512", 512],
      ["1K", 1024],
      ["1kb", 1024],
      ["1.5G", 1.5 * 1024 ** 3],
      ["1.25K", 1280],
      ["2GiB", 2 * 1024 ** 3],
      ["10 M", 10 * 1024 ** 2],
      ["1T", 1024 ** 4],
    ],
    "%s is %d bytes",
  );
  it.each(["", "-1", "1X", "G", "1.2.3", "1e9"])("refuses %j with ERR_USAGE", (text) => {
    expect(() => parseSize(text, "--min-free")).toThrow(
      expect.objectContaining({
        code: "ERR_USAGE",
        exit: 64,
        message: expect.stringContaining("--min-free"),
      }),
    );
  });
  it("names the flag, the value and the units it takes", () => {
    expect(() => parseSize("5X", "--keep-bytes")).toThrow(
      expect.objectContaining({
        message: '--keep-bytes: not a size: "5X"',
        hint: "write a byte count or a number with K, M, G or T (binary units), e.g. 512M or 5G",
        context: { value: "5X" },
      }),
    );
  });
  it("names the value a size when no flag is given", () => {
    expect(() => parseSize("big")).toThrow(expect.objectContaining({ message: 'size: not a size: "big"' }));
  });
});
