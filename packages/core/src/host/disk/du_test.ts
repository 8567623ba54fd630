/**
 * diskUsage (`ariel-worktree du`) on real repositories: each leg split into checkout, untracked,
 * ignored and admin, every number compared with an independent lstat walk (st_blocks × 512,
 * a multiply-linked file once, links never followed).
 */
import { linkSync, lstatSync, readdirSync, readFileSync, rmSync, statfsSync, writeFileSync } from "node:fs";
import { join, resolve } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { arielErrorOf } from "../../_fixture.ts";
import { emptyUsage, type Usage } from "../../disk/usage.ts";
import { initRepo, removeDir, tempDir, writeFile } from "../_fixture.ts";
import { faultyPorts } from "../worktree/_fixture.ts";
import { addTask } from "../worktree/add.ts";
import { shareLegs } from "../worktree/share.ts";
import { diskUsage } from "./du.ts";

let root = "";
afterEach(() => removeDir(root));

/** Allocated bytes under `p` (lstat, links not followed), a multiply-linked file only once in `seen`. */
function alloc(p: string, seen = new Set<string>()): number {
  const st = lstatSync(p);
  const key = `${st.dev}:${st.ino}`;
  let n = 0;
  if (st.isDirectory() || st.nlink === 1 || !seen.has(key)) {
    if (!st.isDirectory() && st.nlink > 1) seen.add(key);
    n += st.blocks * 512;
  }
  if (st.isDirectory()) for (const name of readdirSync(p)) n += alloc(join(p, name), seen);
  return n;
}

const blocks = (p: string) => lstatSync(p).blocks * 512;
const leg = (task: string, source: string) => join(root, ".ariel/worktrees", task, source);
/** The admin dir a linked worktree's `.git` file names. */
const adminOf = (worktree: string) =>
  resolve(
    worktree,
    readFileSync(join(worktree, ".git"), "utf8")
      .replace(/^gitdir: /, "")
      .trim(),
  );
const usage = (u: Omit<Usage, "total">): Usage => ({
  ...u,
  total: u.checkout + u.untracked + u.ignored + u.admin,
});

/** A workspace of `sources`, each a repository ignoring `*.log` and `build/`, with tracked files in src/. */
function workspace(sources: readonly string[] = ["api"]): string {
  root = tempDir("ariel-du-");
  for (const s of sources) {
    initRepo(join(root, s), {
      "README.md": `# ${s}\n`,
      ".gitignore": "*.log\nbuild/\nnode_modules/\n",
      "src/a.txt": "a\n".repeat(3000),
      "package-lock.json": '{"lockfileVersion":3}\n',
    });
  }
  return root;
}

const add = (taskId: string, sources: readonly string[] = ["api"]) =>
  addTask(faultyPorts(), { root, taskId, sources });

