/**
 * `add --share DIR`: give a new leg its source's DIR (e.g. node_modules) without copying bytes.
 * Mode `tree` (default): the directories are made anew in the leg, every file is a second link
 * to the source's inode, symbolic links are made again with the same target. Mode `store`: that
 * tree is made once per source, DIR and lockfiles under `.ariel/share/<key>/`, and each leg's DIR
 * is a real directory of symbolic links into it. See docs/disk.md for what a build may and may
 * not do to either.
 */
import {
  type Dirent,
  linkSync,
  lstatSync,
  mkdirSync,
  readdirSync,
  readFileSync,
  readlinkSync,
  realpathSync,
  renameSync,
  rmSync,
  statSync,
  symlinkSync,
  writeFileSync,
} from "node:fs";
import { dirname, relative, resolve } from "node:path";
import { loadConfig } from "../../config.ts";
import {
  decideShare,
  LOCKFILES,
  type LockHashes,
  linkEscapes,
  placeEntry,
  SHARE_STORE_DIR,
  type ShareDecision,
  type ShareMode,
  STORE_LINK,
  STORE_MANIFEST,
  shareNames,
  storeKeyText,
  warnNotShared,
} from "../../disk/share.ts";
import type { Ports } from "../../ports.ts";
import type { Leg } from "../../schema/task.ts";
import { withLockFile } from "../lock-file.ts";
import { defaultRepoLockTimeout } from "../repo-lock.ts";
import type { HintedWarning } from "../warn.ts";
import { sha256Hex } from "./overlay.ts";

function lockHashes(dir: string): LockHashes {
  const out: Record<string, string> = {};
  for (const name of LOCKFILES) {
    try {
      out[name] = sha256Hex(readFileSync(`${dir}/${name}`));
    } catch {
      // absent
    }
  }
  return out;
}

const isDir = (p: string) => lstatSync(p, { throwIfNoEntry: false })?.isDirectory() === true;

/**
 * Link the tree `from` into `to` (which must not exist). Throws on the first failure. `onLink`
 * sees each symbolic link by its path relative to `from` and its target, and returns the target
 * to give the copy.
 */
function linkTree(
  from: string,
  to: string,
  onLink?: (rel: string, target: string) => string,
  rel = "",
): number {
  let files = 0;
  mkdirSync(to, { mode: lstatSync(from).mode & 0o7777 });
  for (const name of readdirSync(from)) {
    const a = `${from}/${name}`;
    const b = `${to}/${name}`;
    const r = rel === "" ? name : `${rel}/${name}`;
    const st = lstatSync(a);
    if (st.isDirectory()) files += linkTree(a, b, onLink, r);
    else if (st.isSymbolicLink()) {
      const target = readlinkSync(a);
      symlinkSync(onLink ? onLink(r, target) : target, b);
    } else if (st.isFile()) {
      linkSync(a, b);
      files++;
    }
    // sockets, fifos, devices: left out
  }
  return files;
}

/** sha256 of each regular file directly in `dir` (the package manager's state files). */
function topFileHashes(dir: string): LockHashes {
  const out: Record<string, string> = {};
  for (const e of readdirSync(dir, { withFileTypes: true })) {
    if (e.isFile()) out[e.name] = sha256Hex(readFileSync(`${dir}/${e.name}`));
  }
  return out;
}

/** What `.ariel/share/<key>/store.json` holds. */
export interface StoreManifest {
  v: 1;
  source: string;
  sourcePath: string;
  dir: string;
  lockfiles: string[];
  /** Top-level entries (`@scope/name` for scoped ones) holding a relative link that leaves `dir`. */
  escapes: string[];
  /** Those links (path under `dir`) and their own targets: the store's copy points at the source's. */
  relinks: Record<string, string>;
  files: number;
  createdAt: string;
}

/** A store on disk: `<root>/.ariel/share/<key>/`, its tree at `<path>/<manifest.dir>`. */
export interface ShareStore {
  key: string;
  path: string;
  manifest: StoreManifest;
}

