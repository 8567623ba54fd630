/**
 * kill -9 of `ariel-worktree remove --snapshot` at each of its crash points, then `reconcile`:
 * the record, the snapshot refs and git's worktree list end exactly as pinned below, a second
 * reconcile has nothing to do, and a re-run of `remove --snapshot` followed by `restore` brings
 * back every byte of both legs and the commit only HEAD's reflog held.
 *
 * The point that was a gap: killed after a leg's snapshot ref is written but before (or during)
 * its `git worktree remove`, the worktree is still there. reconcile finishes that removal only
 * when the snapshot holds everything the worktree holds; otherwise the task is active again.
 */
import { existsSync, rmSync } from "node:fs";
import { join } from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { startPausedAt } from "./helpers/cli.ts";
import { GIT_TEST_ENV, gitRaw } from "./helpers/git.ts";
import {
  branches,
  git,
  legPath,
  makeWorkspace,
  picture,
  records,
  removeDir,
  taskFile,
  writeFile,
  wt,
} from "./worktree-fixtures.ts";

let root: string;
let api: string;
let web: string;
/** The commit only api's HEAD reflog holds. */
let reflogOnly: string;

beforeEach(async () => {
  root = makeWorkspace();
  const made = await wt(root, ["add", "--task", "t", "--source", "api", "--source", "web", "--json"]);
  expect([made.code, made.stderr]).toEqual([0, ""]);
  api = legPath(root, "t", "api");
  web = legPath(root, "t", "web");
  writeFile(join(api, "src/main.txt"), "changed by the agent\n");
  writeFile(join(api, "notes/plan.md"), "untracked work\n");
  git(api, "switch", "-q", "--detach");
  git(api, "commit", "-q", "--allow-empty", "-m", "detached work");
  reflogOnly = git(api, "rev-parse", "HEAD");
  git(api, "switch", "-q", "ariel/t");
  writeFile(join(web, "wip.txt"), "web work\n");
});
afterEach(() => removeDir(root));

/** Every file of a leg but its `.git` link (which names the admin dir git picks), by content. */
function files(leg: string): Record<string, string> {
  const { ".git": _, ...rest } = picture(leg);
  return rest;
}

function snapshotRefs(repo: string): string[] {
  return git(repo, "for-each-ref", "--format=%(refname) %(objectname)", "refs/ariel/snapshots/")
    .split("\n")
    .filter(Boolean);
}

function listed(repo: string, leg: string): boolean {
  return git(repo, "worktree", "list", "--porcelain").includes(`worktree ${leg}\n`);
}

type Row = {
  point: string;
  /** What happens between the kill and reconcile (an agent going on, a half-done git). */
  after?: () => void;
  /** Files the restored api leg must hold: as before the remove, or as `after` left them. */
  apiFiles: "before" | "after";
  fixes: string[];
  legs: [string, string];
  /** Whether the snapshot ref of api is in the record after reconcile. */
  recorded: boolean;
  /** More to check once restored. */
  restored?: () => void;
};

