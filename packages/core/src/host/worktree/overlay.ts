import { ArielError } from "../../errors.ts";
import type { Ports } from "../../ports.ts";
import type { OverlayEntry } from "../../schema/task.ts";
import { DEFAULT_OVERLAY, isWithin } from "../../worktree/_deps.ts";
import { mergeOverlayPaths, parseWorktreeInclude } from "../../worktree/overlay.ts";
import { nodeCrypto } from "../builtins.ts";
import { splitZ } from "../git.ts";
import { canonicalize } from "./_deps.ts";
import { git, literal } from "./git.ts";

/** Hex sha256 of bytes. */
export function sha256Hex(bytes: Uint8Array): string {
  return nodeCrypto().createHash("sha256").update(bytes).digest("hex");
}

async function gitMatches(ports: Ports, source: string, patterns: readonly string[]): Promise<string[]> {
  if (patterns.length === 0) return [];
  const excludes = patterns.map((p) => `--exclude=${p}`);
  const [tracked, untracked] = await Promise.all([
    git(ports, source, ["ls-files", "-z", "--cached", "--ignored", ...excludes]),
    git(ports, source, ["ls-files", "-z", "--others", "--ignored", ...excludes]),
  ]);
  return [...splitZ(tracked), ...splitZ(untracked)];
}

/**
 * The overlay files of a source: the defaults that exist, plus every file (tracked or not)
 * matching the config globs or the source's `.worktreeinclude` (gitignore syntax, matched by
 * git itself). Each is checked to stay inside the source once links are resolved: a link out
 * of it is ERR_PATH_ESCAPE (exit 77), raised before anything is created.
 */
export async function selectOverlay(
  ports: Ports,
  source: string,
  globs: readonly string[],
): Promise<string[]> {
  const present: string[] = [];
  for (const p of DEFAULT_OVERLAY) if (await ports.fs.lstat(`${source}/${p}`)) present.push(p);
  let include: string[] = [];
  try {
    include = parseWorktreeInclude(await ports.fs.readText(`${source}/.worktreeinclude`));
  } catch (e) {
    if ((e as { code?: string }).code !== "ENOENT") throw e;
  }
  const matched = await gitMatches(ports, source, [...globs, ...include]);
  const selected: string[] = [];
  for (const rel of mergeOverlayPaths(present, matched)) {
    const abs = `${source}/${rel}`;
    const st = await ports.fs.lstat(abs);
    if (!st) continue;
    const real = await canonicalize(ports.fs, abs);
    if (!isWithin(source, real)) {
      throw new ArielError("ERR_PATH_ESCAPE", `overlay file ${rel} of ${source} links outside the source`, {
        hint: "ariel never follows a link out of a source; replace the link with a file",
        context: { path: rel, source },
      });
    }
    const target = st.kind === "symlink" ? await ports.fs.stat(abs) : st;
    if (target?.kind === "file") selected.push(rel);
  }
  return selected;
}

/**
 * Copy overlay files from `source` into `worktree` (same relative paths, same mode bits), mark
 * the tracked ones `--skip-worktree`, and return each copy's sha256. Paths in `keep` are not
 * written (restore: the snapshot's version is already there) but still hashed from the source
 * and marked, so a later remove sees them as changed.
 */
export async function copyOverlay(
  ports: Ports,
  source: string,
  worktree: string,
  paths: readonly string[],
  keep: ReadonlySet<string> = new Set(),
): Promise<OverlayEntry[]> {
  const out: OverlayEntry[] = [];
  for (const rel of paths) {
    const src = `${source}/${rel}`;
    const real = await canonicalize(ports.fs, src);
    if (!isWithin(source, real)) {
      throw new ArielError("ERR_PATH_ESCAPE", `overlay file ${rel} of ${source} links outside the source`, {
        context: { path: rel, source },
      });
    }
    const st = await ports.fs.stat(real);
    if (st?.kind !== "file") continue;
    const bytes = await ports.fs.readBytes(real);
    if (keep.has(rel)) {
      out.push({ path: rel, sha256: sha256Hex(bytes) });
      continue;
    }
    const dst = `${worktree}/${rel}`;
    const dir = dst.slice(0, dst.lastIndexOf("/"));
    await ports.fs.mkdirp(dir);
    if (!isWithin(worktree, await canonicalize(ports.fs, dir))) {
      throw new ArielError("ERR_PATH_ESCAPE", `overlay target ${rel} would land outside ${worktree}`, {
        context: { path: rel, worktree },
      });
    }
    const existing = await ports.fs.lstat(dst);
    if (existing && existing.kind !== "file") await ports.fs.remove(dst);
    await ports.fs.writeAtomic(dst, bytes, st.mode & 0o777);
    out.push({ path: rel, sha256: sha256Hex(bytes) });
  }
  if (out.length > 0) {
    const tracked = new Set(
      splitZ(await git(ports, worktree, ["ls-files", "-z", "--", ...literal(out.map((o) => o.path))])),
    );
    const mark = out.filter((o) => tracked.has(o.path));
    if (mark.length > 0) {
      await git(ports, worktree, ["update-index", "--skip-worktree", "--", ...mark.map((o) => o.path)]);
      for (const o of mark) o.skipWorktree = true;
    }
  }
  return out;
}
