/**
 * More record-store tests, beside record-store_test.ts: the exact error (code, message, context)
 * of each refusal, the size bounds at their edges, the record lock's name and wait, and the
 * stored fields a value needs to be a record.
 */
import { mkdirSync, mkdtempSync, readFileSync, realpathSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { arielErrorOf } from "../_fixture.ts";
import {
  deleteRecordCAS,
  RECORD_HARD_MAX_BYTES,
  readRecord,
  storedFieldsProblem,
  writeRecordCAS,
} from "./record-store.ts";

let dir: string;
let path: string;
beforeEach(() => {
  dir = realpathSync(mkdtempSync(join(tmpdir(), "ariel-rec-more-")));
  path = join(dir, "tasks", "t1.json");
});
afterEach(() => rmSync(dir, { recursive: true, force: true }));

/** Code, message and context of what `p` threw. */
async function refusal(p: Promise<unknown>) {
  const e = await arielErrorOf(p);
  return { code: e.code, message: e.message, context: e.context };
}

const put = (text: string) => {
  mkdirSync(join(dir, "tasks"), { recursive: true });
  writeFileSync(path, text);
};

describe("storedFieldsProblem", () => {
  it.each([
    [null, "not a JSON object"],
    [[1], "not a JSON object"],
    ["x", "not a JSON object"],
    [7, "not a JSON object"],
    [{ v: 2, version: 1, fencingToken: 0 }, "unknown record version v=2"],
    [{ version: 1, fencingToken: 0 }, "unknown record version v=undefined"],
    [{ v: 1, version: 0, fencingToken: 0 }, "missing or invalid 'version'"],
    [{ v: 1, version: 1.5, fencingToken: 0 }, "missing or invalid 'version'"],
    [{ v: 1, version: "1", fencingToken: 0 }, "missing or invalid 'version'"],
    [{ v: 1, version: 1, fencingToken: -1 }, "missing or invalid 'fencingToken'"],
    [{ v: 1, version: 1, fencingToken: 0.5 }, "missing or invalid 'fencingToken'"],
    [{ v: 1, version: 1 }, "missing or invalid 'fencingToken'"],
    [{ v: 1, version: 1, fencingToken: 0 }, null],
  ])("%j: %s", (value, problem) => {
    expect(storedFieldsProblem(value)).toBe(problem);
  });
});

describe("readRecord: what it refuses", () => {
  it("not JSON, not a record: ERR_RECORD_CORRUPT with the path in the message and context", async () => {
    put("{");
    expect(await refusal(readRecord(path))).toEqual({
      code: "ERR_RECORD_CORRUPT",
      message: `${path}: not valid JSON`,
      context: { path },
    });
    put("[]");
    expect((await refusal(readRecord(path))).message).toBe(`${path}: not a JSON object`);
  });

  it("over the caller's bound: ERR_RECORD_TOO_LARGE naming the size and the bound; at the bound it is read", async () => {
    const text = `${JSON.stringify({ v: 1, version: 1, fencingToken: 0, pad: "x".repeat(40) })}\n`;
    put(text);
    const size = Buffer.byteLength(text);
    expect(await readRecord(path, { maxBytes: size })).toMatchObject({ version: 1 });
    expect(await refusal(readRecord(path, { maxBytes: size - 1 }))).toEqual({
      code: "ERR_RECORD_TOO_LARGE",
      message: `${path}: ${size} bytes exceeds the ${size - 1}-byte bound`,
      context: { path, size, max: size - 1 },
    });
  });

  it("a bound above the hard one is the hard one", async () => {
    put(`${JSON.stringify({ v: 1, version: 1, fencingToken: 0, pad: "x".repeat(RECORD_HARD_MAX_BYTES) })}\n`);
    const e = await refusal(readRecord(path, { maxBytes: RECORD_HARD_MAX_BYTES * 4 }));
    expect([e.code, (e.context as { max: number }).max]).toEqual([
      "ERR_RECORD_TOO_LARGE",
      RECORD_HARD_MAX_BYTES,
    ]);
  });
});

describe("writeRecordCAS: what it refuses", () => {
  it("over the bound: ERR_RECORD_TOO_LARGE with the record's size; exactly at the bound it is written", async () => {
    const rec = { pad: "x".repeat(100) };
    const size = Buffer.byteLength(
      `${JSON.stringify({ ...rec, v: 1, version: 1, fencingToken: 0 }, null, 2)}\n`,
    );
    expect(
      await refusal(writeRecordCAS(path, rec, { expectVersion: 0, token: 0, maxBytes: size - 1 })),
    ).toEqual({
      code: "ERR_RECORD_TOO_LARGE",
      message: `${path}: record of ${size} bytes exceeds the ${size - 1}-byte bound`,
      context: { path, size, max: size - 1 },
    });
    await writeRecordCAS(path, rec, { expectVersion: 0, token: 0, maxBytes: size });
    expect(Buffer.byteLength(readFileSync(path, "utf8"))).toBe(size);
  });

  it("a token from an older holder: ERR_FENCED naming both tokens", async () => {
    await writeRecordCAS(path, { a: 1 }, { expectVersion: 0, token: 5 });
    expect(await refusal(writeRecordCAS(path, { a: 2 }, { expectVersion: 1, token: 4 }))).toEqual({
      code: "ERR_FENCED",
      message: `${path}: fenced out (record written with token 5, ours is 4)`,
      context: { path, token: 4, storedToken: 5 },
    });
  });

  it("a lease that moved on: ERR_FENCED naming its token; the same token, or no lease file, is not", async () => {
    const leasePath = join(dir, "t1.lease.json");
    writeFileSync(leasePath, JSON.stringify({ token: 3 }));
    expect(await refusal(writeRecordCAS(path, { a: 1 }, { expectVersion: 0, token: 2, leasePath }))).toEqual({
      code: "ERR_FENCED",
      message: `${path}: fenced out (the lease moved on to token 3, ours is 2)`,
      context: { path, token: 2, leaseToken: 3 },
    });
    expect((await writeRecordCAS(path, { a: 1 }, { expectVersion: 0, token: 3, leasePath })).version).toBe(1);
    rmSync(leasePath);
    expect((await writeRecordCAS(path, { a: 2 }, { expectVersion: 1, token: 3, leasePath })).version).toBe(2);
  });

  it.each([
    ["{", "not JSON"],
    ['{"token":0}', "token 0"],
    ['{"token":"3"}', "a string token"],
  ])("a lease file that is not one (%s: %s): ERR_RECORD_CORRUPT, nothing written", async (text) => {
    const leasePath = join(dir, "t1.lease.json");
    writeFileSync(leasePath, text);
    expect(await refusal(writeRecordCAS(path, { a: 1 }, { expectVersion: 0, token: 2, leasePath }))).toEqual({
      code: "ERR_RECORD_CORRUPT",
      message: `${leasePath}: not a lease record`,
      context: { path: leasePath },
    });
    expect(await readRecord(path)).toBeNull();
  });

  it("a version that moved on: ERR_CONFLICT naming both; a token that is not an integer >= 0: RangeError", async () => {
    await writeRecordCAS(path, { a: 1 }, { expectVersion: 0, token: 1 });
    expect(await refusal(writeRecordCAS(path, { a: 2 }, { expectVersion: 3, token: 1 }))).toEqual({
      code: "ERR_CONFLICT",
      message: `${path}: version is 1, expected 3`,
      context: { path, version: 1, expectVersion: 3 },
    });
    for (const token of [-1, 1.5]) {
      await expect(writeRecordCAS(path, { a: 2 }, { expectVersion: 1, token })).rejects.toThrow(
        new RangeError("fencing token must be an integer >= 0"),
      );
    }
    expect(await readRecord(path)).toMatchObject({ a: 1, version: 1 });
  });

  it("a record lock someone holds: ERR_LOCKED naming the record lock, after the wait asked for", async () => {
    mkdirSync(join(dir, "tasks"), { recursive: true });
    writeFileSync(`${path}.lock`, JSON.stringify({ pid: process.pid, nonce: "other", host: "" }));
    const e = await arielErrorOf(
      writeRecordCAS(path, { a: 1 }, { expectVersion: 0, token: 1, lockTimeoutMs: 30 }),
    );
    expect([e.code, e.message.startsWith("record lock ")]).toEqual(["ERR_LOCKED", true]);
    expect(await readRecord(path)).toBeNull();
  });
});

describe("deleteRecordCAS", () => {
  it("absent at version 0: nothing to do; present at its version: removed; another version: ERR_CONFLICT, kept", async () => {
    await deleteRecordCAS(path, { expectVersion: 0, token: 1 });
    await writeRecordCAS(path, { a: 1 }, { expectVersion: 0, token: 1 });
    expect((await refusal(deleteRecordCAS(path, { expectVersion: 2, token: 1 }))).code).toBe("ERR_CONFLICT");
    expect(await readRecord(path)).toMatchObject({ version: 1 });
    await deleteRecordCAS(path, { expectVersion: 1, token: 1 });
    expect(await readRecord(path)).toBeNull();
  });
});
