/**
 * ariel's state files are ours, or they are refused: a task record that is a symbolic link (to a
 * valid record outside the workspace) is never read through and never replaced; every command
 * exits 77 ERR_NOT_REGULAR_FILE and changes nothing.
 */
import { readFileSync, readlinkSync, symlinkSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { tempDir } from "./helpers/git.ts";
import { errors, gitState, makeWorkspace, picture, removeDir, taskFile, wt } from "./worktree-fixtures.ts";

let root: string;
let outside: string;
beforeEach(async () => {
  root = makeWorkspace(["api"]);
  outside = tempDir("ariel-outside-");
  const made = await wt(root, ["add", "--task", "t1", "--source", "api", "--json"]);
  expect(made.code).toBe(0);
  // A valid record of t1, moved out of the workspace, and a link to it in its place.
  writeFileSync(join(outside, "t1.json"), readFileSync(join(root, ".ariel/tasks/t1.json")));
  expect(taskFile(root, "t1").taskId).toBe("t1");
  removeDir(join(root, ".ariel/tasks/t1.json"));
  symlinkSync(join(outside, "t1.json"), join(root, ".ariel/tasks/t1.json"));
});
afterEach(() => {
  removeDir(root);
  removeDir(outside);
});

describe("a symlinked task record", () => {
  it.each([
    [["remove", "--task", "t1"]],
    [["remove", "--task", "t1", "--snapshot"]],
    [["restore", "--task", "t1"]],
    [["add", "--task", "t1", "--source", "api"]],
    [["verify", "--task", "t1"]],
  ])("%j exits 77 ERR_NOT_REGULAR_FILE and changes nothing", async (args) => {
    const before = { files: picture(root), outside: picture(outside), git: gitState(join(root, "api")) };
    const r = await wt(root, [...args, "--json"]);
    expect(r.code).toBe(77);
    expect(errors(r.stderr)).toEqual([
      expect.objectContaining({
        code: "ERR_NOT_REGULAR_FILE",
        exit: 77,
        path: join(root, ".ariel/tasks/t1.json"),
      }),
    ]);
    expect({ files: picture(root), outside: picture(outside), git: gitState(join(root, "api")) }).toEqual(
      before,
    );
    expect(readlinkSync(join(root, ".ariel/tasks/t1.json"))).toBe(join(outside, "t1.json"));
  });

  it("a symlinked lease file is refused too: remove of that task exits 77, its worktree stays", async () => {
    expect((await wt(root, ["add", "--task", "t2", "--source", "api"])).code).toBe(0);
    writeFileSync(join(outside, "lease.json"), readFileSync(join(root, ".ariel/leases/t2.json")));
    removeDir(join(root, ".ariel/leases/t2.json"));
    symlinkSync(join(outside, "lease.json"), join(root, ".ariel/leases/t2.json"));
    const before = { outside: picture(outside), git: gitState(join(root, "api")) };
    const r = await wt(root, ["remove", "--task", "t2", "--json"]);
    expect([r.code, errors(r.stderr).map((e) => [e.code, e.path])]).toEqual([
      77,
      [["ERR_NOT_REGULAR_FILE", join(root, ".ariel/leases/t2.json")]],
    ]);
    expect({ outside: picture(outside), git: gitState(join(root, "api")) }).toEqual(before);
    expect(readlinkSync(join(root, ".ariel/leases/t2.json"))).toBe(join(outside, "lease.json"));
  });
});
