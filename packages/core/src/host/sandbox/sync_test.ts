/**
 * The sync on real repositories, without bubblewrap (as reconcile_steps_test.ts builds them): a
 * hand-written sandbox.json, a bare-clone shadow holding the run's new commits, a start-refs
 * file; an ended run has a dead owner. What comes home (objects, refs by compare-and-swap, the
 * main worktree's state in place), what is kept aside, what is refused (a ref naming objects
 * that are not whole), when the sandbox goes, and which sandboxes a command syncs.
 */
import { spawnSync } from "node:child_process";
import {
  existsSync,
  mkdirSync,
  readdirSync,
  readFileSync,
  realpathSync,
  rmSync,
  symlinkSync,
  unlinkSync,
  utimesSync,
  writeFileSync,
} from "node:fs";
import { join } from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { runPaths } from "../../runs/paths.ts";
import type { SandboxManifest } from "../../sandbox/manifest.ts";
import { sandboxesDir, sandboxPaths } from "../../sandbox/paths.ts";
import { git, gitRaw, initRepo, removeDir, tempDir } from "../_fixture.ts";
import { selfMonitorRef } from "../runs/identity.ts";
import { digest } from "./prepare.ts";
import {
  readManifest,
  recordSandboxChild,
  sandboxEnded,
  sandboxRunIds,
  syncSandbox,
  syncTaskSandboxes,
} from "./sync.ts";

const RUN_A = "20260101T000000Z-aaaaaa";
const RUN_B = "20260101T000000Z-bbbbbb";
const RUN_C = "20260101T000000Z-cccccc";
const DEAD = { pid: 2 ** 30, startTime: null, bootId: null };

let root = "";
let api = "";
let common = "";
let head = "";
beforeEach(() => {
  root = realpathSync(tempDir("ariel-sync-"));
  api = join(root, "api");
  initRepo(api);
  common = join(api, ".git");
  head = git(api, "rev-parse", "HEAD");
});
afterEach(() => removeDir(root));

interface Opts {
  task?: string | null;
  live?: boolean;
  main?: boolean;
  own?: string[];
  state?: Record<string, string | null>;
  child?: SandboxManifest["child"];
}

/** Run `runId`'s sandbox over api: a bare-clone shadow, start refs (main at HEAD), a manifest. Returns the shadow. */
function sandbox(runId: string, o: Opts = {}): string {
  const p = sandboxPaths(root, runId);
  mkdirSync(p.dir, { recursive: true });
  const shadow = p.shadow(1);
  git(root, "clone", "-q", "--bare", api, shadow);
  writeFileSync(p.startRefs(1), `${head} refs/heads/main\n`);
  const repo = {
    n: 1,
    common,
    main: o.main ?? false,
    own: o.own ?? ["refs/heads/work"],
    worktrees: [],
    ...(o.state ? { state: o.state } : {}),
  };
  const manifest = {
    v: 1,
    type: "sandbox",
    runId,
    root,
    task: o.task === undefined ? "t1" : o.task,
    createdAt: "2026-01-01T00:00:00.000Z",
    owner: o.live ? selfMonitorRef() : DEAD,
    child: o.child ?? null,
    repos: [repo],
  };
  writeFileSync(p.manifest, `${JSON.stringify(manifest)}\n`);
  return shadow;
}

/** A new commit in the shadow on top of `parent` (a new tree when `file` is given). */
function commitIn(shadow: string, message: string, parent = head, file?: string): string {
  let tree = `${parent}^{tree}`;
  if (file !== undefined) {
    const input = join(root, "blob-input");
    writeFileSync(input, file);
    const blob = git(shadow, "hash-object", "-w", input);
    tree = mktree(shadow, `100644 blob ${blob}\tfile.txt\n`);
  }
  return git(shadow, "commit-tree", tree, "-p", parent, "-m", message);
}

function mktree(cwd: string, input: string): string {
  const r = spawnSync("git", ["mktree"], { cwd, input, encoding: "utf8" });
  if (r.status !== 0) throw new Error(r.stderr);
  return r.stdout.trim();
}