describe("diskUsage: one leg, split by class", () => {
  it("tracked, untracked (next to tracked files and a new directory), ignored (a file, a directory) and admin (.git file and admin dir), exactly", async () => {
    workspace();
    await add("t1");
    const l = leg("t1", "api");
    writeFile(join(l, "README.md"), "edited, still tracked\n".repeat(400));
    writeFile(join(l, "src/new.txt"), "n".repeat(9000));
    writeFile(join(l, "notes/todo.md"), "t".repeat(5000));
    writeFile(join(l, "notes/deep/more.md"), "m".repeat(13_000));
    writeFile(join(l, "src/debug.log"), "d".repeat(7000));
    writeFile(join(l, "build/out/bundle.js"), "b".repeat(21_000));
    const r = await diskUsage(faultyPorts(), { root });
    const untracked = alloc(join(l, "src/new.txt")) + alloc(join(l, "notes"));
    const ignored = alloc(join(l, "src/debug.log")) + alloc(join(l, "build"));
    const admin = blocks(join(l, ".git")) + alloc(adminOf(l));
    const checkout = alloc(l) - blocks(join(l, ".git")) - untracked - ignored;
    expect(adminOf(l)).toBe(join(root, "api/.git/worktrees/api"));
    const u = usage({ checkout, untracked, ignored, admin, hardlinked: 0 });
    expect(r.legs).toEqual([{ task: "t1", source: "api", path: l, present: true, usage: u }]);
    expect(r.tasks).toEqual([{ task: "t1", usage: u }]);
    expect(r.total).toEqual(u);
    expect(r.stores).toEqual([]);
    expect(r.warnings).toEqual([]);
    // Each class holds what was put there (no class swallowed by another).
    expect(untracked).toBeGreaterThanOrEqual(27_000);
    expect(ignored).toBeGreaterThanOrEqual(28_000);
    expect(checkout).toBeGreaterThanOrEqual(6000 + 8800);
  });

  it("a directory holding only ignored files is ignored, an empty new directory untracked", async () => {
    workspace();
    await add("t1");
    const l = leg("t1", "api");
    // git lists `logs/` both as untracked (--others --directory) and as ignored: ignored wins.
    writeFile(join(l, "logs/a.log"), "l".repeat(17_000));
    writeFile(join(l, "logs/b.log"), "l".repeat(3000));
    writeFile(join(l, "empty/.keep-nothing"), "");
    rmSync(join(l, "empty/.keep-nothing"));
    const r = await diskUsage(faultyPorts(), { root });
    expect(r.legs[0]?.usage).toMatchObject({
      ignored: alloc(join(l, "logs")),
      untracked: alloc(join(l, "empty")),
    });
  });

  // docs/disk.md: `untracked` is "files git would show as new (not ignored)". A new directory is
  // summed as untracked as a whole; what git lists as ignored inside it (a new package's
  // node_modules/) once stayed there too, shown as hundreds of MB of local work.
  it("an ignored file and directory inside a new directory count as ignored, not untracked", async () => {
    workspace();
    await add("t1");
    const l = leg("t1", "api");
    writeFile(join(l, "pkg/index.js"), "i".repeat(5000));
    writeFile(join(l, "pkg/trace.log"), "t".repeat(11_000));
    writeFile(join(l, "pkg/node_modules/dep/index.js"), "d".repeat(40_000));
    const r = await diskUsage(faultyPorts(), { root });
    const ignored = alloc(join(l, "pkg/trace.log")) + alloc(join(l, "pkg/node_modules"));
    expect(r.legs[0]?.usage).toMatchObject({
      ignored,
      untracked: alloc(join(l, "pkg")) - ignored,
    });
  });
});

describe("diskUsage: hardlinks and legs gone", () => {
  it("a file linked into two tasks counts in the first one walked, as hardlinked; measured alone, the other task pays for it", async () => {
    workspace();
    await add("t1");
    await add("t2");
    const [l1, l2] = [leg("t1", "api"), leg("t2", "api")];
    writeFile(join(l1, "build/big.bin"), "x".repeat(50_000));
    writeFile(join(root, "outside.bin"), "o".repeat(30_000));
    linkSync(join(l1, "build/big.bin"), join(l2, "build-copy.log"));
    // Linked from outside every leg: counted once, in its leg, and hardlinked.
    linkSync(join(root, "outside.bin"), join(l2, "src/linked.txt"));
    const big = blocks(join(l1, "build/big.bin"));
    const outside = blocks(join(root, "outside.bin"));
    const all = await diskUsage(faultyPorts(), { root });
    const [u1, u2] = all.legs.map((x) => x.usage);
    expect(u1).toMatchObject({ ignored: alloc(join(l1, "build")), hardlinked: big });
    expect(u2).toMatchObject({ ignored: 0, untracked: outside, hardlinked: outside });
    expect(u2?.total).toBe(alloc(l2) - big + alloc(adminOf(l2)));
    expect(all.total.total).toBe((u1?.total ?? 0) + (u2?.total ?? 0));
    expect(all.total.hardlinked).toBe(big + outside);
    // The set of files seen is per run: t2 alone pays for the file t1 holds too.
    const alone = await diskUsage(faultyPorts(), { root, taskId: "t2" });
    expect(alone.legs.map((x) => x.task)).toEqual(["t2"]);
    expect(alone.legs[0]?.usage).toEqual({
      ...u2,
      ignored: big,
      total: (u2?.total ?? 0) + big,
      hardlinked: big + outside,
    });
    expect(alone.total).toEqual(alone.legs[0]?.usage);
  });

  it("a leg whose worktree is gone: present false, all zeros, its admin dir not counted; the task is its other leg", async () => {
    workspace(["api", "web"]);
    await add("t1", ["api", "web"]);
    const web = leg("t1", "web");
    const webAdmin = adminOf(web);
    removeDir(web);
    expect(lstatSync(webAdmin).isDirectory()).toBe(true); // git still has it: not ours to count
    const api = leg("t1", "api");
    const r = await diskUsage(faultyPorts(), { root });
    const a = usage({
      checkout: alloc(api) - blocks(join(api, ".git")),
      untracked: 0,
      ignored: 0,
      admin: blocks(join(api, ".git")) + alloc(adminOf(api)),
      hardlinked: 0,
    });
    expect(r.legs).toEqual([
      { task: "t1", source: "api", path: api, present: true, usage: a },
      { task: "t1", source: "web", path: web, present: false, usage: emptyUsage() },
    ]);
    expect(r.tasks).toEqual([{ task: "t1", usage: a }]);
    expect(r.total).toEqual(a);
    expect(r.warnings).toEqual([]);
  });

  it("a leg directory replaced by a file is not present either", async () => {
    workspace();
    await add("t1");
    const l = leg("t1", "api");
    removeDir(l);
    writeFileSync(l, "not a directory\n");
    const r = await diskUsage(faultyPorts(), { root });
    expect(r.legs).toEqual([{ task: "t1", source: "api", path: l, present: false, usage: emptyUsage() }]);
    expect(r.total).toEqual(emptyUsage());
  });
});

