import { mkdirSync, readdirSync, readFileSync, statSync, writeFileSync } from "node:fs";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { ArielError } from "../../errors.ts";
import { workspaceHash } from "../../hash.ts";
import { runPaths, runsDir } from "../../runs/paths.ts";
import type { ExitRecord, RunRecord } from "../../runs/record.ts";
import { removeDir, tempDir } from "../_fixture.ts";
import { runFields } from "./_fixture.ts";
import { resolveRunId } from "./resolve.ts";
import {
  appendHistory,
  corruptRunHint,
  createRun,
  listRunIds,
  readEachRun,
  readExitSync,
  readRunSync,
  removeRunFiles,
  updateRun,
  writeExitOnce,
} from "./store.ts";

const A = "20261202T110944Z-aaaaaa";
const B = "20261202T110945Z-bbbbbb";
const C = "20261203T000000Z-cccccc";
const TS = "2026-12-02T11:09:44.120Z";
let root: string;
let hash: string;

beforeEach(async () => {
  root = tempDir("ariel-store-records-");
  hash = await workspaceHash(root);
});
afterEach(() => removeDir(root));

async function made(runId: string, more: Partial<RunRecord> = {}): Promise<RunRecord> {
  mkdirSync(runPaths(root, runId).dir, { recursive: true });
  return createRun(root, runFields({ root, hash }, runId, more));
}

function exitOf(runId: string, status = 0): ExitRecord {
  return {
    v: 1,
    type: "exit",
    runId,
    code: status,
    signal: null,
    status,
    endedAt: TS,
    state: status === 0 ? "exited" : "failed",
    reason: null,
  };
}

function caught(f: () => unknown): ArielError {
  try {
    f();
  } catch (e) {
    return e as ArielError;
  }
  throw new Error("did not throw");
}

async function rejected(p: Promise<unknown>): Promise<ArielError> {
  try {
    await p;
  } catch (e) {
    return e as ArielError;
  }
  throw new Error("did not reject");
}

describe("corruptRunHint", () => {
  it("names the directory to move aside and the command that removes the run", () => {
    expect(corruptRunHint(A)).toBe(
      `the run's record is damaged or not ariel's: move its directory .ariel/runs/${A} aside to keep its output, or remove the run with ariel-runs rm --force ${A}`,
    );
  });
});

describe("createRun and readRunSync", () => {
  it("creates version 1, owner-only, and reads it back", async () => {
    const rec = await made(A);
    expect(rec.version).toBe(1);
    expect(rec.runId).toBe(A);
    expect(statSync(runPaths(root, A).record).mode & 0o777).toBe(0o600);
    expect(readRunSync(root, A)).toMatchObject({
      runId: A,
      version: 1,
      name: "agent",
      argv: ["agent", "--go"],
    });
  });

  it("refuses a second create of the same run", async () => {
    await made(A);
    const e = await rejected(createRun(root, runFields({ root, hash }, A)));
    expect(e.code).toBe("ERR_CONFLICT");
  });

  it("ERR_RUN_NOT_FOUND for a run with no record, naming it", () => {
    const e = caught(() => readRunSync(root, A));
    expect(e).toBeInstanceOf(ArielError);
    expect(e.code).toBe("ERR_RUN_NOT_FOUND");
    expect(e.message).toBe(`no run "${A}"`);
    expect(e.context).toEqual({ run: A });
  });

  it("ERR_RECORD_CORRUPT for a record that is not JSON, with the path and the hint", () => {
    mkdirSync(runPaths(root, A).dir, { recursive: true });
    writeFileSync(runPaths(root, A).record, "{ nope");
    const e = caught(() => readRunSync(root, A));
    expect(e.code).toBe("ERR_RECORD_CORRUPT");
    expect(e.message).toBe(`${runPaths(root, A).record}: not valid JSON`);
    expect(e.hint).toBe(corruptRunHint(A));
    expect(e.context).toEqual({ path: runPaths(root, A).record });
  });

  it("ERR_RECORD_CORRUPT for JSON of the wrong shape, naming the field", () => {
    mkdirSync(runPaths(root, A).dir, { recursive: true });
    writeFileSync(runPaths(root, A).record, "[1]");
    const e = caught(() => readRunSync(root, A));
    expect(e.code).toBe("ERR_RECORD_CORRUPT");
    expect(e.message).toMatch(new RegExp(`^${runPaths(root, A).record}: unexpected shape \\(.+\\)$`));
  });

  it("a read that fails for another reason than absence is thrown as it is", () => {
    mkdirSync(runPaths(root, A).record, { recursive: true }); // a directory where run.json should be
    const e = caught(() => readRunSync(root, A)) as unknown as NodeJS.ErrnoException;
    expect(e).not.toBeInstanceOf(ArielError);
    expect(e.code).toBe("EISDIR");
  });
});

