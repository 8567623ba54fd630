import { appendFileSync, promises as fsp, readdirSync, readFileSync, statSync } from "node:fs";
import * as z from "zod/mini";
import { ArielError, isArielError } from "../../errors.ts";
import { serializeRecord } from "../../ndjson.ts";
import type { FsPort } from "../../ports.ts";
import type { RunProblem } from "../../runs/backend.ts";
import { runPaths, runsDir } from "../../runs/paths.ts";
import {
  type ExitRecord,
  exitRecordProblem,
  type RunRecord,
  runRecordProblem,
  runRecordSchema,
} from "../../runs/record.ts";
import { formatIssue } from "../../schema/issues.ts";
import { RUN_ID_PATTERN } from "../../spawn/run_id.ts";
import { writeAtomic } from "../fs.ts";
import { readRecord, writeRecordCAS } from "../record-store.ts";

/** Run records carry no lease: every writer uses token 0 and the CAS on `version` alone. */
const TOKEN = 0;
/** A run's files hold what its child did (docs/runs.md): owner only. */
const MODE = 0o600;

/**
 * The hint of a run whose `run.json` or `exit.json` is damaged: what keeps its output and what
 * removes it (one home: the store's reads and the CLI's RUN argument both say it).
 *
 * @example
 * ```ts
 * corruptRunHint("20261203T094905Z-uuns0h").endsWith("ariel-runs rm --force 20261203T094905Z-uuns0h"); // true
 * ```
 */
export function corruptRunHint(runId: string): string {
  return `the run's record is damaged or not ariel's: move its directory .ariel/runs/${runId} aside to keep its output, or remove the run with ariel-runs rm --force ${runId}`;
}

function corrupt(path: string, why: string): ArielError {
  const runId = path.split("/").at(-2) ?? "RUN";
  return new ArielError("ERR_RECORD_CORRUPT", `${path}: ${why}`, {
    hint: corruptRunHint(runId),
    context: { path },
  });
}

/**
 * A small JSON file checked by `problem` (which names the first bad field, or returns null);
 * null when the file is absent, ERR_RECORD_CORRUPT when it is not JSON or not the right shape.
 */
function readChecked<T>(path: string, problem: (v: unknown) => string | null): T | null {
  let text: string;
  try {
    text = readFileSync(path, "utf8");
  } catch (e) {
    if ((e as NodeJS.ErrnoException).code === "ENOENT") return null;
    throw e;
  }
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch {
    throw corrupt(path, "not valid JSON");
  }
  const why = problem(value);
  if (why) throw corrupt(path, `unexpected shape (${why})`);
  return value as T;
}

/** `run.json` of a run, validated; ERR_RUN_NOT_FOUND when absent, ERR_RECORD_CORRUPT when damaged. */
export function readRunSync(root: string, runId: string): RunRecord {
  const rec = readChecked<RunRecord>(runPaths(root, runId).record, runRecordProblem);
  if (rec === null) {
    throw new ArielError("ERR_RUN_NOT_FOUND", `no run ${JSON.stringify(runId)}`, { context: { run: runId } });
  }
  return rec;
}

/** `exit.json` of a run, or null while it has not ended. */
export function readExitSync(root: string, runId: string): ExitRecord | null {
  return readChecked<ExitRecord>(runPaths(root, runId).exit, exitRecordProblem);
}

/** The ids of every detached run of the workspace (directories under .ariel/runs), newest first. */
export function listRunIds(root: string): string[] {
  let names: string[];
  try {
    names = readdirSync(runsDir(root));
  } catch (e) {
    if ((e as NodeJS.ErrnoException).code === "ENOENT") return [];
    throw e;
  }
  return names.filter((n) => RUN_ID_PATTERN.test(n)).sort((a, b) => (a < b ? 1 : -1));
}

/**
 * `read` of every run of the workspace, newest id first. A run removed meanwhile (or still being
 * made) is left out; one `read` refuses with another ArielError (a damaged record) is a problem,
 * never fatal to the others.
 */
export function readEachRun<T>(
  root: string,
  read: (runId: string) => T,
): { runs: T[]; problems: RunProblem[] } {
  const runs: T[] = [];
  const problems: RunProblem[] = [];
  for (const runId of listRunIds(root)) {
    try {
      runs.push(read(runId));
    } catch (e) {
      if (!isArielError(e)) throw e;
      if (e.code === "ERR_RUN_NOT_FOUND") continue;
      problems.push({ runId, code: e.code, message: e.message });
    }
  }
  return { runs, problems };
}

