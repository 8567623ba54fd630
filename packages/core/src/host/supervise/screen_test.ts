import { describe, expect, it } from "vitest";
import { Screen } from "./screen.ts";

async function styled(bytes: string, cols: number, rows = 1, colour = true): Promise<string[]> {
  const s = await Screen.open({ cols: 20, rows: 3 });
  s.write(new TextEncoder().encode(bytes));
  await s.flush();
  const out = s.styledLines(cols, rows, colour);
  s.dispose();
  return out;
}

describe("Screen.styledLines", () => {
  it.each([
    ["plain text, cut to the width", "hello world", 5, ["hello"]],
    ["a 16-colour foreground, reset after", "\x1b[31mred\x1b[0m ok", 6, ["\x1b[0;31mred\x1b[0m ok"]],
    [
      "bright, bold and 256 colours",
      "\x1b[1;92mA\x1b[0;38;5;200mB",
      2,
      ["\x1b[0;1;92mA\x1b[0;38;5;200mB\x1b[0m"],
    ],
    ["RGB background and inverse", "\x1b[7;48;2;1;2;3mX", 1, ["\x1b[0;7;48;2;1;2;3mX\x1b[0m"]],
    ["a wide character that does not fit is left out", "ab漢", 3, ["ab"]],
    ["a wide character that fits", "a漢b", 3, ["a漢"]],
  ])("%s", async (_name, bytes, cols, want) => {
    expect(await styled(bytes, cols)).toEqual(want);
  });

  it("without colour: the text alone; rows past the screen are not made up", async () => {
    expect(await styled("\x1b[31mred\x1b[0m\r\nnext", 10, 5, false)).toEqual([
      "red       ".slice(0, 10),
      "next      ",
      "          ",
    ]);
  });
});
