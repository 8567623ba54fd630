import { ArielError } from "../errors.ts";
import { quoteValue } from "../names.ts";
import type { TaskRecord } from "../schema/task.ts";
import { compareBytewise } from "./_deps.ts";
import { checkTaskBounds } from "./bounds.ts";
import { lockReason } from "./ours.ts";
import type { WorktreeEntry } from "./porcelain.ts";

/** What `add` was asked for (names already validated). */
export interface AddRequest {
  taskId: string;
  /** Source names, as given (order kept for the plan, compared as a set). */
  sources: readonly string[];
  /** `--base REF` as given, or undefined for each source's HEAD. */
  base?: string;
  /** Branch for every leg (default `ariel/<task>`). */
  branch: string;
  /** Canonical workspace root and owner as they would be recorded (for the record's size bound). */
  root?: string;
  owner?: string;
}

/** What the host found out about one source before planning. */
export interface AddSourceFacts {
  name: string;
  /** Canonical path of the source checkout. */
  path: string;
  /** The leg's worktree path `<worktreeRoot>/<task>/<leg dir>`. */
  worktreePath: string;
  /** The base commit (--base or HEAD) resolved in this source. */
  baseCommit: string;
  /** Commit of `refs/heads/<branch>` in this source, or null when it does not exist. */
  branchCommit: string | null;
  /** `git worktree list` of the source's repository. */
  worktrees: readonly WorktreeEntry[];
  /** True when something (file, dir, link) is at worktreePath already. */
  pathExists: boolean;
  /** Overlay paths (relative) selected in this source, checked to stay inside it. */
  overlay: readonly string[];
}

/** One leg to create (or adopt, after a crashed earlier add of ours). */
export interface AddLegPlan {
  source: string;
  sourcePath: string;
  branch: string;
  base: string;
  worktreePath: string;
  /** `adopt`: a worktree of ours left by a crashed add is reused as it is. */
  mode: "create" | "adopt";
  /** Overlay paths to copy from the source. */
  overlay: readonly string[];
}

export type AddPlan = { kind: "existing"; record: TaskRecord } | { kind: "create"; legs: AddLegPlan[] };

function conflict(message: string, context: Record<string, unknown>, hint?: string): ArielError {
  return new ArielError("ERR_TASK_CONFLICT", message, { context, ...(hint ? { hint } : {}) });
}

function sameSet(a: readonly string[], b: readonly string[]): boolean {
  const x = [...new Set(a)].sort(compareBytewise);
  const y = [...new Set(b)].sort(compareBytewise);
  return x.length === y.length && x.every((v, i) => v === y[i]);
}

/**
 * Decide what `add` does, from facts gathered by the host. Pure: throws ERR_TASK_CONFLICT
 * (exit 3) when the request clashes with an existing task, branch or worktree, and
 * ERR_TOO_MANY_LEGS / ERR_RECORD_TOO_LARGE (exit 65) for a new task that could never be recorded
 * (see {@link checkTaskBounds}), so nothing is made for it.
 *
 * - An existing active record for the same sources, branch (and base, when --base is given) is
 *   returned as it is: the add is idempotent.
 * - A worktree at the planned path, locked `ariel:<task>` (or `initializing`) on our branch, is
 *   adopted: it was left by a crashed earlier add of ours.
 * - An existing branch that is not ours, or a path taken by something else, is refused.
 *
 * @example
 * ```ts
 * const plan = planAdd({ taskId: "t", sources: ["api"], branch: "ariel/t" }, null, facts);
 * if (plan.kind === "create") for (const leg of plan.legs) console.log(leg.mode, leg.worktreePath);
 * ```
 */
export function planAdd(
  request: AddRequest,
  existing: TaskRecord | null,
  facts: readonly AddSourceFacts[],
): AddPlan {
  const task = request.taskId;
  if (existing) {
    const legSources = existing.legs.map((l) => l.source);
    const why: string[] = [];
    if (existing.state !== "active" || existing.legs.some((l) => l.state !== "active")) {
      why.push(`it is ${existing.state === "active" ? "partly removed" : existing.state}`);
    }
    if (!sameSet(legSources, request.sources)) why.push(`its sources are ${legSources.join(", ")}`);
    if (existing.legs.some((l) => l.branch !== request.branch)) {
      why.push(`its branch is ${existing.legs[0]?.branch ?? "?"}`);
    }
    if (request.base !== undefined) {
      for (const f of facts) {
        const leg = existing.legs.find((l) => l.source === f.name);
        if (leg && leg.base !== f.baseCommit) why.push(`the base of ${f.name} is ${leg.base.slice(0, 12)}`);
      }
    }
    if (why.length > 0) {
      throw conflict(
        `task ${quoteValue(task)} already exists and differs: ${why.join("; ")}`,
        { task, reasons: why },
        existing.state === "active" && existing.legs.every((l) => l.state === "active")
          ? "use another --task id, or remove the existing task first"
          : `run ariel-worktree restore --task ${task} to bring it back, or use another --task id`,
      );
    }
    return { kind: "existing", record: existing };
  }

  checkTaskBounds(request, facts);
  const legs: AddLegPlan[] = [];
  const branchRef = `refs/heads/${request.branch}`;
  for (const f of facts) {
    const atPath = f.worktrees.find((w) => w.path === f.worktreePath);
    const ours =
      atPath !== undefined &&
      !atPath.main &&
      atPath.branch === branchRef &&
      (atPath.locked === lockReason(task) || atPath.locked === "initializing");
    if (ours) {
      legs.push({
        source: f.name,
        sourcePath: f.path,
        branch: request.branch,
        base: f.branchCommit ?? atPath.head ?? f.baseCommit,
        worktreePath: f.worktreePath,
        mode: "adopt",
        overlay: f.overlay,
      });
      continue;
    }
    if (atPath) {
      throw conflict(
        `${f.worktreePath} is already a worktree of ${f.name} that ariel did not make for task ${quoteValue(task)}`,
        { task, source: f.name, path: f.worktreePath, lock: atPath.locked },
      );
    }
    if (f.pathExists) {
      throw new ArielError("ERR_EXISTS", `${f.worktreePath} exists but is not a worktree of ${f.name}`, {
        hint: "move it away, or run ariel-worktree reconcile",
        context: { task, source: f.name, path: f.worktreePath },
      });
    }
    if (f.branchCommit !== null) {
      const holder = f.worktrees.find((w) => w.branch === branchRef);
      throw conflict(
        holder
          ? `branch ${request.branch} of ${f.name} is checked out at ${holder.path}`
          : `branch ${request.branch} already exists in ${f.name} and is not ours`,
        { task, source: f.name, branch: request.branch, ...(holder ? { checkedOutAt: holder.path } : {}) },
        "pass another --task id or --branch; ariel never takes over an existing branch",
      );
    }
    legs.push({
      source: f.name,
      sourcePath: f.path,
      branch: request.branch,
      base: f.baseCommit,
      worktreePath: f.worktreePath,
      mode: "create",
      overlay: f.overlay,
    });
  }
  return { kind: "create", legs };
}
