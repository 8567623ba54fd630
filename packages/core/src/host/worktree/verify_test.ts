/**
 * verify.ts (`ariel-worktree verify`, the resume gate of docs/worktree.md) on real repositories:
 * the exact row of every leg (checks, code, message) and the exit for each way a leg can differ
 * from its record (removed, missing, unknown to git, another branch, a detached or rewound HEAD,
 * another remote, a changed sparse list, a broken share store link, a path outside its
 * container, by the record or by a link), which check names the row when several fail, and
 * that verify itself writes nothing.
 */
import { mkdirSync, readFileSync, rmSync, symlinkSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { arielErrorOf } from "../../_fixture.ts";
import type { TaskRecord } from "../../schema/task.ts";
import { commitAll, initRepo, removeDir, tempDir, writeFile } from "../_fixture.ts";
import { faultyPorts, git, gitPicture, makeRoot } from "./_fixture.ts";
import { addTask } from "./add.ts";
import { adoptWorktree } from "./adopt.ts";
import { removeTask } from "./remove.ts";
import { type VerifyLeg, verifyTask } from "./verify.ts";

let root: string;
const extra: string[] = [];
afterEach(() => {
  removeDir(root);
  for (const d of extra.splice(0)) removeDir(d);
});

const leg = (source: string) => join(root, ".ariel/worktrees/t1", source);
const recordPath = () => join(root, ".ariel/tasks/t1.json");
const recordOf = () => JSON.parse(readFileSync(recordPath(), "utf8")) as TaskRecord;
/** Rewrite the task record by hand (what a stranger, or a bad edit, can do). */
function editRecord(change: (r: TaskRecord) => void): void {
  const r = recordOf();
  change(r);
  writeFileSync(recordPath(), `${JSON.stringify(r)}\n`);
}

/** The row of a leg that passes every check. */
const okRow = (source: string, path = leg(source)): VerifyLeg => ({
  v: 1,
  type: "verify",
  task: "t1",
  source,
  path,
  ok: true,
  checks: { containment: true, presence: true, head: true, fingerprint: true },
});

/** The row of a leg that failed with `code` and `message`, its checks as given. */
const failRow = (
  source: string,
  checks: VerifyLeg["checks"],
  code: string,
  message: string,
  path = leg(source),
): VerifyLeg =>
  ({ v: 1, type: "verify", task: "t1", source, path, ok: false, checks, code, message }) as VerifyLeg;

/** Task t1 over api and web in a fresh workspace. */
async function twoLegTask(): Promise<void> {
  root = makeRoot();
  await addTask(faultyPorts(), { root, taskId: "t1", sources: ["api", "web"] });
}

const WRITES = /^(writeAtomic|mkdirp|remove|rename|createExclusive|unlink|rmdir) /;

describe("verifyTask: legs as recorded pass", () => {
  it("a fresh leg and one its agent committed on: every row ok, exit 0; verify writes nothing", async () => {
    await twoLegTask();
    writeFile(join(leg("api"), "feature.txt"), "agent work\n");
    commitAll(leg("api"), "agent work");
    const before = {
      api: gitPicture(join(root, "api")),
      web: gitPicture(join(root, "web")),
      record: readFileSync(recordPath(), "utf8"),
    };
    const ports = faultyPorts();
    const r = await verifyTask(ports, { root, taskId: "t1" });
    expect(r).toEqual({ record: recordOf(), legs: [okRow("api"), okRow("web")], exit: 0 });
    expect(ports.fs.log.filter((l) => WRITES.test(l))).toEqual([]);
    expect({
      api: gitPicture(join(root, "api")),
      web: gitPicture(join(root, "web")),
      record: readFileSync(recordPath(), "utf8"),
    }).toEqual(before);
  });

  it("an adopted worktree outside the worktree root, inside the workspace root, is contained", async () => {
    root = makeRoot(["api"]);
    const path = join(root, "api-feature");
    git(join(root, "api"), "worktree", "add", "-q", "-b", "feature", path);
    await adoptWorktree(faultyPorts(), { root, path, taskId: "t1" });
    const r = await verifyTask(faultyPorts(), { root, taskId: "t1" });
    expect([r.exit, r.legs]).toEqual([0, [okRow("api", path)]]);
  });

  it("an adopted leg recorded outside the workspace root: ERR_PATH_ESCAPE against the workspace root (77)", async () => {
    root = makeRoot(["api"]);
    const path = join(root, "api-feature");
    git(join(root, "api"), "worktree", "add", "-q", "-b", "feature", path);
    await adoptWorktree(faultyPorts(), { root, path, taskId: "t1" });
    const outside = tempDir("ariel-verify-out-");
    extra.push(outside);
    editRecord((r) => {
      r.legs[0]!.worktreePath = outside;
    });
    const r = await verifyTask(faultyPorts(), { root, taskId: "t1" });
    expect([r.exit, r.legs]).toEqual([
      77,
      [
        failRow(
          "api",
          { containment: false, presence: false, head: null, fingerprint: null },
          "ERR_PATH_ESCAPE",
          `${outside} is not inside the workspace root ${root}`,
          outside,
        ),
      ],
    ]);
  });
});

describe("verifyTask: one leg differs from its record (exit 3, the other leg still ok)", () => {
  const missing = { containment: true, presence: false, head: null, fingerprint: true };
  it.each<[string, () => Promise<void> | void, () => VerifyLeg]>([
    [
      "removed by remove",
      async () => {
        await removeTask(faultyPorts(), { root, taskId: "t1", sources: ["web"] });
      },
      () => failRow("web", missing, "ERR_WORKTREE_MISSING", "the worktree of web was removed"),
    ],
    [
      "recorded unknown (a remove that failed part-way), its worktree still there",
      () =>
        editRecord((r) => {
          r.legs[1]!.state = "unknown";
        }),
      () => failRow("web", missing, "ERR_WORKTREE_MISSING", "the worktree of web was unknown"),
    ],
    [
      "its directory deleted by hand",
      () => rmSync(leg("web"), { recursive: true }),
      () =>
        failRow("web", missing, "ERR_WORKTREE_MISSING", `the worktree of web at ${leg("web")} is missing`),
    ],
    [
      "its directory there, but unknown to git (its admin entry pruned)",
      () => {
        git(join(root, "web"), "worktree", "unlock", leg("web"));
        rmSync(join(root, "web/.git/worktrees/web"), { recursive: true });
      },
      () =>
        failRow("web", missing, "ERR_WORKTREE_MISSING", `the worktree of web at ${leg("web")} is missing`),
    ],
    [
      "another branch checked out",
      () => git(leg("web"), "switch", "-q", "-c", "other"),
      () =>
        failRow(
          "web",
          { containment: true, presence: true, head: false, fingerprint: true },
          "ERR_BRANCH_MISMATCH",
          `${leg("web")} has other checked out, not ariel/t1`,
        ),
    ],
    [
      "a detached HEAD (at the recorded head)",
      () => git(leg("web"), "switch", "-q", "--detach"),
      () =>
        failRow(
          "web",
          { containment: true, presence: true, head: false, fingerprint: true },
          "ERR_BRANCH_MISMATCH",
          `${leg("web")} has a detached HEAD checked out, not ariel/t1`,
        ),
    ],
    [
      "its branch replaced by an unrelated history",
      () => {
        const p = leg("web");
        git(p, "checkout", "-q", "--orphan", "tmp");
        git(p, "commit", "-q", "--allow-empty", "-m", "unrelated");
        git(p, "branch", "-f", "ariel/t1", "tmp");
        git(p, "checkout", "-q", "ariel/t1");
        git(p, "branch", "-D", "tmp");
      },
      () =>
        failRow(
          "web",
          { containment: true, presence: true, head: false, fingerprint: true },
          "ERR_HEAD_MOVED",
          `HEAD of ${leg("web")} no longer contains the recorded ${recordOf().legs[1]!.head.slice(0, 12)}`,
        ),
    ],
    [
      "its branch reset to the recorded head's parent",
      () => {
        // The leg's recorded head is the source's second commit; HEAD goes back past it.
        git(leg("web"), "reset", "-q", "--hard", "HEAD~1");
      },
      () =>
        failRow(
          "web",
          { containment: true, presence: true, head: false, fingerprint: true },
          "ERR_HEAD_MOVED",
          `HEAD of ${leg("web")} no longer contains the recorded ${recordOf().legs[1]!.head.slice(0, 12)}`,
        ),
    ],
    [
      "a remote (with credentials) added to its source",
      () => git(join(root, "web"), "remote", "add", "origin", "https://u:s3cret@example.com/web.git"),
      () =>
        failRow(
          "web",
          { containment: true, presence: true, head: true, fingerprint: false },
          "ERR_FINGERPRINT",
          "the remote or default branch of web changed since the task was made",
        ),
    ],
  ])("web %s", async (_name, change, row) => {
    root = makeRoot();
    // A second commit in web, so its legs' recorded head has a parent.
    writeFile(join(root, "web/second.txt"), "2\n");
    commitAll(join(root, "web"), "second");
    await addTask(faultyPorts(), { root, taskId: "t1", sources: ["api", "web"] });
    await change();
    const r = await verifyTask(faultyPorts(), { root, taskId: "t1" });
    expect([r.exit, r.legs]).toEqual([3, [okRow("api"), row()]]);
    expect(JSON.stringify(r)).not.toContain("s3cret");
  });

  it("several checks fail: the first names the row, the later ones are still recorded", async () => {
    await twoLegTask();
    git(leg("web"), "switch", "-q", "--detach");
    git(join(root, "web"), "remote", "add", "origin", "https://example.com/web.git");
    const r = await verifyTask(faultyPorts(), { root, taskId: "t1" });
    expect([r.exit, r.legs[1]]).toEqual([
      3,
      failRow(
        "web",
        { containment: true, presence: true, head: false, fingerprint: false },
        "ERR_BRANCH_MISMATCH",
        `${leg("web")} has a detached HEAD checked out, not ariel/t1`,
      ),
    ]);
  });
});

describe("verifyTask: a leg outside the worktree root (77, whatever the other legs say)", () => {
  const escaped = { containment: false, presence: false, head: null, fingerprint: null };
  it.each<[string, () => string]>([
    [
      "the record names the source checkout",
      () => {
        editRecord((r) => {
          r.legs[1]!.worktreePath = join(root, "web");
        });
        return join(root, "web");
      },
    ],
    [
      "the record names the worktree root itself",
      () => {
        const wt = join(root, ".ariel/worktrees");
        editRecord((r) => {
          r.legs[1]!.worktreePath = wt;
        });
        return wt;
      },
    ],
    [
      "the record's path climbs out with ..",
      () => {
        const p = `${root}/.ariel/worktrees/t1/../../../web`;
        editRecord((r) => {
          r.legs[1]!.worktreePath = p;
        });
        return p;
      },
    ],
    [
      "the leg's directory became a link to a directory outside",
      () => {
        const outside = tempDir("ariel-verify-out-");
        extra.push(outside);
        rmSync(leg("web"), { recursive: true });
        symlinkSync(outside, leg("web"));
        return leg("web");
      },
    ],
    [
      "the leg's directory became a link to the worktree root",
      () => {
        rmSync(leg("web"), { recursive: true });
        symlinkSync(join(root, ".ariel/worktrees"), leg("web"));
        return leg("web");
      },
    ],
  ])("%s", async (_name, change) => {
    await twoLegTask();
    await removeTask(faultyPorts(), { root, taskId: "t1", sources: ["api"] });
    const path = change();
    const r = await verifyTask(faultyPorts(), { root, taskId: "t1" });
    expect([r.exit, r.legs]).toEqual([
      77,
      [
        failRow(
          "api",
          { containment: true, presence: false, head: null, fingerprint: true },
          "ERR_WORKTREE_MISSING",
          "the worktree of api was removed",
        ),
        failRow(
          "web",
          escaped,
          "ERR_PATH_ESCAPE",
          `${path} is not inside the worktree root ${join(root, ".ariel/worktrees")}`,
          path,
        ),
      ],
    ]);
  });
});

describe("verifyTask: sparse and shared legs", () => {
  it("a sparse leg passes with its recorded cone (in any order); a changed or dropped cone is ERR_SPARSE_CHANGED", async () => {
    root = makeRoot(["api"]);
    writeFile(join(root, "api/src/x.txt"), "x\n");
    writeFile(join(root, "api/docs/y.txt"), "y\n");
    writeFile(join(root, "api/lib/z.txt"), "z\n");
    commitAll(join(root, "api"), "dirs");
    await addTask(faultyPorts(), { root, taskId: "t1", sources: ["api"], sparse: ["src", "docs"] });
    // git lists the cone sorted; the record may hold it in another order.
    editRecord((r) => {
      r.legs[0]!.sparse = ["src", "docs"];
    });
    const ok = await verifyTask(faultyPorts(), { root, taskId: "t1" });
    const sparseOk = { ...okRow("api"), checks: { ...okRow("api").checks, sparse: true } };
    expect([ok.exit, ok.legs]).toEqual([0, [sparseOk]]);
    const recorded = recordOf().legs[0]!.sparse!.join(", ");

    git(leg("api"), "sparse-checkout", "set", "--cone", "lib");
    const changed = await verifyTask(faultyPorts(), { root, taskId: "t1" });
    const checks = { containment: true, presence: true, head: true, fingerprint: true, sparse: false };
    expect([changed.exit, changed.legs]).toEqual([
      3,
      [
        failRow(
          "api",
          checks,
          "ERR_SPARSE_CHANGED",
          `${leg("api")} checks out lib, not the recorded ${recorded}`,
        ),
      ],
    ]);

    git(leg("api"), "sparse-checkout", "disable");
    const whole = await verifyTask(faultyPorts(), { root, taskId: "t1" });
    expect(whole.legs[0]!.message).toBe(
      `${leg("api")} checks out the whole tree, not the recorded ${recorded}`,
    );
  });

  it("a leg whose share-store link leads to a directory: shared true; once the store is gone, ERR_SHARE_BROKEN", async () => {
    root = makeRoot(["api"]);
    await addTask(faultyPorts(), { root, taskId: "t1", sources: ["api"] });
    const store = join(root, ".ariel/share/store-1");
    mkdirSync(store, { recursive: true });
    mkdirSync(join(leg("api"), "node_modules"));
    symlinkSync(store, join(leg("api"), "node_modules/.ariel-share"));
    const ok = await verifyTask(faultyPorts(), { root, taskId: "t1" });
    expect([ok.exit, ok.legs]).toEqual([
      0,
      [{ ...okRow("api"), checks: { ...okRow("api").checks, shared: true } }],
    ]);
    rmSync(store, { recursive: true });
    const r = await verifyTask(faultyPorts(), { root, taskId: "t1" });
    expect([r.exit, r.legs]).toEqual([
      3,
      [
        failRow(
          "api",
          { containment: true, presence: true, head: true, fingerprint: true, shared: false },
          "ERR_SHARE_BROKEN",
          `${leg("api")}/node_modules links into a share store that is gone (node_modules)`,
        ),
      ],
    ]);
  });
});

describe("verifyTask: a leg whose .git file is gone (the directory is no worktree any more)", () => {
  it("in a workspace that is no repository: the leg fails (exit 3)", async () => {
    await twoLegTask();
    rmSync(join(leg("web"), ".git"));
    const r = await verifyTask(faultyPorts(), { root, taskId: "t1" });
    // git still lists the (locked) worktree; the leg has no .git, so it is not present.
    expect([r.exit, r.legs[0], r.legs[1]!.ok, r.legs[1]!.code]).toEqual([
      3,
      okRow("api"),
      false,
      "ERR_WORKTREE_MISSING",
    ]);
  });

  // docs/worktree.md, verify: presence means "git knows it as a worktree", head that "the recorded
  // branch is checked out". With the workspace root itself a source (".") and the leg's .git file
  // gone, git run in the leg's directory finds the root's repository (main checked out there):
  // every check once passed, and an agent resuming there would have committed onto main.
  it("in a workspace whose root is a source: the leg fails too, as missing its .git", async () => {
    root = tempDir("ariel-hostwt-");
    initRepo(root, { "README.md": "# root\n", ".gitignore": ".ariel/\n" });
    const made = await addTask(faultyPorts(), { root, taskId: "t1", sources: ["."] });
    const path = made.record.legs[0]!.worktreePath;
    rmSync(join(path, ".git"));
    expect([git(path, "rev-parse", "--show-toplevel"), git(path, "branch", "--show-current")]).toEqual([
      root,
      "main",
    ]);
    const r = await verifyTask(faultyPorts(), { root, taskId: "t1" });
    expect([r.exit, r.legs[0]!.ok, r.legs[0]!.checks.presence, r.legs[0]!.code, r.legs[0]!.message]).toEqual([
      3,
      false,
      false,
      "ERR_WORKTREE_MISSING",
      `the worktree of . at ${path} has no .git: git there would find another repository`,
    ]);
  });
});

describe("verifyTask: bad requests", () => {
  it("an unknown task: ERR_TASK_NOT_FOUND (66)", async () => {
    root = makeRoot(["api"]);
    const e = await arielErrorOf(verifyTask(faultyPorts(), { root, taskId: "nope" }));
    expect([e.code, e.exit, e.context]).toEqual(["ERR_TASK_NOT_FOUND", 66, { task: "nope" }]);
  });

  it("a task id that is no name: ERR_INVALID_TASK_ID (65), before any file is read", async () => {
    root = makeRoot(["api"]);
    const ports = faultyPorts();
    const e = await arielErrorOf(verifyTask(ports, { root, taskId: "../t1" }));
    expect([e.code, e.exit]).toEqual(["ERR_INVALID_TASK_ID", 65]);
    expect(ports.fs.log).toEqual([]);
  });
});
