/**
 * walkTrees on a real tree: through GNU find, through the fallback walk here, and through a find
 * that fails, the trees and their byte counts are the same, and equal to `du -s -B1`.
 */
import { spawnSync } from "node:child_process";
import {
  chmodSync,
  linkSync,
  mkdirSync,
  mkdtempSync,
  readFileSync,
  realpathSync,
  rmSync,
  symlinkSync,
  writeFileSync,
} from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { FIND_EXPRESSION } from "../../disk/find_output.ts";
import type { DuTree } from "../../disk/usage.ts";
import { foundPath, splitRoots, walkTrees } from "./parallel_walk.ts";
import { newWalkState, type WalkState, walkTree } from "./walk.ts";

let root = "";
let top = "";
let other = "";
const hasGnuFind = spawnSync("find", ["/", "-maxdepth", "0", "-printf", "%b"]).status === 0;

function write(path: string, size: number): void {
  mkdirSync(join(path, ".."), { recursive: true });
  writeFileSync(path, "x".repeat(size));
}

beforeAll(() => {
  root = realpathSync(mkdtempSync(join(tmpdir(), "ariel-pwalk-")));
  top = join(root, "leg");
  other = join(root, "other");
  write(join(top, "README.md"), 100);
  // 300 packages: more directories at one level than this process lists itself, so find walks them.
  for (let i = 0; i < 300; i++) {
    write(join(top, "node_modules", `p${i}`, "index.js"), 1000 + 97 * i);
    write(join(top, "node_modules", `p${i}`, "lib", "a.js"), 5000 + i);
  }
  // A directory too full of files to lstat here: find takes it whole.
  for (let i = 0; i < 600; i++) write(join(top, "flat", `f${i}`), i * 10);
  mkdirSync(join(top, "flat", "sub"));
  write(join(top, "flat", "sub", "x"), 9000);
  write(join(top, "node_modules", "p7", "we ird\nname é"), 4097);
  // Hardlinks: within the tree across processes, and with a file of another tree.
  linkSync(join(top, "node_modules", "p250", "index.js"), join(top, "node_modules", "p1", "same.js"));
  write(join(other, "shared.bin"), 70_000);
  linkSync(join(other, "shared.bin"), join(top, "node_modules", "p2", "shared.bin"));
  // Links are measured as themselves, never followed.
  symlinkSync(".", join(top, "loop"));
  symlinkSync("/", join(top, "node_modules", "p3", "out"));
  symlinkSync("../..", join(top, "node_modules", "p4", "up"));
});

afterAll(() => rmSync(root, { recursive: true, force: true }));

/** The two directories holding the two names of one file: which counts it depends on the order. */
const LINKED = ["./node_modules/p1", "./node_modules/p250"];

/** Each directory's own and file bytes by path (the LINKED pair's files summed), the tree's total. */
function summary(tree: DuTree | undefined): {
  dirs: Record<string, number[]>;
  total: number;
  hardlinked: number;
} {
  const paths: string[] = [];
  const dirs: Record<string, number[]> = {};
  let total = 0;
  for (const [i, d] of (tree?.dirs ?? []).entries()) {
    paths[i] = d.parent < 0 ? "." : `${paths[d.parent]}/${d.name}`;
    dirs[paths[i]!] = [d.own, d.files];
    total += d.own + d.files;
  }
  const [a, b] = LINKED.map((p) => dirs[p]);
  if (a && b) {
    dirs[LINKED.join("+")] = [a[1]! + b[1]!];
    a[1] = b[1] = -1;
  }
  return { dirs, total, hardlinked: tree?.hardlinked ?? 0 };
}

/** `du -s -B1` of the paths, one process: hardlinks counted once, in argument order. */
function du(...paths: string[]): number[] {
  const r = spawnSync("du", ["-s", "-B1", ...paths], { encoding: "utf8" });
  return r.stdout
    .trim()
    .split("\n")
    .map((l) => Number(l.split("\t")[0]));
}

async function walk(options: Parameters<typeof walkTrees>[2], dirs = [other, top]) {
  const state = newWalkState();
  const trees = await walkTrees(dirs, state, options);
  return { trees: trees.map(summary), state };
}

function sequential(dirs: string[]): { trees: ReturnType<typeof summary>[]; state: WalkState } {
  const state = newWalkState();
  return { trees: dirs.map((d) => summary(walkTree(d, state))), state };
}

