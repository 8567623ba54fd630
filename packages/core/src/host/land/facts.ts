import type { LandFacts, LandLegFacts, LandStrategy } from "../../land/plan_land.ts";
import type { Ports } from "../../ports.ts";
import type { Leg, TaskRecord } from "../../schema/task.ts";
import { listWorktrees, resolveCommit } from "../worktree/facts.ts";
import { git, gitRaw } from "../worktree/git.ts";
import { statusPaths } from "../worktree/leg_facts.ts";
import { landCandidate } from "./candidate.ts";

/** The branch checked out in the source checkout (what `land` targets without --into), or null. */
async function checkedOutBranch(ports: Ports, repo: string): Promise<string | null> {
  const r = await gitRaw(ports, repo, ["symbolic-ref", "-q", "--short", "HEAD"]);
  return r.code === 0 ? r.stdout.trim() : null;
}

/** True when commit `a` is an ancestor of (or equal to) `b`. */
export async function isAncestor(ports: Ports, repo: string, a: string, b: string): Promise<boolean> {
  return (await gitRaw(ports, repo, ["merge-base", "--is-ancestor", a, b])).code === 0;
}

/** Everything `planLand` needs about one leg; candidates are made (as objects) only when needed. */
export async function gatherLandLeg(
  ports: Ports,
  taskId: string,
  leg: Leg,
  strategy: LandStrategy,
  into: string | undefined,
): Promise<LandLegFacts> {
  const repo = leg.sourcePath;
  const target = into ?? (await checkedOutBranch(ports, repo));
  const head = await resolveCommit(ports, repo, `refs/heads/${leg.branch}`);
  const targetTip = target === null ? null : await resolveCommit(ports, repo, `refs/heads/${target}`);
  const present = leg.state === "active" && (await ports.fs.stat(leg.worktreePath))?.kind === "dir";
  const uncommitted = present ? await statusPaths(ports, leg.worktreePath).catch(() => []) : [];
  const base: LandLegFacts = {
    source: leg.source,
    repo,
    branch: leg.branch,
    head,
    target,
    targetTip,
    checkout: null,
    checkoutDirty: [],
    ahead: 0,
    fastForward: false,
    candidate: null,
    uncommitted,
    worktree: present ? leg.worktreePath : null,
  };
  if (target === null || head === null || targetTip === null || target === leg.branch) return base;
  const checkout = (await listWorktrees(ports, repo)).find((w) => w.branch === `refs/heads/${target}`);
  const ahead = Number((await git(ports, repo, ["rev-list", "--count", `${targetTip}..${head}`])).trim());
  const fastForward = await isAncestor(ports, repo, targetTip, head);
  const facts: LandLegFacts = {
    ...base,
    checkout: checkout?.path ?? null,
    checkoutDirty: checkout ? await statusPaths(ports, checkout.path) : [],
    ahead,
    fastForward,
  };
  if (ahead === 0) return facts;
  const input = { repo, task: taskId, branch: leg.branch, target, head, targetTip, fastForward };
  return { ...facts, candidate: await landCandidate(ports, strategy, input) };
}

/** The facts of every leg of `record` (legs in record order). */
export async function gatherLandFacts(
  ports: Ports,
  record: TaskRecord,
  strategy: LandStrategy,
  into: string | undefined,
): Promise<LandFacts> {
  const legs: LandLegFacts[] = [];
  for (const leg of record.legs) legs.push(await gatherLandLeg(ports, record.taskId, leg, strategy, into));
  return { taskId: record.taskId, strategy, pending: record.land?.state === "landing", legs };
}
