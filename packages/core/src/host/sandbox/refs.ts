/**
 * A common git dir's refs read from its files (loose refs over `packed-refs`), without a git
 * process: a sandbox's start, its sync and the comparison of both sides cost a directory walk,
 * not a fork. Symbolic refs are left out (they move with what they name).
 */
import { readdirSync, readFileSync, realpathSync, renameSync, writeFileSync } from "node:fs";
import { parsePackedRefs } from "../../discovery/refs.ts";

const OID = /^[0-9a-f]{40}([0-9a-f]{24})?$/;

function readOrNull(path: string): string | null {
  try {
    return readFileSync(path, "utf8");
  } catch (e) {
    if ((e as NodeJS.ErrnoException).code === "ENOENT" || (e as NodeJS.ErrnoException).code === "ENOTDIR")
      return null;
    throw e;
  }
}

/** Every loose ref file under `dir` (`refs/...` names relative to `base`); symbolic ones into `symbolic`. */
function walkLoose(
  base: string,
  rel: string,
  out: Map<string, string>,
  symbolic?: Map<string, string>,
): void {
  let entries: import("node:fs").Dirent[];
  try {
    entries = readdirSync(`${base}/${rel}`, { withFileTypes: true });
  } catch (e) {
    if ((e as NodeJS.ErrnoException).code === "ENOENT") return;
    throw e;
  }
  for (const e of entries) {
    const name = `${rel}/${e.name}`;
    if (e.isDirectory()) walkLoose(base, name, out, symbolic);
    else if (e.isFile() && !e.name.endsWith(".lock")) {
      const text = readOrNull(`${base}/${name}`)?.trim() ?? "";
      if (OID.test(text)) out.set(name, text);
      else if (text.startsWith("ref: ")) symbolic?.set(name, text);
    }
  }
}

/**
 * The refs of the common dir `common`: `packed-refs`, then every loose ref under `refs/` over
 * it. `skip` leaves out refs (and everything under a directory of that name) by name.
 */
export function readRefs(
  common: string,
  skip: readonly string[] = [],
  symbolic?: Map<string, string>,
): Map<string, string> {
  const packed = readOrNull(`${common}/packed-refs`);
  const refs = packed === null ? new Map<string, string>() : parsePackedRefs(packed);
  const loose = new Map<string, string>();
  walkLoose(common, "refs", loose, symbolic);
  for (const [k, v] of loose) refs.set(k, v);
  for (const k of [...refs.keys()]) {
    if (skip.some((s) => k === s || k.startsWith(`${s}/`))) refs.delete(k);
  }
  return refs;
}

/** The values a reflog file recorded (its new-value column), oldest first; none when it is absent. */
export function reflogValues(path: string): string[] {
  const text = readOrNull(path);
  if (text === null) return [];
  const out: string[] = [];
  for (const line of text.split("\n")) {
    const v = line.split(" ")[1];
    if (v !== undefined && OID.test(v) && !/^0+$/.test(v)) out.push(v);
  }
  return out;
}

/** The text of `path`, or null when it does not exist. */
export { readOrNull };

/** `path` canonical (links resolved), or null when it (or what it links to) does not exist. */
export function canonicalOrNull(path: string): string | null {
  try {
    return realpathSync.native(path);
  } catch {
    return null;
  }
}

/**
 * Replace `path` with `text` by a temp file renamed over it: a reader sees the old or the new
 * content, and a killed process leaves one of them. Not fsynced: a sandbox's state is as
 * durable as the objects git itself writes in it (docs/sandbox.md, What survives a crash).
 */
export function replaceFile(path: string, text: string, mode = 0o600): void {
  const tmp = `${path}.${process.pid}.tmp`;
  writeFileSync(tmp, text, { mode });
  renameSync(tmp, path);
}
