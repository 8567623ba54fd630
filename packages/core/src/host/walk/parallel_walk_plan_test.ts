/**
 * What walkTrees lists itself and what it hands to find, at the edges of its budgets (128
 * directory listings, 4,096 lstats, 512 files in one directory), how the start points are cut
 * into argument lists, the `jobs` option's bounds, and what the top levels cannot read. The
 * numbers are always those of the walk here (walkTree); only find's start points differ.
 */
import { lstatSync, mkdtempSync, realpathSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import {
  byPath,
  bytes,
  hasGnuFind,
  loggingFind,
  longPathTree,
  removeLong,
  shapedTree,
  total,
} from "./_fixture.ts";
import { splitRoots, walkTrees } from "./parallel_walk.ts";
import { newWalkState, walkTree } from "./walk.ts";

let root = "";

beforeAll(() => {
  root = realpathSync(mkdtempSync(join(tmpdir(), "ariel-pwalk-plan-")));
});

afterAll(() => {
  removeLong(root);
  rmSync(root, { recursive: true, force: true });
});

/** walkTrees over `dir` with one find process at a time through a logging find. */
async function walkLogged(name: string, dir: string, jobs = 1) {
  const find = loggingFind(join(root, `find-${name}`));
  const state = newWalkState();
  const [tree] = await walkTrees([dir], state, { jobs, find: find.path });
  return { tree: tree!, warnings: state.warnings, calls: find.calls() };
}

const d = (i: number) => `./d${String(i).padStart(3, "0")}`;

describe.skipIf(!hasGnuFind)(
  "walkTrees: what is listed here and what find gets, at the budgets' edges",
  () => {
    it.each([
      // name, shape, the start points of the one find process (none: no find at all)
      ["127 directories: the top's listing and 127 more fit the 128 listings", { dirs: 127, files: 1 }, []],
      [
        "128 directories: one listing short, the whole level goes to find",
        { dirs: 128, files: 1 },
        Array.from({ length: 128 }, (_, i) => d(i)),
      ],
      ["512 files in one directory are listed here", { dirs: 0, topFiles: 512 }, []],
      ["513 files: find takes the directory whole, as `.`", { dirs: 0, topFiles: 513 }, ["."]],
      ["8 × 511 files use the 4,096 lstats to the last (8 for the directories)", { dirs: 8, files: 511 }, []],
      [
        "8 × (507 files, 4 empty directories): the 32 of the second level fit the 32 lstats left",
        { dirs: 8, files: 507, subdirs: 4 },
        [],
      ],
      [
        "8 × (508 files, 4 empty directories): the 32 of the second level do not fit the 24 left",
        { dirs: 8, files: 508, subdirs: 4 },
        Array.from({ length: 32 }, (_, i) => `${d(i >> 2)}/s00${i & 3}`),
      ],
    ] as const)("%s", async (name, shape, starts) => {
      const dir = shapedTree(join(root, name.slice(0, 40).replace(/\W+/g, "-")), shape);
      const got = await walkLogged(name.slice(0, 20).replace(/\W+/g, "-"), dir);
      expect(got.calls).toEqual(
        starts.length === 0 ? [] : [{ cwd: dir, output: expect.any(String), starts }],
      );
      expect(byPath(got.tree)).toEqual(byPath(walkTree(dir, newWalkState())));
      expect(got.warnings).toEqual([]);
    });

    it("one file more at the top: the last directory listed has 510 lstats left for its 511 files and goes to find whole", async () => {
      const dir = shapedTree(join(root, "over-by-one"), { dirs: 8, files: 511, topFiles: 1 });
      const got = await walkLogged("over-by-one", dir);
      // Which directory is listed last is the order readdir gives.
      expect(got.calls).toEqual([
        { cwd: dir, output: expect.any(String), starts: [expect.stringMatching(/^\.\/d00[0-7]$/)] },
      ]);
      expect(byPath(got.tree)).toEqual(byPath(walkTree(dir, newWalkState())));
      expect(total(got.tree)).toBe(total(walkTree(dir, newWalkState())));
    });
  },
);

describe("splitRoots: argument lists of at most 96 KiB per find", () => {
  const top = "/w/leg";
  /** `count` start points whose arguments (`./` and the name) are `length` bytes each. */
  const roots = (count: number, length: number) =>
    Array.from({ length: count }, (_, i) => ({
      root: { parent: 0 },
      abs: `${top}/${String(i).padStart(length - 2, "n")}`,
    }));

  it.each([
    // count, bytes of each argument, jobs, the sizes of the groups
    [1024, 95, 1, [1024]], // 1,024 × (95 + 1) = 98,304 bytes: exactly one list
    [1000, 98, 1, [500, 500]], // 99,000 bytes with each argument's NUL, over one list
    [1000, 98, 2, [500, 500]],
    [1000, 98, 3, [334, 333, 333]],
    [3, 10, 4, [1, 1, 1]], // never more groups than start points
  ] as const)("%i start points of %i bytes on %i slots: groups of %j", (count, length, jobs, sizes) => {
    const groups = splitRoots(roots(count, length), top, jobs);
    expect(groups.map((g) => g.args.length)).toEqual(sizes);
    expect(groups[0]!.args[0]).toHaveLength(length);
    expect(groups.flatMap((g) => g.paths).sort()).toEqual(
      roots(count, length)
        .map((r) => r.abs)
        .sort(),
    );
  });

  it("no start points: no group", () => {
    expect(splitRoots([], top, 4)).toEqual([]);
  });
});

describe("walkTrees: the roots it is given and the jobs option", () => {
  it("no roots: no trees", async () => {
    const state = newWalkState();
    expect(await walkTrees([], state, { jobs: 2 })).toEqual([]);
    expect(state).toEqual(newWalkState());
  });

  it("a file is a tree of one nameless directory holding its bytes; a directory's top is nameless too", async () => {
    const dir = shapedTree(join(root, "small"), { dirs: 2, files: 3 });
    const file = join(dir, "d001", "f002");
    const state = newWalkState();
    const [ofFile, ofDir] = await walkTrees([file, dir], state, { jobs: 1 });
    expect(ofFile).toEqual({ hardlinked: 0, dirs: [{ parent: -1, name: "", own: 0, files: bytes(file) }] });
    expect(ofDir!.dirs[0]).toEqual({ parent: -1, name: "", own: bytes(dir), files: 0 });
    const files = (n: string) => ["f000", "f001", "f002"].reduce((s, f) => s + bytes(join(dir, n, f)), 0);
    expect(byPath(ofDir!)).toEqual({
      ".": [bytes(dir), 0],
      "./d000": [bytes(join(dir, "d000")), files("d000")],
      "./d001": [bytes(join(dir, "d001")), files("d001")],
    });
    expect(state.warnings).toEqual([]);
  });

  it("jobs 0 on a tree listed here whole: the same tree as jobs 1", async () => {
    const dir = shapedTree(join(root, "jobs0-small"), { dirs: 3, files: 2 });
    const [tree] = await walkTrees([dir], newWalkState(), { jobs: 0 });
    expect(byPath(tree!)).toEqual(byPath(walkTree(dir, newWalkState())));
  });

  // walkTrees took jobs < 1 as one slot for its limiter, but splitRoots was given the raw 0 and
  // made 0 groups; the first start point then indexed groups[NaN] and walkTrees threw a
  // TypeError for any tree big enough to need find.
  it("jobs 0 on a tree find walks is taken as one process, like the walk here", async () => {
    const dir = shapedTree(join(root, "jobs0-wide"), { dirs: 130, files: 1 });
    const [tree] = await walkTrees([dir], newWalkState(), { jobs: 0 });
    expect(byPath(tree!)).toEqual(byPath(walkTree(dir, newWalkState())));
  });
});

describe.skipIf(process.platform !== "linux")(
  "walkTrees: entries of the top levels lstat cannot read",
  () => {
    it("a file and a directory whose paths are over PATH_MAX are warnings (ENAMETOOLONG); the rest is counted", async () => {
      const t = longPathTree(root);
      const state = newWalkState();
      const [tree] = await walkTrees([t.dir], state, { jobs: 1 });
      expect(tree).toEqual({
        hardlinked: 0,
        dirs: [{ parent: -1, name: "", own: lstatSync(t.dir).blocks * 512, files: bytes(t.short) }],
      });
      // Files are lstat'ed as their directory is listed, directories as the next level is.
      expect(state.warnings).toEqual([
        { code: "WARN_DU_UNREADABLE", path: t.longFile, reason: "ENAMETOOLONG" },
        { code: "WARN_DU_UNREADABLE", path: t.longDir, reason: "ENAMETOOLONG" },
      ]);
    });
  },
);
