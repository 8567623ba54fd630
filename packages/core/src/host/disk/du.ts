/**
 * `ariel-worktree du`: what every task's worktrees cost on disk, split into checkout, untracked,
 * ignored and git admin, with the free space of the worktree root's filesystem.
 */
import type { FreeSpace } from "../../disk/guard.ts";
import { emptyUsage, lsFilesPaths, PathClassifier, sumUsage, type Usage } from "../../disk/usage.ts";
import { ArielError } from "../../errors.ts";
import { quoteValue } from "../../names.ts";
import type { Ports } from "../../ports.ts";
import { git } from "../worktree/_git.ts";
import { openWorkspace } from "../worktree/workspace.ts";
import { readAllTasks } from "./tasks.ts";
import { freeSpace, newWalkState, type WalkWarning, walkUsage } from "./walk.ts";

/** One leg's usage; `present: false` for a leg whose worktree is gone (all zeros). */
export interface LegUsage {
  task: string;
  source: string;
  path: string;
  present: boolean;
  usage: Usage;
}

export interface DiskUsageResult {
  legs: LegUsage[];
  tasks: { task: string; usage: Usage }[];
  total: Usage;
  free: FreeSpace;
  warnings: (WalkWarning | { code: string; path: string; reason: string })[];
}

/** The git facts of a present leg: its untracked and ignored paths, and its admin dir. */
async function legFacts(ports: Ports, path: string) {
  const others = ["ls-files", "-z", "--others", "--exclude-standard", "--directory"];
  const [untracked, ignored, gitDir] = await Promise.all([
    git(ports, path, others),
    git(ports, path, [...others, "--ignored"]),
    git(ports, path, ["rev-parse", "--absolute-git-dir"]),
  ]);
  return {
    classifier: new PathClassifier(lsFilesPaths(untracked), lsFilesPaths(ignored)),
    gitDir: gitDir.trim(),
  };
}

/**
 * Measure every leg of every task (or of `taskId`): allocated bytes, hardlinks counted once over
 * the whole run, links never followed. A leg git cannot read is measured as all checkout and
 * reported in `warnings`; so is an unreadable directory.
 *
 * @example
 * ```ts
 * const { total, free } = await diskUsage(hostPorts(), { root: "/w" });
 * console.log(total.total, free.free);
 * ```
 */
export async function diskUsage(
  ports: Ports,
  options: { root: string; taskId?: string },
): Promise<DiskUsageResult> {
  const ws = await openWorkspace(ports, options.root);
  const { records, problems } = await readAllTasks(ws);
  const selected = records.filter((r) => options.taskId === undefined || r.taskId === options.taskId);
  if (options.taskId !== undefined && selected.length === 0) {
    throw new ArielError("ERR_TASK_NOT_FOUND", `no task ${quoteValue(options.taskId)} in ${ws.root}`, {
      context: { task: options.taskId },
    });
  }
  const state = newWalkState();
  const warnings: DiskUsageResult["warnings"] = problems.map((p) => ({
    code: p.code,
    path: String(p.context.file ?? p.context.path ?? ""),
    reason: p.message,
  }));
  const legs: LegUsage[] = [];
  const pending = selected.flatMap((rec) =>
    rec.legs.map(async (leg) => {
      const st = await ports.fs.lstat(leg.worktreePath);
      if (st?.kind !== "dir") return { rec, leg, facts: null };
      const facts = await legFacts(ports, leg.worktreePath).catch((e: unknown) => {
        warnings.push({
          code: "WARN_DU_NOT_A_WORKTREE",
          path: leg.worktreePath,
          reason: e instanceof Error ? e.message : String(e),
        });
        return { classifier: new PathClassifier(new Set(), new Set()), gitDir: null };
      });
      return { rec, leg, facts };
    }),
  );
  // The git calls of all legs run together; the walks then run one after another (they are CPU
  // bound, and the hardlink set must see each file once).
  for (const { rec, leg, facts } of await Promise.all(pending)) {
    const usage = emptyUsage();
    if (facts) {
      walkUsage(leg.worktreePath, facts.classifier, state, usage);
      if (facts.gitDir !== null && !facts.gitDir.startsWith(`${leg.worktreePath}/`)) {
        walkUsage(facts.gitDir, null, state, usage);
      }
    }
    legs.push({
      task: rec.taskId,
      source: leg.source,
      path: leg.worktreePath,
      present: facts !== null,
      usage,
    });
  }
  const tasks = selected.map((r) => ({
    task: r.taskId,
    usage: sumUsage(legs.filter((l) => l.task === r.taskId).map((l) => l.usage)),
  }));
  warnings.push(...state.warnings);
  return {
    legs,
    tasks,
    total: sumUsage(tasks.map((t) => t.usage)),
    free: await freeSpace(ws.worktreeRoot),
    warnings,
  };
}
