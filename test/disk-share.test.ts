/**
 * add --share: a leg gets its source's node_modules as hardlinks when the lockfiles match, du
 * shows it, a different lockfile is refused with the reason, and what a build may do to the
 * shared tree (replace, delete, add) leaves the source's copy alone.
 */
import { lstatSync, readdirSync, readFileSync, renameSync, rmSync, statSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { commitAll, initRepo, tempDir } from "./helpers/git.ts";
import { errors, git, legPath, records, removeDir, writeFile, wt } from "./worktree-fixtures.ts";

let root = "";
afterEach(() => removeDir(root));

const LOCK = '{"lockfileVersion":3,"packages":{"node_modules/pkg":{"version":"1.0.0"}}}\n';
const INDEX = "module.exports = 1;\n".repeat(500);

function workspace(): string {
  const r = tempDir("ariel-share-");
  const api = join(r, "api");
  initRepo(api, {
    "README.md": "# api\n",
    ".gitignore": "node_modules/\n.ariel/\n",
    "package-lock.json": LOCK,
  });
  writeFile(join(api, "node_modules/pkg/index.js"), INDEX);
  writeFile(join(api, "node_modules/pkg/package.json"), '{"name":"pkg"}\n');
  writeFile(join(api, "node_modules/.bin/.keep"), "");
  return r;
}

/** Blocks of the directories only under `p`. */
function dirBlocks(p: string): number {
  let n = lstatSync(p).blocks * 512;
  for (const e of readdirSync(p, { withFileTypes: true }))
    if (e.isDirectory()) n += dirBlocks(join(p, e.name));
  return n;
}

describe("ariel-worktree add --share", () => {
  it("hardlinks the source's node_modules when the lockfile matches; du counts the bytes once", async () => {
    root = workspace();
    const src = join(root, "api/node_modules/pkg/index.js");
    for (const t of ["t1", "t2"]) {
      const r = await wt(root, ["add", "--source", "api", "--task", t, "--share", "node_modules"]);
      expect(r.code).toBe(0);
      expect(r.stderr).toContain("api: node_modules shared from the source (3 files hardlinked)");
    }
    const leg1 = legPath(root, "t1", "api");
    const leg2 = legPath(root, "t2", "api");
    expect(statSync(join(leg1, "node_modules/pkg/index.js")).ino).toBe(statSync(src).ino);
    expect(statSync(join(leg2, "node_modules/pkg/index.js")).ino).toBe(statSync(src).ino);
    expect(statSync(src).nlink).toBe(3);
    // Not dirty: node_modules is ignored, so remove and list see a clean leg.
    expect(git(leg1, "status", "--porcelain")).toBe("");
    const [l1, l2] = records((await wt(root, ["du", "--json"])).stdout);
    const fileBytes = ["index.js", "package.json"].reduce(
      (n, f) => n + lstatSync(join(src, "..", f)).blocks * 512,
      lstatSync(join(root, "api/node_modules/.bin/.keep")).blocks * 512,
    );
    expect(l1!.hardlinked).toBe(fileBytes);
    expect(l1!.ignored).toBe(dirBlocks(join(leg1, "node_modules")) + fileBytes);
    // The second leg pays for its directories only.
    expect(l2!.ignored).toBe(dirBlocks(join(leg2, "node_modules")));
    expect(l2!.hardlinked).toBe(0);
  });

  it("a different lockfile: not shared, a warning says why, the task is made", async () => {
    root = workspace();
    const api = join(root, "api");
    const base = git(api, "rev-parse", "HEAD");
    writeFile(join(api, "package-lock.json"), LOCK.replace("1.0.0", "2.0.0"));
    commitAll(api, "bump pkg");
    const r = await wt(root, [
      "add",
      "--source",
      "api",
      "--task",
      "t1",
      "--base",
      base,
      "--share",
      "node_modules",
      "--json",
    ]);
    expect(r.code).toBe(0);
    expect(records(r.stderr)).toContainEqual({
      v: 1,
      type: "warning",
      code: "WARN_NOT_SHARED",
      message:
        "api: node_modules not shared: package-lock.json differs from the source's: run the install in the worktree",
      source: "api",
      dir: "node_modules",
      reason: "lockfile-differs",
      hint: `run the install in ${legPath(root, "t1", "api")} to give the worktree its own node_modules`,
    });
    expect(
      lstatSync(join(legPath(root, "t1", "api"), "node_modules"), { throwIfNoEntry: false }),
    ).toBeUndefined();
  });

  it("a bad --share name is ERR_USAGE (64) before anything is made", async () => {
    root = workspace();
    const r = await wt(root, ["add", "--source", "api", "--task", "t1", "--share", "../api", "--json"]);
    expect(r.code).toBe(64);
    expect(errors(r.stderr)[0]).toMatchObject({
      code: "ERR_USAGE",
      message: '--share: not a directory name: "../api"',
    });
    expect(lstatSync(join(root, ".ariel/tasks"), { throwIfNoEntry: false })).toBeUndefined();
  });

  it("what a build may do: replace, delete, add files; the source's copy is untouched. In-place writes are not allowed: they reach the source", async () => {
    root = workspace();
    expect((await wt(root, ["add", "--source", "api", "--task", "t1", "--share", "node_modules"])).code).toBe(
      0,
    );
    const leg = legPath(root, "t1", "api");
    const srcIndex = join(root, "api/node_modules/pkg/index.js");
    // Replace (write a new file, rename over): what npm, pnpm and yarn do when they install.
    writeFileSync(join(leg, "node_modules/pkg/index.js.tmp"), "replaced\n");
    renameSync(join(leg, "node_modules/pkg/index.js.tmp"), join(leg, "node_modules/pkg/index.js"));
    // Delete and add.
    rmSync(join(leg, "node_modules/pkg/package.json"));
    writeFileSync(join(leg, "node_modules/pkg/new.js"), "new\n");
    expect(readFileSync(srcIndex, "utf8")).toBe(INDEX);
    expect(readFileSync(join(root, "api/node_modules/pkg/package.json"), "utf8")).toBe('{"name":"pkg"}\n');
    expect(lstatSync(join(root, "api/node_modules/pkg/new.js"), { throwIfNoEntry: false })).toBeUndefined();
    // An in-place write into a file still shared changes the one inode both trees name: the
    // documented "may not" (docs/disk.md).
    writeFile(join(root, "api/node_modules/.bin/.keep"), "");
    writeFileSync(join(leg, "node_modules/.bin/.keep"), "patched in place\n");
    expect(readFileSync(join(root, "api/node_modules/.bin/.keep"), "utf8")).toBe("patched in place\n");
  });
});