const realRefs = () => git(api, "for-each-ref", "--format=%(refname) %(objectname)");
const parked = (run: string, ref: string) => `refs/ariel/sandbox/${run}/${ref.slice(5)}`;

describe("sandboxEnded", () => {
  const base = (owner: SandboxManifest["owner"], child: SandboxManifest["child"]) =>
    ({ owner, child }) as SandboxManifest;
  const self = () => selfMonitorRef();

  it("with a recorded child, its end decides, whatever the owner", () => {
    const liveChild = { pid: self().pid, startTime: self().startTime };
    expect(sandboxEnded(base(DEAD, liveChild))).toBe(false);
    expect(sandboxEnded(base(self(), { pid: 2 ** 30, startTime: null }))).toBe(true);
  });

  it("without one, the owner's end decides", () => {
    expect(sandboxEnded(base(DEAD, null))).toBe(true);
    expect(sandboxEnded(base(self(), null))).toBe(false);
  });
});

describe("readManifest and recordSandboxChild", () => {
  it("no manifest: null", () => {
    expect(readManifest(root, RUN_A)).toBeNull();
  });

  it("a manifest that is not JSON, or not a manifest: ERR_RECORD_CORRUPT naming the path and the field", () => {
    const p = sandboxPaths(root, RUN_A);
    mkdirSync(p.dir, { recursive: true });
    for (const [text, why] of [
      ["{ not json\n", "not JSON"],
      [`${JSON.stringify({ v: 2 })}\n`, "v"],
    ] as const) {
      writeFileSync(p.manifest, text);
      let err: unknown = null;
      try {
        readManifest(root, RUN_A);
      } catch (e) {
        err = e;
      }
      const e = err as { code?: string; message?: string; context?: unknown };
      expect([e.code, e.message, e.context]).toEqual([
        "ERR_RECORD_CORRUPT",
        `${p.manifest} is not a sandbox manifest (${why})`,
        { path: p.manifest, field: why },
      ]);
    }
  });

  it("the child recorded beside the manifest is read when the manifest has none", () => {
    sandbox(RUN_A);
    expect(readManifest(root, RUN_A)?.child).toBeNull();
    recordSandboxChild(root, RUN_A, { pid: 1234, startTime: "99" });
    expect(readFileSync(sandboxPaths(root, RUN_A).child, "utf8")).toBe('{"pid":1234,"startTime":"99"}\n');
    expect(readManifest(root, RUN_A)?.child).toEqual({ pid: 1234, startTime: "99" });
    recordSandboxChild(root, RUN_A, { pid: 77, startTime: null });
    expect(readManifest(root, RUN_A)?.child).toEqual({ pid: 77, startTime: null });
  });

  it("a child file that is not a child is ignored", () => {
    sandbox(RUN_A);
    const child = sandboxPaths(root, RUN_A).child;
    for (const text of [
      "null",
      "{ nope",
      '{"pid":"12","startTime":null}',
      '{"pid":1.5,"startTime":null}',
      '{"pid":12,"startTime":5}',
      '{"pid":12}',
    ]) {
      writeFileSync(child, text);
      expect(readManifest(root, RUN_A)?.child).toBeNull();
    }
  });

  it("the manifest's own child wins over the file", () => {
    sandbox(RUN_A, { child: { pid: 42, startTime: "7" } });
    expect(readManifest(root, RUN_A)?.child).toEqual({ pid: 42, startTime: "7" });
    writeFileSync(sandboxPaths(root, RUN_A).child, '{"pid":43,"startTime":"8"}');
    expect(readManifest(root, RUN_A)?.child).toEqual({ pid: 42, startTime: "7" });
  });

  it("a sandbox already gone: nothing is recorded", () => {
    mkdirSync(sandboxesDir(root), { recursive: true });
    recordSandboxChild(root, RUN_A, { pid: 1, startTime: null });
    expect(existsSync(sandboxPaths(root, RUN_A).child)).toBe(false);
    expect(readdirSync(sandboxesDir(root))).toEqual([]);
  });
});

