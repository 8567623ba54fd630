import { dirname } from "node:path";
import { ArielError } from "../errors.ts";
import { RECORD_HARD_MAX_BYTES, RECORD_MAX_BYTES, recordText } from "../limits.ts";
import type { FsPort } from "../ports.ts";
import { nodeFs } from "./fs.ts";
import { withLockFile } from "./lock-file.ts";
import { readStateFile } from "./state-file.ts";

/**
 * Durable JSON records with compare-and-swap writes (docs/durability.md).
 *
 * Every stored record carries `v: 1`, a `version` (1 for a new record, +1 per write) and the
 * `fencingToken` of the lease its last writer held. A write names the version it read and its
 * own token; under a short per-record lock file (`<path>.lock`) the store checks both, then
 * writes by temp file + fsync + rename + directory fsync. A reader never sees a torn record.
 * A record path holding a symbolic link or anything but a regular file is refused
 * (ERR_NOT_REGULAR_FILE, exit 77): never read through, never replaced. All I/O goes through an
 * {@link FsPort} (`fs` in the options, default the real one).
 *
 * @example
 * ```ts
 * const cur = await readRecord(path);                 // null when absent
 * await writeRecordCAS(path, { ...next }, { expectVersion: cur?.version ?? 0, token: lease.token });
 * ```
 */

export { RECORD_HARD_MAX_BYTES, RECORD_MAX_BYTES };

/** The fields the store manages on every record. */
export interface StoredFields {
  v: 1;
  version: number;
  fencingToken: number;
}

export type StoredRecord = StoredFields & Record<string, unknown>;

export interface ReadRecordOptions<T> {
  /** Validate the shape beyond the stored fields (a zod `parse`, say); a throw is "corrupt". */
  parse?: (value: unknown) => T;
  /** Refuse larger files (default and cap: {@link RECORD_HARD_MAX_BYTES}). */
  maxBytes?: number;
  /** The filesystem (default: the real one). */
  fs?: FsPort;
}

export interface CasOptions {
  /** The version the caller read; 0 means "the record must not exist yet". */
  expectVersion: number;
  /** The caller's fencing token (its lease's token). */
  token: number;
  /** The task's lease file: a newer token there fences the write out too. */
  leasePath?: string;
  /** Size bound (default {@link RECORD_MAX_BYTES}, capped at {@link RECORD_HARD_MAX_BYTES}). */
  maxBytes?: number;
  /** How long to wait for the per-record lock (default 10 s) before ERR_LOCKED. */
  lockTimeoutMs?: number;
  /** The filesystem (default: the real one). */
  fs?: FsPort;
  /**
   * Skip the per-record lock file: only for a writer that no other writer of this record can
   * race, by construction (the run monitor creating a new run's `run.json`: nothing else creates
   * or updates a record that is not there yet). The compare-and-swap itself is still checked.
   */
  unlocked?: boolean;
  /** The file's mode when written (default 0644; run records are 0600: docs/runs.md). */
  mode?: number;
}

function corrupt(path: string, why: string): ArielError {
  return new ArielError("ERR_RECORD_CORRUPT", `${path}: ${why}`, { context: { path } });
}

function isInt(x: unknown, min: number): x is number {
  return typeof x === "number" && Number.isInteger(x) && x >= min;
}

/** Check the stored fields of a parsed value; returns why it is not a record, or null. */
export function storedFieldsProblem(value: unknown): string | null {
  if (typeof value !== "object" || value === null || Array.isArray(value)) return "not a JSON object";
  const r = value as Record<string, unknown>;
  if (r.v !== 1) return `unknown record version v=${JSON.stringify(r.v)}`;
  if (!isInt(r.version, 1)) return "missing or invalid 'version'";
  if (!isInt(r.fencingToken, 0)) return "missing or invalid 'fencingToken'";
  return null;
}

/**
 * Read and validate the record at `path`; null when there is none. A file that is too large,
 * not JSON, or not a record of ours throws ERR_RECORD_CORRUPT (exit 65); it is never rewritten.
 */
