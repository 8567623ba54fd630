import { describe, expect, it } from "vitest";
import { isArielError } from "../errors.ts";
import { utf8Whole } from "./chunks.ts";
import { parseDetachKey, parseTtySize, splitAtDetachKey } from "./tty.ts";

function usage(fn: () => unknown): string {
  try {
    fn();
  } catch (e) {
    if (isArielError(e) && e.code === "ERR_USAGE") return e.message;
    throw e;
  }
  throw new Error("no error");
}

describe("parseTtySize", () => {
  it("reads COLSxROWS", () => {
    expect(parseTtySize("120x40")).toEqual({ cols: 120, rows: 40 });
    expect(parseTtySize(" 2x2 ")).toEqual({ cols: 2, rows: 2 });
    expect(parseTtySize("1000x1000")).toEqual({ cols: 1000, rows: 1000 });
  });

  it("refuses anything else with ERR_USAGE", () => {
    for (const bad of [
      "80",
      "80x",
      "x24",
      "80X24",
      "80x24x1",
      "1x24",
      "80x1",
      "1001x24",
      "80x1001",
      "-80x24",
      "8e1x24",
    ])
      expect(usage(() => parseTtySize(bad))).toBe(
        `--size: expected COLSxROWS such as 120x40, got ${JSON.stringify(bad)}`,
      );
  });
});

describe("parseDetachKey", () => {
  it("reads ctrl-X as its control byte, none as null", () => {
    expect(parseDetachKey("ctrl-]")).toBe(0x1d);
    expect(parseDetachKey("ctrl-q")).toBe(0x11);
    expect(parseDetachKey("Ctrl-A")).toBe(0x01);
    expect(parseDetachKey("^\\")).toBe(0x1c);
    expect(parseDetachKey("none")).toBeNull();
  });

  it("reads around blanks", () => {
    expect(parseDetachKey(" ctrl-q\n")).toBe(0x11);
  });

  it("refuses anything else with ERR_USAGE", () => {
    for (const bad of ["q", "ctrl-", "ctrl-qq", "alt-q", "ctrl-1", "xctrl-q"])
      expect(usage(() => parseDetachKey(bad))).toBe(
        `--detach-key: expected ctrl-X or none, got ${JSON.stringify(bad)}`,
      );
  });
});

it.each<[string, () => unknown, string]>([
  ["--size", () => parseTtySize("0x0"), "both sides from 2 to 1000, e.g. --size 120x40"],
  [
    "--detach-key",
    () => parseDetachKey("alt-q"),
    "e.g. --detach-key ctrl-] (the default) or --detach-key ctrl-q",
  ],
])("a bad %s says what would do", (_flag, fn, hint) => {
  expect(fn).toThrow(expect.objectContaining({ code: "ERR_USAGE", hint }));
});

describe("splitAtDetachKey", () => {
  const bytes = (...b: number[]) => new Uint8Array(b);
  it("keeps the keys before the detach key and drops the rest", () => {
    expect(splitAtDetachKey(bytes(0x61, 0x1d, 0x62), 0x1d)).toEqual({ keys: bytes(0x61), detach: true });
    expect(splitAtDetachKey(bytes(0x1d), 0x1d)).toEqual({ keys: bytes(), detach: true });
  });

  it("passes everything on without the key, or with none", () => {
    expect(splitAtDetachKey(bytes(0x61, 0x03), 0x1d)).toEqual({ keys: bytes(0x61, 0x03), detach: false });
    expect(splitAtDetachKey(bytes(0x1d, 0x61), null)).toEqual({ keys: bytes(0x1d, 0x61), detach: false });
  });
});

describe("utf8Whole", () => {
  it("leaves out a character cut at the end, keeps whole ones", () => {
    const enc = (s: string) => new TextEncoder().encode(s);
    const spinner = enc("a⠋"); // 1 + 3 bytes
    expect(utf8Whole(spinner)).toBe(4);
    expect(utf8Whole(spinner.subarray(0, 3))).toBe(1);
    expect(utf8Whole(spinner.subarray(0, 2))).toBe(1);
    expect(utf8Whole(enc("é").subarray(0, 1))).toBe(0);
    expect(utf8Whole(enc("ok\n"))).toBe(3);
    expect(utf8Whole(enc("😀"))).toBe(4);
    expect(utf8Whole(enc("😀").subarray(0, 3))).toBe(0);
    expect(utf8Whole(new Uint8Array(0))).toBe(0);
  });
});
