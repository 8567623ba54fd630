import { describe, expect, it } from "vitest";
import { linkEscapes, parseShareMode, placeEntry, storeKeyText } from "./share.ts";

describe("placeEntry", () => {
  it.each<[string, Parameters<typeof placeEntry>[1], boolean, boolean, ReturnType<typeof placeEntry>]>([
    ["react", "dir", false, false, "store"],
    [".pnpm", "dir", false, false, "store"],
    [".bin", "dir", false, false, "tree"],
    [".cache", "dir", false, false, "tree"],
    ["@types", "dir", false, false, "scope"],
    ["node", "dir", true, false, "store"],
    [".hidden", "dir", true, false, "store"],
    ["@nested", "dir", true, false, "store"],
    ["pkg", "dir", false, true, "tree"],
    ["zod", "symlink", false, false, "link"],
    [".modules.yaml", "file", false, false, "file"],
    ["sock", "other", false, false, "skip"],
  ])("%s (%s, scoped %s, escapes %s): %s", (name, kind, scoped, escapes, want) => {
    expect(placeEntry(name, kind, { scoped, escapes })).toBe(want);
  });
});

describe("linkEscapes", () => {
  it.each<[string, string, boolean]>([
    ["zod", ".pnpm/zod@3/node_modules/zod", false],
    [".pnpm/a@1/node_modules/b", "../../b@1/node_modules/b", false],
    ["@s/local", "../../packages/local", true],
    ["@s/local", "../x", false],
    ["a/b", "../../x", true],
    ["a", "/abs/path", false],
    ["a", "./././b", false],
  ])("%s -> %s: %s", (rel, target, want) => {
    expect(linkEscapes(rel, target)).toBe(want);
  });
});

describe("parseShareMode", () => {
  it("takes tree and store, refuses anything else with ERR_USAGE", () => {
    expect(parseShareMode("tree")).toBe("tree");
    expect(parseShareMode("store")).toBe("store");
    expect(() => parseShareMode("Store")).toThrow('--share-mode: not a mode: "Store"');
  });
});

describe("storeKeyText", () => {
  it("is the same for the same facts in any order, different when any differs", () => {
    const a = storeKeyText("/w/api", "node_modules", { "b.lock": "2", "a.lock": "1" }, { ".m": "x" });
    expect(a).toBe(storeKeyText("/w/api", "node_modules", { "a.lock": "1", "b.lock": "2" }, { ".m": "x" }));
    expect(a).toBe("source\t/w/api\ndir\tnode_modules\na.lock\t1\nb.lock\t2\n--\n.m\tx");
    expect(a).not.toBe(
      storeKeyText("/w/api", "node_modules", { "a.lock": "1", "b.lock": "2" }, { ".m": "y" }),
    );
    expect(a).not.toBe(
      storeKeyText("/w/web", "node_modules", { "a.lock": "1", "b.lock": "2" }, { ".m": "x" }),
    );
  });
});
