/**
 * Read a repository's HEAD the way git does, without running git: HEAD in the (per-worktree) git
 * dir, loose refs and `packed-refs` in the common dir (`commondir` file of a linked worktree),
 * symbolic refs followed up to git's depth limit of 5 refs read (HEAD and four symbolic refs).
 *
 * @example
 * ```ts
 * await readHead(fs, "/ws/api/.git");
 * // { head: "3b18e512dba79e4c8300dd08aeb37f8e728b8dad", branch: "main" }
 * // detached: { head: "<sha>", branch: null }; unborn: { head: null, branch: "main" }
 * ```
 */

import { resolvePosix } from "../paths.ts";
import type { FsPort } from "../ports.ts";
import { errCode } from "./_errors.ts";
import { readShared, readText, runAsync, type Task } from "./io.ts";

/** What HEAD points at. `head` null: unborn branch; `branch` null: detached HEAD. */
export interface HeadInfo {
  head: string | null;
  branch: string | null;
}

/** Thrown (as a value) when HEAD or a ref holds something git would not accept. */
export class BadRefError extends Error {
  constructor(message: string) {
    super(message);
    this.name = "BadRefError";
  }
}

const SHA = /^(?:[0-9a-f]{40}|[0-9a-f]{64})$/;
/** git reads at most 5 refs for one name, the last holding the object name: 4 `ref:` lines. */
const MAX_SYMREF_DEPTH = 5;

/**
 * The refs under `refs/` that live in each worktree's own git dir (`.git/worktrees/<id>/refs/…`
 * for a linked one) rather than the common dir, git's rule: they are never packed and go when
 * the worktree is removed.
 */
export const PER_WORKTREE_REF_PREFIXES = ["refs/worktree/", "refs/bisect/", "refs/rewritten/"] as const;

/** True for a ref of {@link PER_WORKTREE_REF_PREFIXES} (or a name outside `refs/`, like HEAD). */
export function isPerWorktree(ref: string): boolean {
  return !ref.startsWith("refs/") || PER_WORKTREE_REF_PREFIXES.some((p) => ref.startsWith(p));
}

/** Parse the text of `packed-refs` into ref → sha (peeled `^` lines and comments skipped). */
export function parsePackedRefs(text: string): Map<string, string> {
  const refs = new Map<string, string>();
  for (const line of text.split("\n")) {
    if (line === "" || line[0] === "#" || line[0] === "^") continue;
    const sp = line.indexOf(" ");
    if (sp === -1) continue;
    const sha = line.slice(0, sp);
    if (SHA.test(sha)) refs.set(line.slice(sp + 1).replace(/\r$/, ""), sha);
  }
  return refs;
}

/** Parsed packed-refs per common dir, shared by one discovery run. */
export type PackedRefsCache = Map<string, Map<string, string>>;

function* packedRefs(commonDir: string, cache: PackedRefsCache): Task<Map<string, string>> {
  const cached = cache.get(commonDir);
  if (cached) return cached;
  let refs: Map<string, string>;
  try {
    // Shared: concurrent tasks (async port) read the file once, too.
    const text = yield* readShared(`${commonDir}/packed-refs`);
    refs = cache.get(commonDir) ?? parsePackedRefs(text);
  } catch (e) {
    if (!isMissing(e)) throw e;
    refs = new Map();
  }
  cache.set(commonDir, refs);
  return refs;
}

function isMissing(e: unknown): boolean {
  const c = errCode(e);
  return c === "ENOENT" || c === "ENOTDIR" || c === "EISDIR";
}

/** Read a file, or null when it (or its directory) does not exist. */
function* readOrNull(path: string): Task<string | null> {
  try {
    return yield* readText(path);
  } catch (e) {
    if (isMissing(e)) return null;
    throw e;
  }
}

/** {@link commonDirOf} as a {@link Task}. */
export function* commonDirTask(gitDir: string): Task<string> {
  const text = yield* readOrNull(`${gitDir}/commondir`);
  if (text === null) return gitDir;
  const rel = text.replace(/\r?\n$/, "");
  return rel === "" ? gitDir : resolvePosix(gitDir, rel);
}

/** The common git dir of `gitDir`: its `commondir` file resolved, else `gitDir` itself. */
export function commonDirOf(fs: FsPort, gitDir: string): Promise<string> {
  return runAsync(commonDirTask(gitDir), fs, unlimited);
}

/**
 * Read HEAD of the repository whose (per-worktree) git dir is `gitDir` and whose common dir is
 * `commonDir`. `headText` may be passed when the caller already read `<gitDir>/HEAD`.
 * Throws {@link BadRefError} for content git would reject, and the FsPort's errors for I/O.
 */
export function readHead(
  fs: FsPort,
  gitDir: string,
  commonDir: string,
  options: { headText?: string } = {},
): Promise<HeadInfo> {
  return runAsync(readHeadTask(gitDir, commonDir, options.headText ?? null, new Map()), fs, unlimited);
}

const unlimited = <R>(fn: () => Promise<R>): Promise<R> => fn();

/** {@link readHead} as a {@link Task}; `headText` null reads `<gitDir>/HEAD`. */
export function* readHeadTask(
  gitDir: string,
  commonDir: string,
  headText: string | null,
  cache: PackedRefsCache,
): Task<HeadInfo> {
  let text: string | null = headText ?? (yield* readText(`${gitDir}/HEAD`));
  let ref = "HEAD";
  let target: string | null = null;
  for (let depth = 0; ; depth++) {
    if (text !== null) {
      // trim() also drops the final "\n" or "\r\n" (no regex replace per ref file).
      const line: string = text.trim();
      if (line.startsWith("ref:")) {
        if (depth >= MAX_SYMREF_DEPTH - 1) throw new BadRefError(`symbolic ref ${ref} nests too deeply`);
        const next: string = line.slice(4).trim();
        if (!next.startsWith("refs/") && next !== "HEAD")
          throw new BadRefError(`${ref} points outside refs/`);
        ref = next;
        target = next;
        const dir: string = isPerWorktree(next) ? gitDir : commonDir;
        text = yield* readOrNull(`${dir}/${next}`);
        continue;
      }
      if (!SHA.test(line)) throw new BadRefError(`${ref} does not hold a ref or an object name`);
      return { head: line, branch: branchName(target) };
    }
    // No loose file: look in packed-refs (HEAD itself is never packed).
    const sha = (yield* packedRefs(commonDir, cache)).get(ref) ?? null;
    return { head: sha, branch: branchName(target) };
  }
}

function branchName(ref: string | null): string | null {
  if (ref === null) return null;
  return ref.startsWith("refs/heads/") ? ref.slice("refs/heads/".length) : ref;
}
