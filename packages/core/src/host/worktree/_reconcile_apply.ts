import { promises as fsp } from "node:fs";
import { dirname, join } from "node:path";
import { ArielError } from "../../errors.ts";
import { childMessage } from "../../fingerprint.ts";
import type { ReconcileStep } from "../../reconcile/plan.ts";
import type { TaskRecord } from "../../schema/task.ts";
import { lockReason } from "../../worktree/ours.ts";
import { readRecord, writeRecordCAS } from "../record-store.ts";
import { withRepoLock } from "../repo-lock.ts";
import { gitRaw } from "./_git.ts";
import { commonOf, exists } from "./_reconcile_facts.ts";
import { taskRecordPath } from "./store.ts";
import type { WorktreeWorkspace } from "./workspace.ts";

/**
 * Apply one reconcile step: git changes under the repository lock, directories only by rmdir,
 * record changes by CAS under the caller's lease.
 * @internal
 */
async function mustGit(ws: WorktreeWorkspace, cwd: string, args: string[]): Promise<void> {
  const r = await gitRaw(ws.ports, cwd, args);
  if (r.code !== 0) {
    throw new ArielError(
      "ERR_GIT",
      `git ${args[0]} ${args[1] ?? ""} failed: ${childMessage(r.stderr, `exit ${r.code}`)}`,
      {
        context: { cwd, status: r.code },
      },
    );
  }
}

async function commonFor(ws: WorktreeWorkspace, repo: string): Promise<string> {
  const c = await commonOf(ws, repo);
  if (c === null) throw new ArielError("ERR_GIT", `not a git repository any more: ${repo}`);
  return c;
}

export async function applyStep(ws: WorktreeWorkspace, step: ReconcileStep): Promise<void> {
  switch (step.fix) {
    case "remove-worktree": {
      const common = await commonFor(ws, step.repo);
      await withRepoLock(
        common,
        async () => {
          if (step.locked !== null) await gitRaw(ws.ports, step.repo, ["worktree", "unlock", step.path]);
          await mustGit(ws, step.repo, ["worktree", "remove", "--force", step.path]);
        },
        { purpose: `reconcile ${step.task}` },
      );
      return;
    }
    case "prune": {
      const common = await commonFor(ws, step.repo);
      if (dirname(step.adminDir) !== join(common, "worktrees")) {
        throw new ArielError("ERR_NOT_OURS", `admin entry ${step.adminDir} is not in ${common}/worktrees`);
      }
      await withRepoLock(
        common,
        async () => {
          if (await exists(join(step.path, ".git"))) return; // it came back: leave it
          await fsp.rm(step.adminDir, { recursive: true, force: true });
        },
        { purpose: `reconcile ${step.task}` },
      );
      return;
    }
    case "relock": {
      const common = await commonFor(ws, step.repo);
      await withRepoLock(
        common,
        async () => {
          if (step.from !== null) await mustGit(ws, step.repo, ["worktree", "unlock", step.path]);
          await mustGit(ws, step.repo, ["worktree", "lock", "--reason", lockReason(step.task), step.path]);
        },
        { purpose: `reconcile ${step.task}` },
      );
      return;
    }
    case "delete-branch": {
      const common = await commonFor(ws, step.repo);
      await withRepoLock(
        common,
        async () => {
          await mustGit(ws, step.repo, ["update-ref", "-d", `refs/heads/${step.branch}`, step.tip]);
        },
        { purpose: `reconcile ${step.task}` },
      );
      return;
    }
    case "remove-dir": {
      // Never recursive: a directory that gained content meanwhile stays (rmdir fails).
      const git = join(step.path, ".git");
      const st = await fsp.lstat(git).catch(() => null);
      if (st?.isFile()) await fsp.unlink(git);
      try {
        await fsp.rmdir(step.path);
      } catch (e) {
        if ((e as NodeJS.ErrnoException).code !== "ENOENT") throw e;
      }
      return;
    }
    case "mark-leg":
    case "remove-stale-lock":
      return;
  }
}

export async function applyMarks(
  ws: WorktreeWorkspace,
  task: string,
  marks: Extract<ReconcileStep, { fix: "mark-leg" }>[],
  token: number,
  leasePath: string,
): Promise<void> {
  const path = taskRecordPath(ws.root, task);
  const rec = await readRecord<TaskRecord>(path);
  if (!rec) return;
  const to = new Map(marks.map((m) => [m.path, m.to]));
  const legs = rec.legs.map((l) => {
    const next = to.get(l.worktreePath);
    return next && l.state === "active" ? { ...l, state: next } : l;
  });
  const next = {
    ...rec,
    legs,
    state: (marks[0]?.taskState ?? rec.state) as TaskRecord["state"],
    updatedAt: new Date(ws.ports.clock.now()).toISOString(),
  };
  await writeRecordCAS(path, next, { expectVersion: rec.version, token, leasePath });
}
