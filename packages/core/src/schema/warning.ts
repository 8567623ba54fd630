/**
 * The `warning` record: written to stderr with --json by the CLI's Reporter; the command goes on.
 *
 * @example
 * ```json
 * {"v":1,"type":"warning","code":"W_SKIPPED","message":"skipped a symlinked directory","path":"/ws/x"}
 * ```
 */
import * as z from "zod/mini";

export const warningSchema = z.looseObject({
  v: z.literal(1),
  type: z.literal("warning"),
  code: z.string().check(z.minLength(1)),
  message: z.string(),
});

export type WarningRecord = z.infer<typeof warningSchema>;
