import { describe, expect, it } from "vitest";
import { formatBytes } from "./size.ts";

describe("formatBytes", () => {
  it.each<[number, string]>([
    [0, "0 B"],
    [1, "1 B"],
    [1023, "1023 B"],
    [1024, "1 KiB"],
    [1536, "1.5 KiB"],
    [10 * 1024 - 1, "10 KiB"],
    [48213, "47 KiB"],
    [1024 * 1024 - 1, "1 MiB"],
    [5_000_000, "4.8 MiB"],
    [3 * 1024 ** 3, "3 GiB"],
    [2 * 1024 ** 6, "2048 PiB"],
  ])("%i → %j", (bytes, text) => {
    expect(formatBytes(bytes)).toBe(text);
  });

  it("refuses what is not a byte count", () => {
    expect(() => formatBytes(-1)).toThrow(RangeError);
    expect(() => formatBytes(Number.NaN)).toThrow(RangeError);
  });
});
