/**
 * The Claude Code hook's host half on real repositories, without the CLI: eventDir (the path,
 * its directory, or its nearest existing ancestor), claudeCreate (the task named after the
 * worktree, its base, the source found from the event's directory, and each ERR_SOURCE_NOT_FOUND
 * with its exact message and context) and claudeRemove (removed: only that leg; kept: the snapshot
 * and every artifact of the record; refused; ERR_NOT_OURS for a path no task holds).
 */
import { existsSync, mkdirSync, readFileSync, symlinkSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { arielErrorOf } from "../../_fixture.ts";
import type { Ports } from "../../ports.ts";
import type { Leg } from "../../schema/task.ts";
import { commitAll, initRepo, removeDir, tempDir, writeFile } from "../_fixture.ts";
import { faultyPorts, git, gitPicture, makeRoot } from "./_fixture.ts";
import { addTask } from "./add.ts";
import { type ClaudeRemoveResult, claudeCreate, claudeRemove, eventDir } from "./claude_hook.ts";

let root: string;
let home: string;
let outside: string | undefined;
afterEach(() => {
  removeDir(root);
  removeDir(home);
  if (outside) removeDir(outside);
  outside = undefined;
});

const NOW = Date.parse("2026-02-03T04:05:06.000Z");

/** Host ports with the test's own state home and a fixed clock. */
function ports(): Ports {
  const p = faultyPorts();
  return { ...p, env: { ...p.env, ARIEL_STATE_HOME: home }, clock: { now: () => NOW } };
}

function workspace(): void {
  root = makeRoot(["api", "web"]);
  home = tempDir("ariel-claude-home-");
}

const api = () => join(root, "api");
const leg = (task: string, source = "api") => join(root, ".ariel/worktrees", task, source);
const record = (task: string) => JSON.parse(readFileSync(join(root, `.ariel/tasks/${task}.json`), "utf8"));
const create = (name: string, dir: string | null, base: string | null = null) =>
  claudeCreate(ports(), { root, via: "flag", event: { event: "create", name, dir, base } });
const remove = (worktreePath: string) =>
  claudeRemove(ports(), { root, event: { event: "remove", worktreePath, dir: null } });

describe("eventDir: the event's directory, or its nearest ancestor that is one", () => {
  it.each<[string, string | null, string]>([
    ["a directory: itself", "a", "a"],
    ["a file: its directory", "a/f.txt", "a"],
    ["a path not made yet: the nearest directory above it", "a/.claude/worktrees", "a"],
    ["a path under a file: the file's directory", "a/f.txt/x", "a"],
    ["none: the cwd", null, ""],
  ])("%s", (_name, dir, expected) => {
    root = tempDir("ariel-claude-dir-");
    home = tempDir("ariel-claude-home-");
    writeFile(join(root, "a/f.txt"), "f\n");
    const want = expected === "" ? root : join(root, expected);
    expect(eventDir(dir === null ? null : join(root, dir), root)).toBe(want);
    // A relative path is taken from the cwd.
    if (dir !== null) expect(eventDir(dir, root)).toBe(want);
  });
});

describe("claudeCreate: the task named after the worktree, one leg of the event's repository", () => {
  it("from the repository's directory (not made yet: .claude/worktrees); a repeat returns the same", async () => {
    workspace();
    const initial = git(api(), "rev-parse", "HEAD");
    const made = await create("Fix Login!", join(api(), ".claude/worktrees"));
    expect([made.path, made.record.taskId, made.record.legs.map((l) => [l.source, l.base])]).toEqual([
      leg("fix-login"),
      "fix-login",
      [["api", initial]],
    ]);
    expect(made.record).toEqual(record("fix-login"));
    expect(await create("Fix Login!", api())).toEqual(made);
  });

  it("from inside another worktree of the repository: the source of its main worktree", async () => {
    workspace();
    git(api(), "worktree", "add", "-q", "-b", "spike", join(api(), ".worktrees/spike"));
    const made = await create("t1", join(api(), ".worktrees/spike"));
    expect([made.path, made.record.legs.map((l) => l.source)]).toEqual([leg("t1"), ["api"]]);
  });

  it("source_ref: the leg starts there", async () => {
    workspace();
    git(api(), "checkout", "-q", "-b", "feature");
    const feature = commitAll(api(), "feature work");
    git(api(), "checkout", "-q", "main");
    const made = await create("t1", api(), "feature");
    expect([made.record.legs[0]?.base, git(made.path, "rev-parse", "HEAD")]).toEqual([feature, feature]);
  });

  it("a directory in no git checkout: ERR_SOURCE_NOT_FOUND naming it, nothing made", async () => {
    workspace();
    mkdirSync(join(root, "plain"));
    const e = await arielErrorOf(create("t1", join(root, "plain")));
    expect([e.code, e.message, e.hint, e.exit, e.context]).toEqual([
      "ERR_SOURCE_NOT_FOUND",
      `${root}/plain is not inside a git checkout`,
      "run ariel-discover to list the workspace's sources",
      66,
      { path: join(root, "plain") },
    ]);
    expect(existsSync(join(root, ".ariel/tasks/t1.json"))).toBe(false);
  });

  it("a repository that is none of the workspace's sources: ERR_SOURCE_NOT_FOUND naming its main worktree", async () => {
    workspace();
    outside = tempDir("ariel-claude-other-");
    const other = join(outside, "r");
    initRepo(other);
    mkdirSync(join(other, "sub"));
    const e = await arielErrorOf(create("t1", join(other, "sub")));
    expect([e.code, e.message, e.hint, e.exit, e.context]).toEqual([
      "ERR_SOURCE_NOT_FOUND",
      `${other} is no source of the workspace ${root}`,
      "run ariel-discover to list the workspace's sources",
      66,
      { path: other },
    ]);
    expect(existsSync(join(root, ".ariel/tasks/t1.json"))).toBe(false);
  });
});

/** Task t1 with a leg in api and web (as `ariel-worktree add` makes it); its legs as recorded. */
async function t1(): Promise<Leg[]> {
  workspace();
  await addTask(ports(), { root, taskId: "t1", sources: ["api", "web"], noHooks: true });
  return record("t1").legs;
}

describe("claudeRemove: the leg at the worktree path", () => {
  it("clean: removed, that leg only (the task's other leg stays)", async () => {
    const [apiLeg] = await t1();
    expect(await remove(leg("t1"))).toEqual({ outcome: "removed", task: "t1", leg: apiLeg });
    expect([existsSync(leg("t1")), existsSync(leg("t1", "web"))]).toEqual([false, true]);
    expect(record("t1").legs.map((l: Leg) => [l.source, l.state])).toEqual([
      ["api", "removed"],
      ["web", "active"],
    ]);
    expect(git(join(root, "web"), "worktree", "list", "--porcelain")).toContain(
      `worktree ${leg("t1", "web")}\n`,
    );
  });

  it("given through a link: the path it resolves to", async () => {
    const [apiLeg] = await t1();
    symlinkSync(leg("t1"), join(root, "link"));
    expect(await remove(join(root, "link"))).toEqual({ outcome: "removed", task: "t1", leg: apiLeg });
  });

  it("local work: saved under the snapshot ref, kept; each leg's snapshot added to the record's artifacts", async () => {
    const [apiLeg, webLeg] = await t1();
    writeFileSync(join(leg("t1"), "draft.txt"), "api draft\n");
    writeFileSync(join(leg("t1", "web"), "draft.txt"), "web draft\n");
    const a = await remove(leg("t1"));
    const w = await remove(leg("t1", "web"));
    const snap = (repo: string, s: string) => ({
      ref: `refs/ariel/snapshots/t1/${s}`,
      commit: git(join(root, repo), "rev-parse", `refs/ariel/snapshots/t1/${s}`),
    });
    expect([a, w]).toEqual([
      { outcome: "kept", task: "t1", leg: apiLeg, snapshot: snap("api", "api") },
      { outcome: "kept", task: "t1", leg: webLeg, snapshot: snap("web", "web") },
    ]);
    const at = "2026-02-03T04:05:06.000Z";
    expect(record("t1").artifacts).toEqual([
      { kind: "snapshot", source: "api", createdAt: at, ...snap("api", "api") },
      { kind: "snapshot", source: "web", createdAt: at, ...snap("web", "web") },
    ]);
    expect(readFileSync(join(leg("t1"), "draft.txt"), "utf8")).toBe("api draft\n");
    expect(git(api(), "show", "refs/ariel/snapshots/t1/api:draft.txt")).toBe("api draft");
  });

  it("a refusal no snapshot answers (another branch): refused, nothing changed", async () => {
    const [apiLeg] = await t1();
    git(leg("t1"), "switch", "-q", "-c", "elsewhere");
    writeFileSync(join(leg("t1"), "draft.txt"), "draft\n");
    const before = [gitPicture(api()), readFileSync(join(root, ".ariel/tasks/t1.json"), "utf8")];
    const { removal, ...rest } = (await remove(leg("t1"))) as Extract<
      ClaudeRemoveResult,
      { outcome: "refused" }
    >;
    const reasons = removal.plan.legs.flatMap((l) => l.standing.map((x) => x.reason));
    expect([rest, removal.refused, reasons]).toEqual([
      { outcome: "refused", task: "t1", leg: apiLeg },
      true,
      ["branch-mismatch", "dirty"],
    ]);
    expect([gitPicture(api()), readFileSync(join(root, ".ariel/tasks/t1.json"), "utf8")]).toEqual(before);
  });

  it("a path no task holds (another worktree, or a leg removed already): ERR_NOT_OURS, left alone", async () => {
    await t1();
    const other = join(api(), ".worktrees/spike");
    git(api(), "worktree", "add", "-q", "-b", "spike", other);
    expect((await remove(leg("t1", "web"))).outcome).toBe("removed");
    for (const path of [other, leg("t1", "web")]) {
      const e = await arielErrorOf(remove(path));
      expect([e.code, e.message, e.hint, e.exit, e.context]).toEqual([
        "ERR_NOT_OURS",
        `"${path}" is a worktree of no ariel task in ${root}; left alone`,
        "ariel only removes worktrees it created",
        3,
        { path },
      ]);
    }
    expect([existsSync(other), existsSync(leg("t1"))]).toEqual([true, true]);
  });
});