describe("diskUsage: the workspace, --task, and what cannot be read", () => {
  it("a workspace without tasks: nothing measured, the free space of the worktree root's filesystem", async () => {
    workspace();
    const r = await diskUsage(faultyPorts(), { root });
    expect({ ...r, free: undefined }).toEqual({
      legs: [],
      tasks: [],
      stores: [],
      total: emptyUsage(),
      free: undefined,
      warnings: [],
    });
    // No worktree root yet: the nearest directory that exists, on the same filesystem.
    expect(r.free.path).toBe(root);
    const fs = statfsSync(root);
    expect(r.free.size).toBe(fs.blocks * fs.bsize);
    expect(r.free.free).toBeGreaterThan(0);
    expect(r.free.free).toBeLessThanOrEqual(r.free.size);
  });

  it("--task: only that task's legs, in their order; an unknown task is ERR_TASK_NOT_FOUND (66)", async () => {
    workspace(["api", "web"]);
    await add("t1", ["api"]);
    await add("t2", ["web", "api"]);
    const r = await diskUsage(faultyPorts(), { root, taskId: "t2" });
    expect(r.legs.map((l) => [l.task, l.source, l.path])).toEqual([
      ["t2", "web", leg("t2", "web")],
      ["t2", "api", leg("t2", "api")],
    ]);
    expect(r.tasks.map((t) => t.task)).toEqual(["t2"]);
    expect(r.free.path).toBe(join(root, ".ariel/worktrees"));
    const all = await diskUsage(faultyPorts(), { root });
    expect(all.tasks.map((t) => t.task)).toEqual(["t1", "t2"]);
    expect(all.tasks[1]).toEqual(r.tasks[0]);
    const e = await arielErrorOf(diskUsage(faultyPorts(), { root, taskId: "t3" }));
    expect([e.code, e.exit, e.message, e.context]).toEqual([
      "ERR_TASK_NOT_FOUND",
      66,
      `no task "t3" in ${root}`,
      { task: "t3" },
    ]);
  });

  it("a leg git cannot read is measured as all checkout, with WARN_DU_NOT_A_WORKTREE naming it", async () => {
    workspace(["api", "web"]);
    await add("t1", ["api", "web"]);
    const api = leg("t1", "api");
    rmSync(join(api, ".git")); // no longer a worktree; no repository above it either
    writeFile(join(api, "build/out.js"), "o".repeat(8000));
    const r = await diskUsage(faultyPorts(), { root });
    expect(r.legs[0]).toEqual({
      task: "t1",
      source: "api",
      path: api,
      present: true,
      usage: usage({ checkout: alloc(api), untracked: 0, ignored: 0, admin: 0, hardlinked: 0 }),
    });
    expect(r.legs[1]?.usage.admin).toBeGreaterThan(0); // the other leg is measured as usual
    expect(r.warnings).toEqual([
      {
        code: "WARN_DU_NOT_A_WORKTREE",
        path: api,
        reason: expect.stringMatching(
          new RegExp(`^git ls-files failed in ${api}: fatal: not a git repository`),
        ),
      },
    ]);
  });

  it("a leg whose admin dir git pruned: its .git file still counts as admin, the rest as checkout, with a warning", async () => {
    workspace();
    await add("t1");
    const l = leg("t1", "api");
    removeDir(adminOf(l));
    const r = await diskUsage(faultyPorts(), { root });
    const gitFile = blocks(join(l, ".git"));
    expect(r.legs[0]?.usage).toEqual(
      usage({ checkout: alloc(l) - gitFile, untracked: 0, ignored: 0, admin: gitFile, hardlinked: 0 }),
    );
    expect(r.warnings).toEqual([
      { code: "WARN_DU_NOT_A_WORKTREE", path: l, reason: expect.stringContaining("not a git repository") },
    ]);
  });

  it("a task record that cannot be read is a warning naming its file; the other tasks are measured", async () => {
    workspace();
    await add("t1");
    const bad = join(root, ".ariel/tasks/t0.json");
    writeFileSync(bad, "{ not json\n");
    const r = await diskUsage(faultyPorts(), { root });
    expect(r.legs.map((l) => l.task)).toEqual(["t1"]);
    expect(r.warnings).toEqual([
      { code: "ERR_RECORD_CORRUPT", path: bad, reason: `task record ${bad}: not valid JSON` },
    ]);
  });
});

