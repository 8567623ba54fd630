import { ArielError, type ErrorCode } from "../errors.ts";
import { quoteValue } from "../names.ts";
import { didYouMean } from "../suggest.ts";
import { isLockOf } from "./ours.ts";

/**
 * Why `remove` refuses a leg, each with the `--allow` name that overrides it. `main-worktree`
 * has no override: a main worktree is never removed.
 */
export const REFUSALS = {
  "main-worktree": { code: "ERR_MAIN_WORKTREE", allow: false, snapshot: false },
  "not-ours": { code: "ERR_NOT_OURS", allow: false, snapshot: false },
  "foreign-lock": { code: "ERR_FOREIGN_LOCK", allow: true, snapshot: false },
  "branch-mismatch": { code: "ERR_BRANCH_MISMATCH", allow: true, snapshot: false },
  // The checked-out branch was deleted: restore needs it back, which a snapshot cannot do.
  "branch-missing": { code: "ERR_BRANCH_MISSING", allow: true, snapshot: false },
  dirty: { code: "ERR_DIRTY", allow: true, snapshot: true },
  "overlay-changed": { code: "ERR_OVERLAY_CHANGED", allow: true, snapshot: true },
  "skip-worktree": { code: "ERR_SKIP_WORKTREE_MODIFIED", allow: true, snapshot: true },
  unreachable: { code: "ERR_UNREACHABLE_COMMITS", allow: true, snapshot: true },
  // Commits only HEAD's reflog or per-worktree refs (refs/worktree/, refs/bisect/,
  // refs/rewritten/) hold, both in the worktree's admin dir and deleted with it: a snapshot
  // keeps them as extra parents of its commit.
  reflog: { code: "ERR_REFLOG_COMMITS", allow: true, snapshot: true },
  // A snapshot records a submodule as its commit id only: it cannot keep the submodule's commits.
  "submodule-commits": { code: "ERR_SUBMODULE_COMMITS", allow: true, snapshot: false },
  // A repository nested in the leg (cloned or made there, or a submodule): a snapshot keeps none
  // of its files and, unless it is a submodule, not even its commit id.
  "nested-work": { code: "ERR_NESTED_WORK", allow: true, snapshot: false },
} as const satisfies Record<string, { code: ErrorCode; allow: boolean; snapshot: boolean }>;

export type RefusalReason = keyof typeof REFUSALS;

/** Reasons that `--allow` accepts. */
export const ALLOWABLE: readonly RefusalReason[] = (Object.keys(REFUSALS) as RefusalReason[]).filter(
  (r) => REFUSALS[r].allow,
);

/** One refusal of one leg. */
export interface Refusal {
  reason: RefusalReason;
  code: ErrorCode;
  message: string;
  /** Files or commits that would be lost (first few). */
  items?: string[];
}

/**
 * Check `--allow` values: each must name an overridable refusal. `main-worktree` and `not-ours`
 * are never overridable (exit 64).
 *
 * @example
 * ```ts
 * parseAllow(["dirty", "unreachable"]); // Set {"dirty", "unreachable"}
 * parseAllow(["main-worktree"]);         // throws ERR_USAGE
 * ```
 */
export function parseAllow(values: readonly string[]): Set<RefusalReason> {
  const out = new Set<RefusalReason>();
  for (const v of values) {
    for (const part of v.split(",")) {
      const name = part.trim();
      if (name === "") continue;
      if (!Object.hasOwn(REFUSALS, name)) {
        const suggestion = didYouMean(name, ALLOWABLE);
        throw new ArielError("ERR_USAGE", `unknown --allow reason ${quoteValue(name)}`, {
          hint: `${suggestion ? `${suggestion} ` : ""}use one of: ${ALLOWABLE.join(", ")}`,
        });
      }
      const r = name as RefusalReason;
      if (!REFUSALS[r].allow) {
        throw new ArielError(
          "ERR_USAGE",
          `--allow ${name} is not possible: that refusal is never overridden`,
          {
            hint:
              r === "main-worktree"
                ? "a main worktree is never removed"
                : "ariel only removes its own worktrees",
          },
        );
      }
      out.add(r);
    }
  }
  return out;
}

