import { describe, expect, it } from "vitest";
import { codePointWidth, fit, painter, plain, printable, STYLES, type StyleName, width } from "./text.ts";

/** Each range's first and last code point, and the one on either side of it. */
const WIDTHS: [string, number, number][] = [
  ["NUL", 0x00, 0],
  ["the last C0 control", 0x1f, 0],
  ["space", 0x20, 1],
  ["tilde", 0x7e, 1],
  ["DEL", 0x7f, 0],
  ["the last C1 control", 0x9f, 0],
  ["no-break space", 0xa0, 1],
  ["before the combining marks", 0x2ff, 1],
  ["the first combining mark", 0x300, 0],
  ["the last combining mark", 0x36f, 0],
  ["after the combining marks", 0x370, 1],
  ["before zero width space", 0x200a, 1],
  ["zero width space", 0x200b, 0],
  ["right-to-left mark", 0x200f, 0],
  ["hyphen", 0x2010, 1],
  ["before the variation selectors", 0xfdff, 1],
  ["the first variation selector", 0xfe00, 0],
  ["the last variation selector", 0xfe0f, 0],
  ["after the variation selectors", 0xfe10, 1],
  ["before Hangul Jamo", 0x10ff, 1],
  ["the first Hangul Jamo", 0x1100, 2],
  ["the last wide Hangul Jamo", 0x115f, 2],
  ["after the wide Hangul Jamo", 0x1160, 1],
  ["before CJK radicals", 0x2e7f, 1],
  ["the first CJK radical", 0x2e80, 2],
  ["a CJK ideograph", 0x6f22, 2],
  ["the last Yi radical", 0xa4cf, 2],
  ["after Yi", 0xa4d0, 1],
  ["before Hangul syllables", 0xabff, 1],
  ["the first Hangul syllable", 0xac00, 2],
  ["the last Hangul syllable", 0xd7a3, 2],
  ["after Hangul syllables", 0xd7a4, 1],
  ["before CJK compatibility", 0xf8ff, 1],
  ["the first CJK compatibility ideograph", 0xf900, 2],
  ["the last CJK compatibility ideograph", 0xfaff, 2],
  ["after CJK compatibility", 0xfb00, 1],
  ["before CJK compatibility forms", 0xfe2f, 1],
  ["the first CJK compatibility form", 0xfe30, 2],
  ["the last CJK compatibility form", 0xfe4f, 2],
  ["after CJK compatibility forms", 0xfe50, 1],
  ["before fullwidth forms", 0xfeff, 1],
  ["the first fullwidth form", 0xff00, 2],
  ["the last wide fullwidth form", 0xff60, 2],
  ["a halfwidth form", 0xff61, 1],
  ["before fullwidth signs", 0xffdf, 1],
  ["the first fullwidth sign", 0xffe0, 2],
  ["the last fullwidth sign", 0xffe6, 2],
  ["after fullwidth signs", 0xffe7, 1],
  ["before the emoji", 0x1f2ff, 1],
  ["the first emoji block", 0x1f300, 2],
  ["the last emoji block", 0x1faff, 2],
  ["after the emoji", 0x1fb00, 1],
  ["before the supplementary ideographs", 0x1ffff, 1],
  ["the first supplementary ideograph", 0x20000, 2],
  ["the last supplementary ideograph", 0x3fffd, 2],
  ["after the supplementary ideographs", 0x3fffe, 1],
];

describe("codePointWidth", () => {
  // 0 for controls, combining marks, zero-width and variation selectors; 2 for wide ranges.
  it.each(WIDTHS)("%s (code point %d): %d columns", (_n, cp, want) => expect(codePointWidth(cp)).toBe(want));
});

describe("printable", () => {
  // CSI sequences of every byte range go whole; C0 controls and DEL go; a tab is two spaces.
  it.each([
    ["plain text is kept", "hello é 漢", "hello é 漢"],
    ["an SGR sequence", "a\x1b[1;31mb\x1b[0mc", "abc"],
    ["a private sequence (parameter bytes up to ?)", "a\x1b[?25lb", "ab"],
    ["a sequence without parameters", "a\x1b[Kb", "ab"],
    ["an intermediate space and a final @", "a\x1b[2 @b", "ab"],
    ["an intermediate / and a final ~", "a\x1b[9/~b", "ab"],
    ["parameters 0 to ?", "a\x1b[0:;<=>?mb", "ab"],
    ["a lone escape", "a\x1bb", "ab"],
    ["NUL and backspace", "a\x00\x08b", "ab"],
    ["newline, vertical tab, carriage return", "a\n\x0b\rb", "ab"],
    ["the last C0 control and DEL", "a\x1f\x7fb", "ab"],
    ["space, tilde and a C1 control are kept", " ~\x80", " ~\x80"],
    ["a tab is two spaces", "a\tb", "a  b"],
    ["two tabs", "\t\t", "    "],
  ])("%s", (_n, s, want) => expect(printable(s)).toBe(want));
});