describe("diskUsage: share stores (--share-mode store)", () => {
  it("a store is counted once, all ignored, with the legs using it; in no task, and left out with --task", async () => {
    workspace();
    const api = join(root, "api");
    writeFile(join(api, "node_modules/a/index.js"), "a".repeat(20_000));
    writeFile(join(api, "node_modules/b/lib/x.js"), "b".repeat(6000));
    for (const t of ["t1", "t2"]) {
      const { record } = await add(t);
      const s = await shareLegs(faultyPorts(), root, record.legs, ["node_modules"], "store");
      expect(s.warnings).toEqual([]);
    }
    const [key, ...more] = readdirSync(join(root, ".ariel/share")).filter((n) => !n.startsWith("."));
    expect(more).toEqual([]);
    const store = join(root, ".ariel/share", key as string);
    const r = await diskUsage(faultyPorts(), { root });
    // The store's files are other names of the source's: every one hardlinked.
    const files = blocks(join(api, "node_modules/a/index.js")) + blocks(join(api, "node_modules/b/lib/x.js"));
    const storeUsage = { ...emptyUsage(), ignored: alloc(store), total: alloc(store), hardlinked: files };
    expect(r.stores).toEqual([
      {
        key,
        path: store,
        source: "api",
        dir: "node_modules",
        users: ["t1/api", "t2/api"],
        usage: storeUsage,
      },
    ]);
    // Each leg pays for its own node_modules (a directory of links), never the store's files.
    for (const [i, t] of ["t1", "t2"].entries()) {
      const l = leg(t, "api");
      expect(r.legs[i]?.usage).toMatchObject({ ignored: alloc(join(l, "node_modules")), hardlinked: 0 });
    }
    expect(r.total.total).toBe(
      (r.tasks[0]?.usage.total ?? 0) + (r.tasks[1]?.usage.total ?? 0) + alloc(store),
    );
    expect(r.total.hardlinked).toBe(files);
    const one = await diskUsage(faultyPorts(), { root, taskId: "t1" });
    expect(one.stores).toEqual([]);
    expect(one.total).toEqual(r.tasks[0]?.usage);
  });
});

