import { describe, expect, it } from "vitest";
import { actionOf, decodeKeys, KEYS } from "./keys.ts";

describe("decodeKeys", () => {
  it.each([
    ["letters", "jkq", ["j", "k", "q"]],
    ["arrows (normal and application mode)", "\x1b[A\x1b[B\x1bOC\x1b[D", ["up", "down", "right", "left"]],
    ["page keys and home/end", "\x1b[5~\x1b[6~\x1b[H\x1b[F", ["pageup", "pagedown", "home", "end"]],
    ["Enter, Tab, Backspace, Space", "\r\t\x7f ", ["enter", "tab", "backspace", "space"]],
    ["control keys", "\x03\x15", ["ctrl-c", "ctrl-u"]],
    ["a lone Escape", "\x1b", ["escape"]],
    ["Shift-Tab", "\x1b[Z", ["backtab"]],
    ["a modified arrow", "\x1b[1;5A", ["up"]],
    ["text beyond ASCII", "é漢", ["é", "漢"]],
  ])("%s", (_n, chunk, want) => expect(decodeKeys(chunk)).toEqual(want));
});

describe("actionOf", () => {
  it.each([
    ["k kills in the list", "k", "list", "kill"],
    ["k scrolls in the preview", "k", "preview", "up"],
    ["j moves down", "j", "list", "down"],
    ["Enter attaches", "enter", "list", "attach"],
    ["Ctrl-C quits", "ctrl-c", "list", "quit"],
    ["an unknown key does nothing", "z", "list", null],
  ] as const)("%s", (_n, key, focus, want) => expect(actionOf(key, focus)).toBe(want));

  it("no key is bound twice", () => {
    const keys = KEYS.flatMap((k) => k.keys);
    expect(new Set(keys).size).toBe(keys.length);
  });
});
