/**
 * What the walks do when the tree changes under them between two calls: a directory gone or
 * made a file between its listing and its own readdir, an entry that changed type or went
 * between readdir and its lstat; and errors without a code. `node:fs` is the real one, but for
 * a hook run (once) just before `readdirSync` or `lstatSync` of one path, which changes the real
 * tree at that moment (or throws an error without a code): the race is certain, not timed.
 */
import type * as fs from "node:fs";
import { lstatSync, mkdirSync, mkdtempSync, realpathSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, afterEach, beforeAll, describe, expect, it, vi } from "vitest";
import { byPath, bytes, write } from "./_fixture.ts";
import { walkTrees } from "./parallel_walk.ts";
import { lstatOrNull, newWalkState, walkTree } from "./walk.ts";

const hooks = vi.hoisted(() => ({
  readdir: new Map<string, () => void>(),
  lstat: new Map<string, () => void>(),
}));

vi.mock("node:fs", async (original) => {
  const real = await original<typeof fs>();
  const hooked = <F>(map: Map<string, () => void>, fn: F): F =>
    ((path: fs.PathLike, options?: unknown) => {
      const hook = map.get(String(path));
      map.delete(String(path));
      hook?.();
      return (fn as (path: fs.PathLike, options?: unknown) => unknown)(path, options);
    }) as F;
  const readdirSync = hooked(hooks.readdir, real.readdirSync);
  const lstatSync = hooked(hooks.lstat, real.lstatSync);
  return { ...real, readdirSync, lstatSync, default: { ...real, readdirSync, lstatSync } };
});

let root = "";
beforeAll(() => {
  root = realpathSync(mkdtempSync(join(tmpdir(), "ariel-pwalk-race-")));
});
afterAll(() => rmSync(root, { recursive: true, force: true }));
afterEach(() => {
  expect([...hooks.readdir.keys(), ...hooks.lstat.keys()]).toEqual([]); // every race happened
});

/** An error as a runtime might throw it: no `code`. */
const noCode = () => {
  throw new Error("the disk said no");
};

describe("walkTrees: a directory of the top levels that changes before it is listed", () => {
  it("gone: counted as it was seen, no warning; made a file: ENOTDIR at its path; the rest counted", async () => {
    const top = join(root, "listed");
    write(join(top, "gone", "a"), 3000);
    write(join(top, "nowfile", "b"), 3000);
    write(join(top, "ok", "c"), 5000);
    const own = (n: string) => bytes(join(top, n));
    const seen = { gone: own("gone"), nowfile: own("nowfile") };
    hooks.readdir.set(join(top, "gone"), () => rmSync(join(top, "gone"), { recursive: true }));
    hooks.readdir.set(join(top, "nowfile"), () => {
      rmSync(join(top, "nowfile"), { recursive: true });
      write(join(top, "nowfile"), 7000);
    });
    const state = newWalkState();
    const [tree] = await walkTrees([top], state, { jobs: 1 });
    expect(byPath(tree!)).toEqual({
      ".": [own("."), 0],
      "./gone": [seen.gone, 0],
      "./nowfile": [seen.nowfile, 0],
      "./ok": [own("ok"), bytes(join(top, "ok", "c"))],
    });
    expect(state.warnings).toEqual([
      { code: "WARN_DU_UNREADABLE", path: join(top, "nowfile"), reason: "ENOTDIR" },
    ]);
  });

  it("a listing that fails without an error code is reported with the reason `error`", async () => {
    const top = join(root, "nocode-list");
    write(join(top, "odd", "a"), 3000);
    hooks.readdir.set(join(top, "odd"), noCode);
    const state = newWalkState();
    const [tree] = await walkTrees([top], state, { jobs: 1 });
    expect(byPath(tree!)).toEqual({ ".": [bytes(top), 0], "./odd": [bytes(join(top, "odd")), 0] });
    expect(state.warnings).toEqual([{ code: "WARN_DU_UNREADABLE", path: join(top, "odd"), reason: "error" }]);
  });
});

describe("walkTrees: entries that change between the top's readdir and their lstat", () => {
  it("a file made a directory is listed; a directory made a file is a file; what went is skipped", async () => {
    const top = join(root, "typed");
    write(join(top, "x"), 1000); // becomes a directory holding inner (5000)
    write(join(top, "y", "old"), 1000); // becomes a file of 7000
    write(join(top, "w"), 1000); // a file that goes
    mkdirSync(join(top, "z")); // a directory that goes
    write(join(top, "keep"), 2000);
    hooks.lstat.set(join(top, "x"), () => {
      rmSync(join(top, "x"));
      write(join(top, "x", "inner"), 5000);
    });
    hooks.lstat.set(join(top, "y"), () => {
      rmSync(join(top, "y"), { recursive: true });
      write(join(top, "y"), 7000);
    });
    hooks.lstat.set(join(top, "w"), () => rmSync(join(top, "w")));
    hooks.lstat.set(join(top, "z"), () => rmSync(join(top, "z"), { recursive: true }));
    const state = newWalkState();
    const [tree] = await walkTrees([top], state, { jobs: 1 });
    expect(byPath(tree!)).toEqual({
      ".": [bytes(top), bytes(join(top, "keep")) + bytes(join(top, "y"))],
      "./x": [bytes(join(top, "x")), bytes(join(top, "x", "inner"))],
    });
    expect(lstatSync(join(top, "y")).isFile()).toBe(true);
    expect(state.warnings).toEqual([]);
  });
});

describe("the walk here: errors without a code", () => {
  it("walkTree: a directory it cannot list, and lstatOrNull: a path it cannot stat, give the reason `error`", () => {
    const top = join(root, "nocode-walk");
    write(join(top, "sub", "a"), 3000);
    write(join(top, "b"), 4000);
    hooks.readdir.set(join(top, "sub"), noCode);
    const state = newWalkState();
    expect(byPath(walkTree(top, state))).toEqual({
      ".": [bytes(top), bytes(join(top, "b"))],
      "./sub": [bytes(join(top, "sub")), 0],
    });
    hooks.lstat.set(join(top, "b"), noCode);
    expect(lstatOrNull(join(top, "b"), state)).toBeNull();
    expect(state.warnings).toEqual([
      { code: "WARN_DU_UNREADABLE", path: join(top, "sub"), reason: "error" },
      { code: "WARN_DU_UNREADABLE", path: join(top, "b"), reason: "error" },
    ]);
  });
});
