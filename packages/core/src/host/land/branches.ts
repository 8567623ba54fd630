import type { Ports } from "../../ports.ts";
import type { TaskRecord } from "../../schema/task.ts";
import { resolveCommit } from "../worktree/facts.ts";
import { gitRaw } from "../worktree/git.ts";
import { isAncestor } from "./facts.ts";

/** A branch `land --remove` deleted, with the commit it pointed at (to bring it back). */
export interface DeletedBranch {
  source: string;
  branch: string;
  commit: string;
}

/**
 * After `land --remove`: delete each leg's branch whose tip the landed target now contains
 * (`ff`, `merge`); a branch landed by `squash` or `rebase` is not contained, so it is kept. Only
 * the record's own branch of each leg, only by compare-and-swap on its tip.
 */
export async function deleteMergedBranches(ports: Ports, record: TaskRecord): Promise<DeletedBranch[]> {
  const out: DeletedBranch[] = [];
  for (const step of record.land?.legs ?? []) {
    const leg = record.legs.find((l) => l.source === step.source);
    if (!leg || step.state !== "landed") continue;
    const tip = await resolveCommit(ports, leg.sourcePath, `refs/heads/${leg.branch}`);
    if (tip === null) continue;
    if (!(await isAncestor(ports, leg.sourcePath, tip, `refs/heads/${step.target}`))) continue;
    const r = await gitRaw(ports, leg.sourcePath, ["update-ref", "-d", `refs/heads/${leg.branch}`, tip]);
    if (r.code === 0) out.push({ source: leg.source, branch: leg.branch, commit: tip });
  }
  return out;
}
