import { describe, expect, it } from "vitest";
import { ArielError } from "./errors.ts";
import { workspaceHash } from "./hash.ts";
import { eachMaps } from "./testing/cases.ts";
import { FakeFs } from "./testing/fake_fs.ts";
import { commonGitDir, ensureStateDir, resolveWorkspaceRoot, stateDir, type Workspace } from "./workspace.ts";

function world(): FakeFs {
  return new FakeFs({
    "/ws/.ariel": { dir: true },
    "/ws/api/.git/HEAD": "ref: refs/heads/main\n",
    "/ws/api/src/deep": { dir: true },
    "/ws/.ariel/worktrees/t/api/.git": "gitdir: /ws/api/.git/worktrees/api\n",
    "/plain/repo/.git/HEAD": "ref: refs/heads/main\n",
    "/plain/repo/sub/dir": { dir: true },
    "/plain/repo/wt/.git": "gitdir: /plain/repo/.git/worktrees/wt\n",
    "/nothing/here": { dir: true },
    "/alias": { link: "/ws" },
    "/file": "not a directory",
    "/locked": { dir: true },
  });
}

async function resolve(cwd: string, env: Record<string, string> = {}, flag?: string, fs = world()) {
  return resolveWorkspaceRoot({ fs, env, cwd }, flag);
}

describe("resolveWorkspaceRoot", () => {
  it.each([
    [
      "flag wins over everything",
      "/ws/api",
      { ARIEL_WORKSPACE_ROOT: "/nothing" },
      "/plain/repo",
      "/plain/repo",
      "flag",
    ],
    ["relative flag is from the cwd", "/plain", {}, "repo/sub", "/plain/repo/sub", "flag"],
    ["flag is canonicalized", "/", {}, "/alias", "/ws", "flag"],
    [
      "env wins over the marker",
      "/ws/api",
      { ARIEL_WORKSPACE_ROOT: "/nothing/here" },
      undefined,
      "/nothing/here",
      "env",
    ],
    ["empty env is ignored", "/ws/api", { ARIEL_WORKSPACE_ROOT: "" }, undefined, "/ws", "marker", "/ws/api"],
    ["marker beats a nearer checkout", "/ws/api/src/deep", {}, undefined, "/ws", "marker", "/ws/api"],
    [
      "a task's worktree under .ariel/ is not shadowed",
      "/ws/.ariel/worktrees/t/api",
      {},
      undefined,
      "/ws",
      "marker",
    ],
    ["marker at the cwd", "/ws", {}, undefined, "/ws", "marker"],
    ["git top level", "/plain/repo/sub/dir", {}, undefined, "/plain/repo", "git"],
    ["a .git file counts (linked worktree)", "/plain/repo/wt", {}, undefined, "/plain/repo/wt", "git"],
    ["cwd when nothing else", "/nothing/here", {}, undefined, "/nothing/here", "cwd"],
    ["cwd is canonicalized first", "/alias/api", {}, undefined, "/ws", "marker", "/ws/api"],
  ])("%s", async (_name, cwd, env, flag, root, via, shadows?: string) => {
    const ws = await resolve(cwd, env, flag);
    expect(ws).toEqual({ root, hash: await workspaceHash(root), via, ...(shadows ? { shadows } : {}) });
  });

  it.each([
    ["missing flag root", "/", {}, "/missing", 'workspace root "/missing" does not exist', undefined],
    ["flag root is a file", "/", {}, "/file", 'workspace root "/file" is not a directory', undefined],
    ["empty flag", "/", {}, "", 'workspace root "" is empty', undefined],
    [
      "missing env root",
      "/",
      { ARIEL_WORKSPACE_ROOT: "/gone" },
      undefined,
      'workspace root "/gone" does not exist',
      undefined,
    ],
    ["missing cwd", "/deleted", {}, undefined, 'workspace root "/deleted" does not exist', undefined],
    [
      "unreadable root",
      "/",
      {},
      "/locked",
      'workspace root "/locked" cannot be read',
      "check the directory's permissions",
    ],
  ])("%s → ERR_WORKSPACE_NOT_FOUND", async (_name, cwd, env, flag, message, hint) => {
    const fs = world();
    fs.unreadable.add("/locked");
    const err = await resolve(cwd, env, flag, fs).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(ArielError);
    expect((err as ArielError).code).toBe("ERR_WORKSPACE_NOT_FOUND");
    expect((err as ArielError).exit).toBe(66);
    expect((err as ArielError).message).toBe(message);
    if (hint) expect((err as ArielError).hint).toBe(hint);
  });

  it("pins the hash of a known root", async () => {
    const fs = new FakeFs({ "/some/repo/root": { dir: true } });
    const ws = await resolveWorkspaceRoot({ fs, env: {}, cwd: "/" }, "/some/repo/root");
    expect(ws.hash).toBe("ae89cb2b620ea8fc");
  });
});

