/**
 * For the core's unit tests: the facts of a clean leg of task `t` that ariel owns, which no
 * refusal stands against; `over` changes what a case needs. Test-only (the build leaves
 * `_fixture.ts` out); pure: no `node:` imports.
 * @internal
 *
 * @example
 * ```ts
 * cleanLegFacts("api", { dirty: ["a.txt"] }); // the api leg of task t with one dirty file
 * ```
 */
import type { LegFacts } from "./refusals.ts";

export const cleanLegFacts = (source: string, over: Partial<LegFacts> = {}): LegFacts => ({
  source,
  worktreePath: `/w/.ariel/worktrees/t/${source}`,
  present: true,
  main: false,
  owned: true,
  lock: "ariel:t",
  checkedOut: "refs/heads/ariel/t",
  recordedBranch: "ariel/t",
  dirty: [],
  overlayChanged: [],
  skipWorktreeModified: [],
  unreachable: [],
  ...over,
});
