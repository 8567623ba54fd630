/**
 * taskPath (what `ariel-worktree path TASK [SOURCE]` prints, and `acd` cds to) against a real
 * workspace: which path each task and source gives, and the exact ERR_PATH_UNKNOWN (exit 1) for
 * an unknown or closed task, an unknown source and a leg that is not active.
 */
import { readFileSync, renameSync, rmSync, symlinkSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { arielErrorOf } from "../../_fixture.ts";
import { removeDir, tempDir } from "../_fixture.ts";
import { faultyPorts, makeRoot } from "./_fixture.ts";
import { addTask } from "./add.ts";
import { taskPath } from "./path.ts";
import { removeTask } from "./remove.ts";

let root: string;

/** Set the state of leg `source` of task `task` in its record, as an interrupted command could leave it. */
function setLegState(task: string, source: string, state: string): void {
  const file = join(root, ".ariel/tasks", `${task}.json`);
  const record = JSON.parse(readFileSync(file, "utf8"));
  for (const leg of record.legs) if (leg.source === source) leg.state = state;
  writeFileSync(file, `${JSON.stringify(record)}\n`);
}

/**
 * The workspace every test reads (none writes): two-leg `two`, one-leg `one`, `part` (web
 * removed), `snap` (web snapshotted), `lost` (web unknown), `gone` (closed); and, deleted behind
 * ariel's back, `vanished` (web's directory), `bare` (its only leg's), `nodir` (the whole task
 * directory), `linked` (its leg's directory moved and a link left in its place).
 */
beforeAll(async () => {
  root = makeRoot();
  const ports = faultyPorts();
  const add = (taskId: string, sources: string[]) => addTask(ports, { root, taskId, sources });
  for (const t of ["two", "part", "snap", "lost", "gone"]) await add(t, ["api", "web"]);
  await add("one", ["api"]);
  await removeTask(ports, { root, taskId: "part", sources: ["web"] });
  writeFileSync(join(root, ".ariel/worktrees/snap/web/wip.txt"), "work in progress\n");
  await removeTask(ports, { root, taskId: "snap", sources: ["web"], snapshot: true });
  await removeTask(ports, { root, taskId: "gone" });
  setLegState("lost", "web", "unknown");
  for (const t of ["vanished", "nodir"]) await add(t, ["api", "web"]);
  for (const t of ["bare", "linked"]) await add(t, ["api"]);
  for (const rel of ["vanished/web", "bare/api", "nodir"]) rmSync(wt(rel), { recursive: true, force: true });
  renameSync(wt("linked/api"), join(root, "moved"));
  symlinkSync(join(root, "moved"), wt("linked/api"));
}, 60_000);
afterAll(() => removeDir(root));

const wt = (rel: string) => join(root, ".ariel/worktrees", rel);
const pathOf = (taskId: string, source?: string) =>
  taskPath(faultyPorts(), { root, taskId, ...(source === undefined ? {} : { source }) });

describe("taskPath: where to cd", () => {
  // The named leg; without a source the only leg, or the task directory when there are several.
  it.each<[string, string | undefined, string]>([
    ["two", undefined, "two"],
    ["two", "api", "two/api"],
    ["two", "web", "two/web"],
    ["one", undefined, "one/api"],
    ["one", "api", "one/api"],
    ["part", undefined, "part"],
    ["part", "api", "part/api"],
    ["snap", "api", "snap/api"],
    ["lost", "api", "lost/api"],
    ["vanished", undefined, "vanished"],
    ["vanished", "api", "vanished/api"],
  ])("task %s, source %j: <worktrees>/%s", async (task, source, rel) => {
    expect(await pathOf(task, source)).toBe(wt(rel));
  });

  it("a root reached through a link: the canonical paths", async () => {
    const dir = tempDir("ariel-path-link-");
    try {
      symlinkSync(root, join(dir, "ws"));
      const ports = faultyPorts();
      const via = join(dir, "ws");
      expect(await taskPath(ports, { root: via, taskId: "two", source: "web" })).toBe(wt("two/web"));
      expect(await taskPath(ports, { root: via, taskId: "two" })).toBe(wt("two"));
      const e = await arielErrorOf(taskPath(ports, { root: via, taskId: "nope" }));
      expect(e.message).toBe(`no open task "nope" in ${root}`);
    } finally {
      removeDir(dir);
    }
  });
});

/** The parts of an error a caller sees. */
const parts = (e: { code: string; exit: number; message: string; hint: string; context: object }) => ({
  code: e.code,
  exit: e.exit,
  message: e.message,
  hint: e.hint,
  context: e.context,
});

describe("taskPath: ERR_PATH_UNKNOWN, exit 1", () => {
  // No such open task: a missing record and a closed task read the same.
  it.each<[string]>([["nope"], ["gone"]])("task %s: no open task", async (task) => {
    for (const source of [undefined, "api"]) {
      expect(parts(await arielErrorOf(pathOf(task, source)))).toEqual({
        code: "ERR_PATH_UNKNOWN",
        exit: 1,
        message: `no open task "${task}" in ${root}`,
        hint: "ariel-worktree list shows the open tasks",
        context: { task },
      });
    }
  });

  // A leg that is not active (removed, snapshotted, unknown): how to bring it back.
  it.each<[string, string]>([
    ["part", "removed"],
    ["snap", "snapshotted"],
    ["lost", "unknown"],
  ])("task %s, source web: the leg is %s", async (task, state) => {
    expect(parts(await arielErrorOf(pathOf(task, "web")))).toEqual({
      code: "ERR_PATH_UNKNOWN",
      exit: 1,
      message: `leg "web" of task "${task}" is ${state}`,
      hint: `bring it back with ariel-worktree restore --task ${task} --source web`,
      context: { task, source: "web", state },
    });
  });

  // A source the task has no leg for: its sources, and the nearest one when it is a typo.
  it.each<[string, string, string]>([
    ["two", "nope", "its sources are: api, web"],
    ["two", "wbe", 'did you mean "web"? its sources are: api, web'],
    ["two", "API", "its sources are: api, web"],
    ["one", "web", "its sources are: api"],
    ["one", "apx", 'did you mean "api"? its sources are: api'],
  ])("task %s, source %j: no leg", async (task, source, hint) => {
    expect(parts(await arielErrorOf(pathOf(task, source)))).toEqual({
      code: "ERR_PATH_UNKNOWN",
      exit: 1,
      message: `task "${task}" has no leg for source "${source}"`,
      hint,
      context: { task, source },
    });
  });
});

describe("taskPath: an invalid task id", () => {
  // Refused as invalid (65) before the workspace is read: not "unknown".
  it.each<[string]>([["../x"], [""], ["a b"]])("task id %j: ERR_INVALID_TASK_ID", async (taskId) => {
    const ports = faultyPorts();
    const e = await arielErrorOf(taskPath(ports, { root, taskId }));
    expect([e.code, e.exit]).toEqual(["ERR_INVALID_TASK_ID", 65]);
    expect(ports.fs.log).toEqual([]);
  });
});

describe("taskPath: a directory deleted behind ariel's back is ERR_PATH_UNKNOWN, exit 1", () => {
  // `cd "$(ariel-worktree path t)"` must fail in `path`, not in `cd`; a link in a leg's place is
  // not the leg (verify refuses it too).
  it.each<[string, string | undefined, string, string]>([
    ["vanished", "web", "vanished/web", " --source web"],
    ["bare", undefined, "bare/api", " --source api"],
    ["bare", "api", "bare/api", " --source api"],
    ["linked", "api", "linked/api", " --source api"],
    ["nodir", undefined, "nodir", ""],
  ])("task %s, source %j: %s is missing", async (task, source, rel, flag) => {
    const leg = flag === "" ? "" : `leg "${flag.slice(" --source ".length)}" of `;
    expect(parts(await arielErrorOf(pathOf(task, source)))).toEqual({
      code: "ERR_PATH_UNKNOWN",
      exit: 1,
      message: `${leg}task "${task}" is not on disk: ${wt(rel)} is missing`,
      hint: `ariel-worktree reconcile marks it missing, then ariel-worktree restore --task ${task}${flag} makes it again`,
      context: { task, ...(flag === "" ? {} : { source: flag.slice(" --source ".length) }), path: wt(rel) },
    });
  });
});