/** Everything the host found out about one leg before `remove` decides. */
export interface LegFacts {
  source: string;
  worktreePath: string;
  /** The worktree directory exists. */
  present: boolean;
  /** It is a main worktree (or the source checkout itself). */
  main: boolean;
  /** A task record lists it, it is inside the worktree root, and git knows it as a worktree. */
  owned: boolean;
  /** Lock reason; null when unlocked. */
  lock: string | null;
  /** What HEAD is on: `refs/heads/x`, or null when detached. */
  checkedOut: string | null;
  /** The branch the record says. */
  recordedBranch: string;
  /** Modified, staged or untracked paths (overlay copies of ours excluded). */
  dirty: readonly string[];
  /** Overlay copies whose sha256 differs from the record, or that are gone. */
  overlayChanged: readonly string[];
  /** Skip-worktree / assume-unchanged files whose content differs from the index. */
  skipWorktreeModified: readonly string[];
  /** Commits reachable from HEAD and from no ref but the worktree's own (per-worktree) refs. */
  unreachable: readonly string[];
  /** HEAD is on a branch (`checkedOut`) that does not exist: deleted while checked out. */
  branchMissing?: boolean;
  /**
   * Commits that only the worktree's HEAD reflog or its per-worktree refs reach (no other ref, not
   * HEAD): removal deletes that reflog and those refs, so nothing would hold them any more.
   */
  reflogOnly?: readonly string[];
  /**
   * `<submodule path>@<commit>` for commits of a submodule whose repository lives inside the
   * worktree (or its admin dir) and that no remote-tracking ref holds: removal deletes them.
   */
  submoduleCommits?: readonly string[];
  /**
   * `<repo>/<file>` for changed or untracked files of a git repository nested in the worktree (a
   * submodule, or one cloned or made there), `<repo>@<commit>` for commits of such a repository
   * (not a submodule) that live in the worktree and that no remote-tracking ref holds, `<repo>`
   * for one git cannot read: removal deletes them, a snapshot keeps none of them.
   */
  nestedWork?: readonly string[];
}

const FIRST = 10;

function items(list: readonly string[]): string[] {
  return list.slice(0, FIRST);
}

function more(list: readonly string[]): string {
  const shown = list.slice(0, 3).join(", ");
  return list.length > 3 ? `${shown} and ${list.length - 3} more` : shown;
}

/**
 * Every refusal of one leg, in a fixed order. Pure; `remove` calls it for every leg before it
 * changes anything.
 */
export function legRefusals(taskId: string, f: LegFacts): Refusal[] {
  const out: Refusal[] = [];
  const add = (reason: RefusalReason, message: string, list?: readonly string[]) =>
    out.push({ reason, code: REFUSALS[reason].code, message, ...(list ? { items: items(list) } : {}) });
  if (f.main) {
    add("main-worktree", `${f.worktreePath} is the main worktree of ${f.source}`);
    return out;
  }
  if (!f.owned) {
    add("not-ours", `${f.worktreePath} is not a worktree ariel made for task ${quoteValue(taskId)}`);
    return out;
  }
  if (f.lock !== null && !isLockOf(f.lock, taskId)) {
    add("foreign-lock", `${f.worktreePath} is locked by someone else (${f.lock || "no reason given"})`);
  }
  if (f.checkedOut !== `refs/heads/${f.recordedBranch}`) {
    const now = f.checkedOut === null ? "a detached HEAD" : f.checkedOut.replace(/^refs\/heads\//, "");
    add("branch-mismatch", `${f.worktreePath} has ${now} checked out, not ${f.recordedBranch}`);
  }
  if (f.branchMissing === true && f.checkedOut !== null) {
    const name = f.checkedOut.replace(/^refs\/heads\//, "");
    add("branch-missing", `${f.worktreePath} has branch ${name} checked out, which no longer exists`);
  }
  if (f.dirty.length > 0) {
    add("dirty", `${f.worktreePath} has uncommitted changes: ${more(f.dirty)}`, f.dirty);
  }
  if (f.overlayChanged.length > 0) {
    add(
      "overlay-changed",
      `overlay files changed in ${f.worktreePath}: ${more(f.overlayChanged)}`,
      f.overlayChanged,
    );
  }
  if (f.skipWorktreeModified.length > 0) {
    add(
      "skip-worktree",
      `skip-worktree/assume-unchanged files modified in ${f.worktreePath}: ${more(f.skipWorktreeModified)}`,
      f.skipWorktreeModified,
    );
  }
  if (f.unreachable.length > 0) {
    add(
      "unreachable",
      `HEAD of ${f.worktreePath} holds ${f.unreachable.length} commit(s) reachable from no ref`,
      f.unreachable,
    );
  }
  const reflog = f.reflogOnly ?? [];
  if (reflog.length > 0) {
    add(
      "reflog",
      `HEAD's reflog or per-worktree refs of ${f.worktreePath} hold ${reflog.length} commit(s) no other ref and not HEAD reaches (left by a detached HEAD, a reset, a rebase, a bisect or a deleted branch): ${more(reflog.map((c) => c.slice(0, 12)))}`,
      reflog,
    );
  }
  const sub = f.submoduleCommits ?? [];
  if (sub.length > 0) {
    add(
      "submodule-commits",
      `submodules of ${f.worktreePath} hold ${sub.length} commit(s) that exist only there: ${more(sub)}`,
      sub,
    );
  }
  const nested = f.nestedWork ?? [];
  if (nested.length > 0) {
    add(
      "nested-work",
      `git repositories nested in ${f.worktreePath} hold work that exists only there: ${more(nested)}`,
      nested,
    );
  }
  return out;
}

/**
 * The refusals that still stand after `--allow` and `--snapshot`: a snapshot keeps local work
 * (dirty, overlay, skip-worktree, unreachable, reflog), `--allow` drops the named ones.
 */
export function standingRefusals(
  refusals: readonly Refusal[],
  allow: ReadonlySet<RefusalReason>,
  snapshot: boolean,
): Refusal[] {
  return refusals.filter((r) => !allow.has(r.reason) && !(snapshot && REFUSALS[r.reason].snapshot));
}
