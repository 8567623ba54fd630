/**
 * landLeg and unlandLeg on real repositories: a target checked out nowhere moves by
 * compare-and-swap, a checked-out one by fast-forward (its files follow) or `reset --keep`; a
 * target that moved since the check, or a dirty checkout, is refused with nothing changed.
 */
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { isArielError } from "../../errors.ts";
import type { LandLeg } from "../../schema/task.ts";
import { commitAll, git, gitRaw, initRepo, removeDir, tempDir, writeFile } from "../_fixture.ts";
import { withLease } from "../lease-store.ts";
import { faultyPorts } from "../worktree/_fixture.ts";
import { landLeg, targetTip, unlandLeg } from "./step.ts";

let root: string;
afterEach(() => removeDir(root));

/**
 * Repository `api` in a fresh root with main at `base`, and branch `feature` one commit ahead
 * (`tip`, adding feature.txt). `rel` is a branch at `base` checked out nowhere.
 */
function repo(): { repo: string; base: string; tip: string } {
  root = tempDir("ariel-landstep-");
  const r = join(root, "api");
  initRepo(r, { "README.md": "# api\n" });
  const base = git(r, "rev-parse", "HEAD");
  git(r, "branch", "rel");
  git(r, "checkout", "-q", "-b", "feature");
  writeFile(join(r, "feature.txt"), "new\n");
  const tip = commitAll(r, "feature");
  git(r, "checkout", "-q", "main");
  return { repo: r, base, tip };
}

function leg(over: Partial<LandLeg>): LandLeg {
  return {
    source: "api",
    target: "rel",
    from: "",
    to: "",
    checkout: null,
    state: "pending",
    ...over,
  } as LandLeg;
}

const withT1 = <T>(fn: Parameters<typeof withLease<T>>[3]) => withLease(root, "t1", { owner: "tester" }, fn);
const tipOf = (r: string, ref: string) => git(r, "rev-parse", `refs/heads/${ref}`);
const lastReflog = (r: string, ref: string) =>
  git(r, "reflog", "show", "-n1", "--format=%gs", `refs/heads/${ref}`);

async function refusal(p: Promise<unknown>) {
  const e = await p.then(
    () => null,
    (err: unknown) => err,
  );
  if (!isArielError(e)) throw new Error(`expected an ArielError, got ${String(e)}`);
  return { code: e.code, message: e.message, hint: e.hint, context: e.context };
}

describe("targetTip", () => {
  it("is the branch's commit, or null when the branch is gone", async () => {
    const { repo: r, base } = repo();
    expect(await targetTip(faultyPorts(), r, "rel")).toBe(base);
    expect(await targetTip(faultyPorts(), r, "gone")).toBeNull();
  });
});