describe("stateDir", () => {
  eachMaps(
    stateDir,
    [
      ["/ws", "/ws/.ariel"],
      ["/", "/.ariel"],
    ],
    "%j → %j",
  );
});

describe("commonGitDir", () => {
  it.each([
    ["checkout", { "/r/.git/HEAD": "x" }, "/r/.git"],
    ["not a checkout", { "/r/x": "x" }, null],
    [
      "linked worktree",
      { "/r/.git": "gitdir: /m/.git/worktrees/r\n", "/m/.git/worktrees/r/commondir": "../..\n" },
      "/m/.git",
    ],
    [
      "relative gitdir",
      { "/r/.git": "gitdir: ../m/.git/worktrees/r", "/m/.git/worktrees/r/commondir": "../..\n" },
      "/m/.git",
    ],
    ["submodule (no commondir)", { "/r/.git": "gitdir: ../.git/modules/r\n" }, "/.git/modules/r"],
    ["garbage .git file", { "/r/.git": "hello\n" }, null],
  ])("%s", async (_name, files, expected) => {
    expect(await commonGitDir(new FakeFs(files as Record<string, string>), "/r")).toBe(expected);
  });
});

describe("ensureStateDir", () => {
  it.each([
    ["no exclude file yet", undefined, "/.ariel/\n"],
    ["appends after existing lines", "# git ls-files\n*.log\n", "# git ls-files\n*.log\n/.ariel/\n"],
    ["adds the missing final newline", "*.log", "*.log\n/.ariel/\n"],
    ["does not repeat itself", "*.log\n/.ariel/\n", "*.log\n/.ariel/\n"],
    ["tolerates CRLF", "/.ariel/\r\n", "/.ariel/\r\n"],
  ])("checkout: %s", async (_name, before, after) => {
    const fs = new FakeFs({ "/ws/.git/HEAD": "ref: refs/heads/main\n" });
    if (before !== undefined) fs.put("/ws/.git/info/exclude", before);
    expect(await ensureStateDir({ fs }, "/ws")).toBe("/ws/.ariel");
    expect(fs.nodes.get("/ws/.ariel")?.kind).toBe("dir");
    expect(fs.text("/ws/.git/info/exclude")).toBe(after);
  });

  it("is idempotent", async () => {
    const fs = new FakeFs({ "/ws/.git/HEAD": "x" });
    await ensureStateDir({ fs }, "/ws");
    await ensureStateDir({ fs }, "/ws");
    expect(fs.text("/ws/.git/info/exclude")).toBe("/.ariel/\n");
    expect(fs.calls.filter(([op]) => op === "write")).toHaveLength(1);
  });

  it("writes to the common dir of a linked worktree", async () => {
    const fs = new FakeFs({
      "/wt/.git": "gitdir: /main/.git/worktrees/wt\n",
      "/main/.git/worktrees/wt/commondir": "../..\n",
      "/main/.git/info/exclude": "",
    });
    await ensureStateDir({ fs }, "/wt");
    expect(fs.text("/main/.git/info/exclude")).toBe("/.ariel/\n");
    expect(fs.text("/main/.git/worktrees/wt/info/exclude")).toBeUndefined();
  });

  it("touches no git dir when the root is not a checkout", async () => {
    const fs = new FakeFs({ "/ws/api/.git/HEAD": "x" });
    await ensureStateDir({ fs }, "/ws");
    expect(fs.nodes.get("/ws/.ariel")?.kind).toBe("dir");
    expect(fs.text("/ws/api/.git/info/exclude")).toBeUndefined();
    expect(fs.calls.filter(([op]) => op === "write")).toEqual([]);
  });
});

