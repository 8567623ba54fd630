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
import { lazy } from "./lazy.ts";

// Built on first use, not when the module loads: building them costs a CLI start ~0.1× of
// `node -e 0`, and most runs validate nothing.
function build() {
  const planSchema = z.looseObject({
    v: z.literal(1),
    type: z.literal("plan"),
    action: z.string().check(z.regex(/^[a-z][a-z0-9-]*\.[a-z][a-z0-9.-]*$/)),
  });
  return { planSchema };
}
const built = lazy(build);

export const planSchema = (): ReturnType<typeof build>["planSchema"] => built().planSchema;

export type PlanRecord = z.infer<ReturnType<typeof planSchema>>;
