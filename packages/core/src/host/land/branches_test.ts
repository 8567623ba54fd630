/**
 * deleteMergedBranches: after `land --remove`, only a leg's own branch whose step landed and
 * whose tip the target contains is deleted, by compare-and-swap on that tip; everything else is
 * kept. Real repositories; the record's `land` is written by each case.
 */
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import type { GitRunOptions, Ports } from "../../ports.ts";
import type { TaskRecord } from "../../schema/task.ts";
import { commitAll, removeDir, writeFile } from "../_fixture.ts";
import { faultyPorts, git, makeRoot } from "../worktree/_fixture.ts";
import { addTask } from "../worktree/add.ts";
import { removeTask } from "../worktree/remove.ts";
import { deleteMergedBranches } from "./branches.ts";

let root: string;
afterEach(() => removeDir(root));

type StepState = "pending" | "landed" | "rolled-back";

/**
 * Task t1 on api and web, a commit in each leg merged into main by hand (fast-forward), then
 * removed (branches kept): the record `land --remove` hands to deleteMergedBranches, before its
 * `land` is set. Returns it with each leg's branch tip and main's tip before the merge.
 */
async function landedAndRemoved(): Promise<{
  record: TaskRecord;
  tips: Record<string, string>;
  base: string;
}> {
  root = makeRoot();
  const ports = faultyPorts();
  await addTask(ports, { root, taskId: "t1", sources: ["api", "web"] });
  const tips: Record<string, string> = {};
  let base = "";
  for (const s of ["api", "web"]) {
    const leg = join(root, ".ariel/worktrees/t1", s);
    writeFile(join(leg, "work.txt"), `${s}\n`);
    tips[s] = commitAll(leg, `work in ${s}`);
    base = git(join(root, s), "rev-parse", "main");
    git(join(root, s), "merge", "-q", "--ff-only", "ariel/t1");
  }
  const removal = await removeTask(ports, { root, taskId: "t1" });
  expect(removal.refused).toBe(false);
  return { record: removal.record, tips, base };
}

function withLand(record: TaskRecord, steps: [source: string, state: StepState][], base: string): TaskRecord {
  return {
    ...record,
    land: {
      strategy: "ff",
      state: "landed",
      startedAt: "2026-12-04T00:00:00.000Z",
      legs: steps.map(([source, state]) => ({
        source,
        target: "main",
        from: base,
        to: base,
        checkout: null,
        state,
      })),
    },
  };
}

const branches = (s: string) =>
  git(join(root, s), "branch", "--list", "--format=%(refname:short) %(objectname)");

describe("deleteMergedBranches", () => {
  it("deletes each landed leg's branch that main contains, and says which, with its tip", async () => {
    const { record, tips, base } = await landedAndRemoved();
    const out = await deleteMergedBranches(
      faultyPorts(),
      withLand(
        record,
        [
          ["api", "landed"],
          ["web", "landed"],
        ],
        base,
      ),
    );
    expect(out).toEqual([
      { source: "api", branch: "ariel/t1", commit: tips.api },
      { source: "web", branch: "ariel/t1", commit: tips.web },
    ]);
    expect([branches("api"), branches("web")]).toEqual([`main ${tips.api}`, `main ${tips.web}`]);
  });

  it.each<[string, [string, StepState][]]>([
    [
      "a step rolled back keeps its branch, though main contains it",
      [
        ["api", "landed"],
        ["web", "rolled-back"],
      ],
    ],
    [
      "a step still pending keeps its branch",
      [
        ["api", "landed"],
        ["web", "pending"],
      ],
    ],
    [
      "a step of a source the task has no leg in is passed over",
      [
        ["api", "landed"],
        ["gone", "landed"],
      ],
    ],
    ["a leg with no step keeps its branch", [["api", "landed"]]],
  ])("%s", async (_name, steps) => {
    const { record, tips, base } = await landedAndRemoved();
    const out = await deleteMergedBranches(faultyPorts(), withLand(record, steps, base));
    expect(out).toEqual([{ source: "api", branch: "ariel/t1", commit: tips.api }]);
    expect([branches("api"), branches("web")]).toEqual([
      `main ${tips.api}`,
      `ariel/t1 ${tips.web}\nmain ${tips.web}`,
    ]);
  });

  it("a branch main does not contain is kept (landed by squash or rebase)", async () => {
    const { record, tips, base } = await landedAndRemoved();
    git(join(root, "web"), "reset", "-q", "--hard", base);
    const out = await deleteMergedBranches(
      faultyPorts(),
      withLand(
        record,
        [
          ["api", "landed"],
          ["web", "landed"],
        ],
        base,
      ),
    );
    expect(out).toEqual([{ source: "api", branch: "ariel/t1", commit: tips.api }]);
    expect(branches("web")).toBe(`ariel/t1 ${tips.web}\nmain ${base}`);
  });

  it("a branch already gone is passed over", async () => {
    const { record, tips, base } = await landedAndRemoved();
    git(join(root, "api"), "branch", "-q", "-D", "ariel/t1");
    const out = await deleteMergedBranches(
      faultyPorts(),
      withLand(
        record,
        [
          ["api", "landed"],
          ["web", "landed"],
        ],
        base,
      ),
    );
    expect(out).toEqual([{ source: "web", branch: "ariel/t1", commit: tips.web }]);
  });

  it("a branch that moves on between the check and the delete is kept, and not reported deleted", async () => {
    const { record, tips, base } = await landedAndRemoved();
    const web = join(root, "web");
    const host = faultyPorts();
    // Just before web's delete, someone commits on ariel/t1: the compare-and-swap must refuse.
    let moved = "";
    const ports: Ports = {
      ...host,
      git: {
        run: (args: readonly string[], options: GitRunOptions) => {
          if (args.includes("update-ref") && options.cwd === web && moved === "") {
            git(web, "checkout", "-q", "ariel/t1");
            writeFile(join(web, "late.txt"), "late\n");
            moved = commitAll(web, "late work");
            git(web, "checkout", "-q", "main");
          }
          return host.git.run(args, options);
        },
      },
    };
    const out = await deleteMergedBranches(
      ports,
      withLand(
        record,
        [
          ["api", "landed"],
          ["web", "landed"],
        ],
        base,
      ),
    );
    expect(out).toEqual([{ source: "api", branch: "ariel/t1", commit: tips.api }]);
    expect(branches("web")).toBe(`ariel/t1 ${moved}\nmain ${tips.web}`);
  });
});
