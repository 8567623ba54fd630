/**
 * task.ts against real record and lease files: requireTask's refusal, what withTaskLease and
 * checkTaskLease write (nothing for an unknown task), and which legs selectLegs picks, in what
 * order, with the hint its refusal gives.
 */
import { existsSync } from "node:fs";
import { join } from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { arielErrorOf } from "../../_fixture.ts";
import type { TaskRecord } from "../../schema/task.ts";
import { taskLeg, taskRecord } from "../../worktree/_fixture.ts";
import { removeDir, writeFile } from "../_fixture.ts";
import { faultyPorts, makeRoot, names } from "./_fixture.ts";
import { checkTaskLease, requireTask, selectLegs, withTaskLease } from "./task.ts";
import { openWorkspace, type WorktreeWorkspace } from "./workspace.ts";

let root: string;
let ws: WorktreeWorkspace;
beforeEach(async () => {
  root = makeRoot([]);
  ws = await openWorkspace(faultyPorts(), root);
});
afterEach(() => removeDir(root));

/** Task `id` of this workspace, stored as its record file. */
function store(id: string): TaskRecord {
  const rec = taskRecord({ taskId: id, workspace: { root, hash: ws.hash } });
  writeFile(join(root, ".ariel/tasks", `${id}.json`), `${JSON.stringify(rec)}\n`);
  return rec;
}

const NOT_FOUND_HINT = "run ariel-worktree list --all to see the tasks (closed ones too)";

describe("requireTask", () => {
  it("a stored task: its record", async () => {
    const rec = store("t1");
    expect(await requireTask(ws, "t1")).toEqual(rec);
  });

  it("an unknown task: ERR_TASK_NOT_FOUND (66) naming the task and the root", async () => {
    store("t1");
    const e = await arielErrorOf(requireTask(ws, "t2"));
    expect([e.code, e.message, e.hint, e.exit, e.context]).toEqual([
      "ERR_TASK_NOT_FOUND",
      `no task "t2" in ${root}`,
      NOT_FOUND_HINT,
      66,
      { task: "t2" },
    ]);
  });
});

describe("withTaskLease and checkTaskLease", () => {
  it("withTaskLease of an unknown task: ERR_TASK_NOT_FOUND, fn not run, no .ariel/ written", async () => {
    let ran = false;
    const e = await arielErrorOf(
      withTaskLease(ws.ports, ws, "t1", async () => {
        ran = true;
      }),
    );
    expect([e.code, e.message, ran, names(root)]).toEqual([
      "ERR_TASK_NOT_FOUND",
      `no task "t1" in ${root}`,
      false,
      [],
    ]);
  });

  it("withTaskLease of a stored task: fn runs under the task's lease, its value returned", async () => {
    store("t1");
    const leasePath = join(root, ".ariel/leases/t1.json");
    const seen = await withTaskLease(ws.ports, ws, "t1", async (lease) => ({
      task: lease.taskId,
      owner: lease.owner,
      path: lease.path,
      onDisk: existsSync(leasePath),
    }));
    expect(seen).toEqual({ task: "t1", owner: "tester", path: leasePath, onDisk: true });
  });

  it("checkTaskLease of an unknown task: ERR_TASK_NOT_FOUND, nothing written", async () => {
    const e = await arielErrorOf(checkTaskLease(ws.ports, ws, "t1"));
    expect([e.code, e.context, names(root)]).toEqual(["ERR_TASK_NOT_FOUND", { task: "t1" }, []]);
  });

  it("checkTaskLease of a free task: resolves, takes no lease, writes nothing", async () => {
    store("t1");
    await expect(checkTaskLease(ws.ports, ws, "t1")).resolves.toBeUndefined();
    expect(names(join(root, ".ariel"))).toEqual(["tasks"]);
  });

  it("checkTaskLease while another owner holds the lease: ERR_LEASE_HELD (75); its holder passes", async () => {
    store("t1");
    const other = { ...ws.ports, env: { ...ws.ports.env, ARIEL_OWNER: "other" } };
    const { held, own } = await withTaskLease(ws.ports, ws, "t1", async () => ({
      held: await arielErrorOf(checkTaskLease(other, ws, "t1")),
      own: await checkTaskLease(ws.ports, ws, "t1"),
    }));
    expect([held.code, held.exit, held.context.holder, own]).toEqual([
      "ERR_LEASE_HELD",
      75,
      "tester",
      undefined,
    ]);
  });
});

const legs = [taskLeg("api"), taskLeg("web"), taskLeg("libs/core")];
const record = taskRecord({ taskId: "t1", legs });

describe("selectLegs: the legs named, in the order named", () => {
  it.each<[string, readonly string[] | undefined, string[]]>([
    ["no sources: every leg", undefined, ["api", "web", "libs/core"]],
    ["an empty list: every leg", [], ["api", "web", "libs/core"]],
    ["one source", ["web"], ["web"]],
    ["in the order asked", ["libs/core", "api"], ["libs/core", "api"]],
  ])("%s", (_, sources, expected) => {
    const picked = selectLegs(record, sources);
    expect(picked.map((l) => l.source)).toEqual(expected);
    expect(picked).toEqual(expected.map((s) => legs.find((l) => l.source === s)));
  });
});

describe("selectLegs: a source the task has no leg for", () => {
  it.each<[string, string[], string, string]>([
    ["a typo: suggested", ["api", "wbe"], "wbe", 'did you mean "web"? its sources are: api, web, libs/core'],
    ["nothing close: the sources only", ["zzzz"], "zzzz", "its sources are: api, web, libs/core"],
  ])("%s", (_, sources, missing, hint) => {
    let e: unknown;
    try {
      selectLegs(record, sources);
    } catch (err) {
      e = err;
    }
    const { code, message, hint: h, exit, context } = e as Record<string, unknown>;
    expect([code, message, h, exit, context]).toEqual([
      "ERR_SOURCE_NOT_FOUND",
      `task "t1" has no leg for source "${missing}"`,
      hint,
      66,
      { task: "t1", source: missing },
    ]);
  });
});
