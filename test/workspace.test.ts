/**
 * The workspace functions on the real filesystem and real git repositories: root resolution,
 * the state dir's exclude entry (checked with git itself), and containment through real links.
 */
import { mkdirSync, readFileSync, symlinkSync } from "node:fs";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { nodeFs } from "../packages/core/src/host/fs.ts";
import {
  ArielError,
  ensureStateDir,
  resolveContained,
  resolveWorkspaceRoot,
  workspaceHash,
} from "../packages/core/src/mod.ts";
import { git, initRepo, removeDir, tempDir, writeFile } from "./helpers/git.ts";

let dirs: string[] = [];
function temp(): string {
  const d = tempDir();
  dirs.push(d);
  return d;
}
afterEach(() => {
  for (const d of dirs) removeDir(d);
  dirs = [];
});

describe("resolveWorkspaceRoot on a real tree", () => {
  it("finds the checkout's top level from a subdirectory, then the .ariel marker above it", async () => {
    const ws = temp();
    const repo = join(ws, "api");
    initRepo(repo, { "src/index.ts": "x\n" });
    const cwd = join(repo, "src");
    expect(await resolveWorkspaceRoot({ fs: nodeFs, env: {}, cwd })).toEqual({
      root: repo,
      hash: await workspaceHash(repo),
      via: "git",
    });
    mkdirSync(join(ws, ".ariel"));
    expect((await resolveWorkspaceRoot({ fs: nodeFs, env: {}, cwd })).root).toBe(ws);
  });

  it("canonicalizes a symlinked flag", async () => {
    const ws = temp();
    mkdirSync(join(ws, "real"));
    symlinkSync(join(ws, "real"), join(ws, "alias"));
    const r = await resolveWorkspaceRoot({ fs: nodeFs, env: {}, cwd: ws }, "alias");
    expect([r.root, r.via]).toEqual([join(ws, "real"), "flag"]);
  });

  it("reports a missing root with exit 66", async () => {
    const ws = temp();
    const err = await resolveWorkspaceRoot({
      fs: nodeFs,
      env: { ARIEL_WORKSPACE_ROOT: join(ws, "nope") },
      cwd: ws,
    }).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(ArielError);
    expect([(err as ArielError).code, (err as ArielError).exit]).toEqual(["ERR_WORKSPACE_NOT_FOUND", 66]);
  });
});

describe("ensureStateDir on a real checkout", () => {
  it("hides .ariel/ from git status, once", async () => {
    const repo = temp();
    initRepo(repo);
    await ensureStateDir({ fs: nodeFs }, repo);
    await ensureStateDir({ fs: nodeFs }, repo);
    writeFile(join(repo, ".ariel/tasks/t.json"), "{}\n");
    expect(git(repo, "status", "--porcelain", "--untracked-files=all")).toBe("");
    expect(readFileSync(join(repo, ".git/info/exclude"), "utf8").match(/^\/\.ariel\/$/gm)).toHaveLength(1);
  });

  it("writes the common exclude when the root is a linked worktree", async () => {
    const main = temp();
    initRepo(main);
    const wt = join(temp(), "wt");
    git(main, "worktree", "add", "-q", "-b", "side", wt);
    await ensureStateDir({ fs: nodeFs }, wt);
    writeFile(join(wt, ".ariel/x"), "x");
    expect(git(wt, "status", "--porcelain", "--untracked-files=all")).toBe("");
    expect(git(wt, "check-ignore", ".ariel/x")).toBe(".ariel/x");
  });
});

describe("resolveContained through real links", () => {
  it("catches a link that points out and allows one that stays in", async () => {
    const ws = temp();
    const outside = temp();
    mkdirSync(join(ws, "src"));
    symlinkSync(outside, join(ws, "out"));
    symlinkSync("src", join(ws, "in"));
    symlinkSync(join(outside, "new-file"), join(ws, "dangling"));
    expect(await resolveContained(nodeFs, ws, "in/x.ts")).toBe(join(ws, "src/x.ts"));
    for (const p of ["out/x", "dangling", "../x", "in/../../x"]) {
      const err = await resolveContained(nodeFs, ws, p).catch((e: unknown) => e);
      expect((err as ArielError).code, p).toBe("ERR_PATH_ESCAPE");
    }
  });
});
