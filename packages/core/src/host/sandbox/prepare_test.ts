/**
 * A sandbox's git shadows made before it starts, on real repositories (docs/sandbox.md, git
 * inside; decision 0110): the refs in one `packed-refs` (symbolic and, in place, per-worktree
 * refs loose), an empty object store naming the real one, the composed hooks and the frozen
 * refs, the start refs, in place the main worktree's state and its digests, and the manifest;
 * a second call for the same run reuses all of it.
 */
import {
  existsSync,
  mkdirSync,
  readdirSync,
  readFileSync,
  readlinkSync,
  rmSync,
  statSync,
  symlinkSync,
  writeFileSync,
} from "node:fs";
import { join } from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { contentDigest } from "../../sandbox/digest.ts";
import { REFERENCE_TRANSACTION_HOOK } from "../../sandbox/git_shadow.ts";
import type { SandboxManifest } from "../../sandbox/manifest.ts";
import { sandboxPaths } from "../../sandbox/paths.ts";
import { git, initRepo, removeDir, tempDir, writeFile } from "../_fixture.ts";
import { digest, prepareSandbox } from "./prepare.ts";

const RUN = "20260101T000000Z-abc123";
const env = { PATH: process.env.PATH, GIT_CONFIG_GLOBAL: "/dev/null", GIT_CONFIG_SYSTEM: "/dev/null" };

let root: string;
let api: string;
let common: string;
let head: string;
beforeEach(() => {
  root = tempDir("ariel-prepare-");
  api = join(root, "api");
  head = initRepo(api);
  common = join(api, ".git");
});
afterEach(() => removeDir(root));

const read = (p: string) => readFileSync(p, "utf8");
const paths = () => sandboxPaths(root, RUN);
const shadow = (n = 1) => paths().shadow(n);

/** A linked worktree of `repo` for task branch `branch`, under the workspace's worktree root. */
function worktree(repo: string, name: string, branch: string): string {
  const wt = join(root, ".ariel/worktrees/t", name);
  mkdirSync(join(root, ".ariel/worktrees/t"), { recursive: true });
  git(repo, "worktree", "add", "-q", "-b", branch, wt);
  return wt;
}

describe("digest", () => {
  it("a file is the digest of its bytes; an absent path is null", () => {
    writeFile(join(root, "f"), "hello\n");
    expect(digest(join(root, "f"))).toBe(contentDigest([new TextEncoder().encode("hello\n")]));
    expect(digest(join(root, "absent"))).toBeNull();
  });

  it("a directory is `d` and the digest of its files by relative path, sorted, a link as `link`", () => {
    const d = join(root, "d");
    writeFile(join(d, "b"), "B");
    writeFile(join(d, "a/x"), "X");
    symlinkSync("/nowhere", join(d, "c"));
    const enc = new TextEncoder();
    expect(digest(d)).toBe(
      `d${contentDigest([enc.encode("/a/x\0"), enc.encode("X"), enc.encode("/b\0"), enc.encode("B"), enc.encode("/c\0"), enc.encode("link")])}`,
    );
  });

  it("a directory and a file of the same bytes differ; a renamed or changed file changes it", () => {
    writeFile(join(root, "f"), "");
    mkdirSync(join(root, "e"));
    expect(digest(join(root, "e"))).toBe(`d${contentDigest([])}`);
    expect(digest(join(root, "f"))).toBe(contentDigest([new Uint8Array()]));
    writeFile(join(root, "d/x"), "1");
    const before = digest(join(root, "d"));
    writeFile(join(root, "d/x"), "2");
    const changed = digest(join(root, "d"));
    rmSync(join(root, "d/x"));
    writeFile(join(root, "d/y"), "2");
    expect(new Set([before, changed, digest(join(root, "d"))]).size).toBe(3);
  });
});

