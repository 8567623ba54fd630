/**
 * Pure POSIX path helpers and the containment check that keeps every path ariel touches inside
 * the workspace. No `node:path`: these run on any runtime.
 *
 * @example
 * ```ts
 * isWithin("/a/b", "/a/b/c"); // true
 * isWithin("/a/b", "/a/bc"); // false
 * toPosixRelative("/ws", "/ws/services/api"); // "services/api"
 * await resolveContained(fs, "/ws", "src/../README.md"); // "/ws/README.md"
 * ```
 */
import { ArielError } from "./errors.ts";
import { quoteValue } from "./names.ts";
import type { FsPort } from "./ports.ts";

/**
 * Lexically normalize a POSIX path: collapse `//` and `.`, resolve `..` (never above `/` for an
 * absolute path), drop a trailing `/`. `""` becomes `"."`.
 */
export function normalizePosix(path: string): string {
  const absolute = path.startsWith("/");
  const out: string[] = [];
  for (const c of path.split("/")) {
    if (c === "" || c === ".") continue;
    if (c === "..") {
      if (out.length > 0 && out[out.length - 1] !== "..") out.pop();
      else if (!absolute) out.push("..");
    } else out.push(c);
  }
  const body = out.join("/");
  return absolute ? `/${body}` : body === "" ? "." : body;
}

/** Join POSIX paths and normalize; an absolute later part restarts from it. */
export function joinPosix(...parts: string[]): string {
  let acc = "";
  for (const p of parts) {
    if (p === "") continue;
    acc = p.startsWith("/") || acc === "" ? p : `${acc}/${p}`;
  }
  return normalizePosix(acc);
}

/** `path` made absolute against `base` (itself absolute), normalized. */
export function resolvePosix(base: string, path: string): string {
  return joinPosix(base, path);
}

/** The directory part of a normalized absolute path (`/` for `/x` and `/`). */
export function dirnamePosix(path: string): string {
  const i = path.lastIndexOf("/");
  return i <= 0 ? "/" : path.slice(0, i);
}

/** The last segment of a path (`""` for `/`). */
export function basenamePosix(path: string): string {
  return path.slice(path.lastIndexOf("/") + 1);
}

/**
 * True when `child` is `parent` or lies below it, compared segment by segment after lexical
 * normalization (so `/a/bc` is not within `/a/b`, and `/a/b/../c` is not within `/a/b`).
 * Relative paths are never within anything (fail closed). Does not touch the filesystem: use
 * {@link resolveContained} for paths that may contain symbolic links.
 */
export function isWithin(parent: string, child: string): boolean {
  if (!parent.startsWith("/") || !child.startsWith("/")) return false;
  const p = normalizePosix(parent);
  const c = normalizePosix(child);
  if (p === "/") return true;
  return c === p || c.startsWith(`${p}/`);
}

/**
 * `path` relative to `root` as a POSIX path, `.` for the root itself. Both are normalized
 * lexically; a path outside the root is ERR_PATH_ESCAPE (exit 77).
 */
export function toPosixRelative(root: string, path: string): string {
  const r = normalizePosix(root);
  const p = normalizePosix(path);
  if (!isWithin(r, p)) {
    throw new ArielError("ERR_PATH_ESCAPE", `path ${quoteValue(path)} is outside ${quoteValue(root)}`, {
      context: { path, root },
    });
  }
  if (p === r) return ".";
  return p.slice(r === "/" ? 1 : r.length + 1);
}

const MAX_LINKS = 40;

function codeOf(e: unknown): string | undefined {
  return (e as { code?: string } | null)?.code;
}

async function lstatOrFail(fs: FsPort, p: string, original: string) {
  try {
    return await fs.lstat(p);
  } catch (e) {
    // Fail closed: what we cannot look at, we cannot prove to be inside the root.
    throw new ArielError(
      "ERR_PATH_ESCAPE",
      `cannot check ${quoteValue(original)}: ${codeOf(e) ?? "error"} at ${quoteValue(p)}`,
      {
        hint: "check the permissions along the path",
        context: { path: original },
        cause: e,
      },
    );
  }
}

/**
 * Resolve `path` the way the kernel would, without requiring it to exist: every existing
 * component is followed through symbolic links (also dangling ones, whose targets may be created
 * later), `..` goes to the parent of the resolved directory, and the missing tail is appended.
 * Returns the canonical absolute path.
 */
export async function canonicalize(fs: FsPort, path: string): Promise<string> {
  if (!path.startsWith("/"))
    throw new TypeError(`canonicalize needs an absolute path, got ${quoteValue(path)}`);
  const todo = path.split("/").filter((c) => c !== "" && c !== ".");
  let cur = "/";
  let links = 0;
  let missing = false;
  while (todo.length > 0) {
    const c = todo.shift()!;
    if (c === "..") {
      cur = dirnamePosix(cur);
      missing = false; // the parent of a resolved directory is real again: look before trusting it
      continue;
    }
    const next = cur === "/" ? `/${c}` : `${cur}/${c}`;
    if (missing) {
      cur = next;
      continue;
    }
    const st = await lstatOrFail(fs, next, path);
    if (st === null) {
      missing = true;
      cur = next;
    } else if (st.kind === "symlink") {
      if (++links > MAX_LINKS) {
        throw new ArielError("ERR_PATH_ESCAPE", `too many symbolic links in ${quoteValue(path)}`, {
          context: { path },
        });
      }
      const target = await fs.readLink(next);
      todo.unshift(...target.split("/").filter((x) => x !== "" && x !== "."));
      if (target.startsWith("/")) cur = "/";
    } else cur = next;
  }
  return cur;
}

/** realpath for a path that exists (one call: the common case), null when it does not. */
async function canonicalIfExists(fs: FsPort, path: string): Promise<string | null> {
  try {
    return await fs.realpath(path);
  } catch {
    return null; // missing, dangling, a loop or unreadable: canonicalize walks it and says which
  }
}

/**
 * The canonical form of `path` (relative paths are taken from `root`), guaranteed to lie inside
 * the canonical `root`; else ERR_PATH_ESCAPE (exit 77). Symbolic links anywhere on the way are
 * followed first, so a link pointing out of the root is caught; the path need not exist yet (its
 * nearest existing ancestor is resolved), so it also guards paths about to be created.
 *
 * @example
 * ```ts
 * await resolveContained(fs, "/ws", ".ariel/tasks/t1.json"); // "/ws/.ariel/tasks/t1.json"
 * await resolveContained(fs, "/ws", "../etc/passwd"); // throws ERR_PATH_ESCAPE
 * ```
 */
export async function resolveContained(fs: FsPort, root: string, path: string): Promise<string> {
  let canonRoot: string;
  try {
    canonRoot = await fs.realpath(root);
  } catch (e) {
    if (codeOf(e) === "ENOENT" || codeOf(e) === "ENOTDIR") {
      throw new ArielError("ERR_WORKSPACE_NOT_FOUND", `workspace root ${quoteValue(root)} does not exist`, {
        context: { root },
      });
    }
    throw e;
  }
  const absolute = path.startsWith("/") ? path : `${canonRoot}/${path}`;
  const resolved = (await canonicalIfExists(fs, absolute)) ?? (await canonicalize(fs, absolute));
  if (!isWithin(canonRoot, resolved)) {
    throw new ArielError(
      "ERR_PATH_ESCAPE",
      `path ${quoteValue(path)} resolves to ${quoteValue(resolved)}, outside ${quoteValue(canonRoot)}`,
      { context: { path, resolved, root: canonRoot } },
    );
  }
  return resolved;
}
