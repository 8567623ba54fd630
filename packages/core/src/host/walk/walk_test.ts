/**
 * The in-process walk on real files: what a tree records for a directory, a file and a path that
 * is gone, the warnings for what cannot be read, and the bytes of one file measured again.
 */
import {
  linkSync,
  lstatSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  realpathSync,
  rmSync,
  writeFileSync,
} from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { emptyUsage, PathClassifier } from "../../disk/usage.ts";
import { longPathTree, removeLong } from "./_fixture.ts";
import { fileBytes, lstatOrNull, newWalkState, walkTree, walkUnder, walkUsage } from "./walk.ts";

let root = "";
const bytes = (path: string) => lstatSync(path).blocks * 512;

beforeAll(() => {
  root = realpathSync(mkdtempSync(join(tmpdir(), "ariel-walk-")));
  mkdirSync(join(root, "t", "a", "b"), { recursive: true });
  writeFileSync(join(root, "t", "top.txt"), "x".repeat(5000));
  writeFileSync(join(root, "t", "a", "mid.txt"), "y".repeat(9000));
  writeFileSync(join(root, "t", "a", "b", "deep.txt"), "z".repeat(20_000));
  writeFileSync(join(root, "t", "a", "linked.bin"), "l".repeat(70_000));
  mkdirSync(join(root, "u"));
  linkSync(join(root, "t", "a", "linked.bin"), join(root, "u", "again.bin"));
  writeFileSync(join(root, "lone.txt"), "q".repeat(12_345));
});

afterAll(() => rmSync(root, { recursive: true, force: true }));

describe("walkTree", () => {
  it("records each directory's own bytes and its files', parents before children", () => {
    const t = join(root, "t");
    const state = newWalkState();
    const tree = walkTree(t, state);
    const linked = bytes(join(t, "a", "linked.bin"));
    expect(tree).toEqual({
      hardlinked: linked,
      dirs: [
        { parent: -1, name: "", own: bytes(t), files: bytes(join(t, "top.txt")) },
        { parent: 0, name: "a", own: bytes(join(t, "a")), files: bytes(join(t, "a", "mid.txt")) + linked },
        { parent: 1, name: "b", own: bytes(join(t, "a", "b")), files: bytes(join(t, "a", "b", "deep.txt")) },
      ],
    });
    expect(state.warnings).toEqual([]);
    const st = lstatSync(join(t, "a", "linked.bin"));
    expect(state.seen.get(`${st.dev}:${st.ino}`)).toBe(tree);
  });

  it("counts a file with several links once per run: the second tree that meets it gets nothing", () => {
    const state = newWalkState();
    const first = walkTree(join(root, "t"), state);
    const second = walkTree(join(root, "u"), state);
    expect(first.hardlinked).toBe(bytes(join(root, "t", "a", "linked.bin")));
    expect(second).toEqual({
      hardlinked: 0,
      dirs: [{ parent: -1, name: "", own: bytes(join(root, "u")), files: 0 }],
    });
    // In a run of its own, the other tree counts it.
    expect(walkTree(join(root, "u"), newWalkState()).dirs[0]!.files).toBe(
      bytes(join(root, "u", "again.bin")),
    );
  });

  it("takes a file as a tree of one directory holding it, with no bytes of its own", () => {
    const tree = walkTree(join(root, "lone.txt"), newWalkState());
    expect(tree).toEqual({
      hardlinked: 0,
      dirs: [{ parent: -1, name: "", own: 0, files: bytes(join(root, "lone.txt")) }],
    });
    expect(bytes(join(root, "lone.txt"))).toBeGreaterThan(0);
  });

  it("is empty for a path that is gone, with no warning", () => {
    const state = newWalkState();
    expect(walkTree(join(root, "gone"), state)).toEqual({ dirs: [], hardlinked: 0 });
    expect(state.warnings).toEqual([]);
  });
});