describe("prepareSandbox, a task's linked worktree", () => {
  let wt: string;
  let admin: string;
  beforeEach(() => {
    wt = worktree(api, "api", "ariel/t");
    admin = join(common, "worktrees/api");
    git(api, "branch", "packed");
    git(api, "pack-refs", "--all");
    git(api, "branch", "other");
    git(api, "tag", "v1");
    git(api, "update-ref", "refs/remotes/origin/main", head);
    git(api, "symbolic-ref", "refs/remotes/origin/HEAD", "refs/remotes/origin/main");
    git(api, "update-ref", "refs/stash", head);
    git(api, "update-ref", "refs/bisect/bad", head);
    writeFileSync(join(common, "shallow"), `${head}\n`);
    mkdirSync(join(common, "rr-cache"));
    writeFileSync(join(common, "hooks/pre-commit"), "#!/bin/sh\nexit 0\n", { mode: 0o755 });
    writeFileSync(join(common, "hooks/reference-transaction"), "#!/bin/sh\necho theirs\n", { mode: 0o755 });
    symlinkSync("pre-commit", join(common, "hooks/post-merge"));
    mkdirSync(join(common, "hooks/lib"));
    writeFileSync(join(common, "hooks/lib/util.sh"), "util\n");
    writeFileSync(
      join(common, "objects/info/alternates"),
      "# a comment\n\n  ../../other/objects  \n/abs/store/objects\n",
    );
  });

  const prepare = (task: string | null = null) =>
    prepareSandbox({ root, runId: RUN, task, legs: [{ path: wt, branch: "ariel/t" }], env });

  it("copies the refs into one packed-refs, symbolic refs loose, refs/stash left out", async () => {
    await prepare();
    expect(read(join(shadow(), "packed-refs"))).toBe(
      "# pack-refs with: sorted \n" +
        `${head} refs/bisect/bad\n` +
        `${head} refs/heads/ariel/t\n` +
        `${head} refs/heads/main\n` +
        `${head} refs/heads/other\n` +
        `${head} refs/heads/packed\n` +
        `${head} refs/remotes/origin/main\n` +
        `${head} refs/tags/v1\n`,
    );
    expect(read(join(shadow(), "refs/remotes/origin/HEAD"))).toBe("ref: refs/remotes/origin/main\n");
    expect(existsSync(join(shadow(), "refs/bisect/bad"))).toBe(false);
    expect(existsSync(join(shadow(), "refs/stash"))).toBe(false);
    expect(statSync(join(shadow(), "refs")).isDirectory()).toBe(true);
    expect(read(paths().startRefs(1))).toBe(
      [
        "refs/bisect/bad",
        "refs/heads/ariel/t",
        "refs/heads/main",
        "refs/heads/other",
        "refs/heads/packed",
        "refs/remotes/origin/main",
        "refs/tags/v1",
      ]
        .map((r) => `${head} ${r}\n`)
        .join(""),
    );
  });

  it("an empty object store whose alternates are the real store, then the real store's own", async () => {
    await prepare();
    expect(read(join(shadow(), "objects/info/alternates"))).toBe(
      `${common}/ariel-real-objects\n${common}/objects/../../other/objects\n/abs/store/objects\n`,
    );
    expect(readdirNames(join(shadow(), "objects"))).toEqual(["info"]);
  });

  it("the real store without alternates: only the real store", async () => {
    rmSync(join(common, "objects/info/alternates"));
    await prepare();
    expect(read(join(shadow(), "objects/info/alternates"))).toBe(`${common}/ariel-real-objects\n`);
  });

  it("copies HEAD and shallow, makes rr-cache and the run's admin dir, no main-worktree state", async () => {
    await prepare();
    expect(read(join(shadow(), "HEAD"))).toBe("ref: refs/heads/main\n");
    expect(read(join(shadow(), "shallow"))).toBe(`${head}\n`);
    expect(statSync(join(shadow(), "rr-cache")).isDirectory()).toBe(true);
    expect(readdirNames(join(shadow(), "rr-cache"))).toEqual([]);
    expect(readdirNames(join(shadow(), "worktrees"))).toEqual(["api"]);
    expect(readdirNames(join(shadow(), "worktrees/api"))).toEqual([]);
    expect(existsSync(join(shadow(), "index"))).toBe(false);
    expect(existsSync(join(shadow(), "logs"))).toBe(false);
    expect(existsSync(`${paths().startState(1)}-index`)).toBe(false);
  });

  it("no rr-cache, no shallow in the real dir: none in the shadow", async () => {
    rmSync(join(common, "rr-cache"), { recursive: true });
    rmSync(join(common, "shallow"));
    await prepare();
    expect(existsSync(join(shadow(), "rr-cache"))).toBe(false);
    expect(existsSync(join(shadow(), "shallow"))).toBe(false);
  });

  it("composes the hooks: the repository's (not samples), its reference-transaction chained, ariel's, the frozen refs", async () => {
    await prepare();
    const hooks = join(shadow(), "hooks");
    expect(readdirNames(hooks)).toEqual([
      "ariel-frozen-refs",
      "lib",
      "post-merge",
      "pre-commit",
      "reference-transaction",
      "reference-transaction.repo",
    ]);
    expect(read(join(hooks, "pre-commit"))).toBe("#!/bin/sh\nexit 0\n");
    expect(read(join(hooks, "lib/util.sh"))).toBe("util\n");
    expect(readlinkSync(join(hooks, "post-merge"))).toBe("pre-commit");
    expect(read(join(hooks, "reference-transaction.repo"))).toBe("#!/bin/sh\necho theirs\n");
    expect(read(join(hooks, "reference-transaction"))).toBe(REFERENCE_TRANSACTION_HOOK);
    expect(statSync(join(hooks, "reference-transaction")).mode & 0o777).toBe(0o755);
    // Every ref at the start but the run's own branch, remote-tracking and per-worktree refs.
    expect(read(join(hooks, "ariel-frozen-refs"))).toBe(
      "refs/heads/main\nrefs/heads/other\nrefs/heads/packed\nrefs/tags/v1\n",
    );
  });

  it("a repository without a hooks dir: only ariel's hook and the frozen refs", async () => {
    rmSync(join(common, "hooks"), { recursive: true });
    await prepare();
    expect(readdirNames(join(shadow(), "hooks"))).toEqual(["ariel-frozen-refs", "reference-transaction"]);
  });

  it("core.hooksPath: the hooks are copied from there, not from the common dir", async () => {
    const moved = join(root, "myhooks");
    mkdirSync(moved);
    writeFileSync(join(moved, "post-commit"), "#!/bin/sh\n", { mode: 0o755 });
    git(api, "config", "core.hooksPath", moved);
    await prepare();
    expect(readdirNames(join(shadow(), "hooks"))).toEqual([
      "ariel-frozen-refs",
      "post-commit",
      "reference-transaction",
    ]);
  });

  it("makes the worktree's config.worktree (empty) when absent, keeps it when there", async () => {
    expect(existsSync(join(admin, "config.worktree"))).toBe(false);
    await prepare();
    expect(read(join(admin, "config.worktree"))).toBe("");
    expect(existsSync(join(common, "config.worktree"))).toBe(false);
  });

  it("keeps an existing config.worktree as it is", async () => {
    writeFileSync(join(admin, "config.worktree"), "[core]\n\tx = 1\n");
    await prepare();
    expect(read(join(admin, "config.worktree"))).toBe("[core]\n\tx = 1\n");
  });

  it("writes the manifest (private dir) and returns it with the repository's facts", async () => {
    const p = await prepare();
    const m = JSON.parse(read(paths().manifest)) as SandboxManifest;
    expect(m).toEqual(p.manifest);
    expect({ ...m, createdAt: "x", owner: { ...m.owner, startTime: "x", bootId: "x" } }).toEqual({
      v: 1,
      type: "sandbox",
      runId: RUN,
      root,
      task: null,
      createdAt: "x",
      owner: { pid: process.pid, startTime: "x", bootId: "x" },
      child: null,
      repos: [{ n: 1, common, main: false, own: ["refs/heads/ariel/t"], worktrees: [wt] }],
    });
    expect(Number.isNaN(Date.parse(m.createdAt))).toBe(false);
    expect(read(paths().manifest).endsWith("}\n")).toBe(true);
    expect(statSync(paths().dir).mode & 0o777).toBe(0o700);
    expect(p.legs).toEqual([{ path: wt, gitdir: admin, common, main: false, gitFile: join(wt, ".git") }]);
    expect(p.repos).toHaveLength(1);
    expect(p.repos[0]).toMatchObject({
      common,
      shadow: shadow(),
      main: false,
      hooksPath: null,
      admins: [{ name: "api", files: ["gitdir", "commondir", "config.worktree"] }],
    });
  });

  it("with a task: the manifest names it", async () => {
    const p = await prepare("t");
    expect(p.manifest.task).toBe("t");
    expect((JSON.parse(read(paths().manifest)) as SandboxManifest).task).toBe("t");
  });

  it("a second call for the run (a restart) reuses the manifest and the shadow as they are", async () => {
    await prepare();
    const m = JSON.parse(read(paths().manifest)) as SandboxManifest;
    const kept = { ...m, createdAt: "2020-01-01T00:00:00.000Z" };
    writeFileSync(paths().manifest, JSON.stringify(kept));
    writeFileSync(join(shadow(), "packed-refs"), "moved inside\n");
    git(api, "branch", "later");
    const again = await prepare();
    expect(again.manifest).toEqual(kept);
    expect(read(join(shadow(), "packed-refs"))).toBe("moved inside\n");
    expect(read(paths().startRefs(1))).not.toContain("refs/heads/later");
    expect(again.repos[0]!.shadow).toBe(shadow());
    expect(again.legs[0]!.path).toBe(wt);
  });

  it("a branch of the leg not given: the worktree's checked-out branch is its own", async () => {
    await prepareSandbox({ root, runId: RUN, task: null, legs: [{ path: wt, branch: null }], env });
    expect((JSON.parse(read(paths().manifest)) as SandboxManifest).repos[0]!.own).toEqual([
      "refs/heads/ariel/t",
    ]);
  });
});

