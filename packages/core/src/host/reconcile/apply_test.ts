/**
 * One reconcile step applied on a real repository, for the steps and refusals a crash rarely
 * leaves for the planner to find: a step git refuses, an admin entry outside the repository's
 * worktrees, a branch that is not the task's or that moved, a directory that gained content.
 */
import { existsSync, mkdirSync, readFileSync, realpathSync } from "node:fs";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { arielErrorOf } from "../../_fixture.ts";
import type { ReconcileStep } from "../../reconcile/plan.ts";
import type { Fault } from "../../testing/faulty_fs.ts";
import { removeDir, writeFile } from "../_fixture.ts";
import { withLease } from "../lease-store.ts";
import { faultyPorts, git, gitPicture, makeRoot } from "../worktree/_fixture.ts";
import { leaseOptions } from "../worktree/fence.ts";
import { openWorkspace } from "../worktree/workspace.ts";
import { applyStep } from "./apply.ts";

let root = "";
afterEach(() => removeDir(root));

/** Apply `step` under task t1's lease, as reconcile does (with these file-system faults). */
async function apply(step: ReconcileStep, faults: Fault[] = []): Promise<void> {
  const ports = faultyPorts(faults);
  const ws = await openWorkspace(ports, root);
  await withLease(ws.root, "t1", leaseOptions(ports, "tester", 60_000), (lease) =>
    applyStep(ws, lease, step),
  );
}

function workspace(): { api: string; common: string } {
  root = realpathSync(makeRoot(["api"]));
  const api = join(root, "api");
  return { api, common: join(api, ".git") };
}

describe("applyStep: what it refuses, changing nothing", () => {
  it("git failing a step is ERR_GIT naming the command and git's message, with the cwd and status", async () => {
    const { api } = workspace();
    const before = gitPicture(api);
    const path = join(root, ".ariel/worktrees/t1/api");
    const e = await arielErrorOf(
      apply({ fix: "remove-worktree", task: "t1", repo: api, path, branch: null, locked: null }),
    );
    expect([e.code, e.exit]).toEqual(["ERR_GIT", 1]);
    expect(e.message).toBe(`git worktree remove failed: fatal: '${path}' is not a working tree`);
    expect(e.context).toEqual({ cwd: api, status: 128 });
    expect(gitPicture(api)).toEqual(before);
  });

  it("a source that is no git repository any more: ERR_GIT saying so", async () => {
    const { api } = workspace();
    const gone = join(root, "plain");
    mkdirSync(gone);
    const step = { fix: "relock", task: "t1", repo: gone, path: join(gone, "x"), from: null } as const;
    const e = await arielErrorOf(apply(step));
    expect([e.code, e.message]).toEqual(["ERR_GIT", `not a git repository any more: ${gone}`]);
    expect(gitPicture(api).worktrees).not.toContain(gone);
  });

  it("prune: an admin entry outside <common>/worktrees is not ours (ERR_NOT_OURS), kept", async () => {
    const { api, common } = workspace();
    const admin = join(common, "modules", "x");
    mkdirSync(admin, { recursive: true });
    writeFile(join(admin, "HEAD"), "ref: refs/heads/main\n");
    const step = { fix: "prune", task: "t1", repo: api, path: join(root, "gone"), adminDir: admin } as const;
    const e = await arielErrorOf(apply(step));
    expect([e.code, e.message]).toEqual([
      "ERR_NOT_OURS",
      `admin entry ${admin} is not in ${common}/worktrees`,
    ]);
    expect(readFileSync(join(admin, "HEAD"), "utf8")).toBe("ref: refs/heads/main\n");
  });

  it("prune: a worktree that came back meanwhile keeps its admin entry", async () => {
    const { api, common } = workspace();
    const leg = join(root, ".ariel/worktrees/t1/api");
    git(api, "worktree", "add", "-q", leg, "-b", "ariel/t1");
    const admin = join(common, "worktrees", "api");
    expect(existsSync(admin)).toBe(true);
    await apply({ fix: "prune", task: "t1", repo: api, path: leg, adminDir: admin });
    expect(existsSync(join(admin, "HEAD"))).toBe(true);
    expect(git(leg, "rev-parse", "--abbrev-ref", "HEAD")).toBe("ariel/t1");
  });

  it("delete-branch: only the task's own branch, and only while it is where the plan saw it", async () => {
    const { api } = workspace();
    const head = git(api, "rev-parse", "HEAD");
    git(api, "branch", "ariel/t1");
    git(api, "branch", "feature");
    const other = await arielErrorOf(
      apply({ fix: "delete-branch", task: "t1", repo: api, branch: "feature", tip: head }),
    );
    expect([other.code, other.exit]).toEqual(["ERR_REF_PROTECTED", 3]);
    const moved = await arielErrorOf(
      apply({ fix: "delete-branch", task: "t1", repo: api, branch: "ariel/t1", tip: "1".repeat(40) }),
    );
    expect([moved.code, moved.message.startsWith("git update-ref -d failed: ")]).toEqual(["ERR_GIT", true]);
    expect([git(api, "rev-parse", "feature"), git(api, "rev-parse", "ariel/t1")]).toEqual([head, head]);
    await apply({ fix: "delete-branch", task: "t1", repo: api, branch: "ariel/t1", tip: head });
    expect(git(api, "branch", "--list", "ariel/t1")).toBe("");
  });

  it("remove-dir: never recursive; a directory that gained content stays, its .git file goes", async () => {
    workspace();
    const dir = join(root, ".ariel/worktrees/t1/api");
    writeFile(join(dir, ".git"), "gitdir: /nowhere\n");
    writeFile(join(dir, "work.txt"), "written meanwhile\n");
    await expect(apply({ fix: "remove-dir", task: "t1", path: dir })).rejects.toMatchObject({
      code: "ERR_REFUSED",
      message: `${JSON.stringify(dir)} gained content since it was planned: kept`,
      hint: "look at what is in it, move it away or remove it yourself, then run ariel-worktree reconcile again",
      context: { path: dir },
    });
    expect(readFileSync(join(dir, "work.txt"), "utf8")).toBe("written meanwhile\n");
    expect(existsSync(join(dir, ".git"))).toBe(false);
  });

  it("remove-dir: a system that says EEXIST for a directory not empty is refused the same way; another error is itself", async () => {
    workspace();
    const dir = join(root, ".ariel/worktrees/t1/api");
    mkdirSync(dir, { recursive: true });
    const refused = await arielErrorOf(
      apply({ fix: "remove-dir", task: "t1", path: dir }, [{ op: "rmdir", path: dir, code: "EEXIST" }]),
    );
    expect([refused.code, refused.message]).toEqual([
      "ERR_REFUSED",
      `${JSON.stringify(dir)} gained content since it was planned: kept`,
    ]);
    await expect(
      apply({ fix: "remove-dir", task: "t1", path: dir }, [{ op: "rmdir", path: dir, code: "EACCES" }]),
    ).rejects.toMatchObject({ code: "EACCES" });
    expect(existsSync(dir)).toBe(true);
    await apply({ fix: "remove-dir", task: "t1", path: dir });
    expect(existsSync(dir)).toBe(false);
  });
});
