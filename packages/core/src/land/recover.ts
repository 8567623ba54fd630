import type { ReconcileNote } from "../reconcile/plan.ts";
import type { LandRecord } from "../schema/task.ts";

/** A step `reconcile` takes to finish a land that a crash interrupted. */
export type LandRecoveryStep =
  /** The leg's target is still where the land found it: move it now, as land would have. */
  | {
      fix: "finish-land";
      task: string;
      source: string;
      path: string;
      target: string;
      from: string;
      to: string;
    }
  /** The leg's target already moved (the crash came before the record was written): record it. */
  | { fix: "mark-landed"; task: string; source: string; path: string; target: string; to: string };

/** Each recorded leg's repository (`path` of a step), by source. */
export type LandRepos = Readonly<Record<string, string>>;

/**
 * How `reconcile` finishes a crashed land (a record whose land is still `landing`): forward,
 * since every leg was checked before the first one moved. `tips` are the targets' tips now, by
 * source. A target that is neither where the land found it nor where it was going has been moved
 * by someone else: reported (W_LAND_STUCK), never moved.
 *
 * @example
 * ```ts
 * planLandRecovery("t1", land, { api: land.legs[0].to, web: land.legs[1].from }, { api: "/w/api", web: "/w/web" });
 * // steps: mark-landed api, finish-land web
 * ```
 */
export function planLandRecovery(
  task: string,
  land: LandRecord,
  tips: Readonly<Record<string, string | null>>,
  repos: LandRepos,
): { steps: LandRecoveryStep[]; notes: ReconcileNote[] } {
  const steps: LandRecoveryStep[] = [];
  const notes: ReconcileNote[] = [];
  if (land.state !== "landing") return { steps, notes };
  for (const leg of land.legs) {
    if (leg.state === "landed") continue;
    const tip = tips[leg.source] ?? null;
    const base = { task, source: leg.source, path: repos[leg.source] ?? "", target: leg.target };
    if (tip === leg.to) steps.push({ fix: "mark-landed", ...base, to: leg.to });
    else if (tip === leg.from) steps.push({ fix: "finish-land", ...base, from: leg.from, to: leg.to });
    else {
      notes.push({
        code: "W_LAND_STUCK",
        message: `task ${task}: ${leg.target} of ${leg.source} moved since its land began (now ${tip ?? "gone"}); land it again by hand`,
        task,
        source: leg.source,
        target: leg.target,
        expected: leg.from,
        found: tip,
      });
    }
  }
  return { steps, notes };
}
