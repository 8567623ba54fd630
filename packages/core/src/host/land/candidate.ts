import { ArielError } from "../../errors.ts";
import type { LandStrategy } from "../../land/plan_land.ts";
import type { Ports } from "../../ports.ts";
import { git, gitError, gitRaw } from "../worktree/git.ts";

/**
 * The commit a land moves a target branch to, made as objects only (no ref, no worktree moves):
 * `git merge-tree --write-tree` merges, `git commit-tree` commits. A conflict is returned, not
 * thrown: it is a refusal of the plan.
 */
export type Candidate = { to: string } | { conflicts: string[] };

/** The inputs of one leg's candidate. */
export interface CandidateInput {
  repo: string;
  task: string;
  branch: string;
  target: string;
  head: string;
  targetTip: string;
  fastForward: boolean;
}

/** `git merge-tree --write-tree` of two commits: the merged tree, or the conflicted paths. */
export async function mergeTree(
  ports: Ports,
  repo: string,
  ours: string,
  theirs: string,
): Promise<{ tree: string } | { conflicts: string[] }> {
  const args = ["merge-tree", "--write-tree", "--name-only", "--no-messages", "-z", ours, theirs];
  const r = await gitRaw(ports, repo, args);
  if (r.code !== 0 && r.code !== 1) throw gitError(args, r, repo);
  const [tree = "", ...rest] = r.stdout.split("\0");
  // Exit 1 is a conflict only with the tree written: a commit git cannot read exits 1 too.
  if (!/^[0-9a-f]{40}(?:[0-9a-f]{24})?$/.test(tree)) throw gitError(args, r, repo);
  if (r.code === 0) return { tree };
  const end = rest.indexOf("");
  return { conflicts: [...new Set(end === -1 ? rest : rest.slice(0, end))] };
}

async function commitTree(
  ports: Ports,
  repo: string,
  tree: string,
  parents: readonly string[],
  message: string,
  env?: Record<string, string>,
): Promise<string> {
  const args = ["commit-tree", tree, ...parents.flatMap((p) => ["-p", p])];
  return (await git(ports, repo, args, { input: message, ...(env ? { env } : {}) })).trim();
}

/** Subjects of the commits `from..to`, oldest first. */
async function subjects(ports: Ports, repo: string, from: string, to: string): Promise<string[]> {
  const out = await git(ports, repo, ["log", "--reverse", "-z", "--format=%s", `${from}..${to}`]);
  return out.split("\0").filter((s) => s !== "");
}

async function squashMessage(ports: Ports, i: CandidateInput): Promise<string> {
  const subs = await subjects(ports, i.repo, i.targetTip, i.head);
  if (subs.length === 1) return git(ports, i.repo, ["log", "-1", "--format=%B", i.head]);
  return `Land task ${i.task} (${subs.length} commits of ${i.branch})\n\n${subs.map((s) => `* ${s}`).join("\n")}\n`;
}

/**
 * Replay the leg's commits onto the target one by one (as `git rebase` would, merges left out,
 * commits that become empty dropped, authors kept). Each step is a three-way merge whose base is
 * the commit's parent: a temporary commit with the current tip's tree and that parent as its
 * only parent makes `merge-tree` pick exactly that base.
 */
async function replay(ports: Ports, i: CandidateInput): Promise<Candidate> {
  const list = await git(ports, i.repo, [
    "rev-list",
    "--reverse",
    "--no-merges",
    "--topo-order",
    `${i.targetTip}..${i.head}`,
  ]);
  let tip = i.targetTip;
  for (const c of list.split("\n").filter((x) => x !== "")) {
    const parent = (await git(ports, i.repo, ["rev-parse", `${c}^`])).trim();
    const tipTree = (await git(ports, i.repo, ["rev-parse", `${tip}^{tree}`])).trim();
    const stand = await commitTree(ports, i.repo, tipTree, [parent], "ariel land: replay base\n");
    const merged = await mergeTree(ports, i.repo, stand, c);
    if ("conflicts" in merged) return merged;
    if (merged.tree === tipTree) continue;
    const [name = "", email = "", date = ""] = (
      await git(ports, i.repo, ["log", "-1", "-z", "--format=%an%x00%ae%x00%aD", c])
    ).split("\0");
    const message = await git(ports, i.repo, ["log", "-1", "--format=%B", c]);
    tip = await commitTree(ports, i.repo, merged.tree, [tip], message, {
      GIT_AUTHOR_NAME: name,
      GIT_AUTHOR_EMAIL: email,
      GIT_AUTHOR_DATE: date,
    });
  }
  return { to: tip };
}

/**
 * The commit `strategy` lands a leg as: `ff` the leg's tip itself; `merge` a merge commit (always,
 * even when a fast-forward is possible); `squash` one commit with the merged tree on the target;
 * `rebase` the leg's commits replayed on the target (its tip itself when nothing needs replaying).
 *
 * @example
 * ```ts
 * const c = await landCandidate(ports, "merge", { repo, task: "t1", branch: "ariel/t1", target: "main", head, targetTip, fastForward: false });
 * ```
 */
export async function landCandidate(
  ports: Ports,
  strategy: LandStrategy,
  i: CandidateInput,
): Promise<Candidate | null> {
  if (strategy === "ff") return i.fastForward ? { to: i.head } : null;
  if (strategy === "rebase") return i.fastForward ? { to: i.head } : replay(ports, i);
  const merged = await mergeTree(ports, i.repo, i.targetTip, i.head);
  if ("conflicts" in merged) return merged;
  // The target has every change already (the leg was squashed or rebased onto it before): a
  // commit would change no file, so the target stays where it is and the leg is skipped.
  const targetTree = (await git(ports, i.repo, ["rev-parse", `${i.targetTip}^{tree}`])).trim();
  if (merged.tree === targetTree) return { to: i.targetTip };
  if (strategy === "merge") {
    const message = `Merge branch '${i.branch}' into ${i.target}\n\nariel task ${i.task}\n`;
    return { to: await commitTree(ports, i.repo, merged.tree, [i.targetTip, i.head], message) };
  }
  if (strategy === "squash") {
    return { to: await commitTree(ports, i.repo, merged.tree, [i.targetTip], await squashMessage(ports, i)) };
  }
  throw new ArielError("ERR_INTERNAL", `unknown land strategy ${String(strategy)}`);
}