describe("syncSandbox: refs and objects", () => {
  it("no sandbox: null, and nothing made", async () => {
    expect(await syncSandbox(root, RUN_A)).toBeNull();
    expect(existsSync(sandboxesDir(root))).toBe(false);
  });

  it("an ended run: its own branch moves, main is kept aside, the objects are home, the sandbox goes", async () => {
    const shadow = sandbox(RUN_A);
    const c = commitIn(shadow, "work");
    git(shadow, "update-ref", "refs/heads/work", c);
    git(shadow, "update-ref", "refs/heads/main", c);
    expect(gitRaw(api, "cat-file", "-e", c).code).not.toBe(0);
    const r = await syncSandbox(root, RUN_A);
    expect(r).toEqual({
      runId: RUN_A,
      task: "t1",
      finished: true,
      repos: [
        {
          common,
          objects: 1,
          unsound: [],
          refs: [
            {
              op: "park",
              ref: "refs/heads/main",
              to: c,
              as: parked(RUN_A, "refs/heads/main"),
              why: "not-the-task's",
            },
            { op: "update", ref: "refs/heads/work", to: c, from: null },
          ],
          state: [],
        },
      ],
    });
    expect(realRefs()).toBe(
      [`${parked(RUN_A, "refs/heads/main")} ${c}`, `refs/heads/main ${head}`, `refs/heads/work ${c}`].join(
        "\n",
      ),
    );
    expect(existsSync(sandboxPaths(root, RUN_A).dir)).toBe(false);
    // Run again: nothing left to do.
    expect(await syncSandbox(root, RUN_A)).toBeNull();
  });

  it("mid-run: objects and refs only, the new bases recorded, the sandbox left; the next sync moves on from them", async () => {
    const shadow = sandbox(RUN_A, { live: true });
    const c1 = commitIn(shadow, "one");
    git(shadow, "update-ref", "refs/heads/work", c1);
    const p = sandboxPaths(root, RUN_A);
    const r1 = await syncSandbox(root, RUN_A);
    expect(r1).toEqual({
      runId: RUN_A,
      task: "t1",
      finished: false,
      repos: [
        {
          common,
          objects: 1,
          unsound: [],
          refs: [{ op: "update", ref: "refs/heads/work", to: c1, from: null }],
          state: [],
        },
      ],
    });
    expect(readFileSync(p.syncedRefs(1), "utf8")).toBe(`${c1} refs/heads/work\n`);
    expect(existsSync(p.manifest)).toBe(true);
    expect(existsSync(p.done)).toBe(false);
    // The next commit: its base is the synced value, not the start.
    const c2 = commitIn(shadow, "two", c1);
    git(shadow, "update-ref", "refs/heads/work", c2);
    const r2 = await syncSandbox(root, RUN_A, { final: false });
    expect(r2?.repos[0]?.refs).toEqual([{ op: "update", ref: "refs/heads/work", to: c2, from: c1 }]);
    expect(r2?.repos[0]?.objects).toBe(1);
    expect(readFileSync(p.syncedRefs(1), "utf8")).toBe(`${c2} refs/heads/work\n`);
    // Nothing new: no step at all.
    const r3 = await syncSandbox(root, RUN_A, { final: false });
    expect(r3?.repos[0]).toEqual({ common, objects: 0, unsound: [], refs: [], state: [] });
    expect(git(api, "rev-parse", "refs/heads/work")).toBe(c2);
  });

  it("a ref already where the sandbox left it is home: recorded as the new base", async () => {
    const shadow = sandbox(RUN_A, { live: true });
    const c = commitIn(shadow, "one");
    git(shadow, "update-ref", "refs/heads/work", c);
    // An earlier sync moved it, then was killed before recording it.
    git(root, "--git-dir", shadow, "push", "-q", common, `${c}:refs/heads/work`);
    const r = await syncSandbox(root, RUN_A, { final: false });
    expect(r?.repos[0]?.refs).toEqual([{ op: "home", ref: "refs/heads/work", to: c }]);
    expect(readFileSync(sandboxPaths(root, RUN_A).syncedRefs(1), "utf8")).toBe(`${c} refs/heads/work\n`);
  });

  it("an update whose compare-and-swap fails is kept aside (moved-outside), and not recorded as a base", async () => {
    const shadow = sandbox(RUN_A, { live: true });
    const c = commitIn(shadow, "one");
    git(shadow, "update-ref", "refs/heads/work", c);
    writeFileSync(join(common, "refs/heads/work.lock"), "");
    const r = await syncSandbox(root, RUN_A, { final: false });
    const as = parked(RUN_A, "refs/heads/work");
    expect(r?.repos[0]?.refs).toEqual([
      { op: "park", ref: "refs/heads/work", to: c, as, why: "moved-outside" },
    ]);
    unlinkSync(join(common, "refs/heads/work.lock"));
    expect(realRefs()).toBe([`${as} ${c}`, `refs/heads/main ${head}`].join("\n"));
    expect(existsSync(sandboxPaths(root, RUN_A).syncedRefs(1))).toBe(false);
  });

  it("a ref moved outside between the plan and its update is kept aside, never overwritten", async () => {
    const shadow = sandbox(RUN_A, { own: ["refs/heads/a", "refs/heads/b"] });
    const c = commitIn(shadow, "one");
    git(shadow, "update-ref", "refs/heads/a", c);
    git(shadow, "update-ref", "refs/heads/b", c);
    const release = join(root, "release");
    const env = { ...process.env };
    process.env.ARIEL_TEST_HOOKS = "1";
    process.env.ARIEL_TEST_PAUSE_AT = "sandbox:after-ref";
    process.env.ARIEL_TEST_RELEASE_FILE = release;
    const origWrite = process.stderr.write;
    process.stderr.write = (() => true) as typeof process.stderr.write;
    try {
      const sync = syncSandbox(root, RUN_A);
      // Once a is home, someone else makes b.
      while (!existsSync(join(common, "refs/heads/a"))) await new Promise((r) => setTimeout(r, 10));
      git(api, "update-ref", "refs/heads/b", head);
      writeFileSync(release, "");
      const r = await sync;
      expect(r?.repos[0]?.refs).toEqual([
        { op: "update", ref: "refs/heads/a", to: c, from: null },
        { op: "park", ref: "refs/heads/b", to: c, as: parked(RUN_A, "refs/heads/b"), why: "moved-outside" },
      ]);
    } finally {
      process.stderr.write = origWrite;
      process.env = env;
    }
    expect(realRefs()).toBe(
      [
        `${parked(RUN_A, "refs/heads/b")} ${c}`,
        `refs/heads/a ${c}`,
        `refs/heads/b ${head}`,
        `refs/heads/main ${head}`,
      ].join("\n"),
    );
  });

  it("a parking ref holding an older commit is moved to the new one", async () => {
    const shadow = sandbox(RUN_A);
    const c = commitIn(shadow, "one");
    git(shadow, "update-ref", "refs/heads/main", c);
    const as = parked(RUN_A, "refs/heads/main");
    git(api, "update-ref", as, head);
    const r = await syncSandbox(root, RUN_A);
    expect(r?.repos[0]?.refs).toEqual([
      { op: "park", ref: "refs/heads/main", to: c, as, why: "not-the-task's" },
    ]);
    expect(git(api, "rev-parse", as)).toBe(c);
  });

  it("a ref that cannot be kept aside: ERR_GIT naming it, and the sandbox stays", async () => {
    const shadow = sandbox(RUN_A);
    const c = commitIn(shadow, "one");
    git(shadow, "update-ref", "refs/heads/main", c);
    const as = parked(RUN_A, "refs/heads/main");
    mkdirSync(join(common, "refs/ariel/sandbox", RUN_A, "heads"), { recursive: true });
    writeFileSync(join(common, `${as}.lock`), "");
    let err: unknown = null;
    try {
      await syncSandbox(root, RUN_A);
    } catch (e) {
      err = e;
    }
    const e = err as { code?: string; message?: string; context?: unknown };
    expect([e.code, e.message, e.context]).toEqual([
      "ERR_GIT",
      `could not keep refs/heads/main as ${as} in ${common}`,
      { ref: "refs/heads/main", common },
    ]);
    expect(existsSync(sandboxPaths(root, RUN_A).manifest)).toBe(true);
    expect(existsSync(sandboxPaths(root, RUN_A).done)).toBe(false);
  });

  it("a ref naming objects that are not whole does not move (missing); the whole ones do", async () => {
    const shadow = sandbox(RUN_A, { live: true });
    const good = commitIn(shadow, "good");
    git(shadow, "update-ref", "refs/heads/work", good);
    const bad = commitIn(shadow, "bad", head, "lost content\n");
    const blob = git(shadow, "rev-parse", `${bad}:file.txt`);
    rmSync(join(shadow, "objects", blob.slice(0, 2), blob.slice(2)));
    git(shadow, "update-ref", "refs/heads/broken", bad);
    // Also a parked one that is broken.
    git(shadow, "update-ref", "refs/tags/v1", bad);
    const r = await syncSandbox(root, RUN_A, { final: false });
    expect(r?.repos[0]?.refs).toEqual([
      { op: "missing", ref: "refs/heads/broken", to: bad },
      { op: "update", ref: "refs/heads/work", to: good, from: null },
      { op: "missing", ref: "refs/tags/v1", to: bad },
    ]);
    expect(realRefs()).toBe([`refs/heads/main ${head}`, `refs/heads/work ${good}`].join("\n"));
    // The commit and its tree came home; the blob the sandbox deleted did not.
    expect(r?.repos[0]?.objects).toBe(3);
    expect(readFileSync(sandboxPaths(root, RUN_A).syncedRefs(1), "utf8")).toBe(`${good} refs/heads/work\n`);
  });

  it("a worktree being added meanwhile (its HEAD still zeros) does not make a whole commit look broken", async () => {
    // `git worktree add` writes the new worktree's HEAD as zeros before it sets it: another
    // run's task being made while this run's sync checks its commits.
    const shadow = sandbox(RUN_A, { live: true });
    git(api, "worktree", "add", "-q", "--detach", join(root, "other"));
    writeFileSync(join(common, "worktrees", "other", "HEAD"), `${"0".repeat(40)}\n`);
    const c = commitIn(shadow, "work", head, "new content\n");
    git(shadow, "update-ref", "refs/heads/work", c);
    const r = await syncSandbox(root, RUN_A, { final: false });
    expect(r?.repos[0]?.refs).toEqual([{ op: "update", ref: "refs/heads/work", to: c, from: null }]);
    expect(git(api, "rev-parse", "refs/heads/work")).toBe(c);
  });

  it("a stash entry the run left is kept as refs/ariel/sandbox/<run>/stash/<commit>", async () => {
    const shadow = sandbox(RUN_A);
    const s1 = commitIn(shadow, "stash one");
    const s2 = commitIn(shadow, "stash two");
    git(shadow, "update-ref", "--create-reflog", "-m", "one", "refs/stash", s1);
    git(shadow, "update-ref", "--create-reflog", "-m", "two", "refs/stash", s2);
    const r = await syncSandbox(root, RUN_A);
    expect(r?.repos[0]?.refs).toEqual([
      { op: "park", ref: `refs/stash/${s1}`, to: s1, as: parked(RUN_A, `refs/stash/${s1}`), why: "stash" },
      { op: "park", ref: `refs/stash/${s2}`, to: s2, as: parked(RUN_A, `refs/stash/${s2}`), why: "stash" },
    ]);
    expect(git(api, "rev-parse", parked(RUN_A, `refs/stash/${s1}`))).toBe(s1);
    expect(git(api, "rev-parse", parked(RUN_A, `refs/stash/${s2}`))).toBe(s2);
    expect(gitRaw(api, "rev-parse", "--verify", "-q", "refs/stash").code).not.toBe(0);
  });
});

