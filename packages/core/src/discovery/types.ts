/** The data discovery produces and the options it takes (docs/discover.md). */

/** `checkout`: a `.git` directory; `worktree`: a linked worktree; `submodule`: a submodule's checkout. */
export type SourceKind = "checkout" | "worktree" | "submodule";

/** One source: a git checkout somewhere under the workspace root. */
export interface Source {
  /** Workspace-relative POSIX path; `.` for the root itself. */
  name: string;
  /** Absolute canonical path of the checkout. */
  path: string;
  kind: SourceKind;
  /** Absolute path of its (per-worktree) git dir. */
  gitDir: string;
  /** The commit HEAD resolves to; null on an unborn branch. */
  head: string | null;
  /** The branch HEAD names (without `refs/heads/`); null when detached. */
  branch: string | null;
}

export interface DiscoverOptions {
  /** How deep below the root to look (0: the root only; 1: its direct children). Default 1. */
  maxDepth?: number;
  /** Look inside sources for more sources. Default false. */
  nested?: boolean;
  /** Globs of directories to skip (see glob.ts). */
  exclude?: readonly string[];
  /** Follow symbolic links to directories (inside the root only), deduplicated by realpath. */
  followSymlinks?: boolean;
}

/** Codes of the warnings discovery reports while it goes on. */
export type DiscoverWarningCode =
  | "WARN_UNREADABLE"
  | "WARN_NOT_A_REPOSITORY"
  | "WARN_SYMLINK_OUTSIDE_ROOT"
  | "WARN_UNSUPPORTED_REFS";

export interface DiscoverWarning {
  code: DiscoverWarningCode;
  message: string;
  /** Absolute path the warning is about. */
  path: string;
}
