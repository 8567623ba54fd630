import { readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { arielErrorOf } from "../../_fixture.ts";
import type { GitPort } from "../../ports.ts";
import { removeDir } from "../_fixture.ts";
import { nodeGit } from "../git.ts";
import { faultyPorts, gitPicture, makeRoot, stealLease } from "./_fixture.ts";
import { addTask } from "./add.ts";
import { removeTask } from "./remove.ts";

let root: string;
afterEach(() => removeDir(root));

const pictures = () => ({ api: gitPicture(join(root, "api")), web: gitPicture(join(root, "web")) });
const record = () => readFileSync(join(root, ".ariel/tasks/t1.json"), "utf8");

async function twoLegTask(): Promise<void> {
  root = makeRoot();
  await addTask(faultyPorts(), { root, taskId: "t1", sources: ["api", "web"] });
}

describe("removeTask under faults", () => {
  it.each(["ENOSPC", "EACCES", "EXDEV"])(
    "%s writing the 'cleaning' record: nothing is changed",
    async (code) => {
      await twoLegTask();
      const before = { git: pictures(), record: record() };
      const ports = faultyPorts([{ op: "writeAtomic", path: /\/\.ariel\/tasks\/t1\.json$/, code }]);
      await expect(removeTask(ports, { root, taskId: "t1" })).rejects.toMatchObject({ code });
      expect({ git: pictures(), record: record() }).toEqual(before);
      expect(ports.fs.log.filter((l) => /^(rmdir|unlink|remove) .*worktrees/.test(l))).toEqual([]);
    },
  );

  it("the lease is lost between the two legs: ERR_FENCED, the second leg and the record untouched", async () => {
    await twoLegTask();
    const before = pictures();
    const ports = faultyPorts([
      {
        op: "createExclusive",
        path: join(root, "web/.git/ariel-worktree.lock"),
        times: 1,
        before: () => void stealLease(root, "t1"),
      },
    ]);
    const e = await arielErrorOf(removeTask(ports, { root, taskId: "t1" }));
    expect([e.code, e.exit]).toEqual(["ERR_FENCED", 75]);
    // Exactly one change: api's worktree went before the loss (its branch is kept, as always).
    expect(pictures().api.worktrees).not.toContain("/.ariel/worktrees/t1/api");
    expect(pictures().api.refs).toBe(before.api.refs);
    expect(pictures().web).toEqual(before.web);
    // The record still says what the 'cleaning' write said: no leg marked after the loss.
    const rec = JSON.parse(record());
    expect([rec.state, rec.version, rec.fencingToken]).toEqual(["cleaning", 2, 2]);
    expect(rec.legs.map((l: { state: string }) => l.state)).toEqual(["active", "active"]);
  });
});

describe("removeTask after an earlier failed remove", () => {
  it("a leg left 'unknown' with uncommitted work is still checked and refused (work intact)", async () => {
    root = makeRoot(["api"]);
    await addTask(faultyPorts(), { root, taskId: "t1", sources: ["api"] });
    // The first remove fails in git: the leg is recorded 'unknown'.
    let failOnce = true;
    const flaky: GitPort = {
      run: async (args, options) => {
        if (failOnce && args[0] === "worktree" && args[1] === "remove") {
          failOnce = false;
          return { code: 128, stdout: "", stderr: "fatal: injected failure\n" };
        }
        return nodeGit.run(args, options);
      },
    };
    const e = await arielErrorOf(removeTask({ ...faultyPorts(), git: flaky }, { root, taskId: "t1" }));
    expect(e.code).toBe("ERR_GIT");
    expect(JSON.parse(record()).legs[0].state).toBe("unknown");

    const leg = join(root, ".ariel/worktrees/t1/api");
    writeFileSync(join(leg, "work.txt"), "uncommitted\n");
    writeFileSync(join(leg, "README.md"), "edited\n");
    const before = { git: gitPicture(join(root, "api")), record: record() };
    const r = await removeTask(faultyPorts(), { root, taskId: "t1" });
    expect(r.refused).toBe(true);
    expect(r.results).toEqual([
      expect.objectContaining({
        source: "api",
        outcome: "kept",
        refusal: expect.objectContaining({ code: "ERR_DIRTY" }),
      }),
    ]);
    expect({ git: gitPicture(join(root, "api")), record: record() }).toEqual(before);
    expect(readFileSync(join(leg, "work.txt"), "utf8")).toBe("uncommitted\n");
    expect(readFileSync(join(leg, "README.md"), "utf8")).toBe("edited\n");
  });
});
