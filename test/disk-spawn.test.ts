/**
 * ariel-spawn --isolate --share / --sparse: the same code as ariel-worktree add (shareLegs, the
 * recorded cone), on real repositories: the shared tree is present in the child's worktree and
 * hardlinked to the source's, a different lockfile leaves it out with the reason, the cone is
 * respected, and verify and remove behave after the run as they do after add.
 */
import { existsSync, lstatSync, readdirSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { arielIn, records } from "./helpers/cli.ts";
import { commitAll, git, initRepo, removeDir, tempDir, writeFile } from "./helpers/git.ts";
import { cleanUp, runDir, runs, runsWorkspace, spawnD, startRun } from "./runs_helpers.ts";
import { NODE } from "./spawn_helpers.ts";
import { errors, wt } from "./worktree-fixtures.ts";

let root = "";
afterEach(() => removeDir(root));

const LOCK = '{"lockfileVersion":3,"packages":{"node_modules/pkg":{"version":"1.0.0"}}}\n';

/** api: a package with an ignored node_modules next to its lockfile, and a tree for a cone. */
function workspace(): string {
  const r = tempDir("ariel-spawn-disk-");
  const api = join(r, "api");
  initRepo(api, {
    "README.md": "# api\n",
    ".gitignore": "node_modules/\n.ariel/\n",
    "package-lock.json": LOCK,
    "packages/a/index.txt": "a\n",
    "packages/b/index.txt": "b\n",
  });
  writeFile(join(api, "node_modules/pkg/index.js"), "module.exports = 1;\n");
  writeFile(join(api, "node_modules/pkg/package.json"), '{"name":"pkg"}\n');
  return r;
}

const spawnIn = (args: readonly string[]) => arielIn("spawn", root, args, { env: { ARIEL_OWNER: "tester" } });

/** A child printing what its worktree holds: the shared file's inode, and which paths exist. */
const PROBE = [
  NODE,
  "-e",
  "const fs=require('fs');const st=fs.statSync('node_modules/pkg/index.js',{throwIfNoEntry:false});" +
    "console.log(JSON.stringify({ino:st?st.ino:null,a:fs.existsSync('packages/a/index.txt'),b:fs.existsSync('packages/b')}))",
];

/** `ariel-spawn --source api --isolate --task <task> FLAGS --json -- CMD`. */
const isolated = (task: string, flags: readonly string[], cmd: readonly string[] = PROBE) =>
  spawnIn(["--source", "api", "--isolate", "--task", task, ...flags, "--json", "--", ...cmd]);

const probeOf = (stdout: string) =>
  JSON.parse(records(stdout).find((e) => e.event === "output")!.line as string) as {
    ino: number | null;
    a: boolean;
    b: boolean;
  };
const worktreeEvents = (stdout: string) =>
  records(stdout).filter((e) => String(e.event).startsWith("worktree."));

describe("ariel-spawn --isolate --share", () => {
  it("gives the worktree the source's node_modules as hardlinks, says so, and removes only the links", async () => {
    root = workspace();
    const src = join(root, "api/node_modules/pkg/index.js");
    const r = await isolated("t1", ["--share", "node_modules"]);
    expect(r.code).toBe(0);
    expect(probeOf(r.stdout)).toEqual({ ino: lstatSync(src).ino, a: true, b: true });
    const leg = join(root, ".ariel/worktrees/t1/api");
    expect(worktreeEvents(r.stdout).map((e) => [e.event, e.source, e.shared])).toEqual([
      ["worktree.created", "api", ["node_modules"]],
      ["worktree.removed", "api", undefined],
    ]);
    // The shared tree is ignored: the worktree was clean and is gone; the source's files stay.
    expect(existsSync(leg)).toBe(false);
    expect(readFileSync(src, "utf8")).toBe("module.exports = 1;\n");
    expect(lstatSync(src).nlink).toBe(1);
  });

  it("config share applies to spawn too", async () => {
    root = workspace();
    writeFileSync(join(root, "ariel.config.json"), '{"share":["node_modules"]}\n');
    const r = await isolated("t1", ["--keep"]);
    expect(r.code).toBe(0);
    expect(probeOf(r.stdout).ino).toBe(lstatSync(join(root, "api/node_modules/pkg/index.js")).ino);
    expect(lstatSync(join(root, ".ariel/worktrees/t1/api/node_modules/pkg/package.json")).nlink).toBe(2);
  });

  it("config shareMode store: the child's node_modules links into the one store; removing the worktree keeps it", async () => {
    root = workspace();
    writeFileSync(join(root, "ariel.config.json"), '{"share":["node_modules"],"shareMode":"store"}\n');
    const src = join(root, "api/node_modules/pkg/index.js");
    for (const t of ["t1", "t2"]) {
      const r = await isolated(t, []);
      expect(r.code).toBe(0);
      expect(probeOf(r.stdout).ino).toBe(lstatSync(src).ino);
    }
    const stores = readdirSync(join(root, ".ariel/share")).filter((n) => !n.startsWith("."));
    expect(stores).toHaveLength(1);
    expect(existsSync(join(root, ".ariel/worktrees/t1/api"))).toBe(false);
    // The source's file: its own name and the store's.
    expect(lstatSync(src).nlink).toBe(2);
  });

  it("a different lockfile: not shared, WARN_NOT_SHARED with the reason, the run goes on", async () => {
    root = workspace();
    const api = join(root, "api");
    const base = git(api, "rev-parse", "HEAD");
    writeFile(join(api, "package-lock.json"), LOCK.replace("1.0.0", "2.0.0"));
    commitAll(api, "bump pkg");
    const r = await isolated("t1", ["--base", base, "--share", "node_modules"]);
    expect(r.code).toBe(0);
    expect(probeOf(r.stdout).ino).toBeNull();
    expect(records(r.stderr)).toContainEqual({
      v: 1,
      type: "warning",
      code: "WARN_NOT_SHARED",
      message:
        "api: node_modules not shared: package-lock.json differs from the source's: run the install in the worktree",
      source: "api",
      dir: "node_modules",
      reason: "lockfile-differs",
      hint: `run the install in ${join(root, ".ariel/worktrees/t1/api")} to give the worktree its own node_modules`,
    });
    expect(worktreeEvents(r.stdout)[0]?.shared).toBeUndefined();
  });

  it.each([
    [["--share", "../api", "--isolate", "--task", "t1"], '--share: not a directory name: "../api"'],
    [["--share", "node_modules"], "--share needs --isolate"],
    [["--sparse", "packages/a"], "--sparse needs --isolate"],
  ])("refuses %j with ERR_USAGE (64), nothing made", async (flags, message) => {
    root = workspace();
    const r = await spawnIn(["--source", "api", ...flags, "--json", "--", NODE, "-e", "0"]);
    expect(r.code).toBe(64);
    expect(errors(r.stderr)[0]).toMatchObject({ code: "ERR_USAGE", message });
    expect(existsSync(join(root, ".ariel"))).toBe(false);
  });
});

describe("ariel-spawn --isolate --sparse", () => {
  it("runs in a cone-mode sparse worktree, recorded; verify and remove treat it as after add", async () => {
    root = workspace();
    const r = await isolated("t1", ["--sparse", "packages/a", "--keep"]);
    expect(r.code).toBe(0);
    expect(probeOf(r.stdout)).toMatchObject({ a: true, b: false });
    expect(worktreeEvents(r.stdout)[0]).toMatchObject({ event: "worktree.created", sparse: ["packages/a"] });
    const leg = join(root, ".ariel/worktrees/t1/api");
    const rec = JSON.parse(readFileSync(join(root, ".ariel/tasks/t1.json"), "utf8")) as {
      legs: { sparse?: string[] }[];
    };
    expect(rec.legs[0]?.sparse).toEqual(["packages/a"]);
    expect(git(leg, "sparse-checkout", "list")).toBe("packages/a");
    const v = await wt(root, ["verify", "--task", "t1", "--json"]);
    expect(v.code).toBe(0);
    expect(records(v.stdout)[0]).toMatchObject({ ok: true, checks: { sparse: true } });
    // Files outside the cone are absent by design: remove does not take them for changes.
    expect((await wt(root, ["remove", "--task", "t1"])).code).toBe(0);
    expect(existsSync(leg)).toBe(false);
  });

  it("the default on-exit remove takes a clean sparse worktree away; a bad cone path is ERR_USAGE before anything", async () => {
    root = workspace();
    const r = await isolated("t1", ["--sparse", "packages/b"]);
    expect(r.code).toBe(0);
    expect(probeOf(r.stdout)).toMatchObject({ a: false, b: true });
    expect(worktreeEvents(r.stdout).map((e) => e.event)).toEqual(["worktree.created", "worktree.removed"]);
    expect(existsSync(join(root, ".ariel/worktrees/t1/api"))).toBe(false);

    const bad = await isolated("t2", ["--sparse", "../x"], [NODE, "-e", "0"]);
    expect(bad.code).toBe(64);
    expect(errors(bad.stderr)[0]).toMatchObject({ code: "ERR_USAGE" });
    expect(existsSync(join(root, ".ariel/tasks/t2.json"))).toBe(false);
  });
});

describe("ariel-spawn --detach --isolate --share", () => {
  afterEach(cleanUp);

  it("the detached run's worktree gets the shared tree; a different lockfile warns at once", async () => {
    const ws = runsWorkspace();
    writeFile(join(ws, ".gitignore"), "node_modules/\n.ariel/\n");
    writeFile(join(ws, "package-lock.json"), LOCK);
    const base = commitAll(ws, "lockfile");
    writeFile(join(ws, "node_modules/pkg/index.js"), "module.exports = 1;\n");
    const src = lstatSync(join(ws, "node_modules/pkg/index.js")).ino;
    const shared = await startRun(ws, [
      "--isolate",
      "--task",
      "t1",
      "--share",
      "node_modules",
      "--",
      ...PROBE,
    ]);
    const w = await runs(ws, ["wait", shared.runId as string, "--json"], { timeoutMs: 30_000 });
    expect(records(w.stdout)[0]).toMatchObject({ state: "exited", worktreeOutcome: { outcome: "removed" } });
    const out = readFileSync(join(runDir(ws, shared.runId as string), "stdout"), "utf8");
    expect(JSON.parse(out)).toEqual({ ino: src, a: false, b: false });

    writeFile(join(ws, "package-lock.json"), LOCK.replace("1.0.0", "2.0.0"));
    commitAll(ws, "bump pkg");
    const r = await spawnD(ws, [
      "--isolate",
      "--task",
      "t2",
      "--base",
      base,
      "--share",
      "node_modules",
      "--json",
      "--",
      "true",
    ]);
    expect(r.code).toBe(0);
    expect(records(r.stderr)).toContainEqual(
      expect.objectContaining({ code: "WARN_NOT_SHARED", source: ".", reason: "lockfile-differs" }),
    );
  });
});
