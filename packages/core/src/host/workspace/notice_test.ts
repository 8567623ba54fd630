import { describe, expect, it } from "vitest";
import { noteShadowedCheckout } from "./notice.ts";

/** The notes `noteShadowedCheckout` gives, one call after another in this process. */
function notes(calls: [terminal: boolean, root: string, shadows: string | undefined][]): string[] {
  const said: string[] = [];
  const log = { info: (m: string) => said.push(m) };
  for (const [terminal, root, shadows] of calls) {
    noteShadowedCheckout(log, shadows === undefined ? { root } : { root, shadows }, terminal);
  }
  return said;
}

describe("noteShadowedCheckout: an ancestor's .ariel/ won over the checkout holding the cwd", () => {
  it.each<[string, [boolean, string, string | undefined][], string[]]>([
    ["no checkout shadowed: nothing", [[true, "/n1", undefined]], []],
    ["not on a terminal: nothing", [[false, "/n2", "/n2/app"]], []],
    [
      "on a terminal: one note naming both and the -C that picks the checkout",
      [[true, "/n3", "/n3/my app"]],
      [
        `note: workspace root "/n3" (it has .ariel/), not the checkout "/n3/my app" holding the cwd; -C '/n3/my app' to use the checkout`,
      ],
    ],
    [
      "once per checkout and process; another checkout gets its own",
      [
        [true, "/n4", "/n4/a"],
        [true, "/n4", "/n4/a"],
        [true, "/n4", "/n4/b"],
      ],
      [
        `note: workspace root "/n4" (it has .ariel/), not the checkout "/n4/a" holding the cwd; -C /n4/a to use the checkout`,
        `note: workspace root "/n4" (it has .ariel/), not the checkout "/n4/b" holding the cwd; -C /n4/b to use the checkout`,
      ],
    ],
    [
      "a call off the terminal does not use up the note",
      [
        [false, "/n5", "/n5/a"],
        [true, "/n5", "/n5/a"],
      ],
      [
        `note: workspace root "/n5" (it has .ariel/), not the checkout "/n5/a" holding the cwd; -C /n5/a to use the checkout`,
      ],
    ],
  ])("%s", (_name, calls, expected) => {
    expect(notes(calls)).toEqual(expected);
  });
});