export async function readRecord<T extends StoredFields = StoredRecord>(
  path: string,
  options: ReadRecordOptions<T> = {},
): Promise<T | null> {
  const max = Math.min(options.maxBytes ?? RECORD_HARD_MAX_BYTES, RECORD_HARD_MAX_BYTES);
  const file = await readStateFile(
    options.fs ?? nodeFs,
    path,
    max,
    "record",
    (size) =>
      new ArielError("ERR_RECORD_TOO_LARGE", `${path}: ${size} bytes exceeds the ${max}-byte bound`, {
        context: { path, size, max },
      }),
  );
  if (file === null) return null;
  const text = file.text;
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch {
    throw corrupt(path, "not valid JSON");
  }
  const problem = storedFieldsProblem(value);
  if (problem) throw corrupt(path, problem);
  if (!options.parse) return value as T;
  try {
    return options.parse(value);
  } catch (e) {
    const first = e instanceof Error ? e.message.split("\n")[0] : String(e);
    throw corrupt(path, `unexpected shape (${first})`);
  }
}

async function readLeaseToken(fs: FsPort, leasePath: string): Promise<number | null> {
  const file = await readStateFile(fs, leasePath, RECORD_HARD_MAX_BYTES, "lease");
  if (file === null) return null;
  const text = file.text;
  try {
    const t = (JSON.parse(text) as { token?: unknown }).token;
    if (isInt(t, 1)) return t;
  } catch {}
  throw corrupt(leasePath, "not a lease record");
}

async function underRecordLock<T>(path: string, options: CasOptions, fn: () => Promise<T>): Promise<T> {
  const fs = options.fs ?? nodeFs;
  if (options.unlocked) return fn();
  await fs.mkdirp(dirname(path));
  return withLockFile(
    `${path}.lock`,
    { what: "record lock", timeoutMs: options.lockTimeoutMs ?? 10_000, fs },
    fn,
  );
}

async function checkCas(path: string, current: StoredRecord | null, options: CasOptions): Promise<void> {
  if (!isInt(options.token, 0)) throw new RangeError(`fencing token must be an integer >= 0`);
  if (current && current.fencingToken > options.token) {
    throw new ArielError(
      "ERR_FENCED",
      `${path}: fenced out (record written with token ${current.fencingToken}, ours is ${options.token})`,
      { context: { path, token: options.token, storedToken: current.fencingToken } },
    );
  }
  if (options.leasePath) {
    const leaseToken = await readLeaseToken(options.fs ?? nodeFs, options.leasePath);
    if (leaseToken !== null && leaseToken > options.token) {
      throw new ArielError(
        "ERR_FENCED",
        `${path}: fenced out (the lease moved on to token ${leaseToken}, ours is ${options.token})`,
        { context: { path, token: options.token, leaseToken } },
      );
    }
  }
  const version = current?.version ?? 0;
  if (version !== options.expectVersion) {
    throw new ArielError(
      "ERR_CONFLICT",
      `${path}: version is ${version}, expected ${options.expectVersion}`,
      { context: { path, version, expectVersion: options.expectVersion } },
    );
  }
}

/**
 * Compare-and-swap write: store `record` with `version = expectVersion + 1` and
 * `fencingToken = token`, atomically across processes. ERR_FENCED (75) when the stored record
 * or the lease carries a newer token, ERR_CONFLICT (75) when the version moved on,
 * ERR_RECORD_TOO_LARGE (65) over the size bound. Returns what was written.
 */
export async function writeRecordCAS<T extends Record<string, unknown>>(
  path: string,
  record: T,
  options: CasOptions,
): Promise<T & StoredFields> {
  const next = { ...record, v: 1 as const, version: options.expectVersion + 1, fencingToken: options.token };
  const text = recordText(next);
  const max = Math.min(options.maxBytes ?? RECORD_MAX_BYTES, RECORD_HARD_MAX_BYTES);
  const size = new TextEncoder().encode(text).length;
  if (size > max) {
    throw new ArielError(
      "ERR_RECORD_TOO_LARGE",
      `${path}: record of ${size} bytes exceeds the ${max}-byte bound`,
      {
        context: { path, size, max },
      },
    );
  }
  const fs = options.fs ?? nodeFs;
  return underRecordLock(path, options, async () => {
    // readRecord refuses a link or non-regular file, so the rename below never replaces one.
    await checkCas(path, await readRecord(path, { fs }), options);
    await fs.writeAtomic(path, text, options.mode);
    return next;
  });
}

/**
 * Compare-and-swap delete (the unwind of a failed create): removes the record only if it is at
 * `expectVersion` and not fenced. Absent with expectVersion 0 is fine.
 */
export async function deleteRecordCAS(path: string, options: CasOptions): Promise<void> {
  const fs = options.fs ?? nodeFs;
  await underRecordLock(path, options, async () => {
    const current = await readRecord(path, { fs });
    await checkCas(path, current, options);
    if (current === null) return;
    await fs.unlink(path);
    await fs.syncDir(dirname(path));
  });
}
