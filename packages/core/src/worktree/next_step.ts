import { shellWords } from "../shell_words.ts";
import { REFUSALS, type RefusalReason } from "./refusals.ts";

/** What the next-step command needs to know. */
export interface NextRemoveOptions {
  task: string;
  /** Why each leg was kept: refusal reasons (`dirty`, ...), `keep`, or an error code. */
  reasons: readonly string[];
  /** Only these legs (default: the whole task). */
  sources?: readonly string[];
  /** The root to name with -C (when the next command would not find it from the cwd). */
  root?: string;
}

/**
 * The command that deals with kept worktrees: `ariel-worktree remove --task T --snapshot` when
 * every reason is local work a snapshot saves (or `keep`: the user asked to keep them), so it
 * removes them without losing anything; else without `--snapshot`, which shows what stands in
 * the way and how to get past it.
 *
 * @example
 * ```ts
 * nextRemoveCommand({ task: "t1", reasons: ["dirty"] });
 * // "ariel-worktree remove --task t1 --snapshot"
 * nextRemoveCommand({ task: "t1", reasons: ["foreign-lock"], sources: ["api"], root: "/my ws" });
 * // "ariel-worktree remove -C '/my ws' --task t1 --source api"
 * ```
 */
export function nextRemoveCommand(o: NextRemoveOptions): string {
  const saved = o.reasons.every(
    (r) => r === "keep" || (r in REFUSALS && REFUSALS[r as RefusalReason].snapshot),
  );
  return shellWords([
    "ariel-worktree",
    "remove",
    ...(o.root !== undefined ? ["-C", o.root] : []),
    "--task",
    o.task,
    ...(o.sources ?? []).flatMap((s) => ["--source", s]),
    ...(saved ? ["--snapshot"] : []),
  ]);
}

/** A leg `remove` refused, and the first reason. */
export interface RefusedLeg {
  source: string;
  reason: string;
}

/**
 * The closing line of a refused `remove`: which legs refused and why, and the command that
 * removes them without losing anything when `--snapshot` covers every reason; otherwise a pointer
 * to the errors above (each hint says how to get past its refusal).
 *
 * @example
 * ```ts
 * removeRefusalSummary({ task: "t1", refused: [{ source: "citty", reason: "dirty" }], snapshot: false });
 * // "refused, nothing changed: citty (dirty); next: ariel-worktree remove --task t1 --snapshot"
 * ```
 */
export function removeRefusalSummary(o: {
  task: string;
  refused: readonly RefusedLeg[];
  /** --snapshot was given already. */
  snapshot: boolean;
  sources?: readonly string[];
  root?: string;
  /** Legs this run removed before a leg refused (new work found just before its removal). */
  removed?: readonly string[];
}): string {
  const legs = o.refused.map((l) => `${l.source} (${l.reason})`).join(", ");
  const head =
    o.removed && o.removed.length > 0
      ? `refused after removing ${o.removed.join(", ")}`
      : "refused, nothing changed";
  const saved = o.refused.every((l) => l.reason in REFUSALS && REFUSALS[l.reason as RefusalReason].snapshot);
  if (saved && !o.snapshot) {
    const next = nextRemoveCommand({
      task: o.task,
      reasons: o.refused.map((l) => l.reason),
      ...(o.sources && o.sources.length > 0 ? { sources: o.sources } : {}),
      ...(o.root !== undefined ? { root: o.root } : {}),
    });
    return `${head}: ${legs}; next: ${next}`;
  }
  return `${head}: ${legs}; each error above says how to get past it`;
}

/**
 * The closing line of a failed `verify`: how many legs failed and with what code, and when every
 * failure is a missing worktree, the commands that bring them back (`reconcile` first: a leg
 * whose directory vanished is still recorded active, and `restore` only remakes legs that are not).
 *
 * @example
 * ```ts
 * verifySummary({ task: "t1", legs: 2, failed: [{ source: "web", code: "ERR_WORKTREE_MISSING" }] });
 * // "1 of 2 legs failed: web (ERR_WORKTREE_MISSING);
 * //  next: ariel-worktree reconcile && ariel-worktree restore --task t1 --source web" (one line)
 * ```
 */
export function verifySummary(o: {
  task: string;
  legs: number;
  failed: readonly { source: string; code: string }[];
  root?: string;
}): string {
  const what = `${o.failed.length} of ${o.legs} legs failed: ${o.failed.map((f) => `${f.source} (${f.code})`).join(", ")}`;
  if (!o.failed.every((f) => f.code === "ERR_WORKTREE_MISSING")) return what;
  const at = o.root !== undefined ? ["-C", o.root] : [];
  const reconcile = shellWords(["ariel-worktree", "reconcile", ...at]);
  const restore = shellWords([
    "ariel-worktree",
    "restore",
    ...at,
    "--task",
    o.task,
    ...o.failed.flatMap((f) => ["--source", f.source]),
  ]);
  return `${what}; next: ${reconcile} && ${restore}`;
}
