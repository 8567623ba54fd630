import { readFileSync } from "node:fs";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { arielErrorOf } from "../../_fixture.ts";
import { removeDir } from "../_fixture.ts";
import { faultyPorts, gitPicture, makeRoot, names, stealLease } from "./_fixture.ts";
import { addTask } from "./add.ts";
import { removeTask } from "./remove.ts";
import { restoreTask } from "./restore.ts";

let root: string;
afterEach(() => removeDir(root));

const pictures = () => ({ api: gitPicture(join(root, "api")), web: gitPicture(join(root, "web")) });
const record = () => readFileSync(join(root, ".ariel/tasks/t1.json"), "utf8");

/** A two-leg task, removed (branches kept): what restore brings back. */
async function removedTask(): Promise<void> {
  root = makeRoot();
  await addTask(faultyPorts(), { root, taskId: "t1", sources: ["api", "web"] });
  const r = await removeTask(faultyPorts(), { root, taskId: "t1" });
  expect(r.refused).toBe(false);
}

describe("restoreTask under faults", () => {
  it("ENOSPC copying web's overlay: web's new worktree is undone, api's restore is recorded", async () => {
    await removedTask();
    const web = pictures().web;
    const ports = faultyPorts([
      { op: "writeAtomic", path: join(root, ".ariel/worktrees/t1/web/.env"), code: "ENOSPC" },
    ]);
    const e = await arielErrorOf(restoreTask(ports, { root, taskId: "t1" }));
    expect([e.code, e.message]).toEqual(["ERR_INTERNAL", expect.stringContaining("ENOSPC")]);
    expect(pictures().web).toEqual(web);
    expect(names(join(root, ".ariel/worktrees/t1"))).toEqual(["api"]);
    expect(JSON.parse(record()).legs.map((l: { state: string }) => l.state)).toEqual(["active", "removed"]);
  });

  it("the lease is lost between the two legs: ERR_FENCED, web untouched, no record write", async () => {
    await removedTask();
    const before = { web: pictures().web, record: record() };
    const ports = faultyPorts([
      {
        op: "createExclusive",
        path: join(root, "web/.git/ariel-worktree.lock"),
        times: 1,
        before: () => void stealLease(root, "t1"),
      },
    ]);
    const e = await arielErrorOf(restoreTask(ports, { root, taskId: "t1" }));
    expect([e.code, e.exit]).toEqual(["ERR_FENCED", 75]);
    expect({ web: pictures().web, record: record() }).toEqual(before);
    expect(names(join(root, ".ariel/worktrees/t1"))).toEqual(["api"]); // made before the loss, left
  });
});
