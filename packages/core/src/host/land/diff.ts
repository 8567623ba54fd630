import { type DiffCommit, type DiffFile, parseCommits, parseFiles } from "../../land/diff.ts";
import { validateRequestNames } from "../../names.ts";
import type { Ports } from "../../ports.ts";
import type { Leg } from "../../schema/task.ts";
import { syncTaskSandboxes } from "../sandbox/sync.ts";
import { git } from "../worktree/git.ts";
import { statusPaths } from "../worktree/leg_facts.ts";
import { requireTask, selectLegs } from "../worktree/remove.ts";
import { openWorkspace } from "../worktree/workspace.ts";

/** Input of {@link diffTask}. */
export interface DiffTaskOptions {
  root: string;
  taskId: string;
  sources?: readonly string[];
  /** Add git's `--stat` text of the leg's commits. */
  stat?: boolean;
  /** Add the patch: the commits' (base..head), then the uncommitted one (HEAD..working tree). */
  patch?: boolean;
}

/** What one leg holds that its base does not: the `diff` record. */
export interface LegDiff {
  v: 1;
  type: "diff";
  task: string;
  source: string;
  branch: string;
  base: string;
  head: string;
  path: string;
  state: Leg["state"];
  /** Commits ahead of the base, newest first. */
  commits: DiffCommit[];
  /** Files those commits changed. */
  files: DiffFile[];
  /** Modified, staged and untracked paths of the worktree (empty when it is not on disk). */
  uncommitted: string[];
  stat?: string;
  patch?: string;
}

/**
 * Review a task: per leg, its commits ahead of the base it was made from (subjects), the files
 * they changed and the worktree's uncommitted work. A removed leg is read from its branch in
 * the source (never lost: remove keeps it). Reads only.
 *
 * @example
 * ```ts
 * for (const d of await diffTask(hostPorts(), { root: "/w", taskId: "t1" })) console.log(d.source, d.commits.length);
 * ```
 */
export async function diffTask(ports: Ports, options: DiffTaskOptions): Promise<LegDiff[]> {
  validateRequestNames(options);
  const ws = await openWorkspace(ports, options.root);
  // What a sandboxed run committed is on the task's branches before they are compared.
  await syncTaskSandboxes(ws.root, options.taskId);
  const record = await requireTask(ws, options.taskId);
  const legs = selectLegs(record, options.sources);
  return Promise.all(legs.map((leg) => diffLegNow(ports, record.taskId, leg, options)));
}

/**
 * One leg's diff; a leg whose worktree went while it was read (removed when its run ended, as
 * `--isolate` does) is read from its branch in the source, as a removed leg is.
 */
async function diffLegNow(ports: Ports, task: string, leg: Leg, options: DiffTaskOptions): Promise<LegDiff> {
  if (leg.state !== "active") return diffLeg(ports, task, leg, options, false);
  try {
    return await diffLeg(ports, task, leg, options, true);
  } catch (e) {
    if ((await ports.fs.stat(leg.worktreePath)) !== null) throw e;
    return diffLeg(ports, task, leg, options, false);
  }
}

async function diffLeg(
  ports: Ports,
  task: string,
  leg: Leg,
  options: DiffTaskOptions,
  active: boolean,
): Promise<LegDiff> {
  const cwd = active ? leg.worktreePath : leg.sourcePath;
  const head = (
    await git(ports, cwd, ["rev-parse", "--verify", active ? "HEAD" : `refs/heads/${leg.branch}`])
  ).trim();
  const range = [leg.base, head];
  const [log, numstat, names, uncommitted] = await Promise.all([
    git(ports, cwd, ["log", "-z", "--format=%H%x00%s", `${leg.base}..${head}`]),
    git(ports, cwd, ["diff", "--no-renames", "-z", "--numstat", ...range]),
    git(ports, cwd, ["diff", "--no-renames", "-z", "--name-status", ...range]),
    active ? statusPaths(ports, cwd) : Promise.resolve([]),
  ]);
  const out: LegDiff = {
    v: 1,
    type: "diff",
    task,
    source: leg.source,
    branch: leg.branch,
    base: leg.base,
    head,
    path: leg.worktreePath,
    state: leg.state,
    commits: parseCommits(log),
    files: parseFiles(numstat, names),
    uncommitted,
  };
  if (options.stat) out.stat = await git(ports, cwd, ["diff", "--stat", ...range]);
  if (options.patch) {
    const committed = await git(ports, cwd, ["diff", "--patch", ...range]);
    const local = active
      ? await git(ports, cwd, ["diff", "--patch", "--ignore-submodules=dirty", "HEAD"])
      : "";
    out.patch = committed + local;
  }
  return out;
}
