import { dirname, join } from "node:path";
import { ArielError } from "../../errors.ts";
import { childMessage } from "../../fingerprint.ts";
import { quoteValue } from "../../names.ts";
import type { ReconcileStep } from "../../reconcile/plan.ts";
import type { TaskRecord } from "../../schema/task.ts";
import { lockReason, taskBranch } from "../../worktree/ours.ts";
import { checkTaskRef } from "../../worktree/ref_guard.ts";
import type { Lease } from "../lease-store.ts";
import { releaseTaskPorts } from "../lifecycle/port_registry.ts";
import { readRecord, writeRecordCAS } from "../record-store.ts";
import { repoStep } from "../worktree/fence.ts";
import { gitRaw } from "../worktree/git.ts";
import { taskRecordPath } from "../worktree/store.ts";
import type { WorktreeWorkspace } from "../worktree/workspace.ts";
import { commonOf, exists } from "./facts.ts";

/**
 * Apply one reconcile step: each a fenced step of the caller's lease (git changes under the
 * repository lock first), directories only by rmdir, record changes by CAS. All file I/O goes
 * through the workspace's FsPort.
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

export async function applyStep(ws: WorktreeWorkspace, lease: Lease, step: ReconcileStep): Promise<void> {
  const fs = ws.ports.fs;
  const inRepo = (common: string, fn: () => Promise<void>) =>
    repoStep(ws.ports, lease, common, `reconcile ${step.task}`, fn);
  switch (step.fix) {
    case "remove-worktree": {
      const common = await commonFor(ws, step.repo);
      await inRepo(common, async () => {
        if (step.locked !== null) await gitRaw(ws.ports, step.repo, ["worktree", "unlock", step.path]);
        await mustGit(ws, step.repo, ["worktree", "remove", "--force", step.path]);
      });
      return;
    }
    case "prune": {
      const common = await commonFor(ws, step.repo);
      if (dirname(step.adminDir) !== join(common, "worktrees")) {
        throw new ArielError("ERR_NOT_OURS", `admin entry ${step.adminDir} is not in ${common}/worktrees`);
      }
      await inRepo(common, async () => {
        if (await exists(ws, join(step.path, ".git"))) return; // it came back: leave it
        await fs.remove(step.adminDir);
      });
      return;
    }
    case "relock": {
      const common = await commonFor(ws, step.repo);
      await inRepo(common, async () => {
        if (step.from !== null) await mustGit(ws, step.repo, ["worktree", "unlock", step.path]);
        await mustGit(ws, step.repo, ["worktree", "lock", "--reason", lockReason(step.task), step.path]);
      });
      return;
    }
    case "delete-branch": {
      const common = await commonFor(ws, step.repo);
      // Only a task's default branch (`ariel/<task>`): reconcile deletes no other.
      checkTaskRef(
        { taskId: step.task, legs: [{ branch: taskBranch(step.task) }] },
        `refs/heads/${step.branch}`,
      );
      await inRepo(common, async () => {
        await mustGit(ws, step.repo, ["update-ref", "-d", `refs/heads/${step.branch}`, step.tip]);
      });
      return;
    }
    case "remove-dir": {
      // Never recursive: a directory that gained content meanwhile stays (rmdir fails, with
      // ENOTEMPTY, or EEXIST where POSIX lets a system say that instead).
      await lease.fenced(async () => {
        const git = join(step.path, ".git");
        if ((await fs.lstat(git))?.kind === "file") await fs.unlink(git);
        await fs.rmdir(step.path).catch((e: NodeJS.ErrnoException) => {
          if (e?.code !== "ENOTEMPTY" && e?.code !== "EEXIST") throw e;
          throw new ArielError(
            "ERR_REFUSED",
            `${quoteValue(step.path)} gained content since it was planned: kept`,
            {
              hint: "look at what is in it, move it away or remove it yourself, then run ariel-worktree reconcile again",
              context: { path: step.path },
            },
          );
        });
      });
      return;
    }
    case "release-ports":
      await lease.fenced(() => releaseTaskPorts(ws.ports, { hash: ws.hash, tasks: [step.task] }));
      return;
    case "mark-leg":
    case "reopen":
    case "remove-stale-lock":
      return;
  }
}

export async function applyMarks(
  ws: WorktreeWorkspace,
  lease: Lease,
  task: string,
  steps: Extract<ReconcileStep, { fix: "mark-leg" | "reopen" }>[],
): Promise<void> {
  const marks = steps.filter((s) => s.fix === "mark-leg");
  const fs = ws.ports.fs;
  const path = taskRecordPath(ws.root, task);
  const rec = await readRecord<TaskRecord>(path, { fs });
  if (!rec) return;
  const to = new Map(marks.map((m) => [m.path, m]));
  const legs = rec.legs.map((l) => {
    const next = to.get(l.worktreePath);
    return next && l.state === "active" ? { ...l, state: next.to } : l;
  });
  // A `snapshotted` leg's snapshot is recorded as `remove --snapshot` records it (restore reads it).
  const artifacts = [...rec.artifacts];
  const at = new Date(ws.ports.clock.now()).toISOString();
  for (const m of marks) {
    const l = rec.legs.find((x) => x.worktreePath === m.path);
    if (m.to !== "snapshotted" || !m.snapshot || l?.state !== "active") continue;
    const art = {
      kind: "snapshot",
      ref: m.snapshot.ref,
      source: m.source,
      commit: m.snapshot.commit,
      createdAt: at,
    };
    const idx = artifacts.findIndex((a) => a.kind === "snapshot" && a.ref === m.snapshot!.ref);
    if (idx >= 0) artifacts[idx] = art;
    else artifacts.push(art);
  }
  const next = {
    ...rec,
    legs,
    artifacts,
    state: (steps[0]?.taskState ?? rec.state) as TaskRecord["state"],
    updatedAt: new Date(ws.ports.clock.now()).toISOString(),
  };
  await lease.fenced(() =>
    writeRecordCAS(path, next, { expectVersion: rec.version, token: lease.token, leasePath: lease.path, fs }),
  );
}
