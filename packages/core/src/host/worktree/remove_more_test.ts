/**
 * removeTask on real repositories, without the CLI: each refusal (exactly what it says, and that
 * nothing changed), runs at work, pre-remove hooks, and the removal paths (snapshots, legs already
 * gone or removed before, work written while remove runs, dry runs) with the git state and the
 * task record they leave.
 */
import { existsSync, mkdirSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { arielErrorOf } from "../../_fixture.ts";
import type { Ports } from "../../ports.ts";
import { runPaths } from "../../runs/paths.ts";
import type { RunRecord } from "../../runs/record.ts";
import { removeDir } from "../_fixture.ts";
import { listPortLeases } from "../lifecycle/port_registry.ts";
import { runFields } from "../runs/_fixture.ts";
import { selfMonitorRef } from "../runs/identity.ts";
import { createRun } from "../runs/store.ts";
import { faultyPorts, git, gitPicture, makeRoot, names } from "./_fixture.ts";
import { addTask } from "./add.ts";
import { type RemoveTaskOptions, removeTask } from "./remove.ts";
import { restoreTask } from "./restore.ts";
import { openWorkspace } from "./workspace.ts";

let root: string;
let sources: string[];
afterEach(() => removeDir(root));

/** Host ports whose user state (the port registry) lives in the test's directory. */
function ports(): Ports {
  const p = faultyPorts();
  return { ...p, env: { ...p.env, ARIEL_STATE_HOME: join(root, ".state") } };
}

const leg = (s: string) => join(root, ".ariel/worktrees/t1", s);
const recordText = () => readFileSync(join(root, ".ariel/tasks/t1.json"), "utf8");
const record = () => JSON.parse(recordText());
const remove = (o: Partial<RemoveTaskOptions> = {}) => removeTask(ports(), { root, taskId: "t1", ...o });
const head = (dir: string) => git(dir, "rev-parse", "HEAD");

/** A workspace with repositories `src` and task t1 with a leg in each. */
async function task(src: string[] = ["api", "web"], config?: object): Promise<void> {
  sources = src;
  root = makeRoot(src);
  if (config) writeFileSync(join(root, "ariel.config.json"), `${JSON.stringify(config)}\n`);
  await addTask(ports(), { root, taskId: "t1", sources: src });
}

/** Every file under `dir` with its content (directories end in `/`; `.git` files left out). */
function files(dir: string, at = ""): Record<string, string> {
  const out: Record<string, string> = {};
  if (!existsSync(dir)) return out;
  for (const n of readdirSync(dir).sort()) {
    const path = join(dir, n);
    if (n === ".git") continue;
    if (statSync(path).isDirectory()) Object.assign(out, { [`${at}${n}/`]: "" }, files(path, `${at}${n}/`));
    else out[`${at}${n}`] = readFileSync(path, "utf8");
  }
  return out;
}

/** Everything a refused removal must leave as it was: git, the record, the legs' files. */
function state() {
  return {
    git: Object.fromEntries(sources.map((s) => [s, gitPicture(join(root, s))])),
    record: recordText(),
    legs: Object.fromEntries(sources.map((s) => [s, files(leg(s))])),
    tasks: names(join(root, ".ariel/tasks")),
  };
}

/** A clean leg in a removal that refused: kept, no refusal of its own. */
const keptClean = (s: string) => ({ source: s, worktreePath: leg(s), outcome: "kept" });

describe("removeTask refuses a leg with work: exit-3 result, nothing changed anywhere", () => {
  it.each<[string, () => void, () => object]>([
    [
      "uncommitted changes",
      () => writeFileSync(join(leg("web"), "README.md"), "edited\n"),
      () => ({
        code: "ERR_DIRTY",
        reason: "dirty",
        message: `${leg("web")} has uncommitted changes: README.md`,
        items: ["README.md"],
      }),
    ],
    [
      "untracked files (more than three: the message names three)",
      () => {
        for (const n of ["a", "b", "c", "d"]) writeFileSync(join(leg("web"), `${n}.txt`), `${n}\n`);
      },
      () => ({
        code: "ERR_DIRTY",
        reason: "dirty",
        message: `${leg("web")} has uncommitted changes: a.txt, b.txt, c.txt and 1 more`,
        items: ["a.txt", "b.txt", "c.txt", "d.txt"],
      }),
    ],
    [
      "a changed overlay copy",
      () => writeFileSync(join(leg("web"), ".env"), "SECRET=changed\n"),
      () => ({
        code: "ERR_OVERLAY_CHANGED",
        reason: "overlay-changed",
        message: `overlay files changed in ${leg("web")}: .env`,
        items: [".env"],
      }),
    ],
    [
      "a foreign lock",
      () => {
        git(join(root, "web"), "worktree", "unlock", leg("web"));
        git(join(root, "web"), "worktree", "lock", "--reason", "bob's backup", leg("web"));
      },
      () => ({
        code: "ERR_FOREIGN_LOCK",
        reason: "foreign-lock",
        message: `${leg("web")} is locked by someone else (bob's backup)`,
      }),
    ],
    [
      "another branch checked out",
      () => git(leg("web"), "checkout", "-q", "-b", "other"),
      () => ({
        code: "ERR_BRANCH_MISMATCH",
        reason: "branch-mismatch",
        message: `${leg("web")} has other checked out, not ariel/t1`,
      }),
    ],
    [
      // Dirty and nested-work both stand: the one --snapshot does not answer is the one named.
      "an edit and a nested repository",
      () => {
        writeFileSync(join(leg("web"), "README.md"), "edited\n");
        git(leg("web"), "init", "-q", "vendor");
      },
      () => ({
        code: "ERR_NESTED_WORK",
        reason: "nested-work",
        message: `git repositories nested in ${leg("web")} hold work that exists only there: vendor/`,
        items: ["vendor/"],
      }),
    ],
  ])("%s", async (_name, make, refusal) => {
    await task();
    make();
    const before = state();
    const r = await remove();
    expect(r.refused).toBe(true);
    expect(r.results).toEqual([keptClean("api"), { ...keptClean("web"), refusal: refusal() }]);
    expect(r).not.toHaveProperty("hooks");
    expect(r.record).toEqual(JSON.parse(before.record));
    expect(state()).toEqual(before);
  });

  it("commits only HEAD's reflog holds (reset away): ERR_REFLOG_COMMITS naming them", async () => {
    await task(["api"]);
    writeFileSync(join(leg("api"), "work.txt"), "work\n");
    git(leg("api"), "add", "-A");
    git(leg("api"), "commit", "-q", "-m", "work");
    const lost = head(leg("api"));
    git(leg("api"), "reset", "-q", "--hard", "HEAD~1");
    const before = state();
    const r = await remove();
    expect(r.results).toEqual([
      {
        ...keptClean("api"),
        refusal: {
          code: "ERR_REFLOG_COMMITS",
          reason: "reflog",
          message: `HEAD's reflog or per-worktree refs of ${leg("api")} hold 1 commit(s) no other ref and not HEAD reaches (left by a detached HEAD, a reset, a rebase, a bisect or a deleted branch): ${lost.slice(0, 12)}`,
          items: [lost],
        },
      },
    ]);
    expect(state()).toEqual(before);
    expect(git(join(root, "api"), "cat-file", "-t", lost)).toBe("commit");
  });

  it("commits on a detached HEAD: the branch mismatch is named, not the commits --snapshot would keep", async () => {
    await task(["api"]);
    git(leg("api"), "checkout", "-q", "--detach");
    git(leg("api"), "commit", "-q", "--allow-empty", "-m", "detached work");
    const before = state();
    const r = await remove({ snapshot: true });
    expect(r.plan.legs[0]?.refusals.map((x) => x.reason)).toEqual(["branch-mismatch", "unreachable"]);
    expect(r.results).toEqual([
      {
        ...keptClean("api"),
        refusal: {
          code: "ERR_BRANCH_MISMATCH",
          reason: "branch-mismatch",
          message: `${leg("api")} has a detached HEAD checked out, not ariel/t1`,
        },
      },
    ]);
    expect(state()).toEqual(before);
  });
});

const RUN = "20261202T110901Z-aaaaaa";

/** A detached run of task t1 at work in `cwd` (its monitor is this process: `running`). */
async function runIn(cwd: string, more: Partial<RunRecord> = {}): Promise<void> {
  const { hash } = await openWorkspace(ports(), root);
  mkdirSync(runPaths(root, RUN).dir, { recursive: true });
  const at = { task: "t1", cwd, worktree: cwd, branch: "ariel/t1" };
  const child = { pid: process.pid, startTime: null, pgid: process.pid };
  await createRun(root, runFields({ root, hash }, RUN, { ...at, monitor: selfMonitorRef(), child, ...more }));
}

const inUse = {
  code: "ERR_LEASE_HELD",
  exit: 75,
  message: `task "t1" is in use by run agent (${RUN}, running in leg "web"); nothing was removed`,
  hint: "wait for it (ariel-runs wait agent) or stop it (ariel-runs kill agent), then retry",
  context: { task: "t1", runId: RUN, state: "running", source: "web" },
};

describe("removeTask while a detached run works in the task", () => {
  it("a run in a leg refuses it before any leg's own refusal, whatever --snapshot/--allow say; the dry run alike", async () => {
    await task();
    await runIn(leg("web"));
    writeFileSync(join(leg("web"), "notes.txt"), "work\n");
    const before = state();
    for (const o of [{}, { snapshot: true, allow: ["dirty"] }, { dryRun: true }]) {
      const e = await arielErrorOf(remove(o));
      expect({ code: e.code, exit: e.exit, message: e.message, hint: e.hint, context: e.context }).toEqual(
        inUse,
      );
    }
    expect(state()).toEqual(before);
  });

  it("the run whose own worktree this removal settles (exceptRun) is not in the way", async () => {
    await task();
    await runIn(leg("web"));
    const r = await remove({ exceptRun: RUN });
    expect(r.results.map((x) => [x.source, x.outcome])).toEqual([
      ["api", "removed"],
      ["web", "removed"],
    ]);
    expect(record().state).toBe("closed");
  });

  it("a run in a leg --source leaves out is not in the way; once the other leg is gone it is", async () => {
    await task();
    await runIn(leg("web"));
    const r = await remove({ sources: ["api"] });
    expect(r.results).toEqual([{ source: "api", worktreePath: leg("api"), outcome: "removed" }]);
    // api is removed before (skipped), web is acted on: the run in web refuses the whole removal.
    const before = state();
    const e = await arielErrorOf(remove());
    expect([e.code, e.message]).toEqual([inUse.code, inUse.message]);
    expect(state()).toEqual(before);
  });
});

/** The workspace's pre-remove hook: a script that logs each leg it runs in, then runs `then`. */
const HOOK = 'sh "$ARIEL_WORKSPACE_ROOT/stop.sh"';
async function hooked(src: string[], then: string): Promise<void> {
  await task(src, { hooks: { "pre-remove": HOOK } });
  writeFileSync(
    join(root, "stop.sh"),
    `echo "$ARIEL_SOURCE" >> "$ARIEL_WORKSPACE_ROOT/hooks.log"\n${then}\n`,
  );
}
const hookLog = () => readFileSync(join(root, "hooks.log"), "utf8").split("\n").filter(Boolean);

describe("removeTask's pre-remove hooks", () => {
  it("a hook that fails refuses the removal: ERR_HOOK_REFUSED for its leg, every leg kept, nothing changed", async () => {
    await hooked(["api", "db", "web"], 'test "$ARIEL_SOURCE" != web');
    expect((await remove({ sources: ["api"] })).results.map((x) => x.outcome)).toEqual(["removed"]);
    const before = state();
    const r = await remove();
    // api's line is from its own removal; now only the legs it removes ran it, in the record's order.
    expect(hookLog()).toEqual(["api", "db", "web"]);
    expect(r.hooks?.results.map((h) => [h.source, h.status, h.exit])).toEqual([
      ["db", "ok", 0],
      ["web", "failed", 1],
    ]);
    expect(r.hooks?.failed.map((h) => h.source)).toEqual(["web"]);
    expect(r.refused).toBe(true);
    expect(r.results).toEqual([
      { source: "api", worktreePath: leg("api"), outcome: "kept" },
      keptClean("db"),
      {
        ...keptClean("web"),
        refusal: {
          code: "ERR_HOOK_REFUSED",
          reason: "pre-remove",
          message: `web: pre-remove hook ${JSON.stringify(HOOK)} exited 1; nothing was removed`,
        },
      },
    ]);
    expect(state()).toEqual(before);
  });

  it("a hook that leaves a file behind: the leg checked again is dirty, refused, the file kept", async () => {
    await hooked(["api", "web"], 'if [ "$ARIEL_SOURCE" = web ]; then echo hook > left.txt; fi');
    const before = state();
    const r = await remove();
    expect(hookLog()).toEqual(["api", "web"]);
    expect(r.hooks?.failed).toEqual([]);
    expect(r.refused).toBe(true);
    expect(r.plan.legs.map((l) => l.action)).toEqual(["remove", "refuse"]);
    expect(r.results).toEqual([
      keptClean("api"),
      {
        ...keptClean("web"),
        refusal: {
          code: "ERR_DIRTY",
          reason: "dirty",
          message: `${leg("web")} has uncommitted changes: left.txt`,
          items: ["left.txt"],
        },
      },
    ]);
    expect(r.record).toEqual(JSON.parse(before.record));
    expect(state()).toEqual({
      ...before,
      legs: { ...before.legs, web: { ...before.legs.web, "left.txt": "hook\n" } },
    });
  });

  it("noHooks runs none: the removal goes on, the result has no hooks", async () => {
    await hooked(["api"], "exit 1");
    const r = await remove({ noHooks: true });
    expect(existsSync(join(root, "hooks.log"))).toBe(false);
    expect(r).not.toHaveProperty("hooks");
    expect(r.results).toEqual([{ source: "api", worktreePath: leg("api"), outcome: "removed" }]);
    expect(record().legs[0].state).toBe("removed");
  });

  it("no hook for a leg already gone (nothing is removed there): the result has no hooks", async () => {
    await hooked(["api"], "exit 1");
    rmSync(leg("api"), { recursive: true });
    const r = await remove();
    expect(existsSync(join(root, "hooks.log"))).toBe(false);
    expect(r).not.toHaveProperty("hooks");
    expect(r.plan.legs.map((l) => l.action)).toEqual(["forget"]);
    expect(r.results).toEqual([{ source: "api", worktreePath: leg("api"), outcome: "removed" }]);
  });

  it("a hook that passes: its progress and the removal's, the hooks in the result", async () => {
    await hooked(["api", "web"], "echo stopping");
    const steps: string[] = [];
    const r = await remove({
      onProgress: (p) => steps.push(`${p.index}/${p.total} ${p.source}: ${p.action}`),
    });
    expect(hookLog()).toEqual(["api", "web"]);
    expect(steps).toEqual([
      "1/2 api: pre-remove hook",
      "1/2 api: pre-remove: stopping",
      "2/2 web: pre-remove hook",
      "2/2 web: pre-remove: stopping",
      "1/2 api: removing worktree",
      "2/2 web: removing worktree",
    ]);
    expect(r.hooks?.results.map((h) => [h.source, h.status])).toEqual([
      ["api", "ok"],
      ["web", "ok"],
    ]);
    expect(r.results.map((x) => x.outcome)).toEqual(["removed", "removed"]);
  });
});

const worktrees = (s: string) =>
  gitPicture(join(root, s))
    .worktrees.split("\n")
    .filter((l) => l.startsWith("worktree "));
const branches = (s: string) =>
  git(join(root, s), "for-each-ref", "--format=%(refname) %(objectname)", "refs/heads");

describe("removeTask removes", () => {
  it("every clean leg: worktrees and task directory gone, branches kept at their heads, the task closed and its ports given back", async () => {
    await task(["api", "web"], { ports: ["web"] });
    writeFileSync(join(leg("web"), "work.txt"), "work\n");
    git(leg("web"), "add", "-A");
    git(leg("web"), "commit", "-q", "-m", "work");
    const webHead = head(leg("web"));
    const apiHead = head(leg("api"));
    const made = record();
    expect((await listPortLeases(ports())).map((l) => [l.task, l.name])).toEqual([["t1", "web"]]);
    const r = await remove();
    expect(r.refused).toBe(false);
    expect(r.results).toEqual([
      { source: "api", worktreePath: leg("api"), outcome: "removed" },
      { source: "web", worktreePath: leg("web"), outcome: "removed" },
    ]);
    expect(r.hooks).toMatchObject({ results: [], failed: [] });
    const { ports: _given, ...rest } = made;
    const legs = [
      { ...made.legs[0], state: "removed" },
      { ...made.legs[1], head: webHead, state: "removed" },
    ];
    const closed = {
      ...rest,
      state: "closed",
      legs,
      version: 3,
      fencingToken: 2,
      updatedAt: expect.any(String),
    };
    expect(record()).toEqual(closed);
    expect(r.record).toEqual(closed);
    expect(worktrees("api")).toEqual([`worktree ${join(root, "api")}`]);
    expect(worktrees("web")).toEqual([`worktree ${join(root, "web")}`]);
    expect(branches("api")).toBe(`refs/heads/ariel/t1 ${apiHead}\nrefs/heads/main ${apiHead}`);
    expect(branches("web").split("\n")[0]).toBe(`refs/heads/ariel/t1 ${webHead}`);
    expect(names(join(root, ".ariel/worktrees"))).toEqual([]);
    expect(await listPortLeases(ports())).toEqual([]);
  });

  it("only the legs --source names: the task stays active and keeps its ports", async () => {
    await task(["api", "web"], { ports: ["web"] });
    const made = record();
    const r = await remove({ sources: ["web"] });
    expect(r.results).toEqual([{ source: "web", worktreePath: leg("web"), outcome: "removed" }]);
    expect(record()).toEqual({
      ...made,
      legs: [made.legs[0], { ...made.legs[1], state: "removed" }],
      version: 3,
      fencingToken: 2,
      updatedAt: expect.any(String),
    });
    expect(worktrees("api")).toEqual([`worktree ${join(root, "api")}`, `worktree ${leg("api")}`]);
    expect(names(join(root, ".ariel/worktrees/t1"))).toEqual(["api"]);
    expect((await listPortLeases(ports())).map((l) => [l.task, l.name])).toEqual([["t1", "web"]]);
  });

  it("with snapshot: the leg with work is saved and snapshotted, the clean one just removed", async () => {
    await task();
    writeFileSync(join(leg("web"), "notes.txt"), "notes\n");
    writeFileSync(join(leg("web"), "README.md"), "edited\n");
    const steps: string[] = [];
    const r = await remove({
      snapshot: true,
      noHooks: true,
      onProgress: (p) => steps.push(`${p.index}/${p.total} ${p.source}: ${p.action}`),
    });
    const ref = "refs/ariel/snapshots/t1/web";
    const commit = git(join(root, "web"), "rev-parse", ref);
    expect(steps).toEqual(["1/2 api: removing worktree", "2/2 web: snapshotting and removing worktree"]);
    expect(r.plan.legs.map((l) => [l.action, l.snapshot])).toEqual([
      ["remove", false],
      ["remove", true],
    ]);
    expect(r.results).toEqual([
      { source: "api", worktreePath: leg("api"), outcome: "removed" },
      { source: "web", worktreePath: leg("web"), outcome: "snapshotted", snapshot: { ref, commit } },
    ]);
    const rec = record();
    expect([rec.state, rec.legs.map((l: { state: string }) => l.state)]).toEqual([
      "closed",
      ["removed", "snapshotted"],
    ]);
    expect(rec.artifacts).toEqual([
      { kind: "snapshot", ref, source: "web", commit, createdAt: expect.any(String) },
    ]);
    expect(git(join(root, "web"), "show", `${ref}:notes.txt`)).toBe("notes");
    expect(git(join(root, "web"), "show", `${ref}:README.md`)).toBe("edited");
    expect(git(join(root, "api"), "for-each-ref", "refs/ariel")).toBe("");
    expect(worktrees("web")).toEqual([`worktree ${join(root, "web")}`]);
  });

  it("a closed task again: every leg skipped as it was left (removed, snapshotted), nothing written", async () => {
    await task();
    writeFileSync(join(leg("web"), "notes.txt"), "notes\n");
    await remove({ snapshot: true });
    const before = state();
    const steps: unknown[] = [];
    const r = await remove({ onProgress: (p) => steps.push(p) });
    expect(r).toEqual({
      record: JSON.parse(before.record),
      plan: expect.objectContaining({ refused: false }),
      results: [
        { source: "api", worktreePath: leg("api"), outcome: "removed" },
        { source: "web", worktreePath: leg("web"), outcome: "snapshotted" },
      ],
      refused: false,
    });
    expect(r.plan.legs.map((l) => l.action)).toEqual(["skip", "skip"]);
    expect(steps).toEqual([]);
    expect(state()).toEqual(before);
  });

  it("a leg removed before is skipped (even with its repository gone), the other removed", async () => {
    await task(["api", "web"], { hooks: { "pre-remove": "true" } });
    await remove({ sources: ["api"] });
    rmSync(join(root, "api"), { recursive: true });
    const steps: string[] = [];
    const r = await remove({
      onProgress: (p) => steps.push(`${p.index}/${p.total} ${p.source}: ${p.action}`),
    });
    expect(steps).toEqual(["1/1 web: pre-remove hook", "1/1 web: removing worktree"]);
    expect(r.hooks?.results.map((h) => h.source)).toEqual(["web"]);
    expect(r.results).toEqual([
      { source: "api", worktreePath: leg("api"), outcome: "removed" },
      { source: "web", worktreePath: leg("web"), outcome: "removed" },
    ]);
    expect(record().legs.map((l: { state: string }) => l.state)).toEqual(["removed", "removed"]);
    expect(record().state).toBe("closed");
  });
});

describe("removeTask with a worktree already gone", () => {
  it("its directory deleted: git's admin entry (locked) dropped, the leg marked removed, the branch kept", async () => {
    await task();
    const branch = branches("api");
    rmSync(leg("api"), { recursive: true });
    const r = await remove();
    expect(r.plan.legs.map((l) => l.action)).toEqual(["forget", "remove"]);
    expect(r.results.map((x) => [x.source, x.outcome])).toEqual([
      ["api", "removed"],
      ["web", "removed"],
    ]);
    expect(worktrees("api")).toEqual([`worktree ${join(root, "api")}`]);
    expect(branches("api")).toBe(branch);
    expect(record().legs.map((l: { state: string }) => l.state)).toEqual(["removed", "removed"]);
  });

  it("gone between the plan and its turn, git's entry with it: the leg is only marked removed", async () => {
    await task();
    const r = await remove({
      noHooks: true,
      onProgress: (p) => {
        if (p.source !== "web") return;
        git(join(root, "web"), "worktree", "unlock", leg("web"));
        rmSync(leg("web"), { recursive: true });
        git(join(root, "web"), "worktree", "prune");
      },
    });
    expect(r.plan.legs.map((l) => l.action)).toEqual(["remove", "remove"]);
    expect(r.results.map((x) => [x.source, x.outcome])).toEqual([
      ["api", "removed"],
      ["web", "removed"],
    ]);
    expect(record().state).toBe("closed");
  });

  it("gone between the plan and its turn, git's entry still there: the entry is dropped", async () => {
    await task(["api"]);
    git(leg("api"), "commit", "-q", "--allow-empty", "-m", "on the branch");
    const made = record();
    const r = await remove({ noHooks: true, onProgress: () => rmSync(leg("api"), { recursive: true }) });
    expect(r.results.map((x) => x.outcome)).toEqual(["removed"]);
    expect(worktrees("api")).toEqual([`worktree ${join(root, "api")}`]);
    // Taken as gone: the record keeps the head it had (nothing was read from the worktree).
    expect(record().legs).toEqual([{ ...made.legs[0], state: "removed" }]);
  });
});

describe("removeTask: work written while it runs is kept", () => {
  it("a file written into the second leg before git deletes it: that leg kept (and locked), the first one removed", async () => {
    await task();
    const made = record();
    const r = await remove({
      noHooks: true,
      onProgress: (p) => {
        if (p.source === "web") writeFileSync(join(leg("web"), "late.txt"), "late\n");
      },
    });
    const message = `${leg("web")} has uncommitted changes: late.txt (written while remove ran; kept)`;
    expect(r.refused).toBe(true);
    expect(r.results).toEqual([
      { source: "api", worktreePath: leg("api"), outcome: "removed" },
      { ...keptClean("web"), refusal: { code: "ERR_DIRTY", reason: "dirty", message } },
    ]);
    const late = { reason: "dirty", code: "ERR_DIRTY", message, items: ["late.txt"] };
    expect(r.plan).toEqual({
      taskId: "t1",
      legs: [
        {
          source: "api",
          worktreePath: leg("api"),
          refusals: [],
          standing: [],
          action: "remove",
          snapshot: false,
        },
        {
          source: "web",
          worktreePath: leg("web"),
          refusals: [late],
          standing: [late],
          action: "refuse",
          snapshot: false,
        },
      ],
      refused: true,
    });
    const legs = [{ ...made.legs[0], state: "removed" }, made.legs[1]];
    expect(record()).toMatchObject({ state: "active", legs, version: 3 });
    expect(readFileSync(join(leg("web"), "late.txt"), "utf8")).toBe("late\n");
    expect(gitPicture(join(root, "web")).worktrees).toContain("locked ariel:t1");
    expect(names(join(root, ".ariel/worktrees/t1"))).toEqual(["web"]);
  });

  it("a snapshotted leg changed after its snapshot: kept, the snapshot recorded", async () => {
    await task(["api"]);
    writeFileSync(join(leg("api"), "notes.txt"), "notes\n");
    const ref = "refs/ariel/snapshots/t1/api";
    const release = join(root, "release");
    const env = {
      ARIEL_TEST_HOOKS: "1",
      ARIEL_TEST_PAUSE_AT: "remove:after-snapshot",
      ARIEL_TEST_RELEASE_FILE: release,
    };
    Object.assign(process.env, env);
    try {
      const running = remove({ snapshot: true, noHooks: true });
      for (let i = 0; i < 400 && git(join(root, "api"), "for-each-ref", ref) === ""; i++) await pause(25);
      writeFileSync(join(leg("api"), "notes.txt"), "more notes\n");
      writeFileSync(release, "");
      const r = await running;
      const commit = git(join(root, "api"), "rev-parse", ref);
      expect(r.results).toEqual([
        {
          ...keptClean("api"),
          snapshot: { ref, commit },
          refusal: {
            code: "ERR_DIRTY",
            reason: "dirty",
            message: `${leg("api")} changed after its snapshot ${ref} was taken (written while remove ran; kept)`,
          },
        },
      ]);
      expect(record()).toMatchObject({
        state: "active",
        legs: [{ state: "active" }],
        artifacts: [{ ref, commit }],
      });
      expect(readFileSync(join(leg("api"), "notes.txt"), "utf8")).toBe("more notes\n");
    } finally {
      for (const k of Object.keys(env)) delete process.env[k];
    }
  });
});

const pause = (ms: number) => new Promise((r) => setTimeout(r, ms));

describe("removeTask: what the record keeps", () => {
  it("a branch deleted while checked out, allowed: removed, the record keeps the last head it knew", async () => {
    await task(["api"]);
    git(leg("api"), "commit", "-q", "--allow-empty", "-m", "lost with the branch");
    git(leg("api"), "update-ref", "-d", "refs/heads/ariel/t1");
    const made = record();
    const refused = await remove();
    expect(refused.plan.legs[0]?.standing.map((x) => x.reason)).toEqual([
      "branch-missing",
      "dirty",
      "reflog",
    ]);
    const r = await remove({ allow: ["branch-missing", "dirty", "reflog"], noHooks: true });
    expect(r.results.map((x) => x.outcome)).toEqual(["removed"]);
    expect(record().legs).toEqual([{ ...made.legs[0], state: "removed" }]);
  });

  it("a second snapshot of a leg replaces its artifact in place (the first is its parent); a removal without one keeps them", async () => {
    await task();
    const work = (text: string) => {
      for (const s of sources) writeFileSync(join(leg(s), "notes.txt"), text);
    };
    const snaps = () =>
      record().artifacts.map((a: { source: string; ref: string; commit: string }) => [
        a.source,
        a.ref,
        a.commit,
      ]);
    const refOf = (s: string) => git(join(root, s), "rev-parse", `refs/ariel/snapshots/t1/${s}`);
    work("first\n");
    await remove({ snapshot: true, noHooks: true });
    const first = { api: refOf("api"), web: refOf("web") };
    await restoreTask(ports(), { root, taskId: "t1", noHooks: true });
    work("second\n");
    const r = await remove({ snapshot: true, noHooks: true });
    expect(r.results.map((x) => x.outcome)).toEqual(["snapshotted", "snapshotted"]);
    expect(snaps()).toEqual([
      ["api", "refs/ariel/snapshots/t1/api", refOf("api")],
      ["web", "refs/ariel/snapshots/t1/web", refOf("web")],
    ]);
    expect(refOf("api")).not.toBe(first.api);
    expect(git(join(root, "api"), "rev-parse", `${refOf("api")}^2`)).toBe(first.api);
    expect(git(join(root, "web"), "rev-parse", `${refOf("web")}^2`)).toBe(first.web);
    // A later removal without a snapshot keeps the task's snapshots.
    const kept = snaps();
    await restoreTask(ports(), { root, taskId: "t1", noHooks: true });
    await remove({ allow: ["dirty"], noHooks: true });
    expect(snaps()).toEqual(kept);
  });

  it("a leg whose directory name makes no clean snapshot ref: ERR_REF_PROTECTED before anything is written", async () => {
    await task(["api"]);
    const odd = join(root, ".ariel/worktrees/t1/a..b");
    git(join(root, "api"), "worktree", "unlock", leg("api"));
    git(join(root, "api"), "worktree", "move", leg("api"), odd);
    git(join(root, "api"), "worktree", "lock", "--reason", "ariel:t1", odd);
    const made = record();
    made.legs[0].worktreePath = odd;
    writeFileSync(join(root, ".ariel/tasks/t1.json"), `${JSON.stringify(made, null, 2)}\n`);
    writeFileSync(join(odd, "notes.txt"), "work\n");
    const before = state();
    const e = await arielErrorOf(remove({ snapshot: true, noHooks: true }));
    const ref = "refs/ariel/snapshots/t1/a..b";
    expect([e.code, e.message, e.context]).toEqual([
      "ERR_REF_PROTECTED",
      `ref "${ref}" has a bad name after refs/ariel/snapshots/t1/: contains "..": not changed`,
      { task: "t1", ref },
    ]);
    expect(state()).toEqual(before);
    expect(readFileSync(join(odd, "notes.txt"), "utf8")).toBe("work\n");
  });
});

/** Another live owner (this process, as "someone") holds the task's lease until `ms` from now. */
function holdLease(ms: number): void {
  const path = join(root, ".ariel/leases/t1.json");
  const lease = JSON.parse(readFileSync(path, "utf8"));
  const expiresAt = new Date(Date.now() + ms).toISOString();
  writeFileSync(path, `${JSON.stringify({ ...lease, owner: "someone", pid: process.pid, expiresAt })}\n`);
}

describe("removeTask and the task's lease", () => {
  it("held by another: ERR_LEASE_HELD at once (also for a dry run), nothing changed", async () => {
    await task(["api"]);
    holdLease(60_000);
    const before = state();
    for (const o of [{}, { dryRun: true }]) {
      const e = await arielErrorOf(remove(o));
      expect([e.code, e.exit, e.context.holder]).toEqual(["ERR_LEASE_HELD", 75, "someone"]);
    }
    expect(state()).toEqual(before);
  });

  it("leaseWaitMs: waits for a held lease to come free, then removes", async () => {
    await task(["api"]);
    holdLease(300);
    const r = await remove({ leaseWaitMs: 30_000, noHooks: true });
    expect(r.results.map((x) => x.outcome)).toEqual(["removed"]);
    expect(record().state).toBe("closed");
  });
});

/** An ended sandbox of a run (its `done` written): the next sync only removes its directory. */
function finishedSandbox(): string {
  const dir = join(root, ".ariel/sandbox", RUN);
  mkdirSync(dir, { recursive: true });
  writeFileSync(join(dir, "done"), "2026-01-01T00:00:00Z\n");
  return dir;
}

describe("removeTask dry run", () => {
  it("says what it would do and the pre-remove hooks it would run; writes nothing, syncs no sandbox", async () => {
    await task(["api", "web"], { hooks: { "pre-remove": "make stop" } });
    rmSync(leg("api"), { recursive: true });
    const sandbox = finishedSandbox();
    const before = { ...state(), lease: readFileSync(join(root, ".ariel/leases/t1.json"), "utf8") };
    const r = await remove({ dryRun: true, snapshot: true });
    const hook = {
      event: "pre-remove",
      source: "web",
      path: leg("web"),
      origin: "workspace",
      file: join(root, "ariel.config.json"),
      hook: "make stop",
      argv: ["sh", "-c", "make stop"],
      trusted: true,
    };
    expect(r).toEqual({
      record: JSON.parse(before.record),
      plan: {
        taskId: "t1",
        legs: [
          {
            source: "api",
            worktreePath: leg("api"),
            refusals: [],
            standing: [],
            action: "forget",
            snapshot: false,
          },
          {
            source: "web",
            worktreePath: leg("web"),
            refusals: [],
            standing: [],
            action: "remove",
            snapshot: false,
          },
        ],
        refused: false,
      },
      results: [keptClean("api"), keptClean("web")],
      refused: false,
      lifecycle: { ports: [], portRange: [20000, 29999], hooks: [hook], warnings: [] },
    });
    expect({ ...state(), lease: readFileSync(join(root, ".ariel/leases/t1.json"), "utf8") }).toEqual(before);
    expect(existsSync(sandbox)).toBe(true);
    // The real run syncs (here: clears) the task's sandboxes first.
    await remove({ noHooks: true });
    expect(existsSync(sandbox)).toBe(false);
  });

  it("with noHooks it lists no hook", async () => {
    await task(["api"], { hooks: { "pre-remove": "make stop" } });
    const r = await remove({ dryRun: true, noHooks: true });
    expect(r.lifecycle).toEqual({ ports: [], portRange: [20000, 29999], hooks: [], warnings: [] });
  });

  it("that would refuse: the refusal, no hooks listed, nothing written", async () => {
    await task(["api"], { hooks: { "pre-remove": "make stop" } });
    writeFileSync(join(leg("api"), "notes.txt"), "work\n");
    const before = state();
    const r = await remove({ dryRun: true });
    expect(r.refused).toBe(true);
    expect(r).not.toHaveProperty("lifecycle");
    expect(r.results).toEqual([
      {
        ...keptClean("api"),
        refusal: {
          code: "ERR_DIRTY",
          reason: "dirty",
          message: `${leg("api")} has uncommitted changes: notes.txt`,
          items: ["notes.txt"],
        },
      },
    ]);
    expect(state()).toEqual(before);
  });

  it("reads each present leg from git's admin files: no `git worktree list` run", async () => {
    await task();
    const calls: string[] = [];
    const p = ports();
    const logged: Ports = {
      ...p,
      git: {
        run: (args, o) => {
          calls.push(args.join(" "));
          return p.git.run(args, o);
        },
      },
    };
    const r = await removeTask(logged, { root, taskId: "t1", dryRun: true });
    expect(r.plan.legs.map((l) => l.action)).toEqual(["remove", "remove"]);
    expect(calls.filter((c) => c.includes("worktree list"))).toEqual([]);
  });
});
