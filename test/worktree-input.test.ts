/**
 * ariel-worktree against bad input: escapes (77), hostile names (65), links out of a source,
 * worktree roots outside the approved ones, corrupt and foreign records. Each case shows the
 * exit status, the error code, and that nothing was changed.
 */
import { mkdirSync, readFileSync, symlinkSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { initRepo, tempDir } from "./helpers/git.ts";
import {
  editTaskFile,
  errors,
  git,
  gitState,
  legPath,
  makeWorkspace,
  picture,
  records,
  removeDir,
  SECRET,
  writeFile,
  wt,
} from "./worktree-fixtures.ts";

let root = "";
let outside = "";
afterEach(() => {
  removeDir(root);
  if (outside) removeDir(outside);
  outside = "";
});

async function expectRejected(args: string[], exit: number, code: string): Promise<void> {
  const before = { files: picture(root), api: gitState(join(root, "api")) };
  const r = await wt(root, [...args, "--json"]);
  expect(r.stdout).toBe("");
  expect({ exit: r.code, codes: errors(r.stderr).map((e) => e.code) }).toEqual({ exit, codes: [code] });
  expect({ files: picture(root), api: gitState(join(root, "api")) }).toEqual(before);
}

describe("add rejects bad input and changes nothing", () => {
  it.each([
    ["../x", 77, "ERR_PATH_ESCAPE"],
    ["api/../../x", 77, "ERR_PATH_ESCAPE"],
    ["/etc", 77, "ERR_PATH_ESCAPE"],
    ["api;rm -rf x", 65, "ERR_INVALID_NAME"],
    ["-api", 65, "ERR_INVALID_NAME"],
    ["api/.", 65, "ERR_INVALID_NAME"],
    ["", 65, "ERR_INVALID_NAME"],
    ["nope", 66, "ERR_SOURCE_NOT_FOUND"],
    ["src-dir", 66, "ERR_SOURCE_NOT_FOUND"],
  ])("--source %j → %i %s", async (source, exit, code) => {
    root = makeWorkspace(["api"]);
    mkdirSync(join(root, "src-dir"));
    await expectRejected(["add", "--task", "t1", `--source=${source}`], exit, code);
  });

  it("--source through a link out of the workspace → 77", async () => {
    root = makeWorkspace(["api"]);
    outside = tempDir("ariel-outside-");
    initRepo(join(outside, "repo"));
    symlinkSync(join(outside, "repo"), join(root, "evil"));
    await expectRejected(["add", "--task", "t1", "--source", "evil"], 77, "ERR_PATH_ESCAPE");
    expect(git(join(outside, "repo"), "worktree", "list").split("\n")).toHaveLength(1);
  });

  it.each([["../x"], ["-rf"], ["a/b"], ["x y"], [""], ["a".repeat(129)], ["$(id)"]])(
    "--task %j → 65",
    async (task) => {
      root = makeWorkspace(["api"]);
      await expectRejected(["add", `--task=${task}`, "--source", "api"], 65, "ERR_INVALID_TASK_ID");
    },
  );

  it.each([["-b"], ["a..b"], ["x y"], ["refs/heads/x"], ["@{-1}"], ["x.lock"], ["feature/"], ["a\nb"]])(
    "--branch %j → 65",
    async (branch) => {
      root = makeWorkspace(["api"]);
      await expectRejected(
        ["add", "--task", "t1", "--source", "api", `--branch=${branch}`],
        65,
        "ERR_INVALID_BRANCH",
      );
    },
  );

  it("--base that exists nowhere → 66 before anything is made", async () => {
    root = makeWorkspace(["api"]);
    await expectRejected(
      ["add", "--task", "t1", "--source", "api", "--base", "no-such-ref"],
      66,
      "ERR_NOINPUT",
    );
  });

  it("an overlay file that links out of the source → 77, nothing created", async () => {
    root = makeWorkspace(["api", "web"]);
    outside = tempDir("ariel-outside-");
    writeFile(join(outside, "secret"), "outside\n");
    const env = join(root, "web/.env");
    removeDir(env);
    symlinkSync(join(outside, "secret"), env);
    const before = { files: picture(root), web: gitState(join(root, "web")) };
    const r = await wt(root, ["add", "--task", "t1", "--source", "api", "--source", "web", "--json"]);
    expect(r.code).toBe(77);
    expect(errors(r.stderr)[0]).toMatchObject({ code: "ERR_PATH_ESCAPE", path: ".env" });
    expect({ files: picture(root), web: gitState(join(root, "web")) }).toEqual(before);
    expect(git(join(root, "api"), "branch", "--list", "ariel/*")).toBe("");
  });

  it("an overlay link that stays inside the source is copied as its content", async () => {
    root = makeWorkspace(["api"]);
    writeFile(join(root, "api/config/env.real"), SECRET);
    removeDir(join(root, "api/.env"));
    symlinkSync("config/env.real", join(root, "api/.env"));
    const r = await wt(root, ["add", "--task", "t1", "--source", "api"]);
    expect(r.code).toBe(0);
    expect(readFileSync(join(legPath(root, "t1", "api"), ".env"), "utf8")).toBe(SECRET);
  });

  it("a worktreeRoot outside the approved roots → 77", async () => {
    root = makeWorkspace(["api"]);
    writeFileSync(join(root, "ariel.config.json"), JSON.stringify({ worktreeRoot: "../elsewhere" }));
    await expectRejected(["add", "--task", "t1", "--source", "api"], 77, "ERR_NOT_APPROVED_ROOT");
  });

  it("a worktreeRoot that is a link out of its approved root → 77", async () => {
    root = makeWorkspace(["api"]);
    outside = tempDir("ariel-outside-");
    mkdirSync(join(root, ".ariel"));
    symlinkSync(outside, join(root, ".ariel/worktrees"));
    await expectRejected(["add", "--task", "t1", "--source", "api"], 77, "ERR_NOT_APPROVED_ROOT");
  });

  it("an approved worktreeRoot outside the workspace works", async () => {
    root = makeWorkspace(["api"]);
    outside = tempDir("ariel-outside-");
    writeFileSync(
      join(root, "ariel.config.json"),
      JSON.stringify({ worktreeRoot: join(outside, "wts"), worktreeRoots: [outside] }),
    );
    const r = await wt(root, ["add", "--task", "t1", "--source", "api", "--json"]);
    expect(r.code).toBe(0);
    expect((records(r.stdout)[0] as { legs: { worktreePath: string }[] }).legs[0]?.worktreePath).toBe(
      join(outside, "wts/t1/api"),
    );
    expect((await wt(root, ["verify", "--task", "t1"])).code).toBe(0);
    expect((await wt(root, ["remove", "--task", "t1"])).code).toBe(0);
  });
});

describe("records that are not ours fail closed", () => {
  it.each([
    ["not JSON", "{ nope"],
    ["wrong shape", JSON.stringify({ v: 1, version: 1, fencingToken: 1, taskId: "t1" })],
    ["unknown version", JSON.stringify({ v: 2, version: 1, fencingToken: 1 })],
  ])("a corrupt record (%s) → 65 for add, remove, verify, restore; never rewritten", async (_n, text) => {
    root = makeWorkspace(["api"]);
    writeFile(join(root, ".ariel/tasks/t1.json"), text);
    for (const args of [
      ["add", "--task", "t1", "--source", "api"],
      ["remove", "--task", "t1"],
      ["verify", "--task", "t1"],
      ["restore", "--task", "t1"],
    ]) {
      const before = picture(root);
      const r = await wt(root, [...args, "--json"]);
      expect({ args, exit: r.code, code: errors(r.stderr)[0]?.code }).toEqual({
        args,
        exit: 65,
        code: "ERR_RECORD_CORRUPT",
      });
      expect(errors(r.stderr)[0]?.message).toContain(".ariel/tasks/t1.json");
      expect(picture(root)).toEqual(before);
    }
    const list = await wt(root, ["list", "--json"]);
    expect(list.code).toBe(1);
    expect(records(list.stderr)).toEqual([
      expect.objectContaining({ type: "warning", code: "ERR_RECORD_CORRUPT" }),
    ]);
  });

  it("a record of another workspace → 3 ERR_NOT_OURS, its worktree untouched", async () => {
    root = makeWorkspace(["api"]);
    await wt(root, ["add", "--task", "t1", "--source", "api"]);
    editTaskFile(root, "t1", (r) => {
      r.workspace = { root: "/some/other/root", hash: "ae89cb2b620ea8fc" };
    });
    const before = { files: picture(root), api: gitState(join(root, "api")) };
    for (const args of [
      ["remove", "--task", "t1", "--allow", "dirty"],
      ["add", "--task", "t1", "--source", "api"],
    ]) {
      const r = await wt(root, [...args, "--json"]);
      expect(r.code).toBe(3);
      expect(errors(r.stderr)[0]).toMatchObject({ code: "ERR_NOT_OURS", recordRoot: "/some/other/root" });
    }
    expect({ files: picture(root), api: gitState(join(root, "api")) }).toEqual(before);
  });
});