describe("resolveWorkspaceRoot: every way a root can be unusable", () => {
  const err = (code: string) => Object.assign(new Error(code), { code });
  const PERMS = "check the directory's permissions";
  const DEFAULT_HINT = "pass -C DIR or set ARIEL_WORKSPACE_ROOT";
  it.each<[string, "realpath" | "readDir" | "stat", string, string, string]>([
    ["realpath ENOENT", "realpath", "ENOENT", "does not exist", DEFAULT_HINT],
    ["realpath ENOTDIR", "realpath", "ENOTDIR", "is not a directory", DEFAULT_HINT],
    ["realpath EACCES", "realpath", "EACCES", "cannot be read", PERMS],
    ["realpath EPERM", "realpath", "EPERM", "cannot be read", PERMS],
    ["realpath ELOOP", "realpath", "ELOOP", "is a symbolic link loop", DEFAULT_HINT],
    ["readDir EACCES", "readDir", "EACCES", "cannot be read", PERMS],
    ["readDir EPERM", "readDir", "EPERM", "cannot be read", PERMS],
    ["gone between realpath and stat", "stat", "", "does not exist", DEFAULT_HINT],
  ])("%s", async (_n, op, code, what, hint) => {
    const fs = world();
    if (op === "stat") fs.stat = async () => null;
    else
      fs[op] = async () => {
        throw err(code);
      };
    const e = await resolve("/", {}, "/nothing/here", fs).catch((x: unknown) => x);
    expect(e).toMatchObject({
      code: "ERR_WORKSPACE_NOT_FOUND",
      message: `workspace root "/nothing/here" ${what}`,
      hint,
      context: { root: "/nothing/here", via: "flag" },
    });
  });

  it.each(["realpath", "readDir"] as const)("any other %s failure is passed on as it is", async (op) => {
    const fs = world();
    fs[op] = async () => {
      throw err("EIO");
    };
    const e = await resolve("/", {}, "/nothing/here", fs).catch((x: unknown) => x);
    expect(e).not.toBeInstanceOf(ArielError);
    expect((e as { code: string }).code).toBe("EIO");
  });

  it.each([
    ["env", { ARIEL_WORKSPACE_ROOT: "/gone" }, undefined, "/gone"],
    ["cwd", {}, undefined, "/gone"],
  ])("names how the root was chosen: %s", async (via, env, flag, root) => {
    const e = await resolve(via === "cwd" ? root : "/", env, flag).catch((x: unknown) => x);
    expect((e as ArielError).context).toEqual({ root, via });
  });

  it("a .git that is a symbolic link does not make a checkout", async () => {
    const fs = world();
    fs.put("/linked/sub", { dir: true });
    fs.put("/linked/.git", { link: "/plain/repo/.git" });
    expect(await resolve("/linked/sub", {}, undefined, fs)).toMatchObject({
      root: "/linked/sub",
      via: "cwd",
    });
  });
});

describe("commonGitDir: edges", () => {
  it.each<[string, Record<string, string | { link: string }>, string | null]>([
    ["a .git symbolic link", { "/r/.git": { link: "/m/.git" }, "/m/.git/HEAD": "x" }, null],
    [
      "a gitdir line after other text",
      { "/r/.git": "x\ngitdir: /m/.git/worktrees/r\n" },
      "/m/.git/worktrees/r",
    ],
    ["a gitdir without a space", { "/r/.git": "gitdir:/m/wt\n" }, "/m/wt"],
    ["an empty commondir file", { "/r/.git": "gitdir: /m/wt\n", "/m/wt/commondir": "\n" }, "/m/wt"],
    [
      "a gitdir that is a file, not a directory",
      { "/r/.git": "gitdir: /m/file\n", "/m/file": "x" },
      "/m/file",
    ],
  ])("%s", async (_name, files, expected) => {
    expect(await commonGitDir(new FakeFs(files), "/r")).toBe(expected);
  });

  it("an unreadable commondir is an error, not a missing one", async () => {
    const fs = new FakeFs({ "/r/.git": "gitdir: /m/wt\n", "/m/wt/commondir": "../..\n" });
    fs.unreadable.add("/m/wt/commondir");
    await expect(commonGitDir(fs, "/r")).rejects.toMatchObject({ code: "EACCES" });
  });
});

describe("ensureStateDir: an unreadable exclude file", () => {
  it("is an error: ariel never overwrites what it cannot read", async () => {
    const fs = new FakeFs({ "/ws/.git/HEAD": "x", "/ws/.git/info/exclude": "*.log\n" });
    fs.unreadable.add("/ws/.git/info/exclude");
    await expect(ensureStateDir({ fs }, "/ws")).rejects.toMatchObject({ code: "EACCES" });
    expect(fs.text("/ws/.git/info/exclude")).toBe("*.log\n");
  });

  it("a line with spaces around it counts as present", async () => {
    const fs = new FakeFs({ "/ws/.git/HEAD": "x", "/ws/.git/info/exclude": "  /.ariel/  \n" });
    await ensureStateDir({ fs }, "/ws");
    expect(fs.text("/ws/.git/info/exclude")).toBe("  /.ariel/  \n");
  });
});

