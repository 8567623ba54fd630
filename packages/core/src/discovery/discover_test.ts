import { describe, expect, it } from "vitest";
import { ArielError } from "../errors.ts";
import { asyncFake, type FakeNode, type FakeSyncFs, fakeSyncFs } from "./_fake_fs.ts";
import { discoverSources, discoverSourcesSync } from "./discover.ts";
import type { DiscoverOptions, DiscoverWarning, Source } from "./types.ts";

const A = "a".repeat(40);
const B = "b".repeat(40);
const C = "c".repeat(40);

/** A checkout at `dir` on `branch` at `sha` (null: unborn). */
function checkout(dir: string, branch = "main", sha: string | null = A): Record<string, FakeNode> {
  return {
    [`${dir}/.git/HEAD`]: `ref: refs/heads/${branch}\n`,
    ...(sha ? { [`${dir}/.git/refs/heads/${branch}`]: `${sha}\n` } : {}),
  };
}

type Mode = "async" | "sync";

/** One discovery over the fake: through the async FsPort, or the synchronous port. */
async function discover(
  mode: Mode,
  fs: FakeSyncFs,
  root: string,
  options: DiscoverOptions,
  onWarning: (w: DiscoverWarning) => void,
): Promise<Source[]> {
  if (mode === "sync") return discoverSourcesSync(fs, root, options, onWarning);
  return discoverSources(asyncFake(fs), root, options, onWarning);
}

const src = (name: string, extra: Partial<Source> = {}): Source => ({
  name,
  path: name === "." ? "/ws" : `/ws/${name}`,
  kind: "checkout",
  gitDir: name === "." ? "/ws/.git" : `/ws/${name}/.git`,
  head: A,
  branch: "main",
  ...extra,
});

