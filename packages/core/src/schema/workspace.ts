/**
 * A workspace registry entry: `<user state dir>/workspaces/<hash>.json`, written once (by temp
 * file + fsync + rename) by the first command that creates `<root>/.ariel/`. The files of that
 * directory are the list of workspaces a fleet view reads.
 *
 * @example
 * ```ts
 * workspaceEntrySchema().parse({
 *   v: 1, root: "/some/repo/root", hash: "ae89cb2b620ea8fc", firstSeen: "2026-01-01T00:00:00.000Z",
 * });
 * ```
 */
import * as z from "zod/mini";
import { WORKSPACE_HASH_PATTERN } from "../hash.ts";
import { lazy } from "./lazy.ts";

// Built on first use, not when the module loads (see source.ts).
function build() {
  const workspaceEntrySchema = z.looseObject({
    v: z.literal(1),
    /** The canonical (realpath) workspace root. */
    root: z.string().check(z.regex(/^\//)),
    /** workspaceHash(root): the file's name without `.json`. */
    hash: z.string().check(z.regex(WORKSPACE_HASH_PATTERN)),
    /** When the entry was written (ISO 8601 UTC). */
    firstSeen: z.string().check(z.regex(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d(\.\d+)?Z$/)),
  });
  return { workspaceEntrySchema };
}
const built = lazy(build);

export const workspaceEntrySchema = (): ReturnType<typeof build>["workspaceEntrySchema"] =>
  built().workspaceEntrySchema;

export type WorkspaceEntry = z.infer<ReturnType<typeof workspaceEntrySchema>>;
