import type { ErrorCode } from "../errors.ts";

/**
 * The pure half of `ariel-worktree adopt` (docs/lifecycle.md, Adopt): what the host found about
 * a worktree made elsewhere in, the first refusal (as data) or the leg to record out.
 */

/** Why adopt refuses; every one changes nothing. */
export const ADOPT_REFUSALS = {
  "outside-root": { code: "ERR_PATH_ESCAPE" },
  "not-a-worktree": { code: "ERR_NOINPUT" },
  "foreign-repo": { code: "ERR_FOREIGN_REPO" },
  "main-worktree": { code: "ERR_MAIN_WORKTREE" },
  "in-task": { code: "ERR_IN_TASK" },
  "foreign-lock": { code: "ERR_FOREIGN_LOCK" },
  detached: { code: "ERR_REFUSED" },
  "leg-exists": { code: "ERR_TASK_CONFLICT" },
} as const satisfies Record<string, { code: ErrorCode }>;

export type AdoptRefusalReason = keyof typeof ADOPT_REFUSALS;

export interface AdoptFacts {
  /** The canonical path given. */
  path: string;
  /** Inside the workspace root, and not the root itself. */
  insideRoot: boolean;
  /** The top directory of a git worktree (not a directory inside one, not a bare repository). */
  topLevel: boolean;
  /** The workspace source whose repository it belongs to, or null. */
  source: { name: string; path: string } | null;
  /** It is that repository's main worktree. */
  main: boolean;
  /** git's lock reason (null: not locked). */
  lock: string | null;
  /** The branch checked out (short name), null when detached. */
  branch: string | null;
  /** A task that already has it: by a record's leg, or by an `ariel:<task>` lock. */
  inTask: string | null;
  /** The named task exists and already has a leg of this source. */
  legExists: boolean;
}

export type AdoptDecision =
  | { ok: false; reason: AdoptRefusalReason; code: ErrorCode; message: string }
  | { ok: true; source: { name: string; path: string }; branch: string };

function no(reason: AdoptRefusalReason, message: string): AdoptDecision {
  return { ok: false, reason, code: ADOPT_REFUSALS[reason].code, message };
}

/**
 * Decide an adopt: the first refusal in a fixed order, else the leg's source and branch.
 *
 * @example
 * ```ts
 * planAdopt({ ...facts, main: true }); // { ok: false, reason: "main-worktree", code: "ERR_MAIN_WORKTREE", … }
 * ```
 */
export function planAdopt(f: AdoptFacts, taskId: string): AdoptDecision {
  if (!f.insideRoot) {
    return no(
      "outside-root",
      `${f.path} is outside the workspace root; ariel only removes what lies inside it`,
    );
  }
  if (!f.topLevel) return no("not-a-worktree", `${f.path} is not the top directory of a git worktree`);
  if (f.source === null) {
    return no(
      "foreign-repo",
      `${f.path} is a worktree of a repository that is none of the workspace's sources`,
    );
  }
  if (f.main) return no("main-worktree", `${f.path} is the main worktree of ${f.source.name}`);
  if (f.inTask !== null) return no("in-task", `${f.path} already belongs to task ${f.inTask}`);
  if (f.lock !== null)
    return no("foreign-lock", `${f.path} is locked by someone else (${f.lock || "no reason given"})`);
  if (f.branch === null)
    return no("detached", `${f.path} has a detached HEAD; check out a branch in it first`);
  if (f.legExists) return no("leg-exists", `task ${taskId} already has a leg for source ${f.source.name}`);
  return { ok: true, source: f.source, branch: f.branch };
}
