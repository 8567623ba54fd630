import { chmodSync, existsSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { arielErrorOf } from "../../_fixture.ts";
import type { Fault } from "../../testing/faulty_fs.ts";
import { removeDir } from "../_fixture.ts";
import { faultyPorts, git, gitPicture, makeRoot, names, stealLease } from "./_fixture.ts";
import { addTask } from "./add.ts";

let root: string;
afterEach(() => removeDir(root));

const pictures = () => ({ api: gitPicture(join(root, "api")), web: gitPicture(join(root, "web")) });

describe("addTask under faults: a failed add leaves nothing of itself", () => {
  it.each<[string, (root: string) => Fault, string]>([
    [
      "ENOSPC writing the record",
      () => ({ op: "writeAtomic", path: /\/\.ariel\/tasks\/t1\.json$/, code: "ENOSPC" }),
      "ERR_INTERNAL",
    ],
    [
      "the record's rename fails (EXDEV)",
      () => ({ op: "writeAtomic", path: /\/\.ariel\/tasks\/t1\.json$/, code: "EXDEV" }),
      "ERR_INTERNAL",
    ],
    [
      "EACCES making the task directory",
      (r) => ({ op: "mkdirp", path: join(r, ".ariel/worktrees/t1"), code: "EACCES" }),
      "ERR_INTERNAL",
    ],
    [
      "EACCES copying the overlay into the second leg",
      (r) => ({ op: "readBytes", path: join(r, "web/.env"), code: "EACCES" }),
      "ERR_INTERNAL",
    ],
  ])("%s: no worktree, branch, directory or record is left", async (_name, fault, code) => {
    root = makeRoot();
    const before = pictures();
    const ports = faultyPorts([fault(root)]);
    const e = await arielErrorOf(addTask(ports, { root, taskId: "t1", sources: ["api", "web"] }));
    expect(e.code).toBe(code);
    expect(e.context.unwindProblems).toBeUndefined();
    expect(pictures()).toEqual(before);
    expect(names(join(root, ".ariel/worktrees"))).toEqual([]);
    expect(names(join(root, ".ariel/tasks"))).toEqual([]); // no record, lock or temp file
    expect(names(join(root, ".ariel/leases"))).toEqual(["t1.json"]);
  });

  it("the lease is lost between the two legs: ERR_FENCED, the first leg stays as it is, nothing more", async () => {
    root = makeRoot();
    const web = pictures().web;
    // Another process takes the task over while this one waits for web's repository lock.
    const ports = faultyPorts([
      {
        op: "createExclusive",
        path: join(root, "web/.git/ariel-worktree.lock"),
        times: 1,
        before: () => void stealLease(root, "t1"),
      },
    ]);
    const e = await arielErrorOf(addTask(ports, { root, taskId: "t1", sources: ["api", "web"] }));
    expect([e.code, e.exit, e.context.token, e.context.leaseToken]).toEqual(["ERR_FENCED", 75, 1, 2]);
    // Exactly what was made before the loss is there (the successor's to keep or reconcile)...
    const api = join(root, ".ariel/worktrees/t1/api");
    expect(git(join(root, "api"), "worktree", "list", "--porcelain")).toContain(
      `worktree ${api}\nHEAD ${git(join(root, "api"), "rev-parse", "HEAD")}\nbranch refs/heads/ariel/t1\nlocked ariel:t1`,
    );
    expect(readFileSync(join(api, ".env"), "utf8")).toBe("SECRET=api\n");
    // ...and nothing after it: no git call on web, no unwind, no record.
    expect(pictures().web).toEqual(web);
    expect(ports.fs.log.filter((l) => l.includes("/web/.git/ariel-worktree.lock"))).toEqual([
      `createExclusive ${join(root, "web/.git/ariel-worktree.lock")}`,
      `readFileNoFollow ${join(root, "web/.git/ariel-worktree.lock")}`,
      `unlink ${join(root, "web/.git/ariel-worktree.lock")}`,
    ]);
    expect(names(join(root, ".ariel/worktrees/t1"))).toEqual(["api"]);
    expect(existsSync(join(root, ".ariel/tasks/t1.json"))).toBe(false);
    expect(JSON.parse(readFileSync(join(root, ".ariel/leases/t1.json"), "utf8")).owner).toBe("successor");
  });

  it("the lease is lost after git failed: the unwind does not run", async () => {
    root = makeRoot();
    // web's checkout hook fails: git leaves the worktree it made and reports an error.
    const hook = join(root, "web/.git/hooks/post-checkout");
    writeFileSync(hook, "#!/bin/sh\nexit 1\n");
    chmodSync(hook, 0o755);
    // The successor takes over while this process waits for web's lock to unwind.
    const ports = faultyPorts([
      {
        op: "createExclusive",
        path: join(root, "web/.git/ariel-worktree.lock"),
        skip: 1,
        times: 1,
        before: () => void stealLease(root, "t1"),
      },
    ]);
    const e = await arielErrorOf(addTask(ports, { root, taskId: "t1", sources: ["api", "web"] }));
    expect([e.code, e.exit]).toEqual(["ERR_FENCED", 75]);
    // Both legs stay exactly as git left them: no worktree removed, no branch deleted.
    for (const s of ["api", "web"]) {
      expect(git(join(root, s), "worktree", "list", "--porcelain")).toContain(
        `worktree ${join(root, ".ariel/worktrees/t1", s)}\n`,
      );
      expect(git(join(root, s), "branch", "--list", "ariel/t1")).toContain("ariel/t1");
    }
    expect(ports.fs.log.filter((l) => /^(rmdir|unlink|remove) .*worktrees/.test(l))).toEqual([]);
  });
});

describe("addTask: the overlay copy goes through the filesystem port", () => {
  it("ENOSPC writing an overlay file into the second leg: both legs unwound", async () => {
    root = makeRoot();
    const before = pictures();
    const ports = faultyPorts([
      { op: "writeAtomic", path: join(root, ".ariel/worktrees/t1/web/.env"), code: "ENOSPC" },
    ]);
    await expect(addTask(ports, { root, taskId: "t1", sources: ["api", "web"] })).rejects.toMatchObject({
      code: "ERR_INTERNAL",
    });
    expect(pictures()).toEqual(before);
    expect(names(join(root, ".ariel/worktrees"))).toEqual([]);
  });
});
