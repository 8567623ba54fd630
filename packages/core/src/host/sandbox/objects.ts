/**
 * The sync's first step: a sandbox's new objects into the real object store (docs/sandbox.md,
 * The sync), before any ref moves, so every ref the sync sets names objects that are home. The
 * sandbox wrote its store, so nothing there is trusted: only regular files are read (never a
 * link, never through a linked directory), each loose object is read once, inflated and hashed
 * against its name, and those same bytes are written into the real store (a copy, never a hard
 * link: no inode is shared with a place the sandbox could write again); a pack is copied, then
 * indexed anew by git, which hashes every object in it. What exists already is left alone, so a
 * second run of the sync after a crash only finishes the first. Like git's own loose objects,
 * they are not fsynced one by one.
 */
import {
  existsSync,
  lstatSync,
  mkdirSync,
  readdirSync,
  readFileSync,
  renameSync,
  rmSync,
  writeFileSync,
} from "node:fs";
import { nodeChildProcess, nodeCrypto, nodeZlib } from "../builtins.ts";
import { gitEnv, gitExecutable } from "../git.ts";
import { readOrNull } from "./refs.ts";

/** The repository's object hash: sha1, or sha256 (`extensions.objectFormat`). */
function hashOf(common: string): "sha1" | "sha256" {
  const config = readOrNull(`${common}/config`) ?? "";
  return /objectformat\s*=\s*sha256/i.test(config) ? "sha256" : "sha1";
}

/** The bytes of a regular file (not a link), or null. */
function regularBytes(path: string): Buffer | null {
  try {
    return lstatSync(path).isFile() ? readFileSync(path) : null;
  } catch {
    return null;
  }
}

/** A directory itself (not a link to one). */
function isRealDir(path: string): boolean {
  try {
    return lstatSync(path).isDirectory();
  } catch {
    return false;
  }
}

/** Whether a loose object's bytes hash to its name. */
function isSound(bytes: Buffer, name: string, hash: "sha1" | "sha256"): boolean {
  try {
    return nodeCrypto().createHash(hash).update(nodeZlib().inflateSync(bytes)).digest("hex") === name;
  } catch {
    return false;
  }
}

/** `bytes` at `to` by a temp file renamed into place (git's prefix for temporaries: `git prune` clears one a crash left). */
function writeInto(dir: string, to: string, bytes: Buffer, prefix: string): void {
  const tmp = `${dir}/${prefix}${process.pid}`;
  writeFileSync(tmp, bytes, { mode: 0o444 });
  renameSync(tmp, to);
}

export interface ObjectsHome {
  /** Loose objects and packs put in the real store. */
  copied: number;
  /** Loose objects left out: not a regular file, or their content does not match their name. */
  unsound: string[];
}

/** Every object of `shadow`'s store not yet in `common`'s: loose ones checked, packs re-indexed. */
export function objectsHome(shadow: string, common: string): ObjectsHome {
  const src = `${shadow}/objects`;
  const dst = `${common}/objects`;
  const hash = hashOf(common);
  const out: ObjectsHome = { copied: 0, unsound: [] };
  if (!isRealDir(src)) return out;
  for (const d of readdirSync(src).filter((x) => /^[0-9a-f]{2}$/.test(x))) {
    if (!isRealDir(`${src}/${d}`)) continue;
    for (const f of readdirSync(`${src}/${d}`)) {
      if (!/^[0-9a-f]{38}([0-9a-f]{24})?$/.test(f) || existsSync(`${dst}/${d}/${f}`)) continue;
      const bytes = regularBytes(`${src}/${d}/${f}`);
      if (bytes === null || !isSound(bytes, `${d}${f}`, hash)) {
        out.unsound.push(`${d}${f}`);
        continue;
      }
      mkdirSync(`${dst}/${d}`, { recursive: true });
      writeInto(`${dst}/${d}`, `${dst}/${d}/${f}`, bytes, "tmp_obj_ariel_");
      out.copied++;
    }
  }
  out.copied += packsHome(`${src}/pack`, `${dst}/pack`, common);
  return out;
}

/** The sandbox's packs into the real store, each copied and indexed anew by git; returns how many. */
function packsHome(src: string, dst: string, common: string): number {
  if (!isRealDir(src)) return 0;
  let n = 0;
  for (const pack of readdirSync(src).filter((x) => /^pack-[0-9a-f]+\.pack$/.test(x))) {
    const base = pack.slice(0, -".pack".length);
    if (existsSync(`${dst}/${base}.idx`) || !existsSync(`${src}/${base}.idx`)) continue;
    const bytes = regularBytes(`${src}/${pack}`);
    if (bytes === null) continue;
    mkdirSync(dst, { recursive: true });
    if (!existsSync(`${dst}/${pack}`)) writeInto(dst, `${dst}/${pack}`, bytes, "tmp_pack_ariel_");
    const tmpIdx = `${dst}/tmp_idx_ariel_${process.pid}`;
    const r = nodeChildProcess().spawnSync(
      gitExecutable(),
      [`--git-dir=${common}`, "index-pack", "-o", tmpIdx, `${dst}/${pack}`],
      { env: gitEnv(process.env), encoding: "utf8" },
    );
    if (r.status !== 0) {
      rmSync(tmpIdx, { force: true });
      throw Object.assign(new Error(`git index-pack ${pack}: ${(r.stderr ?? "").trim()}`), {
        code: "ERR_GIT",
      });
    }
    renameSync(tmpIdx, `${dst}/${base}.idx`);
    n++;
  }
  return n;
}