describe("readExitSync and writeExitOnce", () => {
  it("is null before the run ended", async () => {
    await made(A);
    expect(readExitSync(root, A)).toBeNull();
  });

  it("writes exit.json once, owner-only; the first final state wins", async () => {
    await made(A);
    expect(await writeExitOnce(root, exitOf(A, 0))).toEqual(exitOf(A, 0));
    expect(statSync(runPaths(root, A).exit).mode & 0o777).toBe(0o600);
    expect(readFileSync(runPaths(root, A).exit, "utf8")).toBe(`${JSON.stringify(exitOf(A, 0), null, 2)}\n`);
    expect(await writeExitOnce(root, exitOf(A, 3))).toEqual(exitOf(A, 0));
    expect(readExitSync(root, A)).toEqual(exitOf(A, 0));
  });

  it("a damaged exit.json is ERR_RECORD_CORRUPT with the run's hint", async () => {
    await made(A);
    writeFileSync(runPaths(root, A).exit, JSON.stringify({ ...exitOf(A), status: 300 }));
    const e = caught(() => readExitSync(root, A));
    expect(e.code).toBe("ERR_RECORD_CORRUPT");
    expect(e.message).toBe(`${runPaths(root, A).exit}: unexpected shape (status: expected 0-255)`);
    expect(e.hint).toBe(corruptRunHint(A));
  });
});

describe("listRunIds", () => {
  it("is empty without a runs directory", () => {
    expect(listRunIds(root)).toEqual([]);
  });

  it("lists run ids only, newest first", () => {
    for (const n of [A, C, B, "notes", "20261202T110944Z-AAAAAA", `${A}.ndjson`]) {
      mkdirSync(`${runsDir(root)}/${n}`, { recursive: true });
    }
    expect(listRunIds(root)).toEqual([C, B, A]);
  });

  it("throws what is not absence (the runs path is a file)", () => {
    mkdirSync(`${root}/.ariel`, { recursive: true });
    writeFileSync(runsDir(root), "");
    expect(() => listRunIds(root)).toThrow(/ENOTDIR/);
  });
});

describe("readEachRun", () => {
  it("reads every run newest first; a damaged one is a problem, a vanished one is left out", async () => {
    await made(A);
    await made(C);
    mkdirSync(runPaths(root, B).dir, { recursive: true });
    writeFileSync(runPaths(root, B).record, "{");
    mkdirSync(runPaths(root, "20261201T000000Z-dddddd").dir, { recursive: true }); // no record yet
    const { runs, problems } = readEachRun(root, (id) => readRunSync(root, id));
    expect(runs.map((r) => r.runId)).toEqual([C, A]);
    expect(problems).toEqual([
      { runId: B, code: "ERR_RECORD_CORRUPT", message: `${runPaths(root, B).record}: not valid JSON` },
    ]);
  });

  it("an error that is not ariel's ends the read", async () => {
    await made(A);
    expect(() =>
      readEachRun(root, () => {
        throw new TypeError("boom");
      }),
    ).toThrow(TypeError);
  });
});

describe("updateRun", () => {
  it("writes the change as the next version and returns it", async () => {
    await made(A);
    const r = await updateRun(root, A, () => ({ name: "renamed" }));
    expect(r.version).toBe(2);
    expect(r.name).toBe("renamed");
    expect(readRunSync(root, A)).toMatchObject({ version: 2, name: "renamed", argv: ["agent", "--go"] });
  });

  it("a change of null leaves the record as it is", async () => {
    await made(A);
    const r = await updateRun(root, A, () => null);
    expect(r.version).toBe(1);
    expect(readRunSync(root, A).version).toBe(1);
  });

  it("a change cannot set the version or the fencing token", async () => {
    await made(A);
    const r = await updateRun(
      root,
      A,
      () => ({ version: 99, fencingToken: 7, name: "x" }) as Partial<RunRecord>,
    );
    expect(r.version).toBe(2);
    expect(readRunSync(root, A).version).toBe(2);
  });

  it("retries when another writer got in between, and applies the change to what it wrote", async () => {
    await made(A);
    let calls = 0;
    const r = await updateRun(root, A, (cur) => {
      calls++;
      if (calls === 1) {
        // another writer updates the record after this read
        const raw = JSON.parse(readFileSync(runPaths(root, A).record, "utf8"));
        writeFileSync(
          runPaths(root, A).record,
          JSON.stringify({ ...raw, version: raw.version + 1, name: "other" }),
        );
      }
      return { argv: [...cur.argv, String(calls)] };
    });
    expect(calls).toBe(2);
    expect(r).toMatchObject({ version: 3, name: "other", argv: ["agent", "--go", "2"] });
  });

  it("ERR_RUN_NOT_FOUND for a run with no record", async () => {
    const e = await rejected(updateRun(root, A, () => ({ name: "x" })));
    expect(e.code).toBe("ERR_RUN_NOT_FOUND");
    expect(e.message).toBe(`no run "${A}"`);
  });

  it("ERR_RECORD_CORRUPT with the run's hint for a record of the wrong shape, and nothing written", async () => {
    mkdirSync(runPaths(root, A).dir, { recursive: true });
    const bad = JSON.stringify({
      ...runFields({ root, hash }, A),
      version: 1,
      fencingToken: 0,
      argv: "not a list",
    });
    writeFileSync(runPaths(root, A).record, bad);
    let called = false;
    const e = await rejected(
      updateRun(root, A, () => {
        called = true;
        return { name: "x" };
      }),
    );
    expect(e.code).toBe("ERR_RECORD_CORRUPT");
    expect(e.hint).toBe(corruptRunHint(A));
    expect(e.message).toMatch(/argv/);
    expect(called).toBe(false);
    expect(readFileSync(runPaths(root, A).record, "utf8")).toBe(bad);
  });

  it("an error thrown by the change is not retried", async () => {
    await made(A);
    let calls = 0;
    const e = await rejected(
      updateRun(root, A, () => {
        calls++;
        throw new ArielError("ERR_CONFLICT", "from the change");
      }),
    );
    expect(e.message).toBe("from the change");
    expect(calls).toBe(1);
  });
});