describe("kill -9 of remove --snapshot, then reconcile, remove --snapshot and restore", () => {
  it.each<[string, Row]>([
    [
      "before its first leg: nothing snapshotted, the task is active again",
      {
        point: "remove:before-leg",
        apiFiles: "before",
        fixes: ["reopen t"],
        legs: ["active", "active"],
        recorded: false,
      },
    ],
    [
      "after api's snapshot, its worktree untouched: the removal is finished (the snapshot holds it all)",
      {
        point: "remove:after-snapshot",
        apiFiles: "before",
        fixes: ["remove-worktree api", "mark-leg api"],
        legs: ["snapshotted", "active"],
        recorded: true,
      },
    ],
    [
      "after api's snapshot, then a file written in it: kept, the task is active again",
      {
        point: "remove:after-snapshot",
        after: () => writeFile(join(api, "later.txt"), "written after the snapshot\n"),
        apiFiles: "after",
        fixes: ["reopen t"],
        legs: ["active", "active"],
        recorded: false,
      },
    ],
    [
      "after api's snapshot, then a tracked file changed in it: kept, the task is active again",
      {
        point: "remove:after-snapshot",
        after: () => writeFile(join(api, "README.md"), "changed after the snapshot\n"),
        apiFiles: "after",
        fixes: ["reopen t"],
        legs: ["active", "active"],
        recorded: false,
      },
    ],
    [
      "after api's snapshot, then a commit in it: kept, the task is active again",
      {
        point: "remove:after-snapshot",
        after: () => {
          git(api, "add", "notes/plan.md");
          git(api, "commit", "-q", "-m", "committed after the snapshot");
        },
        apiFiles: "after",
        fixes: ["reopen t"],
        legs: ["active", "active"],
        recorded: false,
      },
    ],
    [
      "after api's snapshot, then a per-worktree ref made in it: kept, the task is active again",
      {
        point: "remove:after-snapshot",
        after: () => git(api, "update-ref", "refs/worktree/later", git(api, "rev-parse", "HEAD~0")),
        restored: () =>
          expect(git(api, "rev-parse", "refs/worktree/later")).toBe(git(api, "rev-parse", "HEAD")),
        apiFiles: "after",
        fixes: ["reopen t"],
        legs: ["active", "active"],
        recorded: false,
      },
    ],
    [
      "during api's git worktree remove (files gone, .git still there): the removal is finished",
      {
        point: "remove:after-snapshot",
        after: () => {
          rmSync(join(api, "notes"), { recursive: true });
          rmSync(join(api, "src"), { recursive: true });
          rmSync(join(api, ".env"));
        },
        apiFiles: "before",
        fixes: ["remove-worktree api", "mark-leg api"],
        legs: ["snapshotted", "active"],
        recorded: true,
      },
    ],
    [
      "after api's removal, before web's: api marked snapshotted, the task active",
      {
        point: "remove:after-leg",
        apiFiles: "before",
        fixes: ["mark-leg api"],
        legs: ["snapshotted", "active"],
        recorded: true,
      },
    ],
    [
      "before the record write (both legs gone): both marked, the task closed",
      {
        point: "remove:before-record",
        apiFiles: "before",
        fixes: ["remove-dir t", "mark-leg api", "mark-leg web"],
        legs: ["snapshotted", "snapshotted"],
        recorded: true,
      },
    ],
  ])("killed %s", async (name, row) => {
    const before = { api: files(api), web: files(web) };
    const heads = [branches(join(root, "api")), branches(join(root, "web"))];
    const rm = await startPausedAt("worktree", row.point, ["remove", "--task", "t", "--snapshot", "--json"], {
      cwd: root,
      env: { ...GIT_TEST_ENV, ARIEL_OWNER: "tester", ARIEL_WORKSPACE_ROOT: root },
    });
    expect(await rm.kill()).toEqual({ code: null, signal: "SIGKILL" });
    row.after?.();
    const expectApi = row.apiFiles === "before" ? before.api : files(api);
    const refsBefore = snapshotRefs(join(root, "api"));
    const killed = taskFile(root, "t");
    expect([killed.state, killed.legs.map((l) => l.state)]).toEqual(["cleaning", ["active", "active"]]);

    const r = await wt(root, ["reconcile", "--json"]);
    expect([r.code, r.stderr]).toEqual([0, ""]);
    const fixes = records(r.stdout).map((x) =>
      x.fix === "reopen" ? `reopen ${x.task}` : `${x.fix} ${String(x.path).split("/").pop()}`,
    );
    expect(fixes).toEqual(row.fixes);

    // The record: exact states, the snapshot recorded only for a leg that is gone.
    const rec = taskFile(root, "t");
    const closed = row.legs.every((s) => s !== "active");
    expect([rec.state, rec.legs.map((l) => l.state), rec.version]).toEqual([
      closed ? "closed" : "active",
      row.legs,
      (killed.version as number) + 1,
    ]);
    const ref = "refs/ariel/snapshots/t/api";
    const apiSnap = gitRaw(join(root, "api"), "rev-parse", "--verify", "-q", ref).stdout.trim();
    const arts = (rec.artifacts as { kind: string; ref: string; commit: string }[]).filter(
      (a) => a.kind === "snapshot",
    );
    expect(arts.filter((a) => a.ref === ref).map((a) => a.commit)).toEqual(row.recorded ? [apiSnap] : []);
    // git: the snapshot refs as the killed remove left them, worktrees as the legs say.
    expect(snapshotRefs(join(root, "api"))).toEqual(refsBefore);
    expect(snapshotRefs(join(root, "api"))).toEqual(
      row.point === "remove:before-leg" ? [] : [`${ref} ${apiSnap}`],
    );
    expect([listed(join(root, "api"), api), existsSync(api)]).toEqual(
      row.legs[0] === "active" ? [true, true] : [false, false],
    );
    expect([listed(join(root, "web"), web), existsSync(web)]).toEqual(
      row.legs[1] === "active" ? [true, true] : [false, false],
    );
    if (row.legs[0] === "active") expect(files(api)).toEqual(expectApi);
    // Branches are never touched (a commit made in api after the kill moves its own branch only).
    if (!name.includes("a commit")) {
      expect([branches(join(root, "api")), branches(join(root, "web"))]).toEqual(heads);
    }

    const again = await wt(root, ["reconcile", "--dry-run", "--detailed-exitcode", "--json"]);
    expect([again.code, again.stdout, again.stderr]).toEqual([0, "", ""]);
    // gc drops the recorded snapshot refs of active legs only: an unrecorded one stays.
    const gc = await wt(root, ["gc", "--json"]);
    expect(gc.code).toBe(0);
    expect(snapshotRefs(join(root, "api"))).toEqual(refsBefore);

    // A re-run completes, and restore brings back every byte and the reflog-only commit.
    if (!closed) {
      const re = await wt(root, ["remove", "--task", "t", "--snapshot", "--json"]);
      expect([re.code, re.stderr]).toEqual([0, ""]);
    }
    expect([existsSync(api), existsSync(web), taskFile(root, "t").state]).toEqual([false, false, "closed"]);
    const back = await wt(root, ["restore", "--task", "t", "--json"]);
    expect([back.code, back.stderr]).toEqual([0, ""]);
    expect(files(api)).toEqual(expectApi);
    expect(files(web)).toEqual(before.web);
    expect(git(api, "log", "-g", "--format=%H", "HEAD").split("\n")).toContain(reflogOnly);
    expect(taskFile(root, "t").legs.map((l) => l.state)).toEqual(["active", "active"]);
    row.restored?.();
  });
});

