/**
 * Decide whether one directory is a source and read its kind, git dir and HEAD, with as few
 * filesystem calls as possible: a checkout costs one read of `.git/HEAD` plus its ref.
 */

import { resolvePosix } from "../paths.ts";
import type { StatInfo } from "../ports.ts";
import { errCode } from "./_errors.ts";
import { readText, stat, type Task } from "./io.ts";
import { BadRefError, commonDirTask, type PackedRefsCache, readHeadTask } from "./refs.ts";
import type { DiscoverWarning, Source, SourceKind } from "./types.ts";

/** Outcome of inspecting one directory. */
export type Inspection =
  | { type: "none" }
  | { type: "source"; source: Omit<Source, "name" | "path">; warning?: DiscoverWarning }
  | { type: "warning"; warning: DiscoverWarning };

/** The branch a reftable repository's HEAD file names so that older gits refuse it. */
const REFTABLE_STUB = ".invalid";

function missing(code: string): boolean {
  return code === "ENOENT" || code === "ENOTDIR";
}

/** The git dir a `.git` file names (`gitdir: <path>`, relative to the file's directory). */
export function parseGitFile(text: string, dir: string): string | null {
  const line = text.split("\n", 1)[0]?.replace(/\r$/, "") ?? "";
  if (!line.startsWith("gitdir:")) return null;
  const p = line.slice(7).trim();
  return p === "" ? null : resolvePosix(dir, p);
}

/** Kind of a checkout whose `.git` is a file naming `gitDir`: the last `worktrees/` or `modules/` decides. */
export function kindOfGitFile(gitDir: string): SourceKind {
  const w = gitDir.lastIndexOf("/worktrees/");
  const m = gitDir.lastIndexOf("/modules/");
  if (w === -1 && m === -1) return "checkout";
  return w > m ? "worktree" : "submodule";
}

/** Inspect directory `dir` (absolute): is it a source, and what does its HEAD say? */
export function* inspectDir(dir: string, cache: PackedRefsCache): Task<Inspection> {
  const dotGit = `${dir}/.git`;
  let headText: string;
  try {
    // Fast path: a `.git` directory (or a link to one) with a HEAD in it.
    headText = yield* readText(`${dotGit}/HEAD`);
    return yield* finish(dotGit, dotGit, "checkout", headText, cache, dir);
  } catch (e) {
    const code = errCode(e);
    if (e instanceof BadRefError) return notRepo(dir, e.message);
    if (code !== "ENOTDIR" && code !== "ENOENT") return unreadable(dir, dotGit, e);
  }
  // `.git` is absent, a file, or a directory without HEAD.
  let st: StatInfo | null;
  try {
    st = yield* stat(dotGit);
  } catch (e) {
    return unreadable(dir, dotGit, e);
  }
  if (st === null) {
    // Absent, or a dangling link.
    return { type: "none" };
  }
  if (st.kind === "dir") return notRepo(dir, ".git has no HEAD");
  if (st.kind !== "file") return notRepo(dir, ".git is neither a directory nor a file");
  let gitFile: string;
  try {
    gitFile = yield* readText(dotGit);
  } catch (e) {
    return unreadable(dir, dotGit, e);
  }
  const gitDir = parseGitFile(gitFile, dir);
  if (gitDir === null) return notRepo(dir, ".git file does not start with 'gitdir:'");
  try {
    headText = yield* readText(`${gitDir}/HEAD`);
    const common = yield* commonDirTask(gitDir);
    return yield* finish(gitDir, common, kindOfGitFile(gitDir), headText, cache, dir);
  } catch (e) {
    if (e instanceof BadRefError) return notRepo(dir, e.message);
    if (missing(errCode(e))) return notRepo(dir, `.git names ${gitDir}, which is not a git dir`);
    return unreadable(dir, gitDir, e);
  }
}

function* finish(
  gitDir: string,
  commonDir: string,
  kind: SourceKind,
  headText: string,
  cache: PackedRefsCache,
  dir: string,
): Task<Inspection> {
  try {
    const { head, branch } = yield* readHeadTask(gitDir, commonDir, headText, cache);
    if (branch === REFTABLE_STUB) {
      // git's reftable backend leaves this stub in HEAD; the real refs are in <common>/reftable.
      return {
        type: "source",
        source: { kind, gitDir, head: null, branch: null },
        warning: {
          code: "WARN_UNSUPPORTED_REFS",
          message: `${dir} uses the reftable ref format; its head and branch are not read`,
          path: dir,
        },
      };
    }
    return { type: "source", source: { kind, gitDir, head, branch } };
  } catch (e) {
    if (e instanceof BadRefError) return notRepo(dir, e.message);
    return unreadable(dir, gitDir, e);
  }
}

function notRepo(dir: string, why: string): Inspection {
  return {
    type: "warning",
    warning: { code: "WARN_NOT_A_REPOSITORY", message: `skipping ${dir}: ${why}`, path: dir },
  };
}

/** The directory (or its git dir) cannot be read: it is skipped and not searched below. */
function unreadable(dir: string, path: string, e: unknown): Inspection {
  const code = errCode(e) || (e instanceof Error ? e.message.split("\n")[0] : String(e));
  return {
    type: "warning",
    warning: {
      code: "WARN_UNREADABLE",
      message: `cannot read ${path} (${code}); skipping ${dir}`,
      path: dir,
    },
  };
}
