import { describe, expect, it } from "vitest";
import { initialState, scrollTo } from "./state.ts";

describe("initialState", () => {
  // The list focused, nothing selected, at the top, following the preview, no filter or message.
  it("is the list at rest", () =>
    expect(initialState()).toEqual({
      focus: "list",
      selected: null,
      scroll: 0,
      previewBack: 0,
      filter: "",
      mode: { kind: "list" },
      message: null,
    }));
  it("is a new object each time", () => {
    const a = initialState();
    a.mode = { kind: "help" };
    expect(initialState().mode).toEqual({ kind: "list" });
  });
});

describe("scrollTo", () => {
  // The scroll that shows row `index` in `height` rows, moved as little as it must.
  it.each([
    ["no rows: the top", 5, 7, 0, 0],
    ["fewer than no rows: the top", 5, 3, -1, 0],
    ["above the window: it starts there", 5, 3, 4, 3],
    ["the first row shown: no move", 5, 5, 4, 5],
    ["inside: no move", 2, 3, 4, 2],
    ["the last row shown: no move", 2, 5, 4, 2],
    ["just below: one row down", 0, 4, 4, 1],
    ["far below: it ends there", 0, 9, 4, 6],
    ["one row high", 3, 8, 1, 8],
  ])("%s", (_n, scroll, index, height, want) => expect(scrollTo(scroll, index, height)).toBe(want));
});