describe("syncSandbox: nothing is lost", () => {
  it("a branch the run deleted is not deleted at home (kept)", async () => {
    const shadow = sandbox(RUN_A, { own: ["refs/heads/main"] });
    git(shadow, "update-ref", "-d", "refs/heads/main");
    const r = await syncSandbox(root, RUN_A);
    expect(r?.repos[0]?.refs).toEqual([{ op: "kept", ref: "refs/heads/main", why: "deleted-inside" }]);
    expect(realRefs()).toBe(`refs/heads/main ${head}`);
  });

  // docs/sandbox.md (The sync, step 3): "Stash entries it left are kept". The stash was found
  // only through its reflog; a refs/stash whose reflog was expired inside (`git reflog expire`,
  // a gc with gc.reflogExpire=now) or never written was lost with the sandbox.
  it("a stash whose reflog is gone is still kept (refs/stash's own value)", async () => {
    const shadow = sandbox(RUN_A);
    const s = commitIn(shadow, "stashed work", head, "uncommitted\n");
    git(shadow, "update-ref", "refs/stash", s);
    expect(existsSync(join(shadow, "logs/refs/stash"))).toBe(false);
    await syncSandbox(root, RUN_A);
    expect(existsSync(sandboxPaths(root, RUN_A).dir)).toBe(false);
    expect(gitRaw(api, "rev-parse", "--verify", "-q", parked(RUN_A, `refs/stash/${s}`)).stdout.trim()).toBe(
      s,
    );
  });
});

