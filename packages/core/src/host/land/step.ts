import { ArielError } from "../../errors.ts";
import { quoteValue } from "../../names.ts";
import type { Ports } from "../../ports.ts";
import type { LandLeg } from "../../schema/task.ts";
import { shellWords } from "../../shell_words.ts";
import type { Lease } from "../lease-store.ts";
import { resolveCommit } from "../worktree/facts.ts";
import { repoStep } from "../worktree/fence.ts";
import { git } from "../worktree/git.ts";
import { statusPaths } from "../worktree/leg_facts.ts";
import { repoLockDir } from "../worktree/workspace.ts";

/** The tip of `target` in `repo` now (null when the branch is gone). */
export function targetTip(ports: Ports, repo: string, target: string): Promise<string | null> {
  return resolveCommit(ports, repo, `refs/heads/${target}`);
}

/**
 * Move one leg's target from `step.from` to `step.to` under the repository's lock and the task's
 * lease: a checked-out target by `git merge --ff-only` in its (clean) checkout, so its files
 * follow; any other by a compare-and-swap `git update-ref`. A target already at `to` is left
 * alone; one that moved elsewhere since the check is ERR_CONFLICT (75): nothing is changed.
 */
export async function landLeg(
  ports: Ports,
  lease: Lease,
  repo: string,
  task: string,
  step: LandLeg,
): Promise<void> {
  const common = await repoLockDir(ports, repo);
  await repoStep(ports, lease, common, `land ${task}`, async () => {
    const now = await targetTip(ports, repo, step.target);
    if (now === step.to) return;
    if (now !== step.from) {
      throw new ArielError("ERR_CONFLICT", `${step.target} of ${step.source} moved since land checked it`, {
        hint: `look at it (${shellWords(["git", "-C", repo, "log", step.target])}), then land again`,
        context: { source: step.source, target: step.target, expected: step.from, found: now },
      });
    }
    if (step.checkout === null) {
      await git(ports, repo, [
        "update-ref",
        "-m",
        `ariel land ${task}`,
        `refs/heads/${step.target}`,
        step.to,
        step.from,
      ]);
      return;
    }
    const dirty = await statusPaths(ports, step.checkout);
    if (dirty.length > 0) {
      throw new ArielError(
        "ERR_TARGET_DIRTY",
        `${step.checkout} has uncommitted changes: ${dirty.slice(0, 3).join(", ")}`,
        {
          context: { source: step.source, target: step.target, checkout: step.checkout },
        },
      );
    }
    await git(ports, step.checkout, ["merge", "--ff-only", "--quiet", "--no-stat", step.to]);
  });
}

/** Undo one landed leg (a later leg failed): the target back from `to` to `from`, if still at `to`. */
export async function unlandLeg(
  ports: Ports,
  lease: Lease,
  repo: string,
  task: string,
  step: LandLeg,
): Promise<void> {
  const common = await repoLockDir(ports, repo);
  await repoStep(ports, lease, common, `land ${task} (undo)`, async () => {
    const now = await targetTip(ports, repo, step.target);
    if (now === step.from) return;
    if (now !== step.to) {
      throw new ArielError("ERR_CONFLICT", `${step.target} of ${quoteValue(step.source)} moved; not undone`, {
        hint: `look at it (${shellWords(["git", "-C", repo, "log", step.target])})`,
        context: { source: step.source, target: step.target },
      });
    }
    if (step.checkout === null) {
      await git(ports, repo, [
        "update-ref",
        "-m",
        `ariel land ${task} (undo)`,
        `refs/heads/${step.target}`,
        step.from,
        step.to,
      ]);
    } else {
      await git(ports, step.checkout, ["reset", "--keep", "--quiet", step.from]);
    }
  });
}
