/**
 * How walkTrees runs find: the executable and the number of processes it takes by default, the
 * processes running at once, their records read from an unlinked temporary file in $TMPDIR
 * (and, when none can be made, no find), a find found unusable not started again, the records
 * of directories find could not read, and start points changed before a failed find's part is
 * walked here.
 */
import { spawnSync } from "node:child_process";
import {
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  readlinkSync,
  realpathSync,
  rmSync,
  symlinkSync,
} from "node:fs";
import { availableParallelism, tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { byPath, bytes, hasGnuFind, loggingFind, shapedTree, total } from "./_fixture.ts";
import { walkTrees } from "./parallel_walk.ts";
import { newWalkState, walkTree } from "./walk.ts";

let root = "";
/** 130 directories at the top (more than the 128 listings here): find walks them. */
let wide = "";
let wide2 = "";

beforeAll(() => {
  root = realpathSync(mkdtempSync(join(tmpdir(), "ariel-pwalk-find-")));
  wide = shapedTree(join(root, "wide"), { dirs: 130, files: 2, topFiles: 3 });
  wide2 = shapedTree(join(root, "wide2"), { dirs: 130, files: 1 });
  // Entries that are neither files nor directories, at the top (listed here) and below (find).
  for (const dir of [wide, join(wide, "d007")]) {
    expect(spawnSync("mkfifo", [join(dir, "fifo")]).status).toBe(0);
    symlinkSync(join(root, "no-such-target"), join(dir, "dangling"));
  }
});

afterAll(() => rmSync(root, { recursive: true, force: true }));

/** Each tree of `dirs` walked here, by path. */
const here = (...dirs: string[]) => {
  const state = newWalkState();
  return dirs.map((d) => byPath(walkTree(d, state)));
};

/** The temporary files (`ariel-du-<pid>-<n>`) this process has open. */
const openTempFiles = () =>
  readdirSync("/proc/self/fd")
    .map((fd) => {
      try {
        return readlinkSync(`/proc/self/fd/${fd}`);
      } catch {
        return "";
      }
    })
    .filter((target) => target.includes(`/ariel-du-${process.pid}-`));

/** Set environment variables for the length of `fn`. */
async function withEnv<T>(vars: Record<string, string>, fn: () => Promise<T>): Promise<T> {
  const old = Object.fromEntries(Object.keys(vars).map((k) => [k, process.env[k]]));
  Object.assign(process.env, vars);
  try {
    return await fn();
  } finally {
    for (const [k, v] of Object.entries(old)) {
      if (v === undefined) delete process.env[k];
      else process.env[k] = v;
    }
  }
}

describe.skipIf(!hasGnuFind || process.platform !== "linux")("walkTrees: running find", () => {
  it("by default: `find` on PATH, min(4, CPUs) processes, each writing to an unlinked file in $TMPDIR, closed after", async () => {
    const bin = join(root, "bin");
    const find = loggingFind(join(bin, "find"));
    const state = newWalkState();
    const trees = await withEnv({ PATH: `${bin}:${process.env.PATH}` }, () => walkTrees([wide], state));
    const jobs = Math.min(4, availableParallelism());
    const calls = find.calls();
    expect(calls.map((c) => c.cwd)).toEqual(Array(jobs).fill(wide));
    // Round robin over the 130 start points.
    expect(calls.map((c) => c.starts.length).sort()).toEqual(
      Array.from({ length: jobs }, (_, i) => Math.floor(130 / jobs) + (i < 130 % jobs ? 1 : 0)).sort(),
    );
    const pattern = new RegExp(`^${tmpdir()}/ariel-du-${process.pid}-[1-9][0-9]* \\(deleted\\)$`);
    for (const c of calls) expect(c.output).toMatch(pattern);
    expect(new Set(calls.map((c) => c.output)).size).toBe(jobs);
    expect(openTempFiles()).toEqual([]);
    expect(trees.map(byPath)).toEqual(here(wide));
    expect(state.warnings).toEqual([]);
  });

  it("`jobs` processes run at once: each of 2 sees the other start", async () => {
    const started = join(root, "started");
    mkdirSync(started);
    // Each waits (up to 10 s) until both have started, and records how many it saw.
    const find = loggingFind(
      join(root, "find-barrier"),
      [
        `touch '${started}/'$$`,
        "n=0",
        `while [ "$(ls '${started}' | wc -l)" -lt 2 ] && [ $n -lt 1000 ]; do sleep 0.01; n=$((n+1)); done`,
        `ls '${started}' | wc -l > '${started}.'$$`,
        'exec "$FIND" "$@"',
      ].join("\n"),
    );
    const [tree] = await walkTrees([wide2], newWalkState(), { jobs: 2, find: find.path });
    expect(find.calls()).toHaveLength(2);
    const seen = readdirSync(root).filter((n) => n.startsWith("started."));
    expect(seen.map((n) => readFileSync(join(root, n), "utf8").trim())).toEqual(["2", "2"]);
    expect(byPath(tree!)).toEqual(here(wide2)[0]);
  });

  it("the numbers are find's: a file made after find has run is not counted", async () => {
    const dir = shapedTree(join(root, "late"), { dirs: 130, files: 1 });
    const before = here(dir)[0]!;
    const first = join(root, "find-late.first");
    const find = loggingFind(
      join(root, "find-late"),
      [
        '"$FIND" "$@"',
        "rc=$?",
        `echo "$1" > '${first}'`,
        'head -c 20000 /dev/zero > "$1/late.bin"',
        "exit $rc",
      ].join("\n"),
    );
    const [tree] = await walkTrees([dir], newWalkState(), { jobs: 1, find: find.path });
    expect(find.calls()).toHaveLength(1);
    expect(byPath(tree!)).toEqual(before);
    // The file is there now: a walk here would have counted it.
    const late = readFileSync(first, "utf8").trim();
    expect(total(walkTree(dir, newWalkState()))).toBe(total(tree!) + bytes(join(dir, late, "late.bin")));
  });

  it("a FIFO and a dangling symbolic link count as themselves, listed here and found by find", async () => {
    const find = loggingFind(join(root, "find-special"));
    const [tree] = await walkTrees([wide], newWalkState(), { jobs: 2, find: find.path });
    expect(find.calls().flatMap((c) => c.starts)).toContain("./d007");
    expect(byPath(tree!)).toEqual(here(wide)[0]);
    const du = spawnSync("du", ["-s", "-B1", wide], { encoding: "utf8" }).stdout;
    expect(total(tree!)).toBe(Number(du.split("\t")[0]));
  });
});

describe.skipIf(!hasGnuFind || process.platform !== "linux")("walkTrees: no temporary file, no find", () => {
  it("$TMPDIR gone: find is not started, the walk here gives the numbers", async () => {
    const find = loggingFind(join(root, "find-notmp"));
    const state = newWalkState();
    const trees = await withEnv({ TMPDIR: join(root, "no-such-tmp") }, () =>
      walkTrees([wide, wide2], state, { jobs: 2, find: find.path }),
    );
    expect(find.calls()).toEqual([]);
    expect(trees.map(byPath)).toEqual(here(wide, wide2));
    expect(state.warnings).toEqual([]);
  });

  it("a $TMPDIR where a file can be made but not unlinked (append-only): no find, nothing left open", async (ctx) => {
    const appendOnly = join(root, "append-only-tmp");
    mkdirSync(appendOnly);
    if (spawnSync("chattr", ["+a", appendOnly]).status !== 0) ctx.skip();
    try {
      const find = loggingFind(join(root, "find-append"));
      const trees = await withEnv({ TMPDIR: appendOnly }, () =>
        walkTrees([wide, wide2], newWalkState(), { jobs: 2, find: find.path }),
      );
      expect(find.calls()).toEqual([]);
      expect(trees.map(byPath)).toEqual(here(wide, wide2));
      expect(openTempFiles()).toEqual([]);
      // The files it made (one per find it meant to start: 2 per tree) are left there.
      expect(readdirSync(appendOnly).map((n) => n.replace(/-\d+$/, "-N"))).toEqual(
        Array(4).fill(`ariel-du-${process.pid}-N`),
      );
    } finally {
      spawnSync("chattr", ["-a", appendOnly]);
    }
  });
});

describe.skipIf(!hasGnuFind || process.platform !== "linux")("walkTrees: a find found unusable", () => {
  it.each([
    // name, the find, its runs over the two trees and over them again
    ["exits 1 without a record (not a find taking these arguments)", "exit 1", 1, 0],
    ["exits 0 and prints nothing", "exit 0", 1, 0],
    [
      "prints a record then exits 1 (GNU find when an entry vanished): still used",
      "printf 'F0 8\\0'\nexit 1",
      2,
      2,
    ],
    ["GNU find itself: used for every tree", 'exec "$FIND" "$@"', 2, 2],
  ] as const)("%s", async (name, body, first, again) => {
    const find = loggingFind(join(root, `find-unusable-${name.slice(0, 12).replace(/\W/g, "-")}`), body);
    const state = newWalkState();
    const trees = await walkTrees([wide, wide2], state, { jobs: 1, find: find.path });
    expect(find.calls().map((c) => c.cwd)).toEqual([wide, wide2].slice(0, first));
    expect(trees.map(byPath)).toEqual(here(wide, wide2));
    expect(state.warnings).toEqual([]);
    await walkTrees([wide, wide2], newWalkState(), { jobs: 1, find: find.path });
    expect(find.calls()).toHaveLength(first + again);
  });
});

describe.skipIf(process.platform !== "linux")(
  "walkTrees: what find reports, and what changed before a failed part is walked here",
  () => {
    it("a directory find could not read (U record) is counted as itself and reported EACCES at its path", async () => {
      const full = shapedTree(join(root, "full"), { dirs: 0, topFiles: 513 });
      const find = loggingFind(join(root, "find-u"), "printf 'D0 8 .\\0U1 16 ./secret\\0F1 24\\0'");
      const state = newWalkState();
      const [tree] = await walkTrees([full], state, { jobs: 1, find: find.path });
      expect(find.calls().map((c) => c.starts)).toEqual([["."]]);
      expect(tree).toEqual({
        hardlinked: 0,
        dirs: [
          { parent: -1, name: "", own: bytes(full), files: 24 * 512 },
          { parent: 0, name: "secret", own: 16 * 512, files: 0 },
        ],
      });
      expect(state.warnings).toEqual([
        { code: "WARN_DU_UNREADABLE", path: join(full, "secret"), reason: "EACCES" },
      ]);
    });

    it("find fails after removing one start point and making another a file: the walk here skips the one, counts the other as a file", async () => {
      const dir = shapedTree(join(root, "changed"), { dirs: 130, files: 3 });
      const log = join(root, "find-change.did");
      const find = loggingFind(
        join(root, "find-change"),
        [`echo "$1 $2" > '${log}'`, 'rm -rf "$1" "$2"', 'head -c 9000 /dev/zero > "$2"', "exit 1"].join("\n"),
      );
      const state = newWalkState();
      const [tree] = await walkTrees([dir], state, { jobs: 1, find: find.path });
      const [gone, file] = readFileSync(log, "utf8").trim().split(" ");
      const got = byPath(tree!);
      expect(got).toEqual(here(dir)[0]);
      expect([got[gone!], got[file!]]).toEqual([undefined, undefined]);
      expect(Object.keys(got)).toHaveLength(1 + 128);
      expect(got["."]).toEqual([bytes(dir), bytes(join(dir, file!))]);
      expect(state.warnings).toEqual([]);
    });
  },
);
