/**
 * store.ts against real task records (written by addTask and removeTask in a temp workspace):
 * readTask's answers and refusals (exactly which errors are rewritten to name the task, which
 * pass as they are), taskLooksSpent's look at the text alone, and what writeTask stores.
 */
import { readFileSync, symlinkSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { arielErrorOf } from "../../_fixture.ts";
import type { TaskRecord } from "../../schema/task.ts";
import { removeDir, writeFile } from "../_fixture.ts";
import { withLease } from "../lease-store.ts";
import { faultyPorts, makeRoot } from "./_fixture.ts";
import { addTask } from "./add.ts";
import { leaseOptions } from "./fence.ts";
import { removeTask } from "./remove.ts";
import { readTask, taskLooksSpent, taskRecordPath, writeTask } from "./store.ts";

let root: string;
let hash: string;
let path: string;
let stored: string;
beforeEach(async () => {
  root = makeRoot(["api"]);
  await addTask(faultyPorts(), { root, taskId: "t1", sources: ["api"] });
  path = join(root, ".ariel/tasks/t1.json");
  stored = readFileSync(path, "utf8");
  hash = JSON.parse(stored).workspace.hash;
});
afterEach(() => removeDir(root));

/** The parts of a stored record the tests spoil. */
type Raw = { taskId: string; workspace: { root: string }; state: string; legs: unknown[] };

/** The stored record with `change` made to its parsed JSON, written back in place. */
function rewrite(change: (r: Raw) => void): void {
  const r = JSON.parse(stored);
  change(r);
  writeFileSync(path, `${JSON.stringify(r, null, 2)}\n`);
}

describe("readTask: a record of ours, or none", () => {
  it("the record as stored, read through the given fs", async () => {
    const ports = faultyPorts();
    expect(taskRecordPath(root, "t1")).toBe(path);
    expect(await readTask(root, hash, "t1", ports.fs)).toEqual(JSON.parse(stored));
    expect(ports.fs.log.filter((l) => l.includes("/.ariel/tasks/"))).toEqual([`readFileNoFollow ${path}`]);
  });

  it("null when the task has no record", async () => {
    expect(await readTask(root, hash, "t2")).toBe(null);
  });
});

describe("readTask: a record naming another task or workspace is ERR_NOT_OURS (3), left as it is", () => {
  it.each<[string, (r: Raw) => void, () => string, string, () => string]>([
    ["another task id", (r) => (r.taskId = "t2"), () => hash, "t2", () => root],
    [
      "another workspace root",
      (r) => (r.workspace.root = "/elsewhere/ws"),
      () => hash,
      "t1",
      () => "/elsewhere/ws",
    ],
    ["another workspace hash", () => {}, () => "f".repeat(hash.length), "t1", () => root],
  ])("%s", async (_name, change, asked, recordTask, recordRoot) => {
    rewrite(change);
    const before = readFileSync(path, "utf8");
    const wantRoot = recordRoot();
    expect(asked() === hash).toBe(recordTask !== "t1" || wantRoot !== root);
    const e = await arielErrorOf(readTask(root, asked(), "t1"));
    expect([e.code, e.exit, e.message, e.hint]).toEqual([
      "ERR_NOT_OURS",
      3,
      `task record ${path} belongs to another task or workspace`,
      `it names task "${recordTask}" in ${wantRoot}; move it aside (nothing was changed)`,
    ]);
    expect(e.context).toStrictEqual({ task: "t1", path, recordTask, recordRoot: wantRoot });
    expect(readFileSync(path, "utf8")).toBe(before);
  });
});

const CORRUPT_HINT = "move the file aside (ariel-worktree reconcile reports it); nothing was changed";

describe("readTask: a record that does not parse is ERR_RECORD_CORRUPT (65) naming the task", () => {
  it.each<[string, () => void, string]>([
    ["not JSON", () => writeFileSync(path, "{ nope"), "not valid JSON"],
    ["no stored fields", () => writeFileSync(path, "[]\n"), "not a JSON object"],
    [
      "a task state the schema lacks",
      () => rewrite((r) => (r.state = "bogus")),
      'unexpected shape (state: must be "active" or "cleaning" or "closed" or "unknown")',
    ],
    ["no legs", () => rewrite((r) => (r.legs = [])), "unexpected shape (legs: must have at least 1 item(s))"],
  ])("%s", async (_name, spoil, why) => {
    spoil();
    const before = readFileSync(path, "utf8");
    const e = await arielErrorOf(readTask(root, hash, "t1"));
    expect([e.code, e.exit, e.message, e.hint]).toEqual([
      "ERR_RECORD_CORRUPT",
      65,
      `task record ${path}: ${why}`,
      CORRUPT_HINT,
    ]);
    expect(e.context).toStrictEqual({ path, task: "t1" });
    expect(readFileSync(path, "utf8")).toBe(before);
  });
});

describe("readTask: any other failure passes as it is", () => {
  it("a record over the hard bound: ERR_RECORD_TOO_LARGE, not rewritten as corrupt", async () => {
    writeFileSync(path, " ".repeat(256 * 1024 + 1));
    const e = await arielErrorOf(readTask(root, hash, "t1"));
    expect([e.code, e.message]).toEqual([
      "ERR_RECORD_TOO_LARGE",
      `${path}: ${256 * 1024 + 1} bytes exceeds the ${256 * 1024}-byte bound`,
    ]);
    expect(e.context).toStrictEqual({ path, size: 256 * 1024 + 1, max: 256 * 1024 });
  });

  it("a symbolic link at the record's path: ERR_NOT_REGULAR_FILE, never read through", async () => {
    const elsewhere = join(root, "elsewhere.json");
    writeFileSync(elsewhere, stored);
    removeDir(path);
    symlinkSync(elsewhere, path);
    const e = await arielErrorOf(readTask(root, hash, "t1"));
    expect([e.code, e.exit, e.message]).toEqual([
      "ERR_NOT_REGULAR_FILE",
      77,
      `record ${path} is a symbolic link; refusing to read or replace it`,
    ]);
    expect(e.context).toStrictEqual({ path, kind: "symlink" });
  });

  it("an fs error (EACCES): the error itself", async () => {
    const ports = faultyPorts([{ op: "readFileNoFollow", path, code: "EACCES" }]);
    const e = await readTask(root, hash, "t1", ports.fs).catch((x: unknown) => x);
    expect(e).toMatchObject({ code: "EACCES" });
    expect(e).not.toHaveProperty("exit");
  });
});

const write = (text: string) => writeFileSync(path, text);

describe("taskLooksSpent: closed with no leg snapshotted, from the text alone", () => {
  it("a task as add and a plain remove leave it: active is not spent, removed is", async () => {
    expect(await taskLooksSpent(root, "t1")).toBe(false);
    expect((await removeTask(faultyPorts(), { root, taskId: "t1" })).refused).toBe(false);
    expect(JSON.parse(readFileSync(path, "utf8")).state).toBe("closed");
    expect(await taskLooksSpent(root, "t1")).toBe(true);
  });

  it("a task removed with a snapshot of its work is not spent", async () => {
    const worktree = JSON.parse(stored).legs[0].worktreePath;
    writeFile(join(worktree, "work.txt"), "unsaved\n");
    const r = await removeTask(faultyPorts(), { root, taskId: "t1", snapshot: true });
    expect(r.refused).toBe(false);
    const record = JSON.parse(readFileSync(path, "utf8")) as TaskRecord;
    expect([record.state, record.legs.map((l) => l.state)]).toEqual(["closed", ["snapshotted"]]);
    expect(await taskLooksSpent(root, "t1")).toBe(false);
  });

  it.each<[string, string, boolean]>([
    ["closed, compact", '{"state":"closed","legs":[{"state":"removed"}]}', true],
    ["closed, spaced", '{"state":  "closed"}', true],
    ["closed, a leg snapshotted", '{"state":"closed","legs":[{"state":"snapshotted"}]}', false],
    ["closed, a leg snapshotted, spaced", '{"state":"closed","legs":[{"state": "snapshotted"}]}', false],
    ["active", '{"state":"active","legs":[{"state":"removed"}]}', false],
    ["cleaning", '{"state":"cleaning"}', false],
    ["only an owner's text says closed", '{"state":"active","owner":"\\"state\\":\\"closed\\""}', false],
    ["not JSON, but the words are there", '"state": "closed" !!', true],
    ["empty", "", false],
  ])("%s: %s", async (_name, text, spent) => {
    write(text);
    expect(await taskLooksSpent(root, "t1")).toBe(spent);
  });
});

describe("taskLooksSpent: a record it cannot read whole is not spent (the full read reports it)", () => {
  it("no record: not spent", async () => {
    expect(await taskLooksSpent(root, "t2")).toBe(false);
  });

  it("a record over the hard bound that says closed: not spent (the full read reports it)", async () => {
    write(`{"state":"closed"}${" ".repeat(256 * 1024)}`);
    expect(await taskLooksSpent(root, "t1")).toBe(false);
  });

  it("a symbolic link to a closed record: not spent, never read through", async () => {
    const elsewhere = join(root, "elsewhere.json");
    writeFileSync(elsewhere, '{"state":"closed"}');
    removeDir(path);
    symlinkSync(elsewhere, path);
    expect(await taskLooksSpent(root, "t1")).toBe(false);
  });

  it("a record that cannot be read (EACCES): not spent, read through the given fs", async () => {
    write('{"state":"closed"}');
    const ports = faultyPorts([{ op: "readFileNoFollow", path, code: "EACCES" }]);
    expect(await taskLooksSpent(root, "t1", ports.fs)).toBe(false);
    expect(ports.fs.log).toEqual([`readFileNoFollow ${path}`]);
    expect(await taskLooksSpent(root, "t1", faultyPorts().fs)).toBe(true);
  });
});

describe("writeTask: version + 1, the lease's token, the clock's time", () => {
  it("stores and returns the next version", async () => {
    const now = Date.parse("2026-03-04T05:06:07.089Z");
    const ports = { ...faultyPorts(), clock: { now: () => now } };
    const record = JSON.parse(stored) as TaskRecord;
    let token = -1;
    const written = await withLease(root, "t1", leaseOptions(ports, "tester", 30_000), (lease) => {
      token = lease.token;
      return writeTask(ports, { ...record, owner: "someone" }, record.version, lease);
    });
    const want = {
      ...record,
      owner: "someone",
      updatedAt: "2026-03-04T05:06:07.089Z",
      version: record.version + 1,
      fencingToken: token,
    };
    expect(written).toEqual(want);
    expect(JSON.parse(readFileSync(path, "utf8"))).toEqual(want);
  });
});
