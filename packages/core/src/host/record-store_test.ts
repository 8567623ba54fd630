import { mkdtempSync, readdirSync, readFileSync, realpathSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { arielErrorOf } from "../_fixture.ts";
import { bundleWorker, removeWorker, runWorker } from "./_fixture.ts";
import { nodeFs } from "./fs.ts";
import { deleteRecordCAS, RECORD_HARD_MAX_BYTES, readRecord, writeRecordCAS } from "./record-store.ts";

let dir: string;
let path: string;
beforeEach(() => {
  dir = realpathSync(mkdtempSync(join(tmpdir(), "ariel-rec-")));
  path = join(dir, "tasks", "t1.json");
});
afterEach(() => rmSync(dir, { recursive: true, force: true }));

const leftovers = () => readdirSync(join(dir, "tasks")).filter((n) => n !== "t1.json");

describe("writeRecordCAS", () => {
  it("creates at version 1 with the token, then moves version by one per write", async () => {
    const a = await writeRecordCAS(path, { taskId: "t1", state: "active" }, { expectVersion: 0, token: 3 });
    expect(a).toEqual({ taskId: "t1", state: "active", v: 1, version: 1, fencingToken: 3 });
    const b = await writeRecordCAS(path, { ...a, state: "cleaning" }, { expectVersion: 1, token: 3 });
    expect(b.version).toBe(2);
    expect(JSON.parse(readFileSync(path, "utf8"))).toEqual({
      taskId: "t1",
      state: "cleaning",
      v: 1,
      version: 2,
      fencingToken: 3,
    });
    expect(await readRecord(path)).toEqual(b);
    expect(leftovers()).toEqual([]);
  });

  it.each([
    ["create over an existing record", 0, 3, "ERR_CONFLICT"],
    ["stale version", 1, 3, "ERR_CONFLICT"],
    ["version from the future", 5, 3, "ERR_CONFLICT"],
    ["older token (fenced) wins over the version check", 1, 2, "ERR_FENCED"],
  ])("refuses %s", async (_n, expectVersion, token, code) => {
    await writeRecordCAS(path, { n: 1 }, { expectVersion: 0, token: 3 });
    await writeRecordCAS(path, { n: 2 }, { expectVersion: 1, token: 3 });
    const before = readFileSync(path, "utf8");
    const e = await arielErrorOf(writeRecordCAS(path, { n: 9 }, { expectVersion, token }));
    expect([e.code, e.exit]).toEqual([code, 75]);
    expect(readFileSync(path, "utf8")).toBe(before);
    expect(leftovers()).toEqual([]);
  });

  it("a newer token may write (and then fences the older one out)", async () => {
    await writeRecordCAS(path, { n: 1 }, { expectVersion: 0, token: 3 });
    await writeRecordCAS(path, { n: 2 }, { expectVersion: 1, token: 4 });
    const e = await arielErrorOf(writeRecordCAS(path, { n: 3 }, { expectVersion: 2, token: 3 }));
    expect(e.code).toBe("ERR_FENCED");
    expect(e.context).toMatchObject({ token: 3, storedToken: 4 });
  });

  it("is fenced by a newer token in the lease file even before the new holder wrote", async () => {
    await writeRecordCAS(path, { n: 1 }, { expectVersion: 0, token: 3 });
    const leasePath = join(dir, "lease.json");
    writeFileSync(leasePath, JSON.stringify({ v: 1, type: "lease", token: 4 }));
    const e = await arielErrorOf(writeRecordCAS(path, { n: 2 }, { expectVersion: 1, token: 3, leasePath }));
    expect([e.code, e.exit, e.context.leaseToken]).toEqual(["ERR_FENCED", 75, 4]);
    const ok = await writeRecordCAS(path, { n: 2 }, { expectVersion: 1, token: 4, leasePath });
    expect(ok.version).toBe(2);
  });

  it.each([
    ["over the default 64 KiB", undefined, 70_000],
    ["over a smaller bound", 1_000, 1_200],
    ["over the hard 256 KiB whatever the caller asks", 10_000_000, 270_000],
  ])("refuses a record %s", async (_n, maxBytes, size) => {
    const e = await arielErrorOf(
      writeRecordCAS(
        path,
        { blob: "x".repeat(size) },
        { expectVersion: 0, token: 1, ...(maxBytes ? { maxBytes } : {}) },
      ),
    );
    expect([e.code, e.exit]).toEqual(["ERR_RECORD_TOO_LARGE", 65]);
    expect(await readRecord(path)).toBeNull();
  });

  it("accepts a record up to a raised bound", async () => {
    const r = await writeRecordCAS(
      path,
      { blob: "x".repeat(100_000) },
      { expectVersion: 0, token: 1, maxBytes: 200_000 },
    );
    expect(r.version).toBe(1);
  });
});

describe("writeRecordCAS unlocked (a writer no other can race: the run monitor)", () => {
  it("makes no lock file and still checks the CAS, creates only once and writes atomically", async () => {
    const made: string[] = [];
    const fs = {
      ...nodeFs,
      createExclusive: (p: string, d: string) => {
        made.push(p);
        return nodeFs.createExclusive(p, d);
      },
    };
    const locked = await writeRecordCAS(path, { n: 1 }, { expectVersion: 0, token: 0, fs });
    expect(made).toEqual([`${path}.lock`]);
    made.length = 0;
    rmSync(path);
    const a = await writeRecordCAS(path, { n: 1 }, { expectVersion: 0, token: 0, fs, unlocked: true });
    expect(a).toEqual(locked);
    const e = await arielErrorOf(
      writeRecordCAS(path, { n: 2 }, { expectVersion: 0, token: 0, fs, unlocked: true }),
    );
    expect(e.code).toBe("ERR_CONFLICT");
    const b = await writeRecordCAS(path, { n: 3 }, { expectVersion: 1, token: 0, fs, unlocked: true });
    expect(b.version).toBe(2);
    expect(JSON.parse(readFileSync(path, "utf8"))).toEqual({ n: 3, v: 1, version: 2, fencingToken: 0 });
    expect(made).toEqual([]);
    expect(leftovers()).toEqual([]);
  });
});

describe("readRecord", () => {
  it("is null when there is no record", async () => {
    expect(await readRecord(path)).toBeNull();
  });

  it.each([
    ["not JSON", "{not json", "not valid JSON"],
    ["a torn write", '{"v":1,"version":2,"fencingTo', "not valid JSON"],
    ["an array", "[1,2]", "not a JSON object"],
    ["another format version", '{"v":2,"version":1,"fencingToken":0}', "unknown record version v=2"],
    ["no version", '{"v":1,"fencingToken":0}', "missing or invalid 'version'"],
    ["a fractional version", '{"v":1,"version":1.5,"fencingToken":0}', "missing or invalid 'version'"],
    ["a string token", '{"v":1,"version":1,"fencingToken":"3"}', "missing or invalid 'fencingToken'"],
  ])("refuses %s with ERR_RECORD_CORRUPT (65) and never overwrites it", async (_n, content, why) => {
    writeFileSync(join(dir, "x.json"), content);
    const p = join(dir, "x.json");
    const e = await arielErrorOf(readRecord(p));
    expect([e.code, e.exit, e.message]).toEqual(["ERR_RECORD_CORRUPT", 65, `${p}: ${why}`]);
    const w = await arielErrorOf(writeRecordCAS(p, { a: 1 }, { expectVersion: 0, token: 1 }));
    expect(w.code).toBe("ERR_RECORD_CORRUPT");
    expect(readFileSync(p, "utf8")).toBe(content);
  });

  it("refuses a file over the hard bound without parsing it", async () => {
    writeFileSync(path.replace("tasks/t1.json", "big.json"), "x".repeat(RECORD_HARD_MAX_BYTES + 1));
    const e = await arielErrorOf(readRecord(join(dir, "big.json")));
    expect([e.code, e.exit]).toEqual(["ERR_RECORD_TOO_LARGE", 65]);
  });

  it("runs the caller's parse and reports a foreign shape as corrupt", async () => {
    await writeRecordCAS(path, { type: "task" }, { expectVersion: 0, token: 1 });
    const parse = (v: unknown) => {
      if ((v as { type?: unknown }).type !== "lease") throw new Error("type: expected lease");
      return v as { v: 1; version: number; fencingToken: number };
    };
    const e = await arielErrorOf(readRecord(path, { parse }));
    expect(e.message).toBe(`${path}: unexpected shape (type: expected lease)`);
  });
});

describe("deleteRecordCAS", () => {
  it("deletes only at the expected version and token", async () => {
    await writeRecordCAS(path, { n: 1 }, { expectVersion: 0, token: 2 });
    expect((await arielErrorOf(deleteRecordCAS(path, { expectVersion: 2, token: 2 }))).code).toBe(
      "ERR_CONFLICT",
    );
    expect((await arielErrorOf(deleteRecordCAS(path, { expectVersion: 1, token: 1 }))).code).toBe(
      "ERR_FENCED",
    );
    await deleteRecordCAS(path, { expectVersion: 1, token: 2 });
    expect(await readRecord(path)).toBeNull();
    await deleteRecordCAS(path, { expectVersion: 0, token: 2 });
    expect(leftovers()).toEqual([]);
  });
});

describe("across processes", () => {
  let worker: string;
  beforeAll(async () => {
    worker = await bundleWorker();
  });
  afterAll(() => removeWorker(worker));

  it("N writers doing read-modify-CAS-retry increments lose no update", async () => {
    const procs = 4;
    const n = 25;
    const runs = Array.from({ length: procs }, () => runWorker(worker, "increment", { path, n }));
    const results = await Promise.all(runs.map((r) => r.done));
    expect(results.map((r) => [r.code, r.stderr])).toEqual(Array.from({ length: procs }, () => [0, ""]));
    const rec = await readRecord(path);
    expect([rec?.count, rec?.version]).toEqual([procs * n, procs * n]);
    expect(leftovers()).toEqual([]);
  });
});