describe("what the walk cannot read", () => {
  it("lstatOrNull: null and a warning with the error's code; null and no warning when gone", () => {
    const state = newWalkState();
    const long = join(root, "n".repeat(300));
    expect(lstatOrNull(long, state)).toBeNull();
    expect(lstatOrNull(join(root, "gone"), state)).toBeNull();
    expect(state.warnings).toEqual([{ code: "WARN_DU_UNREADABLE", path: long, reason: "ENAMETOOLONG" }]);
    expect(lstatOrNull(join(root, "lone.txt"), state)?.size).toBe(12_345);
  });

  it("walkUnder: a directory it cannot list is a warning and the walk goes on; one that is gone is not", () => {
    const state = newWalkState();
    const tree = { dirs: [{ parent: -1, name: "", own: 0, files: 0 }], hardlinked: 0 };
    walkUnder(tree, 0, join(root, "lone.txt"), state, []);
    walkUnder(tree, 0, join(root, "gone"), state, []);
    expect(state.warnings).toEqual([
      { code: "WARN_DU_UNREADABLE", path: join(root, "lone.txt"), reason: "ENOTDIR" },
    ]);
    expect(tree.dirs).toEqual([{ parent: -1, name: "", own: 0, files: 0 }]);
  });
});

describe.skipIf(process.platform !== "linux")("what the walk cannot read: paths over PATH_MAX", () => {
  it("walkTree: a file and a directory whose paths are too long are warnings (ENAMETOOLONG); the rest is counted", () => {
    const t = longPathTree(root);
    try {
      const state = newWalkState();
      expect(walkTree(t.dir, state)).toEqual({
        hardlinked: 0,
        dirs: [{ parent: -1, name: "", own: bytes(t.dir), files: bytes(t.short) }],
      });
      // In the order readdir gives them.
      const order = readdirSync(t.dir).filter((n) => n !== "short");
      expect(state.warnings).toEqual(
        order.map((n) => ({ code: "WARN_DU_UNREADABLE", path: `${t.dir}/${n}`, reason: "ENAMETOOLONG" })),
      );
      expect(order.map((n) => `${t.dir}/${n}`).sort()).toEqual([t.longDir, t.longFile]);
    } finally {
      removeLong(root);
    }
  });
});

describe("fileBytes: one file of a walked tree, measured again", () => {
  it("gives a file's bytes, and 0 for a path gone, a directory, and a link another tree counted", () => {
    const state = newWalkState();
    const t = walkTree(join(root, "t"), state);
    const u = walkTree(join(root, "u"), state);
    const ofT = fileBytes(join(root, "t"), t, state);
    const ofU = fileBytes(join(root, "u"), u, state);
    expect(ofT("top.txt")).toBe(bytes(join(root, "t", "top.txt")));
    expect(ofT("a/linked.bin")).toBe(bytes(join(root, "t", "a", "linked.bin")));
    expect(ofU("again.bin")).toBe(0);
    expect(ofT("a")).toBe(0);
    expect(ofT("gone.txt")).toBe(0);
    expect(state.warnings).toEqual([]);
  });

  it("walkUsage: a file that is not a checkout file moves out of checkout by the bytes measured again", () => {
    const t = join(root, "t");
    const state = newWalkState();
    const whole = emptyUsage();
    walkUsage(t, null, state, whole);
    const all = bytes(t) + bytes(join(t, "a")) + bytes(join(t, "a", "b"));
    const files = ["top.txt", "a/mid.txt", "a/b/deep.txt", "a/linked.bin"].map((f) => bytes(join(t, f)));
    expect(whole).toMatchObject({ total: all + files.reduce((x, y) => x + y, 0) });
    expect(whole.admin).toBe(whole.total);
    // top.txt is untracked: its bytes are measured again and moved.
    const split = emptyUsage();
    walkUsage(t, new PathClassifier(new Set(["top.txt"]), new Set(["a/b"])), newWalkState(), split);
    expect(split.total).toBe(whole.total);
    expect(split.untracked).toBe(bytes(join(t, "top.txt")));
    const deep = bytes(join(t, "a", "b")) + bytes(join(t, "a", "b", "deep.txt"));
    expect(split.ignored).toBe(deep);
    expect(split.checkout).toBe(whole.total - bytes(join(t, "top.txt")) - deep);
    expect(split.admin).toBe(0);
  });
});
