import { describe, expect, it } from "vitest";
import { LAST_LINE_MAX, lastLine } from "./last_line.ts";

describe("lastLine", () => {
  it.each([
    ["the last non-blank line", "one\ntwo\n\n  \n", "two"],
    ["a last line without its newline", "one\ntwo", "two"],
    ["what a carriage return overwrote is gone", "building\n 40%\r 80%\r100%\r\n", "100%"],
    ["a CRLF line", "first\r\nsecond\r\n", "second"],
    ["colours and OSC titles removed", "\x1b]0;title\x07\x1b[1;32mok\x1b[0m done\n", "ok done"],
    ["an OSC ended by ST removed", "\x1b]2;title\x1b\\ok\n", "ok"],
    ["an OSC never ended removed", "ok\n\x1b]0;half a title", "ok"],
    ["a CSI with an intermediate byte removed", "\x1b[2 qok\n", "ok"],
    ["other escapes removed", "a\x1b7b\x1b(Bc\n", "abc"],
    ["an escape cut short removed", "ab\x1b(\n", "ab"],
    ["blanks after a carriage return overwrite nothing", "done\r   \n", "done"],
    ["a backspace at the start erases nothing", "\bab\bc\n", "ac"],
    ["backspaces applied", "abx\bc\n", "abc"],
    ["other control characters dropped, a tab a space", "a\x00b\x07c\tz\n", "abc z"],
    [
      "credentials in URLs redacted",
      "push https://user:s3cret@example.com/r.git\n",
      "push https://example.com/r.git",
    ],
    ["nothing but blanks and escapes", "\x1b[2J\x1b[H\n  \n", null],
    ["empty", "", null],
  ])("%s", (_name, text, want) => {
    expect(lastLine(text)).toBe(want);
  });

  it.each(["1A", "2B", "E", "F", "2;1H", "2;1f", "3d"])("on a terminal, CSI %s starts a line", (move) => {
    expect(lastLine(`one\x1b[${move}two`, { tty: true })).toBe("two");
  });

  it.each(["3C", "K", "1m"])("on a terminal, CSI %s stays on the line", (move) => {
    expect(lastLine(`one\x1b[${move}two`, { tty: true })).toBe("onetwo");
  });

  it("on a terminal, a cursor move to another row starts a line", () => {
    expect(lastLine("$ echo hi\x1b[2;1Hhi\x1b[3;1H$ ", { tty: true })).toBe("$");
    expect(lastLine("row one\x1b[5;1Hrow five\x1b[K", { tty: true })).toBe("row five");
    // without tty the moves only go
    expect(lastLine("row one\x1b[5;1Hrow five")).toBe("row onerow five");
  });

  it(`cuts a long line to ${LAST_LINE_MAX} characters, with an ellipsis, never inside a character`, () => {
    const got = lastLine(`${"x".repeat(5000)}\n`);
    expect(got).toBe(`${"x".repeat(LAST_LINE_MAX - 1)}…`);
    // a character of two UTF-16 units across the cut goes whole
    expect(lastLine(`${"x".repeat(LAST_LINE_MAX - 2)}😀😀`)).toBe(`${"x".repeat(LAST_LINE_MAX - 2)}…`);
    expect(lastLine(`😀${"x".repeat(LAST_LINE_MAX)}`)).toBe(`😀${"x".repeat(LAST_LINE_MAX - 3)}…`);
    expect(lastLine("y".repeat(LAST_LINE_MAX))).toBe("y".repeat(LAST_LINE_MAX));
  });
});