describe("prepareSandbox, several legs", () => {
  it("two worktrees of one repository share its shadow; another repository gets the next", async () => {
    const a = worktree(api, "api", "ariel/a");
    const b = worktree(api, "api2", "ariel/b");
    const web = join(root, "web");
    initRepo(web);
    const w = worktree(web, "web", "ariel/w");
    const p = await prepareSandbox({
      root,
      runId: RUN,
      task: null,
      legs: [
        { path: a, branch: "ariel/a" },
        { path: w, branch: "ariel/w" },
        { path: b, branch: "ariel/b" },
      ],
      env,
    });
    expect(p.manifest.repos).toEqual([
      { n: 1, common, main: false, own: ["refs/heads/ariel/a", "refs/heads/ariel/b"], worktrees: [a, b] },
      { n: 2, common: join(web, ".git"), main: false, own: ["refs/heads/ariel/w"], worktrees: [w] },
    ]);
    expect(p.repos.map((r) => [r.common, r.shadow])).toEqual([
      [common, shadow(1)],
      [join(web, ".git"), shadow(2)],
    ]);
    expect(readdirNames(join(shadow(1), "worktrees"))).toEqual(["api", "api2"]);
    expect(read(join(shadow(2), "objects/info/alternates"))).toBe(
      `${join(web, ".git")}/ariel-real-objects\n`,
    );
    expect(read(join(shadow(1), "hooks/ariel-frozen-refs"))).toBe("refs/heads/main\n");
    expect(read(join(shadow(2), "hooks/ariel-frozen-refs"))).toBe("refs/heads/main\n");
    expect(read(paths().startRefs(2))).toBe(
      `${git(web, "rev-parse", "HEAD")} refs/heads/ariel/w\n${git(web, "rev-parse", "HEAD")} refs/heads/main\n`,
    );
  });
});

