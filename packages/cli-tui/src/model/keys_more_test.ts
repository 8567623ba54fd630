/**
 * More of keys.ts: the escape sequences and control characters keys_test.ts leaves out, where an
 * escape sequence may start, characters beyond the first plane, and `k` as the only key the
 * preview reads differently.
 */
import { describe, expect, it } from "vitest";
import { actionOf, decodeKeys } from "./keys.ts";

describe("decodeKeys: more sequences and control characters", () => {
  // Pinned: each chunk decodes to exactly these key names, in order.
  it.each([
    ["home and end as VT numbers", "\x1b[1~\x1b[4~", ["home", "end"]],
    ["Delete", "\x1b[3~", ["delete"]],
    ["an unknown CSI sequence (Insert) is one unknown key", "\x1b[2~x", ["unknown", "x"]],
    ["a line feed is Enter, like a carriage return", "\n\r", ["enter", "enter"]],
    ["Ctrl-H is Backspace, like DEL", "\b\x7f", ["backspace", "backspace"]],
    ["other control characters are ctrl-<letter>", "\x01\x1a\x0b", ["ctrl-a", "ctrl-z", "ctrl-k"]],
    ["a modifier with two digits", "\x1b[1;10A\x1b[1;13D", ["up", "left"]],
    ["only a leading 1;N is a modifier", "\x1b[11;5~", ["unknown"]],
    ["a lone Escape then text then an arrow", "\x1bx\x1b[A", ["escape", "x", "up"]],
    ["an Escape, a bracket and a letter written apart", "\x1b ab", ["escape", "space", "a", "b"]],
    ["a character beyond the first plane is one key", "😀a", ["😀", "a"]],
    ["U+FFFF is one unit wide", "\uffffa", ["\uffff", "a"]],
  ])("%s", (_n, chunk, want) => expect(decodeKeys(chunk)).toEqual(want));
});

describe("actionOf: the preview reads only k differently", () => {
  // Pinned: the exact action (or null) for each key in each focus.
  it.each([
    ["j", "preview", "down"],
    ["q", "preview", "quit"],
    ["K", "preview", "up"],
    ["enter", "preview", "attach"],
    ["z", "preview", null],
    ["k", "list", "kill"],
    ["K", "list", "up"],
    ["space", "list", "pageDown"],
    ["pageup", "list", "pageUp"],
    ["tab", "list", "focus"],
    ["?", "list", "help"],
    ["x", "list", "remove"],
    ["R", "list", "resume"],
    ["r", "list", "respawn"],
  ] as const)("%s in the %s: %s", (key, focus, want) => expect(actionOf(key, focus)).toBe(want));
});
