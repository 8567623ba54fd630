/**
 * The sync's first step: a sandbox's new objects into the real object store (docs/sandbox.md,
 * The sync), before any ref moves, so every ref the sync sets names objects that are home. Each
 * loose object is checked against its name (inflated and hashed) before it goes in, and a pack
 * is indexed again by git, which hashes every object in it: what the sandbox wrote cannot put
 * wrong content under a name the user's later work would trust. What exists already is left
 * alone, so a second run of the sync after a crash only finishes the first.
 */
import {
  copyFileSync,
  existsSync,
  linkSync,
  mkdirSync,
  readdirSync,
  readFileSync,
  renameSync,
  rmSync,
} from "node:fs";
import { nodeChildProcess, nodeCrypto, nodeZlib } from "../builtins.ts";
import { fsyncDir } from "../fs.ts";
import { gitEnv, gitExecutable } from "../git.ts";
import { readOrNull } from "./refs.ts";

/** The repository's object hash: sha1, or sha256 (`extensions.objectFormat`). */
function hashOf(common: string): "sha1" | "sha256" {
  const config = readOrNull(`${common}/config`) ?? "";
  return /objectformat\s*=\s*sha256/i.test(config) ? "sha256" : "sha1";
}

/** Whether a loose object's content hashes to its name. */
function looseObjectIsSound(file: string, name: string, hash: "sha1" | "sha256"): boolean {
  try {
    const content = nodeZlib().inflateSync(readFileSync(file));
    return nodeCrypto().createHash(hash).update(content).digest("hex") === name;
  } catch {
    return false;
  }
}

/**
 * `from` to `to` atomically: a hard link when `link` (the sandbox has ended: nothing writes
 * its files any more), else a copy to a temp file renamed into place. An existing `to` wins.
 */
function place(from: string, to: string, link: boolean): void {
  if (existsSync(to)) return;
  if (link) {
    try {
      linkSync(from, to);
      return;
    } catch (e) {
      const code = (e as NodeJS.ErrnoException).code;
      if (code === "EEXIST") return;
      if (code !== "EXDEV" && code !== "EPERM") throw e;
    }
  }
  // git's own prefix for temporary objects: `git prune` clears one a crash left behind.
  const tmp = `${to.slice(0, to.lastIndexOf("/"))}/tmp_obj_ariel_${process.pid}`;
  copyFileSync(from, tmp);
  renameSync(tmp, to);
}

export interface ObjectsHome {
  /** Loose objects and packs put in the real store. */
  copied: number;
  /** Loose objects left out because their content does not match their name. */
  unsound: string[];
}

/**
 * Every object of `shadow`'s store not yet in `common`'s: loose ones checked and placed,
 * packs re-indexed by `git index-pack` and placed pack first, index last (git sees a pack by
 * its index). `link`: hard links allowed (the sandbox has ended).
 */
export async function objectsHome(shadow: string, common: string, link: boolean): Promise<ObjectsHome> {
  const src = `${shadow}/objects`;
  const dst = `${common}/objects`;
  const hash = hashOf(common);
  const out: ObjectsHome = { copied: 0, unsound: [] };
  const touched = new Set<string>();
  let dirs: string[];
  try {
    dirs = readdirSync(src).filter((d) => /^[0-9a-f]{2}$/.test(d));
  } catch {
    return out;
  }
  for (const d of dirs) {
    for (const f of readdirSync(`${src}/${d}`)) {
      if (!/^[0-9a-f]{38}([0-9a-f]{24})?$/.test(f) || existsSync(`${dst}/${d}/${f}`)) continue;
      if (!looseObjectIsSound(`${src}/${d}/${f}`, `${d}${f}`, hash)) {
        out.unsound.push(`${d}${f}`);
        continue;
      }
      mkdirSync(`${dst}/${d}`, { recursive: true });
      place(`${src}/${d}/${f}`, `${dst}/${d}/${f}`, link);
      touched.add(`${dst}/${d}`);
      out.copied++;
    }
  }
  out.copied += packsHome(`${src}/pack`, `${dst}/pack`, common, link);
  for (const dir of touched) await fsyncDir(dir);
  if (out.copied > 0) await fsyncDir(`${dst}/pack`).catch(() => {});
  return out;
}

/** The sandbox's packs into the real store, each indexed anew by git; returns how many. */
function packsHome(src: string, dst: string, common: string, link: boolean): number {
  let names: string[];
  try {
    names = readdirSync(src).filter((n) => /^pack-[0-9a-f]+\.pack$/.test(n));
  } catch {
    return 0;
  }
  let n = 0;
  for (const pack of names) {
    const base = pack.slice(0, -".pack".length);
    if (existsSync(`${dst}/${base}.idx`) || !existsSync(`${src}/${base}.idx`)) continue;
    mkdirSync(dst, { recursive: true });
    place(`${src}/${pack}`, `${dst}/${pack}`, link);
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