describe("prepareSandbox, in place (the main worktree)", () => {
  beforeEach(() => {
    git(api, "update-ref", "refs/bisect/bad", head);
    git(api, "update-ref", "refs/worktree/mine", head);
    git(api, "tag", "v1");
    writeFileSync(join(common, "MERGE_MSG"), "merging\n");
    writeFile(join(common, "rebase-merge/head-name"), "refs/heads/main\n");
  });
  const prepare = () =>
    prepareSandbox({ root, runId: RUN, task: null, legs: [{ path: api, branch: null }], env });

  it("per-worktree refs stay loose and unfrozen; the checked-out branch is the run's own", async () => {
    const p = await prepare();
    expect(read(join(shadow(), "packed-refs"))).toBe(
      `# pack-refs with: sorted \n${head} refs/heads/main\n${head} refs/tags/v1\n`,
    );
    expect(read(join(shadow(), "refs/bisect/bad"))).toBe(`${head}\n`);
    expect(read(join(shadow(), "refs/worktree/mine"))).toBe(`${head}\n`);
    expect(read(join(shadow(), "hooks/ariel-frozen-refs"))).toBe("refs/tags/v1\n");
    expect(p.manifest.repos[0]!.own).toEqual(["refs/heads/main"]);
    expect(p.legs[0]).toEqual({ path: api, gitdir: common, common, main: true, gitFile: null });
    expect(existsSync(join(common, "config.worktree"))).toBe(false);
  });

  it("copies the main worktree's state, records its digests, keeps the index and HEAD reflog at the start", async () => {
    const p = await prepare();
    const entry = p.manifest.repos[0]!;
    expect(entry.main).toBe(true);
    expect(entry.worktrees).toEqual([api]);
    const state = entry.state!;
    expect(state.HEAD).toBe(digest(join(common, "HEAD")));
    expect(state.index).toBe(digest(join(common, "index")));
    expect(state.MERGE_MSG).toBe(digest(join(common, "MERGE_MSG")));
    expect(state["rebase-merge"]).toBe(digest(join(common, "rebase-merge")));
    expect(state["rebase-merge"]!.startsWith("d")).toBe(true);
    expect(state.ORIG_HEAD).toBeNull();
    expect(state.sequencer).toBeNull();
    expect(Object.keys(state)).toHaveLength(22);
    expect(read(join(shadow(), "MERGE_MSG"))).toBe("merging\n");
    expect(read(join(shadow(), "rebase-merge/head-name"))).toBe("refs/heads/main\n");
    expect(readFileSync(join(shadow(), "index"))).toEqual(readFileSync(join(common, "index")));
    expect(existsSync(join(shadow(), "ORIG_HEAD"))).toBe(false);
    const start = paths().startState(1);
    expect(statSync(`${start}-index`).ino).toBe(statSync(join(shadow(), "index")).ino);
    const log = read(join(common, "logs/HEAD"));
    expect(log).not.toBe("");
    expect(read(join(shadow(), "logs/HEAD"))).toBe(log);
    expect(read(`${start}-logs-HEAD`)).toBe(log);
  });

  it("no index and no HEAD reflog: neither kept", async () => {
    rmSync(join(common, "index"));
    rmSync(join(common, "logs"), { recursive: true });
    const p = await prepare();
    const start = paths().startState(1);
    expect(p.manifest.repos[0]!.state!.index).toBeNull();
    expect(existsSync(`${start}-index`)).toBe(false);
    expect(existsSync(`${start}-logs-HEAD`)).toBe(false);
    expect(existsSync(join(shadow(), "logs/HEAD"))).toBe(false);
  });

  it("a detached HEAD in place: no branch is the run's own, every branch frozen", async () => {
    git(api, "checkout", "-q", "--detach");
    const p = await prepare();
    expect(p.manifest.repos[0]!.own).toEqual([]);
    expect(read(join(shadow(), "hooks/ariel-frozen-refs"))).toBe("refs/heads/main\nrefs/tags/v1\n");
    expect(read(join(shadow(), "HEAD"))).toBe(`${head}\n`);
  });
});

function readdirNames(p: string): string[] {
  return readdirSync(p).sort();
}
