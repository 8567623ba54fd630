/**
 * `ariel-worktree export` / `import`: a task moved to another workspace or machine in one file.
 *
 * The file (docs/disk.md, "Handoff"): a first line `ariel-task-export 1`, a second line holding
 * one JSON header `{"v":1,"type":"export","task":…,"record":{…},"bundles":[{"source":…,"bytes":N},…]}`,
 * then the git bundles of the legs back to back, in header order, each exactly `bytes` long.
 * A bundle holds the leg's branch and its snapshot refs (refs/ariel/snapshots/<task>/…).
 */

import { mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { importProblem } from "../../disk/handoff.ts";
import { ArielError } from "../../errors.ts";
import { sourceFingerprint } from "../../fingerprint.ts";
import { quoteValue } from "../../names.ts";
import type { Ports } from "../../ports.ts";
import type { Leg, TaskRecord } from "../../schema/task.ts";
import { taskRecordSchema } from "../../schema/task.ts";
import { validateBranchName, validateTaskId } from "../../worktree/_deps.ts";
import { legDirNames } from "../../worktree/leg_dir.ts";
import { checkTaskRef } from "../../worktree/ref_guard.ts";
import { syncTaskSandboxes } from "../sandbox/sync.ts";
import { ensureStateDir, withLease, withRepoLock } from "./_deps.ts";
import { resolveCommit } from "./facts.ts";
import { leaseOptions } from "./fence.ts";
import { git, gitRaw } from "./git.ts";
import { ownerOf } from "./owner.ts";
import { type RestoreTaskResult, restoreTask } from "./restore.ts";
import { readTask, writeTask } from "./store.ts";
import { requireTask } from "./task.ts";
import {
  checkSourceName,
  openWorkspace,
  type ResolvedSource,
  resolveSource,
  type WorktreeWorkspace,
} from "./workspace.ts";

const MAGIC = "ariel-task-export 1\n";

interface Header {
  v: 1;
  type: "export";
  task: string;
  record: TaskRecord;
  bundles: { source: string; bytes: number; refs: string[] }[];
}

/** The refs a leg's bundle carries: its branch and the task's snapshot refs of that leg. */
function legRefs(record: TaskRecord, leg: Leg): string[] {
  const snaps = record.artifacts
    .filter((a) => a.kind === "snapshot" && a.source === leg.source)
    .map((a) => a.ref);
  return [`refs/heads/${leg.branch}`, ...snaps];
}

/**
 * Write task `taskId` to `file`: its record and one git bundle per leg. Only committed work and
 * snapshot refs travel: uncommitted changes in a worktree do not (snapshot them first).
 */
export async function exportTask(
  ports: Ports,
  options: { root: string; taskId: string; file: string },
): Promise<{ record: TaskRecord; bytes: number; refs: string[] }> {
  const ws = await openWorkspace(ports, options.root);
  // What a sandboxed run committed is on the task's branches before they are bundled.
  await syncTaskSandboxes(ws.root, options.taskId);
  const record = await requireTask(ws, options.taskId);
  const tmp = mkdtempSync(join(tmpdir(), "ariel-export-"));
  try {
    const parts: Uint8Array[] = [];
    const bundles: Header["bundles"] = [];
    for (const [i, leg] of record.legs.entries()) {
      const refs = [];
      for (const r of legRefs(record, leg))
        if ((await resolveCommit(ports, leg.sourcePath, r)) !== null) refs.push(r);
      const path = join(tmp, `${i}.bundle`);
      await git(ports, leg.sourcePath, ["bundle", "create", "--quiet", path, ...refs]);
      const bytes = readFileSync(path);
      parts.push(bytes);
      bundles.push({ source: leg.source, bytes: bytes.length, refs });
    }
    const header: Header = { v: 1, type: "export", task: record.taskId, record, bundles };
    const head = Buffer.from(`${MAGIC}${JSON.stringify(header)}\n`);
    const out = Buffer.concat([head, ...parts]);
    await ports.fs.writeAtomic(options.file, out);
    return { record, bytes: out.length, refs: bundles.flatMap((b) => b.refs) };
  } finally {
    rmSync(tmp, { recursive: true, force: true });
  }
}

function bad(file: string, why: string): ArielError {
  return new ArielError("ERR_INVALID_INPUT", `${file}: not an ariel task export: ${why}`, {
    hint: "make it with ariel-worktree export --task T -o FILE",
    context: { file },
  });
}

/** Parse an export file (every check before anything is written). */
function parseExport(file: string, data: Buffer): { header: Header; bundles: Buffer[] } {
  if (data.subarray(0, MAGIC.length).toString("latin1") !== MAGIC) throw bad(file, "wrong first line");
  const nl = data.indexOf(10, MAGIC.length);
  if (nl < 0) throw bad(file, "no header");
  let header: Header;
  try {
    header = JSON.parse(data.subarray(MAGIC.length, nl).toString("utf8")) as Header;
  } catch {
    throw bad(file, "the header is not JSON");
  }
  if (header?.v !== 1 || header.type !== "export" || !Array.isArray(header.bundles))
    throw bad(file, "bad header");
  const r = taskRecordSchema().safeParse(header.record);
  if (!r.success) throw bad(file, "the task record does not validate");
  if (header.bundles.length !== r.data.legs.length) throw bad(file, "one bundle per leg expected");
  const bundles: Buffer[] = [];
  let at = nl + 1;
  for (const b of header.bundles) {
    if (!Number.isInteger(b.bytes) || b.bytes <= 0 || at + b.bytes > data.length)
      throw bad(file, "truncated");
    bundles.push(data.subarray(at, at + b.bytes));
    at += b.bytes;
  }
  if (at !== data.length) throw bad(file, "trailing bytes");
  return { header: { ...header, record: r.data as TaskRecord }, bundles };
}

/**
 * Recreate an exported task in the workspace at `root`: each leg's source is found by name and
 * must have the same fingerprint; every source name and leg directory must stay inside the root
 * (else ERR_PATH_ESCAPE, 77, nothing written). The refs are fetched, the record written with this
 * workspace's paths, and the worktrees made by `restore` (snapshots applied).
 */
export async function importTask(
  ports: Ports,
  options: { root: string; file: string; dryRun?: boolean },
): Promise<{ record: TaskRecord; restored: RestoreTaskResult | null }> {
  const data = await ports.fs.readBytes(options.file).catch(() => {
    throw new ArielError("ERR_NOINPUT", `cannot read ${options.file}`, { context: { file: options.file } });
  });
  const { header, bundles } = parseExport(options.file, Buffer.from(data));
  const src = header.record;
  validateTaskId(src.taskId);
  const ws = await openWorkspace(ports, options.root);
  // Containment first: a record naming paths outside this root is refused before any lookup.
  for (const leg of src.legs) checkLegContained(leg);
  // Then every ref and path the header names: only the task's own (docs/disk.md, Handoff).
  const problem = importProblem(header.task, src, header.bundles);
  if (problem !== null) throw bad(options.file, problem);
  if (await readTask(ws.root, ws.hash, src.taskId)) {
    throw new ArielError("ERR_TASK_CONFLICT", `task ${quoteValue(src.taskId)} exists in ${ws.root} already`, {
      hint: "remove it first, or import into another workspace (-C ROOT); nothing was changed",
      context: { task: src.taskId },
    });
  }
  const dirs = legDirNames(
    src.legs.map((l) => l.source),
    ws.root,
  );
  const legs: ImportedLeg[] = [];
  for (const [i, leg] of src.legs.entries()) {
    legs.push(await importedLeg(ws, header, leg, header.bundles[i]!.refs, dirs));
  }
  // Ports are the exporting machine's: restore leases this machine's own.
  const { ports: _theirs, ...portless } = src;
  const draft: TaskRecord = {
    ...portless,
    workspace: { root: ws.root, hash: ws.hash },
    legs: legs.map((l) => l.leg),
    state: "closed",
    version: 0,
  };
  if (options.dryRun) return { record: draft, restored: null };
  await ensureStateDir(ports, ws.root);
  const written = await fetchAndRecord(ws, draft, legs, bundles);
  const restored = await restoreTask(ports, { root: ws.root, taskId: written.taskId });
  return { record: restored.record, restored };
}

/** ERR_PATH_ESCAPE (77) unless the leg's source name and directory stay inside the root. */
function checkLegContained(leg: Leg): void {
  checkSourceName(leg.source);
  const dir = leg.worktreePath.split("/").pop() ?? "";
  if (!/^[A-Za-z0-9._-]+$/.test(dir) || dir === "." || dir === "..") {
    throw new ArielError(
      "ERR_PATH_ESCAPE",
      `leg directory ${quoteValue(dir)} would leave the worktree root`,
      {
        context: { source: leg.source },
      },
    );
  }
}

/** A leg of an imported task: its record here, its source here, and the refs its bundle gives. */
interface ImportedLeg {
  leg: Leg;
  source: ResolvedSource;
  refs: string[];
}

/**
 * One leg of the export checked against this workspace (nothing written): its branch name, the
 * refs taken from its bundle (only the leg's branch and the task's snapshot refs, whatever the
 * header lists: an export never moves another branch of the target), its source's fingerprint,
 * and no branch or snapshot ref here at another commit.
 */
async function importedLeg(
  ws: WorktreeWorkspace,
  header: Header,
  leg: Leg,
  listed: readonly string[],
  dirs: ReadonlyMap<string, string>,
): Promise<ImportedLeg> {
  const src = header.record;
  validateBranchName(leg.branch);
  const wanted = legRefs(src, leg).filter((r) => listed.includes(r));
  for (const r of wanted) checkTaskRef(src, r);
  const s = await resolveSource(ws, leg.source);
  const fp = await sourceFingerprint(ws.ports.git, s.path);
  if (fp !== leg.fingerprint) {
    throw new ArielError(
      "ERR_FINGERPRINT",
      `source ${quoteValue(leg.source)} in ${ws.root} is another repository (its remote or default branch differ)`,
      {
        hint: "import into a workspace holding a clone of the same repository; nothing was changed",
        context: { source: leg.source },
      },
    );
  }
  await checkRefsFree(ws.ports, src, leg, s.path, wanted);
  const snapshotted = src.artifacts.some((a) => a.kind === "snapshot" && a.source === leg.source);
  return {
    leg: {
      ...leg,
      sourcePath: s.path,
      worktreePath: `${ws.worktreeRoot}/${src.taskId}/${dirs.get(leg.source)}`,
      state: snapshotted ? "snapshotted" : "removed",
    },
    source: s,
    refs: wanted,
  };
}

/** ERR_TASK_CONFLICT when the leg's branch or a snapshot ref exists in `repo` at another commit. */
async function checkRefsFree(
  ports: Ports,
  src: TaskRecord,
  leg: Leg,
  repo: string,
  wanted: readonly string[],
): Promise<void> {
  const tip = await resolveCommit(ports, repo, `refs/heads/${leg.branch}`);
  if (tip !== null && tip !== leg.head) {
    throw new ArielError("ERR_TASK_CONFLICT", `branch ${leg.branch} exists in ${repo} at another commit`, {
      hint: "rename or delete that branch first; nothing was changed",
      context: { source: leg.source, branch: leg.branch },
    });
  }
  for (const r of wanted) {
    if (r.startsWith("refs/heads/")) continue;
    const have = await resolveCommit(ports, repo, r);
    const want = src.artifacts.find((a) => a.ref === r)?.commit;
    if (have !== null && have !== want) {
      throw new ArielError("ERR_TASK_CONFLICT", `${r} exists in ${repo} at another commit`, {
        hint: "nothing was changed; delete that ref first if it is stale",
        context: { source: leg.source, ref: r },
      });
    }
  }
}

/** Under the task's lease: each bundle verified and its refs fetched (under its repository's lock), then the record written. */
async function fetchAndRecord(
  ws: WorktreeWorkspace,
  draft: TaskRecord,
  legs: readonly ImportedLeg[],
  bundles: readonly Buffer[],
): Promise<TaskRecord> {
  const ports = ws.ports;
  const tmp = mkdtempSync(join(tmpdir(), "ariel-import-"));
  try {
    return await withLease(
      ws.root,
      draft.taskId,
      leaseOptions(ports, ownerOf(ports), ws.leaseTtlMs),
      async (lease) => {
        // Every bundle's objects first, no ref written: a damaged later bundle must not leave the
        // first legs' refs behind. Then the refs, from objects that are all here by then.
        const fetch = async (s: ResolvedSource, args: string[]) =>
          withRepoLock(
            s.commonGitDir,
            async () => {
              const r = await gitRaw(ports, s.path, [
                "fetch",
                "--quiet",
                "--no-tags",
                "--no-write-fetch-head",
                ...args,
              ]);
              if (r.code !== 0) {
                throw new ArielError(
                  "ERR_GIT",
                  `git fetch from the bundle failed: ${r.stderr.trim().split("\n")[0]}`,
                );
              }
            },
            { purpose: `import ${draft.taskId}`, fs: ports.fs },
          );
        const paths = legs.map((_, i) => join(tmp, `${i}.bundle`));
        for (const [i, { source: s, refs: wanted }] of legs.entries()) {
          writeFileSync(paths[i]!, bundles[i]!);
          await git(ports, s.path, ["bundle", "verify", "--quiet", paths[i]!]);
          await fetch(s, [paths[i]!, ...wanted]);
        }
        for (const [i, { source: s, refs: wanted }] of legs.entries()) {
          await fetch(s, [paths[i]!, ...wanted.map((r) => `${r}:${r}`)]);
        }
        return writeTask(ports, { ...draft, fencingToken: lease.token, owner: ownerOf(ports) }, 0, lease);
      },
    );
  } finally {
    rmSync(tmp, { recursive: true, force: true });
  }
}