/**
 * The lock every change to `.ariel/share` is made under (a store made and linked to; gc's drop).
 * Waits as long as the repository lock (`ARIEL_LOCK_TIMEOUT_MS`, default 60 s), then ERR_LOCKED.
 */
export function withShareLock<T>(root: string, purpose: string, fn: () => Promise<T>): Promise<T> {
  const dir = `${root}/${SHARE_STORE_DIR}`;
  mkdirSync(dir, { recursive: true });
  return withLockFile(
    `${dir}/.lock`,
    { what: "share store lock", purpose, timeoutMs: defaultRepoLockTimeout() },
    fn,
  );
}

/** The stores under `root` with a readable manifest (a store is complete once it has one). */
export function listStores(root: string): ShareStore[] {
  const dir = `${root}/${SHARE_STORE_DIR}`;
  let names: string[];
  try {
    names = readdirSync(dir).sort();
  } catch {
    return [];
  }
  const out: ShareStore[] = [];
  for (const key of names) {
    if (key.startsWith(".")) continue;
    try {
      const manifest = JSON.parse(readFileSync(`${dir}/${key}/${STORE_MANIFEST}`, "utf8")) as StoreManifest;
      out.push({ key, path: `${dir}/${key}`, manifest });
    } catch {
      // not a store (or one being made): left alone
    }
  }
  return out;
}

/** Half-made stores (`.tmp-*`) a crashed add left; only safe to drop under {@link withShareLock}. */
export function strayStoreDirs(root: string): string[] {
  const dir = `${root}/${SHARE_STORE_DIR}`;
  try {
    return readdirSync(dir)
      .filter((n) => n.startsWith(".tmp-"))
      .map((n) => `${dir}/${n}`);
  } catch {
    return [];
  }
}

/** Whether the leg at `worktree` links its `dir` into `store` (its `<dir>/.ariel-share` resolves there). */
export function legUsesStore(worktree: string, store: ShareStore): boolean {
  try {
    return (
      realpathSync(`${worktree}/${store.manifest.dir}/${STORE_LINK}`) ===
      realpathSync(`${store.path}/${store.manifest.dir}`)
    );
  } catch {
    return false;
  }
}

/**
 * The shared directories of a worktree whose store link (`<dir>/.ariel-share`) no longer leads
 * to a directory (the store was deleted by hand), or null when the worktree has no store link.
 */
export function brokenStoreLinks(worktree: string): string[] | null {
  let found = false;
  const broken: string[] = [];
  let entries: Dirent[];
  try {
    entries = readdirSync(worktree, { withFileTypes: true });
  } catch {
    return null;
  }
  for (const e of entries) {
    if (!e.isDirectory()) continue;
    const link = `${worktree}/${e.name}/${STORE_LINK}`;
    if (!lstatSync(link, { throwIfNoEntry: false })?.isSymbolicLink()) continue;
    found = true;
    if (statSync(link, { throwIfNoEntry: false })?.isDirectory() !== true) broken.push(e.name);
  }
  return found ? broken.sort() : null;
}