// Every case runs over both ports: one algorithm, two drivers (io.ts).
describe.each<Mode>(["async", "sync"])("discoverSources (%s port)", (mode) => {
  async function run(tree: Record<string, FakeNode>, options: DiscoverOptions = {}, root = "/ws") {
    const warnings: DiscoverWarning[] = [];
    const sources = await discover(mode, fakeSyncFs(tree), root, options, (w) => warnings.push(w));
    return { sources, warnings, names: sources.map((s) => s.name) };
  }

  it("finds the root and its direct children, sorted bytewise", async () => {
    const { sources, warnings } = await run({
      ...checkout("/ws"),
      ...checkout("/ws/web", "dev", B),
      ...checkout("/ws/api"),
      ...checkout("/ws/Zed"),
      ...checkout("/ws/-x"),
      "/ws/docs/README.md": "plain directory\n",
      "/ws/notes.txt": "a file\n",
    });
    expect(sources).toEqual([
      src("-x"),
      src("."),
      src("Zed"),
      src("api"),
      src("web", { head: B, branch: "dev" }),
    ]);
    expect(warnings).toEqual([]);
  });

  it("works when the root is not a checkout, and finds nothing in an empty root", async () => {
    expect((await run({ ...checkout("/ws/api") })).names).toEqual(["api"]);
    expect((await run({ "/ws": { dir: true } })).names).toEqual([]);
  });

  it.each([
    [0, ["."]],
    [1, [".", "a"]],
    [2, [".", "a", "g/b"]],
    [3, [".", "a", "g/b", "g/h/c"]],
    [64, [".", "a", "g/b", "g/h/c", "g/h/i/d"]],
  ])("maxDepth %i", async (maxDepth, names) => {
    const tree = {
      ...checkout("/ws"),
      ...checkout("/ws/a"),
      ...checkout("/ws/g/b"),
      ...checkout("/ws/g/h/c"),
      ...checkout("/ws/g/h/i/d"),
    };
    expect((await run(tree, { maxDepth })).names).toEqual(names);
  });

  it("does not descend into a source unless nested (the root is always searched)", async () => {
    const tree = {
      ...checkout("/ws"),
      ...checkout("/ws/a"),
      ...checkout("/ws/a/inner"),
      ...checkout("/ws/a/x/deep"),
    };
    expect((await run(tree, { maxDepth: 3 })).names).toEqual([".", "a"]);
    expect((await run(tree, { maxDepth: 3, nested: true })).names).toEqual([".", "a", "a/inner", "a/x/deep"]);
    expect((await run(tree, { maxDepth: 1, nested: true })).names).toEqual([".", "a"]);
  });

  it("skips .git, .ariel, node_modules and excluded globs", async () => {
    const tree = {
      ...checkout("/ws/.ariel/worktrees/t"),
      ...checkout("/ws/node_modules/pkg"),
      ...checkout("/ws/vendor"),
      ...checkout("/ws/libs/vendor"),
      ...checkout("/ws/libs/core"),
      ...checkout("/ws/legacy-a"),
      ...checkout("/ws/keep"),
      ...checkout("/ws/.git/modules/m"),
    };
    expect((await run(tree, { maxDepth: 3 })).names).toEqual([
      "keep",
      "legacy-a",
      "libs/core",
      "libs/vendor",
      "vendor",
    ]);
    expect((await run(tree, { maxDepth: 3, exclude: ["vendor", "legacy-*"] })).names).toEqual([
      "keep",
      "libs/core",
    ]);
    expect((await run(tree, { maxDepth: 3, exclude: ["/vendor"] })).names).toEqual([
      "keep",
      "legacy-a",
      "libs/core",
      "libs/vendor",
    ]);
    // An excluded directory is not searched either.
    expect((await run(tree, { maxDepth: 3, exclude: ["libs"] })).names).toEqual([
      "keep",
      "legacy-a",
      "vendor",
    ]);
    expect((await run(tree, { maxDepth: 3, exclude: ["libs/*"] })).names).toEqual([
      "keep",
      "legacy-a",
      "vendor",
    ]);
  });

  it("reads kinds from .git files: worktree, submodule, separate git dir", async () => {
    const { sources, warnings } = await run({
      ...checkout("/ws/main"),
      "/ws/main/.git/worktrees/wt/HEAD": "ref: refs/heads/feature\n",
      "/ws/main/.git/worktrees/wt/commondir": "../..\n",
      "/ws/main/.git/refs/heads/feature": `${B}\n`,
      "/ws/wt/.git": "gitdir: /ws/main/.git/worktrees/wt\n",
      "/ws/main/.git/modules/libs/sub/HEAD": `${C}\n`,
      "/ws/sub/.git": "gitdir: ../main/.git/modules/libs/sub\n",
      "/elsewhere/sep.git/HEAD": "ref: refs/heads/main\n",
      "/elsewhere/sep.git/packed-refs": `${A} refs/heads/main\n`,
      "/ws/sep/.git": "gitdir: /elsewhere/sep.git\r\n",
    });
    expect(sources).toEqual([
      src("main"),
      src("sep", { gitDir: "/elsewhere/sep.git" }),
      src("sub", { kind: "submodule", gitDir: "/ws/main/.git/modules/libs/sub", head: C, branch: null }),
      src("wt", { kind: "worktree", gitDir: "/ws/main/.git/worktrees/wt", head: B, branch: "feature" }),
    ]);
    expect(warnings).toEqual([]);
  });

  it("a worktree of a submodule is a worktree; a submodule inside a worktree's modules a submodule", async () => {
    const { sources } = await run({
      "/g/modules/s/worktrees/w/HEAD": `${A}\n`,
      "/ws/a/.git": "gitdir: /g/modules/s/worktrees/w\n",
      "/g/worktrees/w/modules/s/HEAD": `${A}\n`,
      "/ws/b/.git": "gitdir: /g/worktrees/w/modules/s\n",
    });
    expect(sources.map((s) => [s.name, s.kind])).toEqual([
      ["a", "worktree"],
      ["b", "submodule"],
    ]);
  });

  it("does not follow symbolic links by default", async () => {
    const tree = {
      ...checkout("/ws/real"),
      "/ws/link": { link: "real" },
      "/ws/out": { link: "/other" },
      ...checkout("/other"),
    };
    const { names, warnings } = await run(tree);
    expect(names).toEqual(["real"]);
    expect(warnings).toEqual([]);
  });

  it("follows links inside the root with followSymlinks, deduplicated by realpath", async () => {
    const tree = {
      ...checkout("/ws/real"),
      "/ws/alias": { link: "real" }, // same checkout: the real name wins
      "/ws/deep": { link: "nest/a/b" }, // beyond maxDepth by its real path
      ...checkout("/ws/nest/a/b"),
      "/ws/zz": { link: "nest/a/b" }, // second link to the same: the smaller name wins
      "/ws/loop": { link: "." }, // a loop back to the root ends at once
      "/ws/out": { link: "/other" }, // outside the root: warned, not followed
      ...checkout("/other"),
      "/ws/dangling": { link: "nowhere" },
      "/ws/file": { link: "real/.git/HEAD" },
      "/ws/dir/sub": { link: "../real" },
    };
    const { sources, warnings } = await run(tree, { followSymlinks: true, maxDepth: 2 });
    expect(sources).toEqual([
      src("deep", { path: "/ws/nest/a/b", gitDir: "/ws/nest/a/b/.git" }),
      src("real"),
    ]);
    expect(warnings).toEqual([
      {
        code: "WARN_SYMLINK_OUTSIDE_ROOT",
        message: "not following /ws/out: it points outside the workspace root",
        path: "/ws/out",
      },
    ]);
  });

  it("follows a link to a plain directory and finds sources below it", async () => {
    const tree = { ...checkout("/ws/x/y/z/repo"), "/ws/l": { link: "x/y/z" } };
    expect((await run(tree, { followSymlinks: true, maxDepth: 2 })).sources).toEqual([
      src("l/repo", { path: "/ws/x/y/z/repo", gitDir: "/ws/x/y/z/repo/.git" }),
    ]);
  });

  it("warns about an unreadable directory and goes on", async () => {
    const tree = {
      ...checkout("/ws/a"),
      "/ws/locked": { error: "EACCES" },
      "/ws/plain/sub": { error: "EACCES" },
      ...checkout("/ws/b"),
    };
    const { names, warnings } = await run(tree, { maxDepth: 2 });
    expect(names).toEqual(["a", "b"]);
    expect(warnings.map((w) => [w.code, w.path])).toEqual([
      ["WARN_UNREADABLE", "/ws/locked"],
      ["WARN_UNREADABLE", "/ws/plain/sub"],
    ]);
    expect(warnings.map((w) => w.message)).toEqual([
      "cannot read /ws/locked/.git (EACCES); skipping /ws/locked",
      "cannot read /ws/plain/sub/.git (EACCES); skipping /ws/plain/sub",
    ]);
  });

  it("reports warnings in path order, whatever order the directory lists", async () => {
    const tree = { "/ws/a": { error: "EIO" }, "/ws/c": { error: "EIO" }, "/ws/b/.git": "junk\n" };
    const { warnings } = await run(tree);
    expect(warnings.map((w) => w.path)).toEqual(["/ws/a", "/ws/b", "/ws/c"]);
  });

  it("warns when a directory's listing fails after its .git check", async () => {
    const fs = fakeSyncFs({ ...checkout("/ws/a"), "/ws/p/x": "file" });
    const readDir = fs.readDir.bind(fs);
    fs.readDir = (p) => {
      if (p === "/ws/p") throw Object.assign(new Error("EIO"), { code: "EIO" });
      return readDir(p);
    };
    const warnings: DiscoverWarning[] = [];
    const sources = await discover(mode, fs, "/ws", { maxDepth: 2 }, (w) => warnings.push(w));
    expect(sources.map((s) => s.name)).toEqual(["a"]);
    expect(warnings).toEqual([
      { code: "WARN_UNREADABLE", message: "cannot read /ws/p (EIO); skipping it", path: "/ws/p" },
    ]);
  });

  it.each([
    ["a .git dir without HEAD", { "/ws/x/.git/config": "" }, "skipping /ws/x: .git has no HEAD"],
    [
      "a .git file without gitdir:",
      { "/ws/x/.git": "hello\n" },
      "skipping /ws/x: .git file does not start with 'gitdir:'",
    ],
    [
      "a .git file naming nothing",
      { "/ws/x/.git": "gitdir: /gone\n" },
      "skipping /ws/x: .git names /gone, which is not a git dir",
    ],
    [
      "a garbage HEAD",
      { "/ws/x/.git/HEAD": "junk\n" },
      "skipping /ws/x: HEAD does not hold a ref or an object name",
    ],
  ])("warns about %s (not a repository)", async (_n, tree, message) => {
    const { names, warnings } = await run({ ...tree, ...checkout("/ws/ok") });
    expect(names).toEqual(["ok"]);
    expect(warnings).toEqual([{ code: "WARN_NOT_A_REPOSITORY", message, path: "/ws/x" }]);
  });

  it("a .git that is a link loop is unreadable (this fails even for root)", async () => {
    const { names, warnings } = await run({ "/ws/x/.git": { link: ".git" }, ...checkout("/ws/ok") });
    expect(names).toEqual(["ok"]);
    expect(warnings.map((w) => w.message)).toEqual(["cannot read /ws/x/.git (ELOOP); skipping /ws/x"]);
  });

  it("a reftable repository is listed without head and branch, with a warning", async () => {
    const { sources, warnings } = await run({
      "/ws/rt/.git/HEAD": "ref: refs/heads/.invalid\n",
      "/ws/rt/.git/reftable/tables.list": "",
    });
    expect(sources).toEqual([src("rt", { head: null, branch: null })]);
    expect(warnings).toEqual([
      {
        code: "WARN_UNSUPPORTED_REFS",
        message: "/ws/rt uses the reftable ref format; its head and branch are not read",
        path: "/ws/rt",
      },
    ]);
  });

  it("a dangling .git link is not a source and not a warning", async () => {
    const { names, warnings } = await run({ "/ws/x/.git": { link: "/nowhere" } });
    expect([names, warnings]).toEqual([[], []]);
  });

  it.each([
    ["missing", {}, "ERR_WORKSPACE_NOT_FOUND", "workspace root /ws does not exist"],
    ["a file", { "/ws": "x" }, "ERR_WORKSPACE_NOT_FOUND", "workspace root /ws is not a directory"],
    ["unreadable", { "/ws": { error: "EACCES" } }, "ERR_NOINPUT", "cannot read workspace root /ws (EACCES)"],
  ])("a root that is %s is an ArielError with exit 66", async (_n, tree, code, message) => {
    const p = run(tree as Record<string, FakeNode>);
    await expect(p).rejects.toBeInstanceOf(ArielError);
    await expect(p).rejects.toMatchObject({ code, message, exit: 66, context: { root: "/ws" } });
  });

  it.each([
    ["a file", { "/ws": "x" }, "pass -C DIR or set ARIEL_WORKSPACE_ROOT"],
    ["unreadable", { "/ws": { error: "EACCES" } }, "check the directory's permissions"],
  ])("a root that is %s: its hint", async (_n, tree, hint) => {
    await expect(run(tree as Record<string, FakeNode>)).rejects.toMatchObject({ hint });
  });

  it("names the bad maxDepth", async () => {
    await expect(run({}, { maxDepth: -2 })).rejects.toThrow("maxDepth must be >= 0: -2");
  });

  it("reads packed-refs once per common dir", async () => {
    const fs = fakeSyncFs({
      "/ws/m/.git/HEAD": "ref: refs/heads/main\n",
      "/ws/m/.git/packed-refs": `${A} refs/heads/main\n${B} refs/heads/f\n`,
      "/ws/m/.git/worktrees/w/HEAD": "ref: refs/heads/f\n",
      "/ws/m/.git/worktrees/w/commondir": "../..\n",
      "/ws/w/.git": "gitdir: /ws/m/.git/worktrees/w\n",
    });
    const sources = await discover(mode, fs, "/ws", {}, () => {});
    expect(sources.map((s) => [s.name, s.head, s.branch])).toEqual([
      ["m", A, "main"],
      ["w", B, "f"],
    ]);
    expect(fs.calls.filter((c) => c.endsWith("packed-refs"))).toEqual(["readText /ws/m/.git/packed-refs"]);
  });

  it("a workspace at / names its children /x, not //x", async () => {
    const { sources } = await run({ ...checkout("/api") }, {}, "/");
    expect(sources.map((s) => [s.name, s.path, s.gitDir])).toEqual([["api", "/api", "/api/.git"]]);
  });

  it("a followed link counts one level deeper than the directory holding it", async () => {
    // r itself is excluded, so only the link leads there.
    const tree = { "/ws/l": { link: "r" }, ...checkout("/ws/r/sub") };
    const options = { followSymlinks: true, exclude: ["r"] };
    expect((await run(tree, { ...options, maxDepth: 1 })).names).toEqual([]);
    expect((await run(tree, { ...options, maxDepth: 2 })).names).toEqual(["l/sub"]);
  });

  it("rejects a negative or fractional maxDepth", async () => {
    await expect(run({}, { maxDepth: -1 })).rejects.toBeInstanceOf(RangeError);
    await expect(run({}, { maxDepth: 1.5 })).rejects.toBeInstanceOf(RangeError);
  });
});
