/**
 * The `warning` record: written to stderr with --json by the CLI's Reporter; the command goes on.
 *
 * @example
 * ```json
 * {"v":1,"type":"warning","code":"W_SKIPPED","message":"skipped a symlinked directory","path":"/ws/x"}
 * ```
 */
import * as z from "zod/mini";
import { lazy } from "./lazy.ts";

// Built on first use, not when the module loads: building them costs a CLI start ~0.1× of
// `node -e 0`, and most runs validate nothing.
function build() {
  const warningSchema = z.looseObject({
    v: z.literal(1),
    type: z.literal("warning"),
    code: z.string().check(z.minLength(1)),
    message: z.string(),
  });
  return { warningSchema };
}
const built = lazy(build);

export const warningSchema = (): ReturnType<typeof build>["warningSchema"] => built().warningSchema;

export type WarningRecord = z.infer<ReturnType<typeof warningSchema>>;
