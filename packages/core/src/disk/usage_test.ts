import { describe, expect, it } from "vitest";
import { checkShareNames, shareNames, warnNotShared } from "./share.ts";
import {
  classifyTree,
  type DuTree,
  emptyUsage,
  lsFilesPaths,
  PathClassifier,
  type Usage,
  type UsageClass,
} from "./usage.ts";

/**
 * A leg as the walk records it:
 *   /          own 4, files 10 (README 6 + .git file 4)
 *   src/       own 4, files 100 (tracked 70 + new.txt 30, untracked next to tracked files)
 *   src/gen/   own 4, files 50  (ignored as a whole)
 *   node_modules/      own 4, files 0
 *   node_modules/pkg/  own 4, files 1000
 *   notes/     own 4, files 20  (untracked as a whole)
 */
function leg(): DuTree {
  return {
    hardlinked: 7,
    dirs: [
      { parent: -1, name: "", own: 4, files: 10 },
      { parent: 0, name: "src", own: 4, files: 100 },
      { parent: 1, name: "gen", own: 4, files: 50 },
      { parent: 0, name: "node_modules", own: 4, files: 0 },
      { parent: 3, name: "pkg", own: 4, files: 1000 },
      { parent: 0, name: "notes", own: 4, files: 20 },
    ],
  };
}
const FILE_BYTES: Record<string, number> = { ".git": 4, "src/new.txt": 30 };
const usageOf = (tree: DuTree, classifier: PathClassifier | null, bytes = FILE_BYTES): Usage => {
  const u = emptyUsage();
  classifyTree(tree, classifier, u, (rel) => bytes[rel] ?? 0);
  return u;
};

describe("classifyTree", () => {
  const classifier = new PathClassifier(
    lsFilesPaths("src/new.txt\0notes/\0"),
    lsFilesPaths("src/gen/\0node_modules/\0"),
  );

  it.each<[string, PathClassifier | null, Record<string, number>, Usage]>([
    [
      "splits by class: whole directories summed, listed files measured again",
      classifier,
      FILE_BYTES,
      {
        checkout: 4 + 6 + 4 + 70,
        untracked: 30 + 24,
        ignored: 54 + 1008,
        admin: 4,
        total: 1204,
        hardlinked: 7,
      },
    ],
    [
      "a listed file gone (or counted in another leg) moves nothing",
      classifier,
      {},
      { checkout: 4 + 10 + 4 + 100, untracked: 24, ignored: 54 + 1008, admin: 0, total: 1204, hardlinked: 7 },
    ],
    [
      "no classifier: all admin",
      null,
      FILE_BYTES,
      { checkout: 0, untracked: 0, ignored: 0, admin: 1204, total: 1204, hardlinked: 7 },
    ],
    [
      "nothing listed: all checkout but the .git file",
      new PathClassifier(new Set(), new Set()),
      FILE_BYTES,
      { checkout: 1200, untracked: 0, ignored: 0, admin: 4, total: 1204, hardlinked: 7 },
    ],
  ])("%s", (_, c, bytes, expected) => {
    expect(usageOf(leg(), c, bytes)).toEqual(expected);
  });

  it("a path listed under a directory already counted whole is not moved twice", () => {
    const c = new PathClassifier(lsFilesPaths("node_modules/pkg/x.js\0"), lsFilesPaths("node_modules/\0"));
    expect(usageOf(leg(), c, { "node_modules/pkg/x.js": 500 })).toMatchObject({
      ignored: 1008,
      untracked: 0,
    });
  });

  it("what git lists as ignored inside an untracked directory moves to ignored: a directory by its sum, a file measured again", () => {
    // node_modules/ (1008) untracked as a whole, with node_modules/pkg/ (1004) and a file ignored in it.
    const c = new PathClassifier(
      lsFilesPaths("node_modules/\0"),
      lsFilesPaths("node_modules/pkg/\0node_modules/trace.log\0src/gen/\0"),
    );
    expect(usageOf(leg(), c, { ...FILE_BYTES, "node_modules/trace.log": 3 })).toEqual({
      checkout: 4 + 6 + 4 + 100 + 24,
      untracked: 1008 - 1004 - 3,
      ignored: 54 + 1004 + 3,
      admin: 4,
      total: 1204,
      hardlinked: 7,
    });
    // Looked up by its whole path, not its name: notes/gen is no walked directory (src/gen is).
    const other = new PathClassifier(lsFilesPaths("notes/\0"), lsFilesPaths("notes/gen/\0"));
    expect(usageOf(leg(), other, {})).toMatchObject({ untracked: 24, ignored: 0 });
  });

  it("without bytesOf, listed files stay in checkout", () => {
    const u = emptyUsage();
    classifyTree(leg(), classifier, u);
    expect(u).toEqual({ checkout: 118, untracked: 24, ignored: 1062, admin: 0, total: 1204, hardlinked: 7 });
  });

  it("a file listed both untracked and ignored moves to ignored once", () => {
    const c = new PathClassifier(lsFilesPaths("src/new.txt\0"), lsFilesPaths("src/new.txt\0"));
    expect(usageOf(leg(), c)).toMatchObject({ checkout: 1204 - 4 - 30, untracked: 0, ignored: 30 });
  });

  it("a .git directory below the top is classified like any other", () => {
    const tree: DuTree = {
      hardlinked: 0,
      dirs: [
        { parent: -1, name: "", own: 4, files: 6 },
        { parent: 0, name: "vendor", own: 4, files: 0 },
        { parent: 1, name: ".git", own: 4, files: 40 },
      ],
    };
    expect(usageOf(tree, new PathClassifier(new Set(), new Set()), {})).toEqual({
      checkout: 58,
      untracked: 0,
      ignored: 0,
      admin: 0,
      total: 58,
      hardlinked: 0,
    });
  });

  it("a .git directory at the top is admin as a whole; an empty tree is nothing", () => {
    const tree: DuTree = {
      hardlinked: 0,
      dirs: [
        { parent: -1, name: "", own: 4, files: 6 },
        { parent: 0, name: ".git", own: 4, files: 40 },
      ],
    };
    expect(usageOf(tree, classifier)).toMatchObject({ checkout: 10, admin: 44, total: 54 });
    expect(usageOf({ dirs: [], hardlinked: 0 }, classifier)).toEqual(emptyUsage());
  });
});

