/**
 * The `plan` record: one per change a mutating command would make, printed by --dry-run from the
 * same code path that applies it. `action` is `<cli>.<verb>`; the other fields belong to it.
 *
 * @example
 * ```json
 * {"v":1,"type":"plan","action":"worktree.add","task":"fix-3k9x2a","source":"api","path":"/ws/.ariel/worktrees/fix-3k9x2a/api"}
 * ```
 */
import * as z from "zod/mini";

export const planSchema = z.looseObject({
  v: z.literal(1),
  type: z.literal("plan"),
  action: z.string().check(z.regex(/^[a-z][a-z0-9-]*\.[a-z][a-z0-9.-]*$/)),
});

export type PlanRecord = z.infer<typeof planSchema>;