/**
 * Create `run.json` (version 1); its directory must exist. `fs` is how (the monitor passes
 * `blockingFs` for a new local run, whose CLI waits on it; the default is nodeFs). `owner`: the
 * monitor creating a run it was asked to create, which no other process can write before it
 * exists (every update reads the record first; nothing else creates it), so without the record
 * lock file (decision 0047); the write is still create-only, fsynced, file and directory.
 */
export async function createRun(
  root: string,
  record: Omit<RunRecord, "version" | "fencingToken">,
  fs?: FsPort,
  owner = false,
): Promise<RunRecord> {
  return writeRecordCAS(runPaths(root, record.runId).record, record as Record<string, unknown>, {
    expectVersion: 0,
    token: TOKEN,
    mode: MODE,
    ...(fs ? { fs } : {}),
    ...(owner ? { unlocked: true } : {}),
  }) as unknown as Promise<RunRecord>;
}

/**
 * Read-modify-write `run.json` by compare-and-swap, retried when another writer got in between.
 * `change` returns the new fields, or null to leave the record as it is. `runLocked`: the caller
 * holds the run's lock (`run.lock`) and is the run's monitor, every one of whose writes of the
 * record is made under that lock, as are the CLIs' (`kill`): the record lock file is then
 * redundant and skipped (decision 0047). Any other writer leaves it false.
 */
export async function updateRun(
  root: string,
  runId: string,
  change: (cur: RunRecord) => Partial<RunRecord> | null,
  runLocked = false,
): Promise<RunRecord> {
  const path = runPaths(root, runId).record;
  for (let attempt = 0; ; attempt++) {
    const cur = await readRecord<RunRecord>(path, {
      parse: (v) => {
        const r = z.safeParse(runRecordSchema(), v);
        if (!r.success) throw new Error(formatIssue(r.error.issues[0]!));
        return r.data as RunRecord;
      },
    }).catch((e: unknown) => {
      if (!isArielError(e) || e.code !== "ERR_RECORD_CORRUPT") throw e;
      throw new ArielError("ERR_RECORD_CORRUPT", e.message, {
        hint: corruptRunHint(runId),
        context: e.context,
      });
    });
    if (cur === null) throw new ArielError("ERR_RUN_NOT_FOUND", `no run ${JSON.stringify(runId)}`);
    const next = change(cur);
    if (next === null) return cur;
    const { version: _v, fencingToken: _t, ...rest } = { ...cur, ...next };
    try {
      return (await writeRecordCAS(path, rest, {
        expectVersion: cur.version,
        token: TOKEN,
        mode: MODE,
        ...(runLocked ? { unlocked: true } : {}),
      })) as RunRecord;
    } catch (e) {
      if (!isArielError(e) || e.code !== "ERR_CONFLICT" || attempt >= 20) throw e;
    }
  }
}

/**
 * Write `exit.json` once (temp file + rename), unless one is there already: the first final
 * state wins. Returns what is on disk afterwards.
 */
export async function writeExitOnce(root: string, exit: ExitRecord): Promise<ExitRecord> {
  const existing = readExitSync(root, exit.runId);
  if (existing) return existing;
  await writeAtomic(runPaths(root, exit.runId).exit, `${JSON.stringify(exit, null, 2)}\n`, MODE);
  return exit;
}

/**
 * Append one event line to the run's history `<runId>.ndjson` (O_APPEND: one write per line).
 * `existingRun`: only while the run's directory is there (the monitor's writes about a run it
 * supervises): a run removed meanwhile is gone, and its history is not recreated by a late
 * event; the append then fails with ENOENT.
 */
export async function appendHistory(
  root: string,
  runId: string,
  record: Record<string, unknown>,
  existingRun = false,
): Promise<void> {
  const paths = runPaths(root, runId);
  if (existingRun) statSync(paths.dir); // throws ENOENT for a removed run
  // Synchronous: one small write with no fsync costs less than a hop through the thread pool,
  // which is wall time for ariel-spawn --detach before it can print (docs/benchmarks.md).
  appendFileSync(paths.history, `${serializeRecord(record)}\n`, { mode: 0o600 });
}

/**
 * Delete a run's directory and its history (the caller checked that the run is final). A file
 * its monitor writes as the directory goes (the last attention.json of a run it just settled)
 * makes the directory not empty once: removed again, a few times at most.
 */
export async function removeRunFiles(root: string, runId: string): Promise<void> {
  const p = runPaths(root, runId);
  for (let attempt = 1; ; attempt++) {
    try {
      await fsp.rm(p.dir, { recursive: true, force: true });
      break;
    } catch (e) {
      if ((e as NodeJS.ErrnoException).code !== "ENOTEMPTY" || attempt >= 5) throw e;
      await new Promise((r) => setTimeout(r, 20 * attempt));
    }
  }
  await fsp.rm(p.history, { force: true });
}