describe("lsFilesPaths", () => {
  it("drops the trailing slash of directories and the empty tail", () => {
    expect(lsFilesPaths("src/new.txt\0notes/\0")).toEqual(new Set(["src/new.txt", "notes"]));
  });
});

describe("PathClassifier", () => {
  const c = new PathClassifier(new Set(["new"]), new Set(["gen"]));

  it.each<[string, UsageClass, UsageClass]>([
    ["gen", "checkout", "ignored"],
    ["new", "checkout", "untracked"],
    ["src", "checkout", "checkout"],
    ["src", "ignored", "ignored"],
    ["src", "untracked", "untracked"],
    ["gen", "untracked", "ignored"],
  ])("%s under a %s directory is %s", (rel, parent, want) => {
    expect(c.classify(rel, parent)).toBe(want);
  });
});

describe("share names", () => {
  it("config names first, then flags, once each", () => {
    expect(shareNames(["node_modules", ".venv"], [".venv", "target"])).toEqual([
      "node_modules",
      ".venv",
      "target",
    ]);
  });
  it.each(["../x", "a/b", ".", "..", "", "node modules"])("refuses %j with ERR_USAGE", (name) => {
    expect(() => checkShareNames(["node_modules", name])).toThrow(
      expect.objectContaining({ code: "ERR_USAGE", context: { value: name } }),
    );
  });
  it("names the refused value and what to give instead", () => {
    expect(() => checkShareNames(["../x"])).toThrow(
      expect.objectContaining({
        message: '--share: not a directory name: "../x"',
        hint: "name a directory at the top of the checkout, e.g. --share node_modules",
      }),
    );
  });
  it("accepts plain directory names", () => {
    expect(() => checkShareNames(["node_modules", ".venv", "target-1"])).not.toThrow();
  });
  it.each([
    ["no-source-dir", [], false],
    ["no-source-dir", ["node_modules"], true],
    ["lockfile-differs", [], true],
  ] as const)("a %s outcome warns with flags %j: %s", (reason, flags, warns) => {
    expect(warnNotShared({ share: false, reason, detail: "" }, "node_modules", flags)).toBe(warns);
  });
});