describe("landLeg", () => {
  it("moves a target checked out nowhere from `from` to `to`, with a reflog line naming the task", async () => {
    const { repo: r, base, tip } = repo();
    await withT1((lease) => landLeg(faultyPorts(), lease, r, "t1", leg({ from: base, to: tip })));
    expect(tipOf(r, "rel")).toBe(tip);
    expect(lastReflog(r, "rel")).toBe("ariel land t1");
    expect(tipOf(r, "main")).toBe(base);
  });

  it("leaves a target already at `to` alone", async () => {
    const { repo: r, base, tip } = repo();
    git(r, "update-ref", "refs/heads/rel", tip);
    const reflog = git(r, "reflog", "show", "--format=%gs", "refs/heads/rel");
    await withT1((lease) => landLeg(faultyPorts(), lease, r, "t1", leg({ from: base, to: tip })));
    expect(tipOf(r, "rel")).toBe(tip);
    expect(git(r, "reflog", "show", "--format=%gs", "refs/heads/rel")).toBe(reflog);
  });

  it("refuses a target that moved since the check: ERR_CONFLICT, expected and found, nothing moved", async () => {
    const { repo: r, base, tip } = repo();
    git(r, "checkout", "-q", "rel");
    writeFile(join(r, "other.txt"), "other\n");
    const moved = commitAll(r, "someone else");
    git(r, "checkout", "-q", "main");
    const out = await refusal(
      withT1((lease) => landLeg(faultyPorts(), lease, r, "t1", leg({ from: base, to: tip }))),
    );
    expect(out).toEqual({
      code: "ERR_CONFLICT",
      message: "rel of api moved since land checked it",
      hint: `look at it (git -C ${r} log rel), then land again`,
      context: { source: "api", target: "rel", expected: base, found: moved },
    });
    expect(tipOf(r, "rel")).toBe(moved);
  });

  it("fast-forwards a checked-out target in its checkout, so its files follow", async () => {
    const { repo: r, base, tip } = repo();
    await withT1((lease) =>
      landLeg(faultyPorts(), lease, r, "t1", leg({ target: "main", from: base, to: tip, checkout: r })),
    );
    expect(tipOf(r, "main")).toBe(tip);
    expect(git(r, "show", "HEAD:feature.txt")).toBe("new");
    expect(git(r, "status", "--porcelain")).toBe("");
    expect(git(r, "cat-file", "-p", `:feature.txt`)).toBe("new");
  });

  it("refuses a checked-out target with uncommitted changes: ERR_TARGET_DIRTY naming three of them, nothing moved", async () => {
    const { repo: r, base, tip } = repo();
    for (const f of ["a.txt", "b.txt", "c.txt", "d.txt"]) writeFile(join(r, f), "x\n");
    const out = await refusal(
      withT1((lease) =>
        landLeg(faultyPorts(), lease, r, "t1", leg({ target: "main", from: base, to: tip, checkout: r })),
      ),
    );
    expect(out.code).toBe("ERR_TARGET_DIRTY");
    expect(out.message).toBe(`${r} has uncommitted changes: a.txt, b.txt, c.txt`);
    expect(out.context).toEqual({ source: "api", target: "main", checkout: r });
    expect(tipOf(r, "main")).toBe(base);
    expect(gitRaw(r, "cat-file", "-e", "HEAD:feature.txt").code).not.toBe(0);
  });
});

describe("unlandLeg", () => {
  it("moves a target checked out nowhere back from `to` to `from`, with an undo reflog line", async () => {
    const { repo: r, base, tip } = repo();
    git(r, "update-ref", "refs/heads/rel", tip);
    await withT1((lease) => unlandLeg(faultyPorts(), lease, r, "t1", leg({ from: base, to: tip })));
    expect(tipOf(r, "rel")).toBe(base);
    expect(lastReflog(r, "rel")).toBe("ariel land t1 (undo)");
  });

  it("leaves a target already back at `from` alone", async () => {
    const { repo: r, base, tip } = repo();
    const reflog = git(r, "reflog", "show", "--format=%gs", "refs/heads/rel");
    await withT1((lease) => unlandLeg(faultyPorts(), lease, r, "t1", leg({ from: base, to: tip })));
    expect(tipOf(r, "rel")).toBe(base);
    expect(git(r, "reflog", "show", "--format=%gs", "refs/heads/rel")).toBe(reflog);
  });

  it("refuses a target that moved past `to`: ERR_CONFLICT, not undone", async () => {
    const { repo: r, base, tip } = repo();
    git(r, "checkout", "-q", "feature");
    writeFile(join(r, "later.txt"), "later\n");
    const later = commitAll(r, "later");
    git(r, "checkout", "-q", "main");
    git(r, "update-ref", "refs/heads/rel", later);
    const out = await refusal(
      withT1((lease) => unlandLeg(faultyPorts(), lease, r, "t1", leg({ from: base, to: tip }))),
    );
    expect(out).toEqual({
      code: "ERR_CONFLICT",
      message: 'rel of "api" moved; not undone',
      hint: `look at it (git -C ${r} log rel)`,
      context: { source: "api", target: "rel" },
    });
    expect(tipOf(r, "rel")).toBe(later);
  });

  it("moves a checked-out target back with reset --keep: its files follow, local changes stay", async () => {
    const { repo: r, base, tip } = repo();
    git(r, "merge", "-q", "--ff-only", "feature");
    writeFile(join(r, "README.md"), "# api, edited\n");
    await withT1((lease) =>
      unlandLeg(faultyPorts(), lease, r, "t1", leg({ target: "main", from: base, to: tip, checkout: r })),
    );
    expect(tipOf(r, "main")).toBe(base);
    expect(git(r, "status", "--porcelain")).toBe("M README.md");
    expect(gitRaw(r, "cat-file", "-e", "HEAD:feature.txt").code).not.toBe(0);
    expect(lastReflog(r, "main")).toBe(`reset: moving to ${base}`);
  });
});
