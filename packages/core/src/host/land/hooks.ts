import type { LandPlan } from "../../land/plan_land.ts";
import type { Ports } from "../../ports.ts";

/** The moment of a land a hook runs at. */
export type LandHookEvent = "pre-land" | "post-land";

/**
 * Where `land` runs the `pre-land` and `post-land` lifecycle hooks (docs/lifecycle.md). A no-op
 * until the hook runner is wired in here: `pre-land` runs after every check and before any
 * branch moves (a failure refuses the land, nothing changed), `post-land` after every leg landed.
 */
export async function runLandHooks(
  _ports: Ports,
  _root: string,
  _event: LandHookEvent,
  _plan: LandPlan,
): Promise<void> {}
