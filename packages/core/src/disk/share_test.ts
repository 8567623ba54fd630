import { describe, expect, it } from "vitest";
import {
  decideShare,
  type LockHashes,
  linkEscapes,
  parseShareMode,
  placeEntry,
  storeKeyText,
} from "./share.ts";

function decide(sourceHasDir: boolean, legHasDir: boolean, source: LockHashes, leg: LockHashes) {
  return decideShare("node_modules", { sourceHasDir, legHasDir, source, leg });
}

describe("decideShare", () => {
  const locks = { "yarn.lock": "1", "Cargo.lock": "2" };

  it("shares when every lockfile matches, naming them in order", () => {
    expect(decide(true, false, locks, { ...locks })).toEqual({
      share: true,
      lockfiles: ["Cargo.lock", "yarn.lock"],
    });
  });

  it.each<[string, ReturnType<typeof decide>, ReturnType<typeof decide>]>([
    [
      "a source without the directory",
      decide(false, true, locks, locks),
      { share: false, reason: "no-source-dir", detail: "the source has no node_modules" },
    ],
    [
      "a worktree that has it",
      decide(true, true, locks, locks),
      { share: false, reason: "exists", detail: "the worktree has a node_modules already" },
    ],
    [
      "no lockfile on either side",
      decide(true, false, {}, {}),
      { share: false, reason: "no-lockfile", detail: "no lockfile next to node_modules to prove it matches" },
    ],
    [
      "lockfiles that differ or are on one side only",
      decide(
        true,
        false,
        { "yarn.lock": "1", "package-lock.json": "2", "Cargo.lock": "3" },
        { "package-lock.json": "9", "Cargo.lock": "3", "pnpm-lock.yaml": "4" },
      ),
      {
        share: false,
        reason: "lockfile-differs",
        detail:
          "package-lock.json, pnpm-lock.yaml, yarn.lock differs from the source's: run the install in the worktree",
      },
    ],
  ])("does not share with %s", (_, got, want) => {
    expect(got).toEqual(want);
  });
});

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
    ["a", "/../x", false],
    ["a/b", "../../x/", true],
    ["k", "./../y", true],
    ["k", "x//../../y", true],
  ])("%s -> %s: %s", (rel, target, want) => {
    expect(linkEscapes(rel, target)).toBe(want);
  });
});

describe("parseShareMode", () => {
  it("takes tree and store, refuses anything else with ERR_USAGE", () => {
    expect(parseShareMode("tree")).toBe("tree");
    expect(parseShareMode("store")).toBe("store");
    expect(() => parseShareMode("Store")).toThrow(
      expect.objectContaining({
        code: "ERR_USAGE",
        message: '--share-mode: not a mode: "Store"',
        hint: "use one of: tree, store",
        context: { value: "Store" },
      }),
    );
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
