import { existsSync } from "node:fs";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { arielErrorOf } from "../../_fixture.ts";
import { removeDir } from "../_fixture.ts";
import { faultyPorts, git, gitPicture, makeRoot, stealLease } from "../worktree/_fixture.ts";
import { reconcileWorkspace } from "./reconcile.ts";

let root: string;
afterEach(() => removeDir(root));

/** What a add killed after `git worktree add` leaves: a worktree of ours, no record. */
function halfMadeAdd(): string {
  root = makeRoot(["api"]);
  const leg = join(root, ".ariel/worktrees/t1/api");
  git(join(root, "api"), "worktree", "add", "-q", "--lock", "--reason", "ariel:t1", leg, "-b", "ariel/t1");
  return leg;
}

describe("reconcileWorkspace under faults", () => {
  it("converges a half-made add (the baseline for the rows below)", async () => {
    const leg = halfMadeAdd();
    const r = await reconcileWorkspace(faultyPorts(), { root });
    expect(r.applied.map((s) => s.fix)).toEqual(["remove-worktree", "delete-branch", "remove-dir"]);
    expect(existsSync(leg)).toBe(false);
  });

  it("the lease is lost while waiting for the repository lock: ERR_FENCED, nothing changed", async () => {
    const leg = halfMadeAdd();
    const before = gitPicture(join(root, "api"));
    const ports = faultyPorts([
      {
        op: "createExclusive",
        path: join(root, "api/.git/ariel-worktree.lock"),
        times: 1,
        before: () => void stealLease(root, "t1"),
      },
    ]);
    const e = await arielErrorOf(reconcileWorkspace(ports, { root }));
    expect([e.code, e.exit]).toEqual(["ERR_FENCED", 75]);
    expect(gitPicture(join(root, "api"))).toEqual(before);
    expect(existsSync(join(leg, ".git"))).toBe(true);
    expect(ports.fs.log.filter((l) => /^(rmdir|unlink|remove) .*worktrees/.test(l))).toEqual([]);
  });

  it("EACCES removing the empty task directory: reported as failed, the rest applied", async () => {
    halfMadeAdd();
    const ports = faultyPorts([{ op: "rmdir", path: join(root, ".ariel/worktrees/t1"), code: "EACCES" }]);
    const r = await reconcileWorkspace(ports, { root });
    expect(r.applied.map((s) => s.fix)).toEqual(["remove-worktree", "delete-branch"]);
    expect(r.failed.map((f) => [f.step.fix, f.error.message])).toEqual([
      ["remove-dir", expect.stringContaining("EACCES")],
    ]);
    expect(git(join(root, "api"), "branch", "--list", "ariel/t1")).toBe("");
  });
});