describe("diskUsage: the admin dir a leg's .git file names", () => {
  it.each([
    // name, the .git file, whether git reads it
    ["CRLF line ends (made on Windows): git reads it", (admin: string) => `gitdir: ${admin}\r\n`, true],
    // git keeps the spaces and refuses the file; the directory named is still this leg's admin
    // dir, and its bytes are still the leg's cost.
    ["spaces after the path: git refuses it", (admin: string) => `gitdir: ${admin} \t \n`, false],
  ])("a .git file with %s; the admin dir it names counts as admin", async (_, text, gitReads) => {
    workspace();
    await add("t1");
    const l = leg("t1", "api");
    const admin = adminOf(l);
    writeFileSync(join(l, ".git"), text(admin));
    const r = await diskUsage(faultyPorts(), { root });
    const gitFile = blocks(join(l, ".git"));
    expect(r.legs[0]?.usage).toEqual(
      usage({
        checkout: alloc(l) - gitFile,
        untracked: 0,
        ignored: 0,
        admin: gitFile + alloc(admin),
        hardlinked: 0,
      }),
    );
    expect(r.warnings).toEqual(
      gitReads ? [] : [{ code: "WARN_DU_NOT_A_WORKTREE", path: l, reason: expect.any(String) }],
    );
  });

  it.each([
    ["a line that only mentions a gitdir (`# gitdir: <admin>`)", (admin: string) => `# gitdir: ${admin}\n`],
    ["a gitdir inside the leg (counted once, with the leg)", () => "gitdir: inner\n"],
  ])("a .git file git cannot use, %s: its admin dir is not walked, the leg is checkout", async (_, text) => {
    workspace();
    await add("t1");
    const l = leg("t1", "api");
    writeFile(join(l, "inner/HEAD"), "h".repeat(12_000));
    writeFileSync(join(l, ".git"), text(adminOf(l)));
    const r = await diskUsage(faultyPorts(), { root });
    const gitFile = blocks(join(l, ".git"));
    expect(r.legs[0]?.usage).toEqual(
      usage({ checkout: alloc(l) - gitFile, untracked: 0, ignored: 0, admin: gitFile, hardlinked: 0 }),
    );
    expect(r.warnings).toEqual([{ code: "WARN_DU_NOT_A_WORKTREE", path: l, reason: expect.any(String) }]);
  });
});

describe("diskUsage: what is not walked, and whom a store serves", () => {
  it("a leg that is a file now is not walked: a later leg holding another link of it counts it", async () => {
    workspace();
    await add("t1");
    await add("t2");
    const [l1, l2] = [leg("t1", "api"), leg("t2", "api")];
    writeFile(join(l2, "build/big.bin"), "b".repeat(50_000));
    removeDir(l1);
    linkSync(join(l2, "build/big.bin"), l1);
    const r = await diskUsage(faultyPorts(), { root });
    const big = blocks(join(l2, "build/big.bin"));
    expect(r.legs[0]).toEqual({ task: "t1", source: "api", path: l1, present: false, usage: emptyUsage() });
    expect(r.legs[1]?.usage).toMatchObject({ ignored: alloc(join(l2, "build")), hardlinked: big });
    expect(r.total.hardlinked).toBe(big);
  });

  it("a store's users are the legs linking into it, not every leg of the tasks", async () => {
    workspace();
    writeFile(join(root, "api", "node_modules/a/index.js"), "a".repeat(20_000));
    const { record } = await add("t1");
    expect((await shareLegs(faultyPorts(), root, record.legs, ["node_modules"], "store")).warnings).toEqual(
      [],
    );
    await add("t2");
    const r = await diskUsage(faultyPorts(), { root });
    expect(r.legs.map((l) => l.task)).toEqual(["t1", "t2"]);
    expect(r.stores.map((s) => s.users)).toEqual([["t1/api"]]);
  });

  it("a task record that cannot be read for another reason (EIO): a warning with its path, as for a damaged one", async () => {
    workspace();
    await add("t1");
    const bad = join(root, ".ariel/tasks/t0.json");
    writeFileSync(bad, "{}\n");
    const r = await diskUsage(faultyPorts([{ op: "readFileNoFollow", path: bad, code: "EIO" }]), { root });
    expect(r.legs.map((l) => l.task)).toEqual(["t1"]);
    expect(r.warnings).toEqual([
      { code: "ERR_INTERNAL", path: bad, reason: `internal error: EIO: readFileNoFollow '${bad}'` },
    ]);
  });
});
