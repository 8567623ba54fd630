import { existsSync, mkdirSync, readFileSync, symlinkSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import type { Fault } from "../../testing/faulty_fs.ts";
import { removeDir } from "../_fixture.ts";
import { withLease } from "../lease-store.ts";
import { faultyPorts, makeRoot, names } from "../worktree/_fixture.ts";
import { addTask } from "../worktree/add.ts";
import { removeTask } from "../worktree/remove.ts";
import { openWorkspace } from "../worktree/workspace.ts";
import { ARCHIVE_FILE, archiveTasks } from "./archive.ts";

let root = "";
afterEach(() => removeDir(root));

const recordText = (t: string) => readFileSync(join(root, `.ariel/tasks/${t}.json`), "utf8");
const archiveText = () => readFileSync(join(root, ARCHIVE_FILE), "utf8");
/** The archive line of a record: its stored JSON on one line. */
const line = (text: string) => `${JSON.stringify(JSON.parse(text))}\n`;

/** A workspace with closed tasks `closed` (made, then removed) and active tasks `active`. */
async function workspace(closed: string[], active: string[] = []) {
  root = makeRoot(["api"]);
  for (const t of [...closed, ...active]) await addTask(faultyPorts(), { root, taskId: t, sources: ["api"] });
  for (const t of closed) await removeTask(faultyPorts(), { root, taskId: t, allow: ["overlay-changed"] });
}

async function archive(taskIds: string[], faults: Fault[] = []) {
  const ports = faultyPorts(faults);
  const ws = await openWorkspace(ports, root);
  return { log: ports.fs.log, run: () => archiveTasks(ws, taskIds) };
}

describe("archiveTasks", () => {
  it("appends the batch in one write after a torn last line, then drops leases, then records (one fsync each)", async () => {
    await workspace(["t1", "t2"], ["t3"]);
    const [t1, t2, t3] = ["t1", "t2", "t3"].map(recordText);
    mkdirSync(join(root, ".ariel/archive"));
    writeFileSync(join(root, ARCHIVE_FILE), '{"v":1,"taskId":"cut sho');
    const { log, run } = await archive(["t1", "t2", "t3"]);
    expect(Object.fromEntries(await run())).toEqual({
      t1: { outcome: "done" },
      t2: { outcome: "done" },
      t3: { outcome: "skipped", reason: { code: "ERR_CONFLICT", message: "the task changed" } },
    });
    expect(archiveText()).toBe(`{"v":1,"taskId":"cut sho\n${line(t1 as string)}${line(t2 as string)}`);
    expect(names(join(root, ".ariel/tasks"))).toEqual(["t3.json"]);
    expect(recordText("t3")).toBe(t3);
    expect(names(join(root, ".ariel/leases"))).toEqual(["t3.json"]);
    const changes = log.filter((l) => /^(unlink|syncDir) .*\.ariel\/(tasks|leases)/.test(l));
    expect(changes.map((l) => l.replace(root, ""))).toEqual([
      "unlink /.ariel/leases/t1.json",
      "unlink /.ariel/leases/t2.json",
      "syncDir /.ariel/leases",
      "unlink /.ariel/tasks/t1.json",
      "unlink /.ariel/tasks/t2.json",
      "syncDir /.ariel/tasks",
      // The lease locks, held throughout, let go last.
      "unlink /.ariel/leases/t1.json.lock",
      "unlink /.ariel/leases/t2.json.lock",
      "unlink /.ariel/leases/t3.json.lock",
    ]);
  });

  it("a record that cannot be deleted: the error surfaces, the batch is archived, no lease file is left without its record", async () => {
    await workspace(["t1", "t2"]);
    const [t1, t2] = ["t1", "t2"].map(recordText);
    const { run } = await archive(["t1", "t2"], [{ op: "unlink", path: /\/tasks\/t2\.json$/, code: "EIO" }]);
    await expect(run()).rejects.toMatchObject({ code: "EIO" });
    expect(archiveText()).toBe(`${line(t1 as string)}${line(t2 as string)}`);
    // t2's record stays (a later gc archives it again); its lease file went first.
    expect(names(join(root, ".ariel/tasks"))).toEqual(["t2.json"]);
    expect(recordText("t2")).toBe(t2);
    expect(names(join(root, ".ariel/leases"))).toEqual([]);
  });

  it("an archive that is a symbolic link is refused before anything is deleted (ERR_NOT_REGULAR_FILE)", async () => {
    await workspace(["t1"]);
    const t1 = recordText("t1");
    mkdirSync(join(root, ".ariel/archive"));
    writeFileSync(join(root, "elsewhere"), "");
    symlinkSync(join(root, "elsewhere"), join(root, ARCHIVE_FILE));
    const { run } = await archive(["t1"]);
    await expect(run()).rejects.toMatchObject({ code: "ERR_NOT_REGULAR_FILE" });
    expect(readFileSync(join(root, "elsewhere"), "utf8")).toBe("");
    expect(recordText("t1")).toBe(t1);
    expect(existsSync(join(root, ".ariel/leases/t1.json"))).toBe(true);
    expect(existsSync(join(root, ".ariel/leases/t1.json.lock"))).toBe(false);
  });

  it("a new archive: its directory is synced once the file exists; a whole last line gets no newline before the next", async () => {
    await workspace(["t1", "t2"]);
    const [t1, t2] = ["t1", "t2"].map(recordText);
    const first = await archive(["t1"]);
    expect(Object.fromEntries(await first.run())).toEqual({ t1: { outcome: "done" } });
    expect(first.log.filter((l) => l.startsWith("syncDir")).map((l) => l.replace(root, ""))).toEqual([
      "syncDir /.ariel/archive",
      "syncDir /.ariel/leases",
      "syncDir /.ariel/tasks",
    ]);
    const second = await archive(["t2"]);
    await second.run();
    expect(second.log.filter((l) => l.startsWith("syncDir")).map((l) => l.replace(root, ""))).toEqual([
      "syncDir /.ariel/leases",
      "syncDir /.ariel/tasks",
    ]);
    expect(archiveText()).toBe(`${line(t1 as string)}${line(t2 as string)}`);
  });

  it("an empty archive file gets the records as they are, and its directory synced", async () => {
    await workspace(["t1"]);
    const t1 = recordText("t1");
    mkdirSync(join(root, ".ariel/archive"));
    writeFileSync(join(root, ARCHIVE_FILE), "");
    const { log, run } = await archive(["t1"]);
    await run();
    expect(archiveText()).toBe(line(t1));
    expect(log).toContain(`syncDir ${join(root, ".ariel/archive")}`);
  });

  it("a task whose lease is held is skipped, changing nothing; one with no record counts as archived already", async () => {
    await workspace(["t1", "t2"]);
    const [t1, t2] = ["t1", "t2"].map(recordText);
    const { run } = await archive(["t1", "t2", "t9"]);
    const out = await withLease(root, "t1", { owner: "someone-else" }, () => run());
    expect(out.get("t1")).toMatchObject({ outcome: "skipped", reason: { code: "ERR_LEASE_HELD" } });
    expect(out.get("t1")?.refused).toBeUndefined();
    expect([out.get("t2"), out.get("t9")]).toEqual([{ outcome: "done" }, { outcome: "done" }]);
    expect(recordText("t1")).toBe(t1);
    expect(archiveText()).toBe(line(t2 as string));
    expect(names(join(root, ".ariel/tasks"))).toEqual(["t1.json"]);
  });

  it("a record that is not ours is skipped as a refusal, the others archived", async () => {
    await workspace(["t1", "t2"]);
    const t2 = recordText("t2");
    const foreign = JSON.parse(recordText("t1"));
    foreign.workspace.hash = "0000000000000000";
    writeFileSync(join(root, ".ariel/tasks/t1.json"), `${JSON.stringify(foreign)}\n`);
    const { run } = await archive(["t1", "t2"]);
    const out = await run();
    expect(out.get("t1")).toMatchObject({ outcome: "skipped", refused: true });
    expect(out.get("t2")).toEqual({ outcome: "done" });
    expect(archiveText()).toBe(line(t2 as string));
    expect(names(join(root, ".ariel/tasks"))).toEqual(["t1.json"]);
  });

  it("an archive that is a directory is refused before anything is deleted (ERR_NOT_REGULAR_FILE)", async () => {
    await workspace(["t1"]);
    const t1 = recordText("t1");
    mkdirSync(join(root, ARCHIVE_FILE), { recursive: true });
    const { run } = await archive(["t1"]);
    await expect(run()).rejects.toMatchObject({ code: "ERR_NOT_REGULAR_FILE" });
    expect(recordText("t1")).toBe(t1);
    expect(existsSync(join(root, ".ariel/leases/t1.json"))).toBe(true);
  });
});
