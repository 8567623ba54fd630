import type { ErrorCode } from "../../errors.ts";
import type { Ports } from "../../ports.ts";
import type { TaskRecord } from "../../schema/task.ts";
import { isWithin, validateRequestNames } from "../../worktree/_deps.ts";
import { legContainer } from "../../worktree/ours.ts";
import type { WorktreeEntry } from "../../worktree/porcelain.ts";
import { sourceFingerprint } from "./_deps.ts";
import { listWorktrees } from "./facts.ts";
import { gitRaw } from "./git.ts";
import { brokenStoreLinks } from "./share.ts";
import { requireTask } from "./task.ts";
import { openWorkspace } from "./workspace.ts";

/** The verdict on one leg. */
export interface VerifyLeg {
  v: 1;
  type: "verify";
  task: string;
  source: string;
  path: string;
  ok: boolean;
  checks: {
    containment: boolean;
    presence: boolean;
    /** Same branch checked out, and the recorded head is an ancestor of HEAD (null: not checked). */
    head: boolean | null;
    fingerprint: boolean | null;
    /** For a leg made with --sparse: git's sparse-checkout list is the recorded one. */
    sparse?: boolean | null;
    /** For a leg with a `--share-mode store` directory: its link to the store still leads to it. */
    shared?: boolean;
  };
  /** The first failed check as an error code and message. */
  code?: ErrorCode;
  message?: string;
}

export interface VerifyResult {
  record: TaskRecord;
  legs: VerifyLeg[];
  /** 0 when every leg passes; 77 on any containment failure; else 3. */
  exit: 0 | 3 | 77;
}

/**
 * Why a leg is not present (null when it is): not active, no directory, git does not know it (or
 * calls it prunable), or no `.git` in it: git run there would find a repository above it (the
 * workspace root's, say) and answer for that one.
 */
async function presenceProblem(
  ports: Ports,
  leg: TaskRecord["legs"][number],
  entry: WorktreeEntry | undefined,
): Promise<string | null> {
  if (leg.state !== "active") return `the worktree of ${leg.source} was ${leg.state}`;
  const st = await ports.fs.lstat(leg.worktreePath);
  const known = st?.kind === "dir" && entry !== undefined && !entry.prunable;
  if (!known) return `the worktree of ${leg.source} at ${leg.worktreePath} is missing`;
  if ((await ports.fs.lstat(`${leg.worktreePath}/.git`)) === null) {
    return `the worktree of ${leg.source} at ${leg.worktreePath} has no .git: git there would find another repository`;
  }
  return null;
}

/**
 * The resume gate: for every leg, the worktree must lie inside the worktree root (realpath),
 * exist and be known to git, have the recorded branch checked out with the recorded head an
 * ancestor of HEAD (an agent committing on its branch is normal), and its source must still have
 * the recorded fingerprint (remote and default branch).
 *
 * @example
 * ```ts
 * const { exit } = await verifyTask(hostPorts(), { root: "/w", taskId: "fix-login" });
 * if (exit !== 0) throw new Error("do not resume");
 * ```
 */
export async function verifyTask(
  ports: Ports,
  options: { root: string; taskId: string },
): Promise<VerifyResult> {
  validateRequestNames(options);
  const ws = await openWorkspace(ports, options.root);
  const record = await requireTask(ws, options.taskId);
  const legs: VerifyLeg[] = [];
  for (const leg of record.legs) {
    const row: VerifyLeg = {
      v: 1,
      type: "verify",
      task: record.taskId,
      source: leg.source,
      path: leg.worktreePath,
      ok: false,
      checks: { containment: false, presence: false, head: null, fingerprint: null },
    };
    legs.push(row);
    const fail = (code: ErrorCode, message: string) => {
      row.code ??= code;
      row.message ??= message;
    };
    let real = leg.worktreePath;
    try {
      real = await ports.fs.realpath(leg.worktreePath);
    } catch {}
    const container = legContainer(leg, ws);
    row.checks.containment =
      isWithin(container, leg.worktreePath) && isWithin(container, real) && real !== container;
    if (!row.checks.containment) {
      fail(
        "ERR_PATH_ESCAPE",
        `${leg.worktreePath} is not inside ${leg.adopted ? "the workspace root" : "the worktree root"} ${container}`,
      );
      continue;
    }
    const entry = (await listWorktrees(ports, leg.sourcePath).catch(() => [])).find(
      (w) => w.path === leg.worktreePath,
    );
    const missing = await presenceProblem(ports, leg, entry);
    row.checks.presence = missing === null;
    if (missing !== null) {
      fail("ERR_WORKTREE_MISSING", missing);
    } else if (entry) {
      const onBranch = entry.branch === `refs/heads/${leg.branch}`;
      const anc = await gitRaw(ports, leg.worktreePath, ["merge-base", "--is-ancestor", leg.head, "HEAD"]);
      row.checks.head = onBranch && anc.code === 0;
      if (!onBranch) {
        const now = entry.branch ? entry.branch.replace(/^refs\/heads\//, "") : "a detached HEAD";
        fail("ERR_BRANCH_MISMATCH", `${leg.worktreePath} has ${now} checked out, not ${leg.branch}`);
      } else if (anc.code !== 0) {
        fail(
          "ERR_HEAD_MOVED",
          `HEAD of ${leg.worktreePath} no longer contains the recorded ${leg.head.slice(0, 12)}`,
        );
      }
      if (leg.sparse) {
        const list = await gitRaw(ports, leg.worktreePath, ["sparse-checkout", "list"]);
        const now = list.code === 0 ? list.stdout.split("\n").filter(Boolean).sort() : [];
        row.checks.sparse = now.join("\n") === [...leg.sparse].sort().join("\n");
        if (!row.checks.sparse) {
          fail(
            "ERR_SPARSE_CHANGED",
            `${leg.worktreePath} checks out ${now.length > 0 ? now.join(", ") : "the whole tree"}, not the recorded ${leg.sparse.join(", ")}`,
          );
        }
      }
    }
    const broken = row.checks.presence ? brokenStoreLinks(leg.worktreePath) : null;
    if (broken !== null) {
      row.checks.shared = broken.length === 0;
      if (broken.length > 0) {
        fail(
          "ERR_SHARE_BROKEN",
          `${leg.worktreePath}/${broken[0]} links into a share store that is gone (${broken.join(", ")})`,
        );
      }
    }
    const fp = await sourceFingerprint(ports.git, leg.sourcePath).catch(() => null);
    row.checks.fingerprint = fp === leg.fingerprint;
    if (!row.checks.fingerprint) {
      fail(
        "ERR_FINGERPRINT",
        `the remote or default branch of ${leg.source} changed since the task was made`,
      );
    }
    row.ok = row.code === undefined;
  }
  const exit = legs.some((l) => !l.checks.containment) ? 77 : legs.every((l) => l.ok) ? 0 : 3;
  return { record, legs, exit };
}