describe("syncSandbox: the main worktree's state, in place", () => {
  const work = "ref: refs/heads/work\n";

  it("final: a HEAD only the sandbox changed goes home; mid-run it does not", async () => {
    const start = digest(join(common, "HEAD"));
    const shadow = sandbox(RUN_A, { main: true, live: true, state: { HEAD: start } });
    writeFileSync(join(shadow, "HEAD"), work);
    const mid = await syncSandbox(root, RUN_A, { final: false });
    expect(mid?.repos[0]?.state).toEqual([]);
    expect(readFileSync(join(common, "HEAD"), "utf8")).toBe("ref: refs/heads/main\n");
    const fin = await syncSandbox(root, RUN_A, { final: true });
    expect(fin?.finished).toBe(true);
    expect(fin?.repos[0]?.state).toEqual([{ op: "apply", name: "HEAD" }]);
    expect(readFileSync(join(common, "HEAD"), "utf8")).toBe(work);
  });

  it("final, not in place: the state is left alone", async () => {
    const start = digest(join(common, "HEAD"));
    const shadow = sandbox(RUN_A, { main: false, state: { HEAD: start } });
    writeFileSync(join(shadow, "HEAD"), work);
    const fin = await syncSandbox(root, RUN_A);
    expect(fin?.repos[0]?.state).toEqual([]);
    expect(readFileSync(join(common, "HEAD"), "utf8")).toBe("ref: refs/heads/main\n");
  });

  it("both sides changed HEAD: the real one stays, the sandbox's is kept under sandbox-kept/<run>/<n>", async () => {
    const start = digest(join(common, "HEAD"));
    const shadow = sandbox(RUN_A, { main: true, state: { HEAD: start } });
    writeFileSync(join(shadow, "HEAD"), work);
    writeFileSync(join(common, "HEAD"), "ref: refs/heads/other\n");
    const fin = await syncSandbox(root, RUN_A);
    expect(fin?.repos[0]?.state).toEqual([{ op: "conflict", name: "HEAD" }]);
    expect(readFileSync(join(common, "HEAD"), "utf8")).toBe("ref: refs/heads/other\n");
    expect(readFileSync(join(root, ".ariel/sandbox-kept", RUN_A, "1/HEAD"), "utf8")).toBe(work);
  });
});