/** The store for `name` of this source and these lockfiles: found, or made (under the share lock). */
function ensureStore(
  root: string,
  sourceName: string,
  sourcePath: string,
  name: string,
  locks: LockHashes,
  lockfiles: string[],
): { store: ShareStore; made: boolean } {
  const from = `${sourcePath}/${name}`;
  const key = sha256Hex(
    new TextEncoder().encode(storeKeyText(sourcePath, name, locks, topFileHashes(from))),
  ).slice(0, 32);
  const dir = `${root}/${SHARE_STORE_DIR}`;
  const found = listStores(root).find((s) => s.key === key);
  if (found) return { store: found, made: false };
  const tmp = `${dir}/.tmp-${key}-${process.pid}`;
  rmSync(tmp, { recursive: true, force: true });
  mkdirSync(tmp, { recursive: true });
  try {
    const escapes = new Set<string>();
    const relinks: Record<string, string> = {};
    // A relative link leaving the directory would point elsewhere from the store: the store's
    // copy points at the source's target, and the leg gets that entry as its own tree.
    const files = linkTree(from, `${tmp}/${name}`, (rel, target) => {
      if (!linkEscapes(rel, target)) return target;
      const parts = rel.split("/");
      escapes.add(parts[0]!.startsWith("@") && parts.length > 1 ? `${parts[0]}/${parts[1]}` : parts[0]!);
      relinks[rel] = target;
      return resolve(from, dirname(rel), target);
    });
    const manifest: StoreManifest = {
      v: 1,
      source: sourceName,
      sourcePath,
      dir: name,
      lockfiles,
      escapes: [...escapes].sort(),
      relinks,
      files,
      createdAt: new Date().toISOString(),
    };
    writeFileSync(`${tmp}/${STORE_MANIFEST}`, `${JSON.stringify(manifest, null, 2)}\n`);
    renameSync(tmp, `${dir}/${key}`);
    return { store: { key, path: `${dir}/${key}`, manifest }, made: true };
  } catch (e) {
    rmSync(tmp, { recursive: true, force: true });
    throw e;
  }
}

/**
 * Make the leg's `<dir>` from a store: a real directory holding one link to the store
 * (`.ariel-share`, the only long target) and an entry per top-level entry placed by
 * {@link placeEntry}: links into the store go through `.ariel-share/…` (short targets, which
 * ext4 keeps in the inode: no block each). Returns the files the leg got as its own hardlinks.
 */
function linkFromStore(store: ShareStore, to: string): number {
  const name = store.manifest.dir;
  const from = `${store.path}/${name}`;
  const escapes = new Set(store.manifest.escapes);
  const relinks = store.manifest.relinks;
  // The leg's own copies get the source's targets back (relative ones resolve against the leg).
  const own = (prefix: string) => (rel: string, target: string) => relinks[`${prefix}${rel}`] ?? target;
  let files = 0;
  mkdirSync(to, { mode: lstatSync(from).mode & 0o7777 });
  symlinkSync(relative(to, from), `${to}/${STORE_LINK}`);
  const place = (rel: string, scoped: boolean, up: string) => {
    const a = `${from}/${rel}`;
    const b = `${to}/${rel}`;
    const st = lstatSync(a);
    const kind = st.isDirectory() ? "dir" : st.isSymbolicLink() ? "symlink" : st.isFile() ? "file" : "other";
    switch (placeEntry(rel.slice(rel.lastIndexOf("/") + 1), kind, { scoped, escapes: escapes.has(rel) })) {
      case "link":
        symlinkSync(own("")(rel, readlinkSync(a)), b);
        break;
      case "file":
        linkSync(a, b);
        files++;
        break;
      case "tree":
        files += linkTree(a, b, own(`${rel}/`));
        break;
      case "store":
        symlinkSync(`${up}${STORE_LINK}/${rel}`, b);
        break;
      case "scope":
        mkdirSync(b, { mode: st.mode & 0o7777 });
        for (const n of readdirSync(a)) place(`${rel}/${n}`, true, "../");
        break;
      case "skip":
        break;
    }
  };
  for (const n of readdirSync(from)) if (n !== STORE_LINK) place(n, false, "");
  return files;
}

/** What became of one shared directory of one leg. */
export type ShareOutcome = ShareDecision & {
  name: string;
  source: string;
  files?: number;
  /** Mode `store`: the store's key, and whether this leg made it. */
  store?: { key: string; made: boolean };
};

/**
 * Share each of `names` (directory names at the top of the checkout) from `sourcePath` into
 * `worktreePath` when the lockfiles match; else leave it out and say why. A failure part-way
 * (another filesystem: EXDEV) removes what was linked and reports it; the leg is kept.
 */
