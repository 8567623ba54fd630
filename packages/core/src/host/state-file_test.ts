import { spawnSync } from "node:child_process";
import {
  lstatSync,
  mkdirSync,
  mkdtempSync,
  readFileSync,
  readlinkSync,
  realpathSync,
  rmSync,
  symlinkSync,
  writeFileSync,
} from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { arielErrorOf } from "../_fixture.ts";
import { nodeFs } from "./fs.ts";
import { acquireLease, leasePath } from "./lease-store.ts";
import { withLockFile } from "./lock-file.ts";
import { readRecord, writeRecordCAS } from "./record-store.ts";

let root: string;
let outside: string;
beforeEach(() => {
  root = realpathSync(mkdtempSync(join(tmpdir(), "ariel-state-")));
  outside = realpathSync(mkdtempSync(join(tmpdir(), "ariel-outside-")));
});
afterEach(() => {
  rmSync(root, { recursive: true, force: true });
  rmSync(outside, { recursive: true, force: true });
});

const RECORD = '{"v":1,"version":1,"fencingToken":0,"taskId":"t1"}\n';
const LEASE = `${JSON.stringify({
  v: 1,
  type: "lease",
  taskId: "t1",
  owner: "x",
  token: 1,
  pid: 1,
  processStart: null,
  host: "elsewhere",
  acquiredAt: "2026-01-01T00:00:00.000Z",
  expiresAt: "2026-01-01T00:00:01.000Z",
})}\n`;

type Kind = "link to a file outside" | "dangling link" | "directory" | "fifo";
const KINDS: Kind[] = ["link to a file outside", "dangling link", "directory", "fifo"];

/** Put a `kind` at `path` (a link's target holds `content`). Returns a picture of it. */
function plant(path: string, kind: Kind, content: string): () => unknown {
  mkdirSync(join(path, ".."), { recursive: true });
  const target = join(outside, "target.json");
  if (kind === "link to a file outside") {
    writeFileSync(target, content);
    symlinkSync(target, path);
  } else if (kind === "dangling link") symlinkSync(join(outside, "nothing"), path);
  else if (kind === "directory") mkdirSync(path);
  else expect(spawnSync("mkfifo", [path]).status).toBe(0);
  return () => {
    const st = lstatSync(path);
    return {
      type: st.isSymbolicLink()
        ? `link ${readlinkSync(path)}`
        : st.isDirectory()
          ? "dir"
          : st.isFIFO()
            ? "fifo"
            : "file",
      target: kind === "link to a file outside" ? readFileSync(target, "utf8") : null,
    };
  };
}

const task = () => join(root, ".ariel/tasks/t1.json");

describe("a state file that is a link or not a regular file is refused, never read through or replaced", () => {
  const cases: [string, (kind: Kind) => { path: string; content: string }, () => Promise<unknown>][] = [
    ["readRecord", () => ({ path: task(), content: RECORD }), () => readRecord(task())],
    [
      "writeRecordCAS",
      () => ({ path: task(), content: RECORD }),
      () => writeRecordCAS(task(), { taskId: "t1" }, { expectVersion: 1, token: 1 }),
    ],
    [
      "acquireLease (the lease file)",
      () => ({ path: leasePath(root, "t1"), content: LEASE }),
      () => acquireLease(root, "t1", { owner: "me", renew: false }),
    ],
    [
      "acquireLease (the lease's lock file)",
      () => ({ path: `${leasePath(root, "t1")}.lock`, content: "{}" }),
      () => acquireLease(root, "t1", { owner: "me", renew: false }),
    ],
    [
      "writeRecordCAS (the record's lock file)",
      () => ({ path: `${task()}.lock`, content: "{}" }),
      () => writeRecordCAS(task(), { taskId: "t1" }, { expectVersion: 0, token: 1 }),
    ],
    [
      "withLockFile",
      () => ({ path: join(root, "repo.lock"), content: "{}" }),
      () => withLockFile(join(root, "repo.lock"), { timeoutMs: 0 }, async () => "ran"),
    ],
  ];
  for (const [name, where, act] of cases) {
    it.each(KINDS)(`${name}: %s → ERR_NOT_REGULAR_FILE (77), left as it was`, async (kind) => {
      const { path, content } = where(kind);
      const picture = plant(path, kind, content);
      const before = picture();
      const e = await arielErrorOf(act());
      expect([e.code, e.exit, e.context.path]).toEqual(["ERR_NOT_REGULAR_FILE", 77, path]);
      expect(picture()).toEqual(before);
    });
  }
});

describe("nodeFs.readFileNoFollow", () => {
  it.each<[string, (p: string) => void, unknown]>([
    ["absent", () => {}, null],
    ["a regular file", (p) => writeFileSync(p, "abc"), { kind: "file", bytes: "abc" }],
    ["larger than the bound", (p) => writeFileSync(p, "abcdef"), { kind: "file", bytes: null }],
    [
      "a link to a file",
      (p) => {
        writeFileSync(`${p}.t`, "abc");
        symlinkSync(`${p}.t`, p);
      },
      { kind: "symlink", bytes: null },
    ],
    ["a directory", (p) => mkdirSync(p), { kind: "dir", bytes: null }],
    ["a fifo (does not block)", (p) => spawnSync("mkfifo", [p]), { kind: "other", bytes: null }],
  ])("%s", async (_name, make, expected) => {
    const p = join(root, "f");
    make(p);
    const r = await nodeFs.readFileNoFollow(p, 4);
    expect(r && { kind: r.info.kind, bytes: r.bytes && new TextDecoder().decode(r.bytes) }).toEqual(expected);
  });
});
