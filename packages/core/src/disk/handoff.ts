/**
 * What `ariel-worktree import` accepts of an export's header (docs/disk.md, "Handoff"). An export
 * file is a stranger's input: beyond the task record's schema, every field that names a ref or
 * a path must be one the task owns. Pure.
 */
import { branchNameProblem } from "../names.ts";
import type { TaskRecord } from "../schema/task.ts";
import { snapshotRefProblem } from "../worktree/ref_guard.ts";

/** One bundle entry of an export header, as read (unchecked). */
export interface ExportBundleEntry {
  source: unknown;
  bytes: unknown;
  refs: unknown;
}

/** Whether a path has an empty, `.` or `..` segment (past its leading `/`). */
function unclean(path: string): boolean {
  return path
    .slice(1)
    .split("/")
    .some((s) => s === "" || s === "." || s === "..");
}

function legProblem(record: TaskRecord, i: number, entry: ExportBundleEntry | undefined): string | null {
  const leg = record.legs[i]!;
  const branch = branchNameProblem(leg.branch);
  if (branch !== null) return `leg ${i}: branch ${branch}`;
  if (unclean(leg.worktreePath)) return `leg ${i}: worktreePath is not a clean absolute path`;
  if (unclean(leg.sourcePath)) return `leg ${i}: sourcePath is not a clean absolute path`;
  if (record.legs.findIndex((l) => l.source === leg.source) !== i) return `leg ${i}: its source is twice`;
  if (typeof entry !== "object" || entry === null) return `bundle ${i}: not an object`;
  if (entry.source !== leg.source) return `bundle ${i}: its source is not leg ${i}'s`;
  if (!Array.isArray(entry.refs)) return `bundle ${i}: refs is not a list`;
  for (const ref of entry.refs as unknown[]) {
    if (typeof ref !== "string") return `bundle ${i}: a ref is not a string`;
    if (ref === `refs/heads/${leg.branch}`) continue;
    const why = snapshotRefProblem(record.taskId, ref);
    if (why !== null) return `bundle ${i}: ref ${JSON.stringify(ref)} ${why}`;
  }
  return null;
}

function artifactProblem(
  record: TaskRecord,
  bundles: readonly ExportBundleEntry[],
  j: number,
): string | null {
  const a = record.artifacts[j]!;
  if (a.kind !== "snapshot") return `artifact ${j}: kind ${JSON.stringify(a.kind)} is not "snapshot"`;
  const why = snapshotRefProblem(record.taskId, a.ref);
  if (why !== null) return `artifact ${j}: ref ${JSON.stringify(a.ref)} ${why}`;
  if (a.commit === undefined) return `artifact ${j}: no commit`;
  const i = record.legs.findIndex((l) => l.source === a.source);
  if (i < 0) return `artifact ${j}: its source is no leg's`;
  const refs = bundles[i]?.refs;
  if (!Array.isArray(refs) || !refs.includes(a.ref)) return `artifact ${j}: ${a.ref} is not in its bundle`;
  return null;
}

/**
 * Why an export header may not be imported, or null. Checked on top of the record's schema
 * (and the source names' containment, checked first by the host):
 * - `task` is the record's task id;
 * - each leg: a valid branch name, clean absolute `worktreePath` and `sourcePath` (no `.`, `..`
 *   or empty segment), a source no other leg has;
 * - `bundles[i]`: leg i's source, and refs that are leg i's branch or the task's own snapshot
 *   refs (`refs/ariel/snapshots/<task>/<name>`) only;
 * - each artifact: a snapshot whose ref is the task's own, with a commit, of a leg whose bundle
 *   carries that ref.
 *
 * @example
 * ```ts
 * importProblem("t1", record, [{ source: "api", bytes: 10, refs: ["refs/heads/main"] }]);
 * // 'bundle 0: ref "refs/heads/main" is not under refs/ariel/snapshots/t1/'
 * ```
 */
export function importProblem(
  task: unknown,
  record: TaskRecord,
  bundles: readonly ExportBundleEntry[],
): string | null {
  if (task !== record.taskId) return "its task is not the record's";
  for (let i = 0; i < record.legs.length; i++) {
    const why = legProblem(record, i, bundles[i]);
    if (why !== null) return why;
  }
  for (let j = 0; j < record.artifacts.length; j++) {
    const why = artifactProblem(record, bundles, j);
    if (why !== null) return why;
  }
  return null;
}
