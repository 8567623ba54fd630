import { describe, expect, it } from "vitest";
import { newForm } from "../model/form.ts";
import { edit, formKey, pagerKey } from "./panels.ts";
import type { Mode } from "./state.ts";

describe("edit", () => {
  it.each([
    ["a character", "ab", "c", "abc"],
    ["Backspace", "ab", "backspace", "a"],
    ["Backspace past a wide character", "a漢", "backspace", "a"],
    ["Space", "ab", "space", "ab "],
    ["Ctrl-U clears", "ab", "ctrl-u", ""],
    ["a named key types nothing", "ab", "left", "ab"],
  ])("%s", (_n, text, key, want) => expect(edit(text, key)).toBe(want));
});

describe("pagerKey", () => {
  const pager = (): Extract<Mode, { kind: "pager" }> => ({
    kind: "pager",
    title: "t",
    lines: [
      "── a",
      "diff --git a/x b/x",
      ...Array.from({ length: 20 }, (_, i) => `+${i}`),
      "── b",
      "diff --git a/y b/y",
      "+y",
    ],
    scroll: 0,
  });
  it.each([
    ["j scrolls a line", ["j"], 1],
    ["k scrolls back, not past the top", ["j", "k", "k"], 0],
    ["a page (the rows shown)", ["pagedown"], 8],
    ["never past the end", ["pagedown", "pagedown", "pagedown", "pagedown"], 17],
    ["] to the next file", ["]"], 1],
    ["] twice: the next leg", ["]", "]"], 17],
    ["[ back to the file before the view", ["]", "]", "]", "["], 1],
  ])("%s", (_n, keys, want) => {
    const m = pager();
    for (const k of keys) expect(pagerKey(m, k, 80, 10)).toBe(null);
    expect(m.scroll).toBe(want);
  });
  it("q, Esc and Enter close it", () => {
    for (const k of ["q", "escape", "enter"]) expect(pagerKey(pager(), k, 80, 10)).toBe("close");
  });
});

describe("formKey", () => {
  const form = (): Extract<Mode, { kind: "form" }> => ({
    kind: "form",
    title: "new",
    form: newForm({ agent: "claude" }),
    complete: { source: ["alpha", "beta"], task: [] },
  });
  it("fills, completes, moves and toggles; Enter asks to start with the request", () => {
    const m = form();
    for (const k of ["a", "l", "tab"]) formKey(m, k);
    expect(m.form.values.source).toBe("alpha");
    formKey(m, "tab"); // nothing more to complete: the next row
    expect(m.form.row).toBe(1);
    for (const k of ["down", "down", "down", "down", "space"]) formKey(m, k);
    expect(m.form.on).toEqual(["isolate"]);
    expect(formKey(m, "enter")).toEqual({
      start: expect.objectContaining({ source: "alpha", argv: ["claude"], isolate: true }),
    });
  });
  it("Enter without a command says what is missing; Esc closes; ↑ from the top wraps", () => {
    const m = form();
    m.form.values.agent = "";
    expect(formKey(m, "enter")).toBe(null);
    expect(m.form.error).toBe("name an agent or a command to run");
    formKey(m, "up");
    expect(m.form.row).toBe(8); // the last toggle: 5 fields, 4 toggles
    expect(formKey(m, "escape")).toBe("close");
  });
});