describe("width", () => {
  // The columns a string takes: SGR sequences none, wide characters two, astral ones one code point.
  it.each([
    ["empty", "", 0],
    ["ASCII", "abc", 3],
    ["an SGR sequence alone", "\x1b[0m", 0],
    ["an SGR reset without parameters", "\x1b[m", 0],
    ["SGR sequences inside the text", "a\x1b[1;31mb\x1b[9mc", 3],
    ["a CSI that is not SGR counts its bytes", "\x1b[K", 2],
    ["wide characters", "漢字", 4],
    ["an emoji (a surrogate pair)", "😀", 2],
    ["an astral character that is narrow", "𐀀x", 2],
    ["U+FFFF is one code unit", "\uffffab", 3],
    ["a combining mark", "e\u0301", 1],
    ["control characters", "a\x07b", 2],
  ])("%s", (_n, s, want) => expect(width(s)).toBe(want));
});

describe("fit", () => {
  // Exactly `cols` columns: cut, padded, a wide character at the edge a space; a reset after style.
  it.each([
    ["cut", "hello", 3, "hel"],
    ["padded", "ab", 4, "ab  "],
    ["exactly as wide", "abc", 3, "abc"],
    ["nothing into nothing", "", 0, ""],
    ["empty padded", "", 2, "  "],
    ["cut to nothing", "ab", 0, ""],
    ["a negative width is nothing", "ab", -1, ""],
    ["nothing in a negative width", "", -1, ""],
    ["a wide character across the edge is a space", "a漢b", 2, "a "],
    ["a wide character that fits", "a漢b", 3, "a漢"],
    ["wide characters padded", "漢字", 5, "漢字 "],
    ["a wide character straddling after one", "漢字", 3, "漢 "],
    ["a combining mark stays with its letter", "e\u0301x", 1, "e\u0301"],
    ["a surrogate pair kept whole", "a😀b", 4, "a😀b"],
    ["a surrogate pair across the edge", "😀😀", 3, "😀 "],
    ["U+FFFF is one code unit", "\uffffab", 2, "\uffffa"],
    ["a style ends with a reset", "\x1b[31mab\x1b[0m", 1, "\x1b[31ma\x1b[0m"],
    ["a style padded, then reset", "\x1b[1mab", 4, "\x1b[1mab  \x1b[0m"],
    ["a style in the middle", "a\x1b[2mbc", 2, "a\x1b[2mb\x1b[0m"],
    ["a style after the cut is not reached", "ab\x1b[1m", 1, "a"],
    ["a CSI that is not SGR is text", "\x1b[Kx", 4, "\x1b[Kx "],
  ])("%s", (_n, s, cols, want) => expect(fit(s, cols)).toBe(want));
});

describe("painter", () => {
  const names = Object.keys(STYLES) as StyleName[];
  // Every style's SGR parameters, as the UI relies on them.
  it("the styles' parameters", () =>
    expect(STYLES).toEqual({
      bold: "1",
      dim: "2",
      inverse: "7",
      underline: "4",
      red: "31",
      green: "32",
      yellow: "33",
      blue: "34",
      magenta: "35",
      cyan: "36",
      header: "1;36",
      selected: "7",
      waiting: "1;33",
    }));
  it.each(names)("with colour, %s is its SGR sequence then a reset", (s) =>
    expect(painter(true)(s, "x")).toBe(`\x1b[${STYLES[s]}mx\x1b[0m`),
  );
  it.each([
    ["bold", "\x1b[1mx\x1b[0m"],
    ["inverse", "\x1b[7mx\x1b[0m"],
    ["underline", "\x1b[4mx\x1b[0m"],
    ["selected", "\x1b[7mx\x1b[0m"],
    ["dim", "x"],
    ["red", "x"],
    ["green", "x"],
    ["yellow", "x"],
    ["blue", "x"],
    ["magenta", "x"],
    ["cyan", "x"],
    ["header", "x"],
    ["waiting", "x"],
  ] as [StyleName, string][])("without colour, %s: %j", (s, want) =>
    expect(painter(false)(s, "x")).toBe(want),
  );
  it("nothing painted is nothing, with colour or without", () => {
    expect(painter(true)("red", "")).toBe("");
    expect(painter(false)("bold", "")).toBe("");
  });
});

describe("plain", () => {
  // Every SGR sequence goes; other sequences and text stay.
  it.each([
    ["SGR sequences", "\x1b[1;36ma\x1b[0mb\x1b[m", "ab"],
    ["digits 0 to 9 and ;", "\x1b[0;9mx", "x"],
    ["another CSI stays", "\x1b[?25lx", "\x1b[?25lx"],
    ["text stays", "a b\tc", "a b\tc"],
  ])("%s", (_n, s, want) => expect(plain(s)).toBe(want));
});