describe("appendHistory", () => {
  it("appends one line per record, owner-only", async () => {
    await made(A);
    await appendHistory(root, A, { type: "event", event: "run.started" });
    await appendHistory(root, A, { type: "event", event: "run.finished", code: 0 });
    const text = readFileSync(runPaths(root, A).history, "utf8");
    expect(text.split("\n")).toEqual([
      '{"type":"event","event":"run.started"}',
      '{"type":"event","event":"run.finished","code":0}',
      "",
    ]);
    expect(statSync(runPaths(root, A).history).mode & 0o777).toBe(0o600);
  });

  it("existingRun: a removed run's history is not made again (ENOENT)", async () => {
    mkdirSync(runsDir(root), { recursive: true });
    await expect(appendHistory(root, A, { type: "event" }, true)).rejects.toMatchObject({ code: "ENOENT" });
    expect(readdirSync(runsDir(root))).toEqual([]);
    // without it, the history is written even with no run directory
    await appendHistory(root, A, { type: "event" });
    expect(readdirSync(runsDir(root))).toEqual([`${A}.ndjson`]);
  });
});

describe("removeRunFiles", () => {
  it("removes the run's directory and its history, and leaves the other runs", async () => {
    await made(A);
    await made(B);
    await appendHistory(root, A, { type: "event" });
    await appendHistory(root, B, { type: "event" });
    await removeRunFiles(root, A);
    expect(readdirSync(runsDir(root)).sort()).toEqual([B, `${B}.ndjson`]);
  });

  it("is quiet for a run already gone", async () => {
    await removeRunFiles(root, A);
    expect(listRunIds(root)).toEqual([]);
  });
});

describe("resolveRunId", () => {
  it("an id, a name (the newest of that name) or a unique prefix of an id", async () => {
    await made(A, { name: "agent" });
    await made(C, { name: "agent" });
    await made(B, { name: "build" });
    expect(resolveRunId(root, A)).toBe(A);
    expect(resolveRunId(root, "agent")).toBe(C);
    expect(resolveRunId(root, "build")).toBe(B);
    expect(resolveRunId(root, "20261203")).toBe(C);
  });

  it("ERR_RUN_NOT_FOUND (66) and ERR_RUN_AMBIGUOUS (65)", async () => {
    await made(A);
    await made(B);
    expect(caught(() => resolveRunId(root, "nothing")).code).toBe("ERR_RUN_NOT_FOUND");
    const amb = caught(() => resolveRunId(root, "20261202T1109"));
    expect([amb.code, amb.exit]).toEqual(["ERR_RUN_AMBIGUOUS", 65]);
  });

  it("a damaged run named exactly is ERR_RECORD_CORRUPT; others still resolve around it", async () => {
    await made(A);
    mkdirSync(runPaths(root, B).dir, { recursive: true });
    writeFileSync(runPaths(root, B).record, "{");
    const e = caught(() => resolveRunId(root, B));
    expect(e.code).toBe("ERR_RECORD_CORRUPT");
    expect(e.message).toBe(`${runPaths(root, B).record}: not valid JSON`);
    expect(e.hint).toBe(corruptRunHint(B));
    expect(e.context).toEqual({ runId: B });
    expect(resolveRunId(root, "20261202T1109")).toBe(A);
  });
});
