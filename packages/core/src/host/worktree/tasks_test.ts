/**
 * tasks.ts against real record files: which names in `.ariel/tasks` are tasks, the id order of
 * what readAllTasks returns, the `taskId` and `keepClosed` filters, and the problems it reports
 * (each naming its record's file unless the error names a file or path of its own).
 */
import { mkdirSync } from "node:fs";
import { join } from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { ArielError } from "../../errors.ts";
import type { DirEntry, FsPort } from "../../ports.ts";
import type { TaskRecord } from "../../schema/task.ts";
import { compareBytewise } from "../../worktree/_deps.ts";
import { taskLeg, taskRecord } from "../../worktree/_fixture.ts";
import { removeDir, writeFile } from "../_fixture.ts";
import { nodeFs } from "../fs.ts";
import { faultyPorts, makeRoot } from "./_fixture.ts";
import { readAllTasks } from "./tasks.ts";
import { openWorkspace, type WorktreeWorkspace } from "./workspace.ts";

let root: string;
let ws: WorktreeWorkspace;
beforeEach(async () => {
  root = makeRoot([]);
  ws = await openWorkspace(faultyPorts(), root);
});
afterEach(() => removeDir(root));

const recordPath = (id: string) => join(root, ".ariel/tasks", `${id}.json`);

/** Task `id` of this workspace, stored as its record file; `over` changes the record. */
function store(id: string, over: Partial<TaskRecord> = {}): TaskRecord {
  const rec = taskRecord({ taskId: id, workspace: { root, hash: ws.hash }, ...over });
  writeFile(recordPath(id), `${JSON.stringify(rec)}\n`);
  return rec;
}

/** `ws` whose filesystem lists directories in reverse byte order, plus `extra` entries. */
function listedBackwards(extra: DirEntry[] = []): WorktreeWorkspace {
  const readDir = async (p: string) =>
    [...(await nodeFs.readDir(p)), ...extra].sort((a, b) => compareBytewise(b.name, a.name));
  const fs: FsPort = { ...nodeFs, readDir };
  return { ...ws, ports: { ...ws.ports, fs } };
}

const ids = (records: TaskRecord[]) => records.map((r) => r.taskId);

describe("readAllTasks: which files are tasks, in what order", () => {
  it("no .ariel/tasks: nothing, and no problem", async () => {
    expect(await readAllTasks(ws)).toEqual({ records: [], problems: [] });
  });

  it("an unreadable .ariel/tasks: nothing, and no problem", async () => {
    mkdirSync(join(root, ".ariel/tasks"), { recursive: true });
    store("t1");
    const ports = faultyPorts([{ op: "readDir", path: join(root, ".ariel/tasks"), code: "EIO" }]);
    expect(await readAllTasks({ ...ws, ports })).toEqual({ records: [], problems: [] });
  });

  it("every record, sorted bytewise by id whatever the listing order", async () => {
    const stored = ["beta", "Zed", "alpha-2", "alpha"].map((id) => store(id));
    const { records, problems } = await readAllTasks(listedBackwards());
    expect(ids(records)).toEqual(["Zed", "alpha", "alpha-2", "beta"]);
    expect(records).toEqual([stored[1], stored[3], stored[2], stored[0]]);
    expect(problems).toEqual([]);
  });

  it("names that are no task record are passed over: other files, dot files, directories", async () => {
    store("t1");
    writeFile(join(root, ".ariel/tasks/notes.txt"), "not a task\n");
    writeFile(join(root, ".ariel/tasks/.t2.json"), "{}\n");
    writeFile(join(root, ".ariel/tasks/t1.json.lock"), "");
    mkdirSync(join(root, ".ariel/tasks/t3.json"));
    const { records, problems } = await readAllTasks(listedBackwards());
    expect([ids(records), problems]).toEqual([["t1"], []]);
  });

  it("a record listed but gone when read is left out, without a problem", async () => {
    store("t1");
    const { records, problems } = await readAllTasks(listedBackwards([{ name: "t0.json", kind: "file" }]));
    expect([ids(records), problems]).toEqual([["t1"], []]);
  });

  it.each<[string, string, string[]]>([
    ["a stored task", "alpha", ["alpha"]],
    ["a task whose id prefixes another", "t1", ["t1"]],
    ["an unknown task", "nope", []],
  ])("taskId: %s gives only its record", async (_, taskId, expected) => {
    for (const id of ["alpha", "t1", "t10", "t1-b"]) store(id);
    const { records, problems } = await readAllTasks(ws, taskId);
    expect([ids(records), problems]).toEqual([expected, []]);
  });
});

/** A closed task with nothing left, one with a snapshotted leg, an open one and a kept one. */
function storeStates(): void {
  store("open");
  store("spent", { state: "closed", legs: [taskLeg("api", { state: "removed" })] });
  store("snap", {
    state: "closed",
    legs: [taskLeg("api", { state: "removed" }), taskLeg("web", { state: "snapshotted" })],
  });
  store("kept", { state: "closed", legs: [taskLeg("api", { state: "removed" })] });
}

