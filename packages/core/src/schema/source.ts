/**
 * The `source` record (docs/discover.md): what `ariel-discover --json` prints and `ariel-spawn
 * --source -` reads. Loose: consumers ignore fields they do not know.
 *
 * @example
 * ```json
 * {"v":1,"type":"source","name":"api","path":"/ws/api","kind":"checkout","gitDir":"/ws/api/.git","head":"0123…","branch":"main"}
 * ```
 */
import * as z from "zod/mini";
import { lazy } from "./lazy.ts";

// Built on first use, not when the module loads: building them costs a CLI start ~0.1× of
// `node -e 0`, and most runs validate nothing.
function build() {
  /** A 40-hex (SHA-1) or 64-hex (SHA-256 object format) commit id. */
  const commitId = z.string().check(z.regex(/^[0-9a-f]{40}(?:[0-9a-f]{24})?$/));
  /** An absolute POSIX path. */
  const absolutePath = z.string().check(z.regex(/^\//));

  const sourceSchema = z.looseObject({
    v: z.literal(1),
    type: z.literal("source"),
    /** Workspace-relative POSIX path, `.` for the root. */
    name: z.string().check(z.minLength(1)),
    /** Canonical absolute path of the checkout. */
    path: absolutePath,
    kind: z.enum(["checkout", "worktree", "submodule"]),
    /** The checkout's git dir (for a worktree or submodule, the one its `.git` file names). */
    gitDir: absolutePath,
    /** null on an unborn branch. */
    head: z.nullable(commitId),
    /** null on a detached HEAD. */
    branch: z.nullable(z.string()),
    // With --status:
    dirty: z.optional(z.boolean()),
    ahead: z.optional(z.nullable(z.int().check(z.minimum(0)))),
    behind: z.optional(z.nullable(z.int().check(z.minimum(0)))),
    upstream: z.optional(z.nullable(z.string())),
    fingerprint: z.optional(z.string().check(z.regex(/^[0-9a-f]{64}$/))),
  });
  return { commitId, absolutePath, sourceSchema };
}
const built = lazy(build);

export const commitId = (): ReturnType<typeof build>["commitId"] => built().commitId;
export const absolutePath = (): ReturnType<typeof build>["absolutePath"] => built().absolutePath;
export const sourceSchema = (): ReturnType<typeof build>["sourceSchema"] => built().sourceSchema;

export type SourceRecord = z.infer<ReturnType<typeof sourceSchema>>;