describe("a git worktree remove stopped after deleting the leg's .git file", () => {
  it("reconcile marks the leg snapshotted and reports what is left; moved away, restore brings all back", async () => {
    const before = files(api);
    const rm = await startPausedAt(
      "worktree",
      "remove:after-snapshot",
      ["remove", "--task", "t", "--snapshot"],
      {
        cwd: root,
        env: { ...GIT_TEST_ENV, ARIEL_OWNER: "tester", ARIEL_WORKSPACE_ROOT: root },
      },
    );
    expect(await rm.kill()).toEqual({ code: null, signal: "SIGKILL" });
    // What git's recursive delete may leave: the .git file and some files gone, others still there.
    rmSync(join(api, ".git"));
    rmSync(join(api, "src"), { recursive: true });
    const r = await wt(root, ["reconcile", "--json"]);
    expect(r.code).toBe(0);
    expect(records(r.stdout).map((x) => `${x.fix} ${String(x.path).split("/").pop()}`)).toEqual([
      "prune api",
      "mark-leg api",
    ]);
    expect(records(r.stderr)).toEqual([
      expect.objectContaining({ type: "warning", code: "W_KEPT_DIR", task: "t", path: api }),
    ]);
    const rec = taskFile(root, "t");
    expect([rec.state, rec.legs.map((l) => l.state)]).toEqual(["active", ["snapshotted", "active"]]);
    expect(existsSync(join(api, "notes/plan.md"))).toBe(true); // never deleted by reconcile
    const refused = await wt(root, ["restore", "--task", "t", "--json"]);
    expect(refused.code).not.toBe(0);
    rmSync(api, { recursive: true }); // the user moves it away
    const back = await wt(root, ["restore", "--task", "t", "--json"]);
    expect([back.code, back.stderr]).toEqual([0, ""]);
    expect(files(api)).toEqual(before);
    expect(git(api, "log", "-g", "--format=%H", "HEAD").split("\n")).toContain(reflogOnly);
  });
});
