import { mkdirSync, rmSync, watch, writeFileSync } from "node:fs";
import { join } from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { removeDir, tempDir } from "../../../core/src/host/_fixture.ts";
import { DirWatch } from "./watch.ts";

// A DirWatch on a real directory (inotify): what it reports, when, and that close stops it. "Not
// reported" is asserted behind a fence: a second watch of the same directory sees a later file
// first, and both hear the kernel's events in the order they came.

let root: string;
const watches: DirWatch[] = [];
let fences = 0;

beforeEach(() => {
  root = tempDir("ariel-tui-watch-");
  fences = 0;
});
afterEach(() => {
  for (const w of watches.splice(0)) w.close();
  removeDir(root);
});

/** Wait until `check` holds, polling; an error naming `what` after `ms`. */
async function until(check: () => boolean, what: string, ms = 5_000): Promise<void> {
  for (const deadline = Date.now() + ms; !check(); ) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 10));
  }
}

/** A DirWatch on `path` and every file name it reported (null: "look again"), in order. */
function watched(path: string): { w: DirWatch; calls: (string | null)[] } {
  const calls: (string | null)[] = [];
  const w = new DirWatch(path, (file) => calls.push(file));
  watches.push(w);
  return { w, calls };
}

/**
 * Write a fence file into `dir` and wait until a watch of `dir` of our own hears it: every event
 * of `dir` before it has reached the DirWatch under test too.
 */
async function fence(dir: string): Promise<void> {
  const name = `fence-${++fences}`;
  let heard = false;
  const control = watch(dir, (_e, file) => {
    if (String(file) === name) heard = true;
  });
  try {
    writeFileSync(join(dir, name), "");
    await until(() => heard, `the fence ${name} in ${dir}`);
  } finally {
    control.close();
  }
}

describe("DirWatch on a directory that exists", () => {
  // It reports the names changed in it, only those, and nothing once closed.
  it("a file written in it: its name, every time", async () => {
    const { w, calls } = watched(root);
    expect(w.path).toBe(root);
    writeFileSync(join(root, "run.json"), "{}");
    await until(() => calls.length > 0, "a change");
    await fence(root);
    expect(new Set(calls)).toEqual(new Set(["run.json", "fence-1"]));
  });

  it("a file in a directory under it: the directory's name, not the file's", async () => {
    mkdirSync(join(root, "sub"));
    const { calls } = watched(root);
    writeFileSync(join(root, "sub", "deep"), "x");
    await fence(root);
    expect(calls.filter((c) => c !== "fence-1")).toEqual([]);
    mkdirSync(join(root, "sub2"));
    await until(() => calls.includes("sub2"), "sub2");
  });

  it("closed: nothing more is reported", async () => {
    const { w, calls } = watched(root);
    w.close();
    writeFileSync(join(root, "after"), "x");
    await fence(root);
    expect(calls).toEqual([]);
    w.close(); // twice: no harm
  });

  it("its own removal: reported by its name", async () => {
    const dir = join(root, "run");
    mkdirSync(dir);
    const { calls } = watched(dir);
    rmSync(dir, { recursive: true });
    await until(() => calls.length > 0, "the removal");
    expect(new Set(calls)).toEqual(new Set(["run"]));
  });
});

describe("DirWatch on a directory that does not exist yet", () => {
  // It waits through the nearest ancestor that exists: a change there that is not the directory is
  // no news; the directory made is one `null`, and then the directory itself is watched.
  it("made later: null once, then its own files by name; the ancestor's other files never", async () => {
    const path = join(root, "runs");
    const { w, calls } = watched(path);
    expect(w.path).toBe(path);
    writeFileSync(join(root, "other"), "x");
    await fence(root);
    expect(calls).toEqual([]);
    mkdirSync(path);
    await until(() => calls.length > 0, "the directory made");
    expect(calls).toEqual([null]);
    writeFileSync(join(path, "a.ndjson"), "x");
    await until(() => calls.includes("a.ndjson"), "a file in it");
    // The ancestor is not watched any more: its files are still no news.
    writeFileSync(join(root, "other2"), "x");
    await fence(root);
    await fence(path);
    expect(calls[0]).toBe(null);
    expect(new Set(calls.slice(1))).toEqual(new Set(["a.ndjson", "fence-3"]));
  });

  it("several levels missing, made at once: null, then the directory is watched", async () => {
    const path = join(root, ".ariel", "runs", "x");
    const { calls } = watched(path);
    mkdirSync(path, { recursive: true });
    await until(() => calls.length > 0, "the directory made");
    writeFileSync(join(path, "out"), "x");
    await until(() => calls.includes("out"), "a file in it");
    // A null for each level the watch moved down (one or more: the levels came at once).
    expect(new Set(calls)).toEqual(new Set([null, "out"]));
  });

  it("several levels missing, made one at a time: it moves down each level, then the directory is watched", async () => {
    const path = join(root, ".ariel", "runs", "x");
    const { calls } = watched(path);
    for (const [n, dir] of [join(root, ".ariel"), join(root, ".ariel", "runs"), path].entries()) {
      mkdirSync(dir);
      await until(() => calls.length > n, `the watch moved down to ${dir}`);
    }
    expect(calls).toEqual([null, null, null]);
    writeFileSync(join(path, "out"), "x");
    await until(() => calls.includes("out"), "a file in it");
    // (A file written is one event or two, as the kernel says: created, then changed.)
    expect([calls.slice(0, 3), new Set(calls.slice(3))]).toEqual([[null, null, null], new Set(["out"])]);
  });

  it("its ancestor removed: null, and it is waited for from further up", async () => {
    const parent = join(root, "a");
    mkdirSync(parent);
    const path = join(parent, "b");
    const { calls } = watched(path);
    rmSync(parent, { recursive: true });
    await until(() => calls.length > 0, "the ancestor's removal");
    expect(calls).toEqual([null]);
    writeFileSync(join(root, "other"), "x");
    await fence(root);
    expect(calls).toEqual([null]);
    mkdirSync(path, { recursive: true });
    await until(() => calls.length > 1, "the directory made");
    expect(calls).toEqual([null, null]);
    writeFileSync(join(path, "f"), "x");
    await until(() => calls.includes("f"), "a file in it");
  });

  it("closed before it is made: nothing is reported", async () => {
    const path = join(root, "later");
    const { w, calls } = watched(path);
    w.close();
    mkdirSync(path);
    writeFileSync(join(path, "f"), "x");
    await fence(root);
    await fence(path);
    expect(calls).toEqual([]);
  });
});