describe("syncSandbox: finishing, and what is not a sandbox yet", () => {
  it("a done marker: what is left is only removed, with the manifest's task", async () => {
    const shadow = sandbox(RUN_A, { task: "t9" });
    git(shadow, "update-ref", "refs/heads/work", commitIn(shadow, "never synced"));
    writeFileSync(sandboxPaths(root, RUN_A).done, "x\n");
    expect(await syncSandbox(root, RUN_A)).toEqual({ runId: RUN_A, task: "t9", repos: [], finished: true });
    expect(existsSync(sandboxPaths(root, RUN_A).dir)).toBe(false);
    expect(realRefs()).toBe(`refs/heads/main ${head}`);
  });

  it("a done marker and no manifest, or a damaged one: the task is null", async () => {
    for (const manifest of [null, "{ nope\n"]) {
      const p = sandboxPaths(root, RUN_B);
      mkdirSync(join(p.dir, "1/objects/ab"), { recursive: true });
      writeFileSync(join(p.dir, "1/objects/ab/cd"), "x");
      if (manifest !== null) writeFileSync(p.manifest, manifest);
      writeFileSync(p.done, "x\n");
      expect(await syncSandbox(root, RUN_B)).toEqual({ runId: RUN_B, task: null, repos: [], finished: true });
      expect(existsSync(p.dir)).toBe(false);
    }
  });

  it("the done marker is written before the sandbox is removed", async () => {
    const release = join(root, "release");
    sandbox(RUN_A);
    const env = { ...process.env };
    process.env.ARIEL_TEST_HOOKS = "1";
    process.env.ARIEL_TEST_PAUSE_AT = "sandbox:before-cleanup";
    process.env.ARIEL_TEST_RELEASE_FILE = release;
    const origWrite = process.stderr.write;
    process.stderr.write = (() => true) as typeof process.stderr.write;
    try {
      const sync = syncSandbox(root, RUN_A);
      const done = sandboxPaths(root, RUN_A).done;
      while (!existsSync(done)) await new Promise((r) => setTimeout(r, 10));
      expect(readFileSync(done, "utf8")).toMatch(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z\n$/);
      writeFileSync(release, "");
      expect((await sync)?.finished).toBe(true);
    } finally {
      process.stderr.write = origWrite;
      process.env = env;
    }
  });

  /** A sandbox directory with no manifest, `ageMs` old, holding `files`. */
  function noManifest(runId: string, files: string[], ageMs: number): string {
    const dir = sandboxPaths(root, runId).dir;
    mkdirSync(dir, { recursive: true });
    for (const f of files) {
      if (f.endsWith("/")) mkdirSync(join(dir, f), { recursive: true });
      else {
        mkdirSync(join(dir, f, ".."), { recursive: true });
        writeFileSync(join(dir, f), "x");
      }
    }
    const t = new Date(Date.now() - ageMs);
    utimesSync(dir, t, t);
    return dir;
  }

  it("a directory without a manifest still in the making is left", async () => {
    const dir = noManifest(RUN_A, [], 0);
    expect(await syncSandbox(root, RUN_A)).toBeNull();
    expect(existsSync(dir)).toBe(true);
  });

  it("an old one whose shadows hold no object is removed", async () => {
    for (const files of [[], ["1/objects/info/packs", "1/objects/ab/", "1/objects/abc/x", "1.start-refs"]]) {
      const dir = noManifest(RUN_A, files, 10 * 60_000);
      expect(await syncSandbox(root, RUN_A)).toEqual({ runId: RUN_A, task: null, repos: [], finished: true });
      expect(existsSync(dir)).toBe(false);
    }
  });

  it("an old one whose shadow holds an object (loose or packed) is left, for a person", async () => {
    for (const f of ["1/objects/ab/cdef", "2/objects/pack/pack-1.pack"]) {
      const dir = noManifest(RUN_A, ["1/objects/info/", f], 10 * 60_000);
      expect(await syncSandbox(root, RUN_A)).toBeNull();
      expect(existsSync(join(dir, f))).toBe(true);
      removeDir(dir);
    }
  });

  it("removing the sandbox never follows a link out of it", async () => {
    const outside = join(root, "outside");
    mkdirSync(join(outside, "sub"), { recursive: true });
    writeFileSync(join(outside, "keep.txt"), "keep\n");
    writeFileSync(join(outside, "sub/keep.txt"), "keep\n");
    sandbox(RUN_A);
    const dir = sandboxPaths(root, RUN_A).dir;
    symlinkSync(outside, join(dir, "link-dir"));
    symlinkSync(join(outside, "keep.txt"), join(dir, "link-file"));
    const r = await syncSandbox(root, RUN_A);
    expect(r?.finished).toBe(true);
    expect(existsSync(dir)).toBe(false);
    expect(readFileSync(join(outside, "keep.txt"), "utf8")).toBe("keep\n");
    expect(readFileSync(join(outside, "sub/keep.txt"), "utf8")).toBe("keep\n");
  });
});