export function shareInto(
  sourceName: string,
  sourcePath: string,
  worktreePath: string,
  names: readonly string[],
  store?: { root: string },
): ShareOutcome[] {
  const out: ShareOutcome[] = [];
  const srcLocks = lockHashes(sourcePath);
  const legLocks = lockHashes(worktreePath);
  for (const name of names) {
    const from = `${sourcePath}/${name}`;
    const to = `${worktreePath}/${name}`;
    const d = decideShare(name, {
      sourceHasDir: isDir(from),
      legHasDir: lstatSync(to, { throwIfNoEntry: false }) !== undefined,
      source: srcLocks,
      leg: legLocks,
    });
    if (!d.share) {
      out.push({ ...d, name, source: sourceName });
      continue;
    }
    // Set once `to` is about to be made here: what fails before (the store) made nothing in the leg.
    let making = false;
    try {
      if (store) {
        const { store: s, made } = ensureStore(
          store.root,
          sourceName,
          sourcePath,
          name,
          srcLocks,
          d.lockfiles,
        );
        making = true;
        out.push({
          ...d,
          name,
          source: sourceName,
          files: linkFromStore(s, to),
          store: { key: s.key, made },
        });
      } else {
        making = true;
        out.push({ ...d, name, source: sourceName, files: linkTree(from, to) });
      }
    } catch (e) {
      const err = e as NodeJS.ErrnoException;
      // `to` is removed only when this call made it: one that appeared since it was looked at
      // (mkdir's EEXIST) is the leg's own, maybe an install running in it.
      if (making && !(err.code === "EEXIST" && err.path === to)) rmSync(to, { recursive: true, force: true });
      const code = err.code ?? "error";
      out.push({
        share: false,
        reason: "link-failed",
        detail: `could not link (${code}${code === "EXDEV" ? ": the worktree root is on another filesystem" : ""}): run the install in the worktree`,
        name,
        source: sourceName,
      });
    }
  }
  return out;
}

/** What {@link shareLegs} did: the directories shared, and a warning for each one left out. */
export interface ShareLegsResult {
  shared: (ShareOutcome & { share: true; files: number })[];
  warnings: (HintedWarning & { code: "WARN_NOT_SHARED"; context: Record<string, unknown> })[];
}

/**
 * `--share` for new legs, the one implementation behind `ariel-worktree add` and
 * `ariel-spawn --isolate`: each of config `share` and `flags` is shared from each leg's source
 * into its worktree when the lockfiles match (see {@link shareInto}); the others come back as
 * `WARN_NOT_SHARED` warnings with the reason (a configured name the source has not got is
 * skipped quietly).
 *
 * @example
 * ```ts
 * const { shared, warnings } = await shareLegs(hostPorts(), "/w", record.legs, ["node_modules"]);
 * ```
 */
export async function shareLegs(
  ports: Ports,
  root: string,
  legs: readonly Pick<Leg, "source" | "sourcePath" | "worktreePath">[],
  flags: readonly string[],
  modeFlag?: ShareMode,
): Promise<ShareLegsResult> {
  const config = await loadConfig(ports.fs, root);
  const names = shareNames(config.share, flags);
  const mode = modeFlag ?? config.shareMode;
  const out: ShareLegsResult = { shared: [], warnings: [] };
  if (names.length > 0 && mode === "store") {
    // Stores are made and linked under the share lock: gc drops an unused store under it too,
    // so it never sees a store a leg is about to link to.
    await withShareLock(root, "share into new legs", async () => collect(() => true));
  } else collect(() => false);
  return out;

  function collect(useStore: () => boolean): void {
    for (const leg of names.length > 0 ? legs : []) {
      for (const s of shareInto(
        leg.source,
        leg.sourcePath,
        leg.worktreePath,
        names,
        useStore() ? { root } : undefined,
      )) {
        if (s.share) out.shared.push({ ...s, files: s.files ?? 0 });
        else if (warnNotShared(s, s.name, flags)) {
          out.warnings.push({
            code: "WARN_NOT_SHARED",
            message: `${leg.source}: ${s.name} not shared: ${s.detail}`,
            hint: `run the install in ${leg.worktreePath} to give the worktree its own ${s.name}`,
            context: { source: leg.source, dir: s.name, reason: s.reason },
          });
        }
      }
    }
  }
}