describe("resolveWorkspaceRoot: a task's directory is never a workspace", () => {
  function tasks(): FakeFs {
    return new FakeFs({
      "/ws/.ariel/tasks/t.json": "{}",
      "/ws/.ariel/worktrees/t/api/.git": "gitdir: /ws/api/.git/worktrees/api\n",
      "/ws/.ariel/worktrees/t/api/src": { dir: true },
      "/ws/api/.git/HEAD": "ref: refs/heads/main\n",
      // A stray .ariel/ a -C of the task directory once made there.
      "/stray/.ariel/worktrees/t/.ariel": { dir: true },
      // A configured worktree root outside the workspace: legs known by ariel's lock.
      "/ws2/.ariel/tasks/login.json": "{}",
      "/ws2/api/.git/HEAD": "ref: refs/heads/main\n",
      "/ws2/api/.git/worktrees/api/locked": "ariel:login",
      "/ws2/api/.git/worktrees/api/commondir": "../..\n",
      "/fast/wt/login/api/.git": "gitdir: /ws2/api/.git/worktrees/api\n",
      "/fast/wt/login/api/src": { dir: true },
      // A worktree root inside the workspace's own checkout (not under .ariel/): root source ".".
      "/ws3/.git/HEAD": "ref: refs/heads/main\n",
      "/ws3/.ariel/tasks/t3.json": "{}",
      "/ws3/.git/worktrees/root/locked": "ariel:t3",
      "/ws3/.git/worktrees/root/commondir": "../..\n",
      "/ws3/wt/t3/root/.git": "gitdir: /ws3/.git/worktrees/root\n",
      // A plain directory of clones (no .ariel/ yet): a workspace of sources, not a task.
      "/plain-ws/api/.git/HEAD": "ref: refs/heads/main\n",
      "/plain-ws/web/.git/HEAD": "ref: refs/heads/main\n",
      // A worktree someone made by hand: no lock of ariel's, a checkout like any other.
      "/ws2/api/.git/worktrees/mine/commondir": "../..\n",
      "/fast/wt/mine/x/.git": "gitdir: /ws2/api/.git/worktrees/mine\n",
    });
  }
  it.each<[string, string, Record<string, string>, string | undefined, string, string, Workspace["inTask"]]>([
    [
      "-C the task directory (default root)",
      "/",
      {},
      "/ws/.ariel/worktrees/t",
      "/ws",
      "flag",
      { path: "/ws/.ariel/worktrees/t", task: "t" },
    ],
    [
      "-C a leg",
      "/",
      {},
      "/ws/.ariel/worktrees/t/api",
      "/ws",
      "flag",
      { path: "/ws/.ariel/worktrees/t/api", task: "t" },
    ],
    [
      "ARIEL_WORKSPACE_ROOT in a leg's subdirectory",
      "/",
      { ARIEL_WORKSPACE_ROOT: "/ws/.ariel/worktrees/t/api/src" },
      undefined,
      "/ws",
      "env",
      { path: "/ws/.ariel/worktrees/t/api/src", task: "t" },
    ],
    ["-C .ariel/ itself", "/", {}, "/ws/.ariel", "/ws", "flag", { path: "/ws/.ariel", task: null }],
    [
      "a stray .ariel/ in a task directory is passed over",
      "/stray/.ariel/worktrees/t",
      {},
      undefined,
      "/stray",
      "marker",
      { path: "/stray/.ariel/worktrees/t", task: "t" },
    ],
    [
      "-C a task directory of a configured worktree root",
      "/",
      {},
      "/fast/wt/login",
      "/ws2",
      "flag",
      { path: "/fast/wt/login", task: "login" },
    ],
    [
      "-C in a leg of a configured worktree root",
      "/",
      {},
      "/fast/wt/login/api/src",
      "/ws2",
      "flag",
      { path: "/fast/wt/login/api/src", task: "login" },
    ],
    [
      "the cwd in such a leg (found as its checkout)",
      "/fast/wt/login/api/src",
      {},
      undefined,
      "/ws2",
      "git",
      { path: "/fast/wt/login/api", task: "login" },
    ],
    [
      "-C a task directory of a worktree root inside the workspace's checkout",
      "/",
      {},
      "/ws3/wt/t3",
      "/ws3",
      "flag",
      { path: "/ws3/wt/t3", task: "t3" },
    ],
    [
      "a directory of clones without .ariel/ is a workspace",
      "/",
      {},
      "/plain-ws",
      "/plain-ws",
      "flag",
      undefined,
    ],
    [
      "a worktree ariel did not lock stays a checkout",
      "/",
      {},
      "/fast/wt/mine/x",
      "/fast/wt/mine/x",
      "flag",
      undefined,
    ],
    [
      "a directory of such worktrees is no task",
      "/",
      {},
      "/fast/wt/mine",
      "/fast/wt/mine",
      "flag",
      undefined,
    ],
    ["the workspace itself", "/", {}, "/ws", "/ws", "flag", undefined],
    [
      "the cwd in a leg found its workspace as always",
      "/ws/.ariel/worktrees/t/api/src",
      {},
      undefined,
      "/ws",
      "marker",
      undefined,
    ],
  ])("%s", async (_name, cwd, env, flag, root, via, inTask) => {
    const ws = await resolve(cwd, env, flag, tasks());
    expect(ws).toEqual({ root, hash: await workspaceHash(root), via, ...(inTask ? { inTask } : {}) });
  });
});