describe("sandboxRunIds and syncTaskSandboxes", () => {
  it("sandboxRunIds: the run-id names only (not the locks beside them); none without the directory", () => {
    expect(sandboxRunIds(root)).toEqual([]);
    const dir = sandboxesDir(root);
    mkdirSync(join(dir, RUN_A), { recursive: true });
    mkdirSync(join(dir, `x${RUN_B}`), { recursive: true });
    writeFileSync(join(dir, `${RUN_A}.lock`), "");
    writeFileSync(join(dir, `${RUN_C}x`), "");
    expect(sandboxRunIds(root)).toEqual([RUN_A]);
  });

  it("only the task's sandboxes; a damaged manifest is skipped; null: every one", async () => {
    const a = sandbox(RUN_A, { task: "t1" });
    const b = sandbox(RUN_B, { task: "t2", own: ["refs/heads/other"] });
    const ca = commitIn(a, "a");
    git(a, "update-ref", "refs/heads/work", ca);
    const cb = commitIn(b, "b");
    git(b, "update-ref", "refs/heads/other", cb);
    mkdirSync(sandboxPaths(root, RUN_C).dir, { recursive: true });
    writeFileSync(sandboxPaths(root, RUN_C).manifest, "{ nope\n");
    const r1 = await syncTaskSandboxes(root, "t1");
    expect(r1.map((s) => [s.runId, s.task, s.finished])).toEqual([[RUN_A, "t1", true]]);
    expect(realRefs()).toBe([`refs/heads/main ${head}`, `refs/heads/work ${ca}`].join("\n"));
    expect(existsSync(sandboxPaths(root, RUN_B).dir)).toBe(true);
    const r2 = await syncTaskSandboxes(root, null);
    expect(r2.map((s) => [s.runId, s.task, s.finished])).toEqual([[RUN_B, "t2", true]]);
    expect(git(api, "rev-parse", "refs/heads/other")).toBe(cb);
    expect(existsSync(sandboxPaths(root, RUN_C).manifest)).toBe(true);
  });

  it("a task's live run is synced mid-run; endedOnly leaves it", async () => {
    const a = sandbox(RUN_A, { task: "t1", live: true });
    const ca = commitIn(a, "a");
    git(a, "update-ref", "refs/heads/work", ca);
    expect(await syncTaskSandboxes(root, "t1", { endedOnly: true })).toEqual([]);
    expect(gitRaw(api, "rev-parse", "--verify", "-q", "refs/heads/work").code).not.toBe(0);
    const r = await syncTaskSandboxes(root, "t1");
    expect(r.map((s) => [s.runId, s.finished])).toEqual([[RUN_A, false]]);
    expect(git(api, "rev-parse", "refs/heads/work")).toBe(ca);
  });

  it("an old directory without a manifest is cleared whatever the task; one in the making is not reported", async () => {
    const dir = sandboxPaths(root, RUN_A).dir;
    mkdirSync(dir, { recursive: true });
    const t = new Date(Date.now() - 10 * 60_000);
    utimesSync(dir, t, t);
    mkdirSync(sandboxPaths(root, RUN_B).dir, { recursive: true });
    expect(await syncTaskSandboxes(root, "t1", { endedOnly: true })).toEqual([
      { runId: RUN_A, task: null, repos: [], finished: true },
    ]);
    expect(existsSync(dir)).toBe(false);
    expect(existsSync(sandboxPaths(root, RUN_B).dir)).toBe(true);
  });

  it("what a sync did goes into the run's history when it has one", async () => {
    const a = sandbox(RUN_A, { task: "t1" });
    const ca = commitIn(a, "a");
    git(a, "update-ref", "refs/heads/work", ca);
    sandbox(RUN_B, { task: "t1" });
    const hist = runPaths(root, RUN_A).history;
    mkdirSync(join(hist, ".."), { recursive: true });
    writeFileSync(hist, "");
    await syncTaskSandboxes(root, "t1");
    const lines = readFileSync(hist, "utf8").trim().split("\n");
    expect(lines).toHaveLength(1);
    const ev = JSON.parse(lines[0] ?? "{}") as Record<string, unknown>;
    expect(JSON.stringify(ev)).toContain('"sandbox.synced"');
    expect(JSON.stringify(ev)).toContain(`"moved":[{"ref":"refs/heads/work","to":"${ca}"}]`);
    expect(existsSync(runPaths(root, RUN_B).history)).toBe(false);
  });
});
