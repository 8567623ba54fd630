/**
 * `ariel-worktree du`: what every task's worktrees cost on disk, split into checkout, untracked,
 * ignored and git admin, with the free space of the worktree root's filesystem.
 */

import { readFileSync } from "node:fs";
import { resolve } from "node:path";
import type { FreeSpace } from "../../disk/guard.ts";
import {
  classifyTree,
  type DuTree,
  emptyUsage,
  lsFilesPaths,
  PathClassifier,
  sumUsage,
  type Usage,
} from "../../disk/usage.ts";
import { ArielError } from "../../errors.ts";
import { quoteValue } from "../../names.ts";
import type { Ports } from "../../ports.ts";
import { freeSpace } from "../free_space.ts";
import { ensureGit } from "../git.ts";
import { walkTrees } from "../walk/parallel_walk.ts";
import { fileBytes, newWalkState, type WalkWarning, walkUsage } from "../walk/walk.ts";
import { git } from "../worktree/git.ts";
import { legUsesStore, listStores } from "../worktree/share.ts";
import { readAllTasks } from "../worktree/tasks.ts";
import { openWorkspace } from "../worktree/workspace.ts";

/** One leg's usage; `present: false` for a leg whose worktree is gone (all zeros). */
export interface LegUsage {
  task: string;
  source: string;
  path: string;
  present: boolean;
  usage: Usage;
}

/** A `--share-mode store` store: in no task, counted once in the workspace total. */
export interface StoreUsage {
  key: string;
  path: string;
  source: string;
  dir: string;
  /** Legs (task/source) whose shared directory links into it. */
  users: string[];
  /** All of it `ignored`; the file bytes are `hardlinked` while the source holds its copy. */
  usage: Usage;
}

export interface DiskUsageResult {
  legs: LegUsage[];
  tasks: { task: string; usage: Usage }[];
  /** The stores (without `taskId` only). */
  stores: StoreUsage[];
  total: Usage;
  free: FreeSpace;
  warnings: (WalkWarning | { code: string; path: string; reason: string })[];
}

/** The untracked and ignored paths of a present leg: two git listings, run together. */
async function legClassifier(ports: Ports, path: string): Promise<PathClassifier> {
  const others = ["ls-files", "-z", "--others", "--exclude-standard", "--directory"];
  const [untracked, ignored] = await Promise.all([
    git(ports, path, others),
    git(ports, path, [...others, "--ignored"]),
  ]);
  return new PathClassifier(lsFilesPaths(untracked), lsFilesPaths(ignored));
}

/**
 * The admin dir a linked worktree's `.git` file points at (`gitdir: …`), or null when `.git` is
 * a directory inside the worktree (walked as admin there) or not a gitdir file. Read, not asked
 * of git: a process per leg costs more than the file.
 */
function adminDir(worktree: string): string | null {
  let text: string;
  try {
    text = readFileSync(`${worktree}/.git`, "utf8");
  } catch {
    return null;
  }
  const m = /^gitdir: (.+)$/m.exec(text);
  if (!m) return null;
  const dir = resolve(worktree, m[1]!.trim());
  return dir.startsWith(`${worktree}/`) ? null : dir;
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
  const present = await Promise.all(
    selected.flatMap((rec) =>
      rec.legs.map(async (leg) => ({
        rec,
        leg,
        present: (await ports.fs.lstat(leg.worktreePath))?.kind === "dir",
      })),
    ),
  );
  // The walk starts first (walkTrees lists the top levels here and starts the find processes
  // that walk the rest in parallel, the longest part), then the git listings of every leg, which
  // run meanwhile; the trees are classified when both are in. The hardlink set sees each file
  // once, in leg order. git's version is checked once before its first use (a missing git fails
  // each leg's listing, a warning, as before).
  const walking: { i: number; dir: string }[] = [];
  present.forEach((p, i) => {
    if (!p.present) return;
    walking.push({ i, dir: p.leg.worktreePath });
    const admin = adminDir(p.leg.worktreePath);
    if (admin !== null) walking.push({ i, dir: admin });
  });
  const trees = walkTrees(
    walking.map((w) => w.dir),
    state,
  );
  if (walking.length > 0) await ensureGit().catch(() => undefined);
  const walked = present.map(({ rec, leg, present }) => {
    if (!present) return { rec, leg, classifier: null, trees: [] as DuTree[] };
    const classifier = legClassifier(ports, leg.worktreePath).catch((e: unknown) => {
      warnings.push({
        code: "WARN_DU_NOT_A_WORKTREE",
        path: leg.worktreePath,
        reason: e instanceof Error ? e.message : String(e),
      });
      return new PathClassifier(new Set(), new Set());
    });
    return { rec, leg, classifier, trees: [] as DuTree[] };
  });
  for (const [k, tree] of (await trees).entries()) walked[walking[k]!.i]!.trees.push(tree);
  for (const { rec, leg, classifier, trees } of walked) {
    const usage = emptyUsage();
    if (classifier) {
      const [tree, admin] = trees;
      classifyTree(tree!, await classifier, usage, fileBytes(leg.worktreePath, tree!, state));
      if (admin) classifyTree(admin, null, usage);
    }
    legs.push({
      task: rec.taskId,
      source: leg.source,
      path: leg.worktreePath,
      present: classifier !== null,
      usage,
    });
  }
  const tasks = selected.map((r) => ({
    task: r.taskId,
    usage: sumUsage(legs.filter((l) => l.task === r.taskId).map((l) => l.usage)),
  }));
  // Stores after the legs, with the same hardlink set: a file is counted once wherever it is
  // met first. Legs link into a store by symbolic links, which the walk never follows.
  const stores: StoreUsage[] = [];
  for (const s of options.taskId === undefined ? listStores(ws.root) : []) {
    const usage = emptyUsage();
    walkUsage(s.path, null, state, usage);
    usage.ignored += usage.admin;
    usage.admin = 0;
    const users = selected.flatMap((r) =>
      r.legs.filter((l) => legUsesStore(l.worktreePath, s)).map((l) => `${r.taskId}/${l.source}`),
    );
    stores.push({ key: s.key, path: s.path, source: s.manifest.source, dir: s.manifest.dir, users, usage });
  }
  warnings.push(...state.warnings);
  return {
    legs,
    tasks,
    stores,
    total: sumUsage([...tasks.map((t) => t.usage), ...stores.map((s) => s.usage)]),
    free: await freeSpace(ws.worktreeRoot),
    warnings,
  };
}
