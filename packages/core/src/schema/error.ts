/**
 * The `error` record (docs/contract.md, Errors): written to stderr with --json, one per failure, carrying
 * the stable code, a one-line message, a hint and the exit status, plus context fields.
 *
 * @example
 * ```json
 * {"v":1,"type":"error","code":"ERR_DIRTY","message":"…","hint":"…","exit":3,"source":"api"}
 * ```
 */
import * as z from "zod/mini";
import { lazy } from "./lazy.ts";

// Built on first use, not when the module loads: building them costs a CLI start ~0.1× of
// `node -e 0`, and most runs validate nothing.
function build() {
  const errorSchema = z.looseObject({
    v: z.literal(1),
    type: z.literal("error"),
    code: z.string().check(z.regex(/^ERR_[A-Z0-9_]+$/)),
    message: z.string(),
    hint: z.string(),
    exit: z.int().check(z.minimum(0), z.maximum(255)),
  });
  return { errorSchema };
}
const built = lazy(build);

export const errorSchema = (): ReturnType<typeof build>["errorSchema"] => built().errorSchema;

export type ErrorRecordShape = z.infer<ReturnType<typeof errorSchema>>;