describe("readAllTasks: keepClosed leaves out closed tasks with nothing left", () => {
  it("without keepClosed every task is read, closed ones too", async () => {
    storeStates();
    const { records, problems } = await readAllTasks(ws);
    expect([ids(records), problems]).toEqual([["kept", "open", "snap", "spent"], []]);
  });

  it("a spent task keepClosed refuses is left out; the others are read; each id is asked once, in order", async () => {
    storeStates();
    const asked: string[] = [];
    const keep = (t: string) => {
      asked.push(t);
      return t === "kept";
    };
    const { records, problems } = await readAllTasks(ws, undefined, keep);
    expect([ids(records), problems]).toEqual([["kept", "open", "snap"], []]);
    expect(asked).toEqual(["kept", "open", "snap", "spent"]);
  });

  it("keepClosed saying yes to every task keeps the spent one", async () => {
    storeStates();
    const { records } = await readAllTasks(ws, undefined, () => true);
    expect(ids(records)).toEqual(["kept", "open", "snap", "spent"]);
  });

  it("a spent record that cannot be read by its text is read in full and reported", async () => {
    store("spent", { state: "closed", legs: [taskLeg("api", { state: "removed" })] });
    const ports = faultyPorts([{ op: "readFileNoFollow", path: recordPath("spent"), code: "EIO" }]);
    const { records, problems } = await readAllTasks({ ...ws, ports }, undefined, () => false);
    expect([ids(records), problems.map((p) => [p.code, p.context])]).toEqual([
      [],
      [["ERR_INTERNAL", { file: recordPath("spent") }]],
    ]);
  });
});

describe("readAllTasks: problems name their record's file", () => {
  it("a corrupt record: reported as read (its path), the good ones still returned", async () => {
    store("a");
    writeFile(recordPath("b"), "{not json\n");
    store("c");
    const { records, problems } = await readAllTasks(ws);
    expect(ids(records)).toEqual(["a", "c"]);
    expect(problems.map((p) => [p.code, p.message, p.hint, p.exit, p.context])).toEqual([
      [
        "ERR_RECORD_CORRUPT",
        `task record ${recordPath("b")}: not valid JSON`,
        "move the file aside (ariel-worktree reconcile reports it); nothing was changed",
        65,
        { path: recordPath("b"), task: "b" },
      ],
    ]);
  });

  it("another task's record: ERR_NOT_OURS keeps its own context (path), no file added", async () => {
    const other = taskRecord({ taskId: "other", workspace: { root, hash: ws.hash } });
    writeFile(recordPath("mine"), `${JSON.stringify(other)}\n`);
    const { records, problems } = await readAllTasks(ws);
    expect(records).toEqual([]);
    expect(problems.map((p) => [p.code, p.exit, p.context])).toEqual([
      ["ERR_NOT_OURS", 3, { task: "mine", path: recordPath("mine"), recordTask: "other", recordRoot: root }],
    ]);
  });

  it("a read that fails (EIO): ERR_INTERNAL naming the record's file, hint, exit and cause kept", async () => {
    store("t1");
    store("t2");
    const ports = faultyPorts([{ op: "readFileNoFollow", path: recordPath("t1"), code: "EIO" }]);
    const { records, problems } = await readAllTasks({ ...ws, ports });
    expect(ids(records)).toEqual(["t2"]);
    const [p] = problems;
    expect(problems).toHaveLength(1);
    expect([p?.code, p?.message, p?.hint, p?.exit, p?.context]).toEqual([
      "ERR_INTERNAL",
      `internal error: EIO: readFileNoFollow '${recordPath("t1")}'`,
      "this is a bug in ariel; please report it with the stack trace",
      70,
      { file: recordPath("t1") },
    ]);
    expect((p?.cause as { code?: string } | undefined)?.code).toBe("EIO");
  });
});

/** Reading t1's record throws `e` (an error thrown while reading it, as a port could). */
const throwingOnRead = (e: unknown) =>
  faultyPorts([
    {
      op: "readFileNoFollow",
      path: recordPath("t1"),
      before: () => {
        throw e;
      },
    },
  ]);

describe("readAllTasks: an error that names a file or path of its own keeps it", () => {
  it("an error naming a file of its own is reported as it is", async () => {
    store("t1");
    const own = new ArielError("ERR_CONFIG", "elsewhere broke", {
      hint: "look elsewhere",
      context: { file: "/elsewhere/ariel.config.json", line: 3 },
    });
    const { records, problems } = await readAllTasks({ ...ws, ports: throwingOnRead(own) });
    expect(records).toEqual([]);
    expect(problems).toHaveLength(1);
    expect(problems[0]).toBe(own);
    expect(problems[0]?.context).toEqual({ file: "/elsewhere/ariel.config.json", line: 3 });
  });

  it("an ArielError naming nothing gets the file, its other context, hint and exit kept", async () => {
    store("t1");
    const plain = new ArielError("ERR_CONFIG", "broke", { hint: "a hint", exit: 9, context: { n: 1 } });
    const { problems } = await readAllTasks({ ...ws, ports: throwingOnRead(plain) });
    const [p] = problems;
    expect([p?.code, p?.message, p?.hint, p?.exit, p?.context]).toEqual([
      "ERR_CONFIG",
      "broke",
      "a hint",
      9,
      { n: 1, file: recordPath("t1") },
    ]);
    expect(plain.context).toEqual({ n: 1 });
  });
});