describe("walkTrees", () => {
  it.skipIf(!hasGnuFind).each([1, 2, 3])(
    "through find (%i at once): every directory as the walk here records it, totals as du -s -B1",
    async (jobs) => {
      const log = join(root, `find-${jobs}.log`);
      const wrapper = join(root, `find-${jobs}.sh`);
      writeFileSync(wrapper, `#!/bin/sh\necho "$#" >> '${log}'\nexec find "$@"\n`);
      chmodSync(wrapper, 0o755);
      const got = await walk({ jobs, find: wrapper });
      const want = sequential([other, top]);
      expect(got.trees).toEqual(want.trees);
      expect(got.trees.map((t) => t.total)).toEqual(du(other, top));
      expect(got.trees[1]!.hardlinked).toBe(want.trees[1]!.hardlinked);
      expect(got.trees[1]!.hardlinked).toBeGreaterThan(0);
      expect(got.state.warnings).toEqual([]);
      // find did walk: `jobs` processes, the packages and the full directory shared among them.
      expect(readFileSync(log, "utf8").trim().split("\n").length).toBe(jobs);
    },
  );

  it.skipIf(!hasGnuFind)("start points too long for one argument list go to more processes", async () => {
    const wide = join(root, "wide");
    // 1,500 directories of 70-character names: over 96 KiB of paths at one level.
    for (let i = 0; i < 1500; i++)
      write(join(wide, `${"d".repeat(64)}${String(i).padStart(6, "0")}`, "f"), i);
    const log = join(root, "find-wide.log");
    const wrapper = join(root, "find-wide.sh");
    writeFileSync(wrapper, `#!/bin/sh\necho "$#" >> '${log}'\nexec find "$@"\n`);
    chmodSync(wrapper, 0o755);
    const got = await walk({ jobs: 1, find: wrapper }, [wide]);
    expect(got.trees).toEqual(sequential([wide]).trees);
    expect(got.trees[0]!.total).toBe(du(wide)[0]);
    // Two processes, one after the other (jobs 1), each with half of the 1,500 start points.
    const args = readFileSync(log, "utf8").trim().split("\n").map(Number);
    expect(args.length).toBe(2);
    expect(args.map((n) => n - FIND_EXPRESSION.length)).toEqual([750, 750]);
  });

  it("start points are relative to the tree; too many for `jobs` processes make a multiple of `jobs`", () => {
    const top = "/w/leg";
    const roots = Array.from({ length: 3000 }, (_, i) => ({
      root: { parent: 0 },
      abs: `${top}/node_modules/${"p".repeat(60)}${String(i).padStart(6, "0")}`,
    }));
    // 3,000 × 83 bytes: 243 KiB, three argument lists of 96 KiB; on 2 slots that is 4 groups
    // (2 rounds of 2), not 3 (one slot walking alone for the last third).
    const groups = splitRoots(roots, top, 2);
    expect(groups.map((g) => g.args.length)).toEqual([750, 750, 750, 750]);
    expect(groups[1]!.args[0]).toBe(`./node_modules/${"p".repeat(60)}000001`);
    expect(groups[1]!.paths[0]).toBe(roots[1]!.abs);
    expect(splitRoots(roots.slice(0, 10), top, 2).map((g) => g.args.length)).toEqual([5, 5]);
    expect(splitRoots([{ root: { dir: 0 }, abs: top }], top, 4).map((g) => g.args)).toEqual([["."]]);
  });

  it.each([
    [".", "/w/leg"],
    ["./node_modules/p/secret", "/w/leg/node_modules/p/secret"],
    ["/abs/path", "/abs/path"],
  ])("foundPath(%j) is %j", (text, want) => {
    expect(foundPath(text, "/w/leg")).toBe(want);
  });

  it.skipIf(!hasGnuFind)(
    "a tree whose top is too full of files to list here goes to find whole, as `.`",
    async () => {
      const full = join(root, "full");
      for (let i = 0; i < 600; i++) write(join(full, `f${i}`), i * 7);
      write(join(full, "d", "x"), 5000);
      const log = join(root, "find-full.log");
      const wrapper = join(root, "find-full.sh");
      writeFileSync(wrapper, `#!/bin/sh\npwd >> '${log}'\necho "$1" >> '${log}'\nexec find "$@"\n`);
      chmodSync(wrapper, 0o755);
      const got = await walk({ jobs: 2, find: wrapper }, [full]);
      expect(got.trees).toEqual(sequential([full]).trees);
      expect(got.trees[0]!.total).toBe(du(full)[0]);
      expect(readFileSync(log, "utf8")).toBe(`${full}\n.\n`);
    },
  );

  it.skipIf(!hasGnuFind)(
    "a tree gone before its find starts leaves find in use for the next tree",
    async () => {
      const trees = ["t1", "t2", "t3"].map((n) => join(root, "vanish", n));
      for (const t of trees) for (let i = 0; i < 600; i++) write(join(t, `f${i}`), 100);
      const log = join(root, "find-vanish.log");
      const wrapper = join(root, "find-vanish.sh");
      const planned = join(root, "find-vanish.planned");
      // One find at a time: the first removes the second tree before it walks its own, once every
      // tree is planned (the first find starts while the others are listed: on a loaded machine it
      // could remove the second tree's files while they were being counted).
      writeFileSync(
        wrapper,
        `#!/bin/sh\nn=0\nwhile [ ! -e '${planned}' ] && [ $n -lt 3000 ]; do sleep 0.01; n=$((n+1)); done\npwd >> '${log}'\nrm -rf '${trees[1]}'\nexec find "$@"\n`,
      );
      chmodSync(wrapper, 0o755);
      const walking = walk({ jobs: 1, find: wrapper }, trees);
      // walkTrees lists every tree before its first await: they are all planned now.
      writeFileSync(planned, "");
      const got = await walking;
      expect(readFileSync(log, "utf8")).toBe(`${trees[0]}\n${trees[2]}\n`);
      expect(got.trees[0]!.total).toBe(du(trees[0]!)[0]);
      expect(got.trees[2]!.total).toBe(du(trees[2]!)[0]);
      // The second tree: its top as listed before it went, nothing under it.
      expect(Object.keys(got.trees[1]!.dirs)).toEqual(["."]);
      expect(got.trees[1]!.dirs["."]![1]).toBe(0);
    },
  );

  it("a hardlinked file is counted in the first tree that holds it", async () => {
    const [first, second] = (await walk({ jobs: 2 }, [top, other])).trees;
    expect([first!.total, second!.total]).toEqual(du(top, other));
    expect(second!.total).toBe(du(join(other))[0]! - du(join(other, "shared.bin"))[0]!);
  });

  it.each([
    ["find is missing", "#!/bin/sh\nexit 127\n", "missing"],
    ["find prints another format (BSD find has no -printf)", '#!/bin/sh\necho "$1"\n', "other-format"],
    ["find fails after printing valid records", "#!/bin/sh\nprintf 'D0 8 x\\0'\nexit 1\n", "fails"],
  ])("falls back to the walk here when %s, with the same numbers", async (_name, script, tag) => {
    const fake = join(root, `fake-find-${tag}`);
    writeFileSync(fake, script);
    chmodSync(fake, 0o755);
    const got = await walk({ jobs: 2, find: fake });
    expect(got.trees).toEqual(sequential([other, top]).trees);
    expect(got.state.warnings).toEqual([]);
  });

  it("a find that cannot start at all (no such file) falls back too", async () => {
    const got = await walk({ jobs: 2, find: join(root, "no-such-find") });
    expect(got.trees).toEqual(sequential([other, top]).trees);
  });

  it("a tree that is gone is empty; a file is a tree of one entry", async () => {
    const got = await walk({ jobs: 2 }, [join(root, "gone"), join(top, "README.md")]);
    expect(got.trees).toEqual([
      { dirs: {}, total: 0, hardlinked: 0 },
      {
        dirs: { ".": [0, du(join(top, "README.md"))[0]!] },
        total: du(join(top, "README.md"))[0]!,
        hardlinked: 0,
      },
    ]);
  });

  it.skipIf(process.getuid?.() === 0 || !hasGnuFind)(
    "an unreadable directory below the top levels is counted as itself and reported",
    async () => {
      const secret = join(top, "node_modules", "p9", "secret");
      write(join(secret, "x"), 10);
      chmodSync(secret, 0);
      try {
        const got = await walk({ jobs: 2 }, [top]);
        expect(got.state.warnings).toEqual([{ code: "WARN_DU_UNREADABLE", path: secret, reason: "EACCES" }]);
        const here = sequential([top]);
        expect(got.trees).toEqual(here.trees);
      } finally {
        chmodSync(secret, 0o755);
        rmSync(secret, { recursive: true });
      }
    },
  );
});
