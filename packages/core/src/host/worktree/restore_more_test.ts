/**
 * restoreTask on real repositories: each refusal (path taken, branch gone, a snapshot ref not
 * the task's) with its exact error and nothing changed; a snapshotted leg brought back (files,
 * index, untracked files, overlay, per-worktree refs, HEAD's reflog, record); which artifact is
 * a leg's snapshot; a sparse leg; the undo of a leg whose snapshot or overlay fails; the lease
 * lost part-way; legs already active; the post-restore hooks; dry runs with their ports and
 * hooks; the `restore:after-worktree` crash-test point.
 */
import { createHash } from "node:crypto";
import { existsSync, lstatSync, mkdirSync, readdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { afterEach, describe, expect, it, vi } from "vitest";
import { arielErrorOf } from "../../_fixture.ts";
import type { GitPort, Ports } from "../../ports.ts";
import type { Fault } from "../../testing/faulty_fs.ts";
import { GIT_TEST_ENV, gitRaw, removeDir, tempDir, writeFile } from "../_fixture.ts";
import { faultyPorts, git, gitPicture, makeRoot, names, stealLease } from "./_fixture.ts";
import { addTask } from "./add.ts";
import { removeTask } from "./remove.ts";
import { type RestoreTaskOptions, restoreTask } from "./restore.ts";

let root: string;
let home: string;
afterEach(() => {
  removeDir(root);
  removeDir(home);
});

const SNAP = "refs/ariel/snapshots/t1";
const RECORD = () => join(root, ".ariel/tasks/t1.json");
const record = () => readFileSync(RECORD(), "utf8");
const leg = (s: string) => join(root, ".ariel/worktrees/t1", s);
const sha = (text: string) => createHash("sha256").update(text).digest("hex");

/** Host ports with a state dir of the test's own (ports, trust) and a fault-injecting filesystem. */
function portsOf(faults: Fault[] = []): Ports & { fs: ReturnType<typeof faultyPorts>["fs"] } {
  const env = { ...process.env, ...GIT_TEST_ENV, ARIEL_OWNER: "tester", ARIEL_STATE_HOME: home };
  return { ...faultyPorts(faults), env };
}

/** A workspace of api and web; the workspace config `config` when given. */
function workspace(config?: Record<string, unknown>): void {
  root = makeRoot();
  home = tempDir("ariel-restore-home-");
  if (config) writeFile(join(root, "ariel.config.json"), `${JSON.stringify(config)}\n`);
}

/** Everything a refused restore must leave as it was: git, the record, the worktree dirs. */
function everything() {
  return {
    api: gitPicture(join(root, "api")),
    web: gitPicture(join(root, "web")),
    record: record(),
    worktrees: names(join(root, ".ariel/worktrees")),
    legs: names(join(root, ".ariel/worktrees/t1")),
  };
}

/** Porcelain status of a checkout, one entry per path, sorted. */
const status = (dir: string) =>
  gitRaw(dir, "status", "--porcelain", "-z", "--untracked-files=all")
    .stdout.split("\0")
    .filter(Boolean)
    .sort();

async function add(sources = ["api", "web"], extra: { sparse?: string[] } = {}): Promise<void> {
  await addTask(portsOf(), { root, taskId: "t1", sources, noHooks: true, ...extra });
}

async function remove(o: { sources?: string[]; snapshot?: boolean } = {}): Promise<void> {
  const r = await removeTask(portsOf(), { root, taskId: "t1", noHooks: true, ...o });
  expect(r.refused).toBe(false);
}

const restore = (o: Partial<RestoreTaskOptions> = {}, ports = portsOf()) =>
  restoreTask(ports, { root, taskId: "t1", ...o });

/** The record on disk with `edit` applied, written back as it is (a record edited by hand). */
function editRecord(edit: (r: Record<string, unknown> & { artifacts: object[] }) => void): void {
  const r = JSON.parse(record());
  edit(r);
  writeFileSync(RECORD(), `${JSON.stringify(r, null, 2)}\n`);
}

describe("restoreTask refuses, and nothing is changed", () => {
  it("a leg's path is taken: ERR_EXISTS (73), no leg is made, not even the one before it", async () => {
    workspace();
    await add();
    await remove();
    writeFile(join(leg("web"), "mine.txt"), "someone's\n");
    const before = everything();
    const e = await arielErrorOf(restore());
    expect([e.code, e.exit, e.message, e.hint, e.context]).toEqual([
      "ERR_EXISTS",
      73,
      `${leg("web")} exists; cannot restore web there`,
      "move it away, or run ariel-worktree reconcile",
      { source: "web", path: leg("web") },
    ]);
    expect(everything()).toEqual(before);
    expect(names(leg("web"))).toEqual(["mine.txt"]);
  });

  it("a leg's branch is gone: ERR_NOINPUT (66) with the command that recreates it", async () => {
    workspace();
    await add();
    const head = git(join(root, "web"), "rev-parse", "ariel/t1");
    await remove();
    git(join(root, "web"), "branch", "-D", "ariel/t1");
    const before = everything();
    const e = await arielErrorOf(restore());
    expect([e.code, e.exit, e.message, e.hint, e.context]).toEqual([
      "ERR_NOINPUT",
      66,
      "branch ariel/t1 of web is gone; cannot restore",
      `recreate it (git -C ${join(root, "web")} branch ariel/t1 ${head}) and retry`,
      { source: "web", branch: "ariel/t1" },
    ]);
    expect(everything()).toEqual(before);
  });

  it.each([false, true])(
    "a snapshot the record names outside the task's refs: ERR_REF_PROTECTED (3) (dry run %s)",
    async (dryRun) => {
      workspace();
      await add();
      writeFile(join(leg("api"), "work.txt"), "work\n");
      await remove({ snapshot: true });
      editRecord((r) => {
        r.artifacts = r.artifacts.map((a) => ({ ...a, ref: "refs/heads/main" }));
      });
      const before = everything();
      const e = await arielErrorOf(restore({ dryRun }));
      expect([e.code, e.exit, e.message, e.context]).toEqual([
        "ERR_REF_PROTECTED",
        3,
        'ref "refs/heads/main" is not a branch of the task\'s legs: not changed',
        { task: "t1", ref: "refs/heads/main" },
      ]);
      expect(everything()).toEqual(before);
    },
  );
});

describe("restoreTask: a snapshotted leg comes back", () => {
  it("its files as the snapshot had them, unstaged; new files untracked; index and HEAD at the branch; the record", async () => {
    workspace();
    await add();
    const api = leg("api");
    writeFile(join(api, "README.md"), "staged edit\n");
    git(api, "add", "README.md");
    writeFile(join(api, "src/new.txt"), "untracked\n");
    writeFile(join(api, ".env"), "SECRET=edited\n");
    await remove({ snapshot: true });
    const old = JSON.parse(record());
    const snap = git(join(root, "api"), "rev-parse", `${SNAP}/api`);
    const tips = ["api", "web"].map((s) => git(join(root, s), "rev-parse", "ariel/t1"));
    const steps: unknown[] = [];

    const r = await restore({ noHooks: true, onProgress: (s) => steps.push(s) });
    expect(r.results).toEqual([
      {
        source: "api",
        worktreePath: api,
        branch: "ariel/t1",
        snapshot: { ref: `${SNAP}/api`, commit: snap },
        outcome: "restored",
      },
      { source: "web", worktreePath: leg("web"), branch: "ariel/t1", outcome: "restored" },
    ]);
    expect(steps).toEqual([
      { index: 1, total: 2, source: "api", action: "restoring worktree" },
      { index: 2, total: 2, source: "web", action: "restoring worktree" },
    ]);
    expect(status(api)).toEqual([" M README.md", "?? src/new.txt"]);
    expect(["README.md", "src/new.txt", ".env"].map((f) => readFileSync(join(api, f), "utf8"))).toEqual([
      "staged edit\n",
      "untracked\n",
      "SECRET=edited\n",
    ]);
    expect(git(api, "write-tree")).toBe(git(api, "rev-parse", "HEAD^{tree}"));
    expect(git(api, "rev-parse", "HEAD", "--abbrev-ref", "HEAD")).toBe(`${tips[0]}\nariel/t1`);
    expect(git(join(root, "api"), "rev-parse", `${SNAP}/api`)).toBe(snap); // kept
    expect(status(leg("web"))).toEqual([]);
    expect(readFileSync(join(leg("web"), ".env"), "utf8")).toBe("SECRET=web\n");
    for (const s of ["api", "web"]) {
      expect(gitPicture(join(root, s)).worktrees).toContain(`${leg(s)}\nHEAD `);
      expect(gitPicture(join(root, s)).worktrees).toContain("branch refs/heads/ariel/t1\nlocked ariel:t1");
    }
    const now = JSON.parse(record());
    expect(r.record).toEqual(now);
    expect(now).toEqual({
      ...old,
      state: "active",
      legs: old.legs.map((l: object) => ({ ...l, state: "active" })),
      fencingToken: old.fencingToken + 1,
      version: old.version + 1,
      updatedAt: expect.any(String),
    });
    expect(now.legs.map((l: { overlay: unknown }) => l.overlay)).toEqual([
      [{ path: ".env", sha256: sha("SECRET=api\n") }],
      [{ path: ".env", sha256: sha("SECRET=web\n") }],
    ]);
  });

  it("the per-worktree refs it names come back under their names; HEAD's reflog gets only the kept commits no ref names", async () => {
    workspace();
    await add(["api"]);
    const api = leg("api");
    const tree = git(api, "rev-parse", "HEAD^{tree}");
    const named = git(api, "commit-tree", "-m", "named", tree);
    git(api, "update-ref", "refs/worktree/x", named);
    git(api, "checkout", "-q", "--detach");
    git(api, "commit", "-q", "--allow-empty", "-m", "reflog only");
    const lost = git(api, "rev-parse", "HEAD");
    git(api, "checkout", "-q", "ariel/t1");
    await remove({ snapshot: true });

    await restore({ noHooks: true });
    expect(git(api, "for-each-ref", "--format=%(refname) %(objectname)", "refs/worktree")).toBe(
      `refs/worktree/x ${named}`,
    );
    const log = readFileSync(join(git(api, "rev-parse", "--absolute-git-dir"), "logs/HEAD"), "utf8");
    const restored = log.split("\n").filter((l) => l.endsWith("\tariel: restored from a snapshot"));
    expect(restored.map((l) => l.split(" ")[0])).toEqual([lost]);
    expect(git(api, "rev-parse", "HEAD", "--abbrev-ref", "HEAD")).toBe(
      `${git(join(root, "api"), "rev-parse", "ariel/t1")}\nariel/t1`,
    );
  });
});

describe("restoreTask: which artifact is a leg's snapshot", () => {
  it("a removed leg whose snapshot was restored before: the old snapshot is not applied again", async () => {
    workspace();
    await add(["api"]);
    writeFile(join(leg("api"), "new.txt"), "work\n");
    await remove({ snapshot: true });
    await restore({ noHooks: true });
    rmSync(join(leg("api"), "new.txt")); // the work is dropped, then the leg removed clean
    await remove();
    expect(JSON.parse(record()).artifacts.map((a: { source: string }) => a.source)).toEqual(["api"]);

    const r = await restore({ noHooks: true });
    expect(r.results).toEqual([
      { source: "api", worktreePath: leg("api"), branch: "ariel/t1", outcome: "restored" },
    ]);
    expect(status(leg("api"))).toEqual([]);
  });

  it("the snapshot artifact of the leg's own source that has a commit, not another kind, source or a commitless one", async () => {
    workspace();
    await add();
    writeFile(join(leg("api"), "a.txt"), "api work\n");
    writeFile(join(leg("web"), "w.txt"), "web work\n");
    await remove({ snapshot: true });
    const commit = (s: string) => git(join(root, s), "rev-parse", `${SNAP}/${s}`);
    const [a, w] = [commit("api"), commit("web")];
    editRecord((r) => {
      r.artifacts = [
        { kind: "bundle", ref: `${SNAP}/other`, source: "api", commit: w },
        { kind: "snapshot", ref: `${SNAP}/older`, source: "api" },
        ...r.artifacts,
      ];
    });

    const r = await restore({ noHooks: true });
    expect(r.results.map((x) => [x.source, x.snapshot])).toEqual([
      ["api", { ref: `${SNAP}/api`, commit: a }],
      ["web", { ref: `${SNAP}/web`, commit: w }],
    ]);
    expect([status(leg("api")), status(leg("web"))]).toEqual([["?? a.txt"], ["?? w.txt"]]);
  });

  it("a snapshotted leg the record names no snapshot for: brought back at its branch, no snapshot", async () => {
    workspace();
    await add(["api"]);
    writeFile(join(leg("api"), "a.txt"), "api work\n");
    await remove({ snapshot: true });
    editRecord((r) => {
      r.artifacts = [];
    });
    const r = await restore({ noHooks: true });
    expect(r.results).toEqual([
      { source: "api", worktreePath: leg("api"), branch: "ariel/t1", outcome: "restored" },
    ]);
    expect(status(leg("api"))).toEqual([]);
    expect(JSON.parse(record()).legs[0].state).toBe("active");
  });
});

/** What `.../.git/ariel-worktree.lock` said it was for each time the task's lease was checked under it. */
function purposesSeen(repo: string, seen: string[]): Fault {
  return {
    op: "createExclusive",
    path: join(root, ".ariel/leases/t1.json.lock"),
    before: () => {
      const lock = join(root, repo, ".git/ariel-worktree.lock");
      if (!existsSync(lock)) return;
      const p = JSON.parse(readFileSync(lock, "utf8")).purpose;
      if (seen.at(-1) !== p) seen.push(p);
    },
  };
}

describe("restoreTask: a leg that fails is undone", () => {
  it("the branch moved so the snapshot no longer applies: ERR_GIT saying so, the new worktree and its directory taken away", async () => {
    workspace();
    await add();
    writeFile(join(leg("api"), "README.md"), "edited\n");
    await remove({ snapshot: true });
    const tmp = join(root, "tmp-wt");
    git(join(root, "api"), "worktree", "add", "-q", tmp, "ariel/t1");
    writeFile(join(tmp, "README.md"), "moved on\n");
    git(tmp, "commit", "-q", "-am", "moved");
    git(join(root, "api"), "worktree", "remove", tmp);
    const before = everything();
    expect(before.legs).toEqual([]);

    const e = await arielErrorOf(restore({ noHooks: true }));
    const ref = `${SNAP}/api`;
    // git's own words in between (they differ by git version).
    const [head, tail] = [
      `git read-tree failed in ${leg("api")}: `,
      " (the snapshot no longer applies to ariel/t1)",
    ];
    expect([e.message.startsWith(head), e.message.endsWith(tail)]).toEqual([true, true]);
    expect([e.code, e.hint, e.context]).toEqual([
      "ERR_GIT",
      `nothing was changed; the snapshot is kept at ${ref}: restore with --source for the other legs, or apply it by hand (git diff ${ref}^1 ${ref})`,
      { git: "read-tree", cwd: leg("api"), status: 128, source: "api", snapshotRef: ref },
    ]);
    expect(everything()).toEqual(before);
    expect(existsSync(join(root, ".ariel/worktrees/t1"))).toBe(false);
  });

  it("ENOSPC copying a snapshotted leg's overlay: that error (not a git one), an empty task dir that was there kept, under the repository lock", async () => {
    workspace();
    await add(["api"]);
    writeFile(join(leg("api"), "a.txt"), "work\n");
    await remove({ snapshot: true });
    mkdirSync(join(root, ".ariel/worktrees/t1"));
    const before = everything();
    const seen: string[] = [];
    const ports = portsOf([
      purposesSeen("api", seen),
      { op: "writeAtomic", path: join(leg("api"), ".env"), code: "ENOSPC" },
    ]);
    const e = await arielErrorOf(restore({ noHooks: true }, ports));
    expect([e.code, e.message]).toEqual(["ERR_INTERNAL", expect.stringContaining("ENOSPC")]);
    expect(everything()).toEqual(before);
    expect(existsSync(join(root, ".ariel/worktrees/t1"))).toBe(true);
    expect(seen).toEqual(["restore t1", "restore t1 (undo)"]);
  });
});

describe("restoreTask: the overlay of a snapshotted leg", () => {
  it("an overlay file the snapshot brought back stays recorded when the source lost it; one it did not touch is dropped", async () => {
    workspace();
    await add();
    writeFile(join(leg("api"), ".env"), "SECRET=edited\n");
    writeFile(join(leg("web"), "new.txt"), "web work\n");
    await remove({ snapshot: true });
    rmSync(join(root, "api/.env"));
    rmSync(join(root, "web/.env"));
    writeFile(join(root, "api/.envrc"), "export A=1\n");

    const r = await restore({ noHooks: true });
    expect(r.record.legs.map((l) => [l.source, l.overlay])).toEqual([
      [
        "api",
        [
          { path: ".envrc", sha256: sha("export A=1\n") },
          { path: ".env", sha256: sha("SECRET=api\n") }, // as recorded before: the source has none now
        ],
      ],
      ["web", []],
    ]);
    expect(JSON.parse(record()).legs).toEqual(r.record.legs);
    expect(readFileSync(join(leg("api"), ".env"), "utf8")).toBe("SECRET=edited\n");
    expect(readFileSync(join(leg("api"), ".envrc"), "utf8")).toBe("export A=1\n");
    expect([existsSync(join(leg("web"), ".env")), status(leg("web"))]).toEqual([false, ["?? new.txt"]]);
  });

  it("a sparse leg comes back sparse: only its directories checked out", async () => {
    workspace();
    writeFile(join(root, "api/src/a.txt"), "a\n");
    writeFile(join(root, "api/lib/b.txt"), "b\n");
    git(join(root, "api"), "add", "-A");
    git(join(root, "api"), "commit", "-q", "-m", "dirs");
    await add(["api"], { sparse: ["src"] });
    await remove();
    const calls: string[][] = [];
    const ports = portsOf();
    const run: GitPort["run"] = (args, o) => {
      if (args[0] === "worktree" && args[1] === "add") calls.push([...args]);
      return ports.git.run(args, o);
    };
    const r = await restore({ noHooks: true }, { ...ports, git: { run } });
    // Made without a checkout, then checked out sparse: never the whole tree on disk.
    expect(calls).toEqual([
      [
        "worktree",
        "add",
        "--quiet",
        "--lock",
        "--reason",
        "ariel:t1",
        "--no-checkout",
        leg("api"),
        "ariel/t1",
      ],
    ]);
    expect(r.record.legs[0]?.sparse).toEqual(["src"]);
    expect(names(leg("api"))).toEqual([".env", ".git", ".gitignore", "README.md", "src"]);
    expect(git(leg("api"), "sparse-checkout", "list")).toBe("src");
    expect(status(leg("api"))).toEqual([]);
  });
});

/** A post-restore hook (the workspace's own: no trust needed) that logs its event and leg. */
const HOOK = `printf '%s %s\\n' "$ARIEL_HOOK" "$ARIEL_SOURCE" >> "$ARIEL_WORKSPACE_ROOT/hooked"`;
const hooked = () => (existsSync(join(root, "hooked")) ? readFileSync(join(root, "hooked"), "utf8") : null);

describe("restoreTask: legs already there, and the post-restore hooks", () => {
  it("one leg active, one removed: only the removed one is made, counted and gets the hook", async () => {
    workspace({ hooks: { "post-restore": HOOK } });
    await add();
    await remove({ sources: ["web"] });
    const old = JSON.parse(record());
    const steps: unknown[] = [];
    const r = await restore({ onProgress: (s) => steps.push(s) });
    expect(r.results).toEqual([
      { source: "api", worktreePath: leg("api"), branch: "ariel/t1", outcome: "active" },
      { source: "web", worktreePath: leg("web"), branch: "ariel/t1", outcome: "restored" },
    ]);
    expect(steps).toEqual([
      { index: 1, total: 1, source: "web", action: "restoring worktree" },
      { index: 1, total: 1, source: "web", action: "post-restore hook" },
    ]);
    expect(hooked()).toBe("post-restore web\n");
    expect([r.hooks?.results.length, r.hooks?.failed, [...(r.hooks?.legs ?? [])]]).toEqual([
      1,
      [],
      [["web", "ok"]],
    ]);
    expect(r.record).toEqual(JSON.parse(record()));
    expect([r.record.version, r.record.state, r.record.legs.map((l) => l.state)]).toEqual([
      old.version + 1,
      "active",
      ["active", "active"],
    ]);
  });

  it("--no-hooks: none runs, no hooks in the result", async () => {
    workspace({ hooks: { "post-restore": HOOK } });
    await add();
    await remove({ sources: ["web"] });
    const r = await restore({ noHooks: true });
    expect(hooked()).toBe(null);
    expect(r).not.toHaveProperty("hooks");
    expect(r.record).toEqual(JSON.parse(record()));
    expect(r.record.legs.map((l) => l.state)).toEqual(["active", "active"]);
  });

  it("every leg active: nothing made, no record write, no hook", async () => {
    workspace({ hooks: { "post-restore": HOOK } });
    await add();
    const before = everything();
    const r = await restore();
    expect(r).toEqual({
      record: JSON.parse(before.record),
      results: ["api", "web"].map((s) => ({
        source: s,
        worktreePath: leg(s),
        branch: "ariel/t1",
        outcome: "active",
      })),
    });
    expect(everything()).toEqual(before);
    expect(hooked()).toBe(null);
  });
});

/** The workspace's ports and hook, and api's committed config declaring one more port. */
function portsWorkspace(): void {
  workspace({ hooks: { "post-restore": HOOK }, ports: ["www"], portRange: [27300, 27399] });
  writeFile(join(root, "api/ariel.config.json"), `${JSON.stringify({ ports: ["api"] })}\n`);
  git(join(root, "api"), "add", "ariel.config.json");
  git(join(root, "api"), "commit", "-q", "-m", "config");
}

/** The state dir's files and their contents (ports.json, trust.json): a dry run writes none. */
function stateFiles(): Record<string, string> {
  const out: Record<string, string> = {};
  for (const n of (readdirSync(home, { recursive: true }) as string[]).sort()) {
    const p = join(home, n);
    out[n] = lstatSync(p).isDirectory() ? "dir" : readFileSync(p, "utf8");
  }
  return out;
}

const planned = (s: string) => ({
  event: "post-restore",
  source: s,
  path: leg(s),
  origin: "workspace",
  file: join(root, "ariel.config.json"),
  hook: HOOK,
  argv: ["sh", "-c", HOOK],
  trusted: true,
});

describe("restoreTask dry run", () => {
  it("a closed task: every leg it would make, the ports it would lease again and the hooks; nothing changed", async () => {
    portsWorkspace();
    await add();
    await remove();
    const before = { ...everything(), state: stateFiles() };
    const r = await restore({ dryRun: true });
    expect(r).toEqual({
      record: JSON.parse(before.record),
      results: ["api", "web"].map((s) => ({
        source: s,
        worktreePath: leg(s),
        branch: "ariel/t1",
        outcome: "restored",
      })),
      lifecycle: {
        ports: ["www", "api"],
        portRange: [27300, 27399],
        hooks: [planned("api"), planned("web")],
        warnings: [],
      },
    });
    const none = await restore({ dryRun: true, noHooks: true });
    expect(none.lifecycle).toEqual({
      ports: ["www", "api"],
      portRange: [27300, 27399],
      hooks: [],
      warnings: [],
    });
    expect({ ...everything(), state: stateFiles() }).toEqual(before);
    expect(hooked()).toBe(null);
  });

  it("one leg still active (the task keeps its ports): only the other's hooks; every leg active: no lifecycle", async () => {
    portsWorkspace();
    await add();
    const all = await restore({ dryRun: true });
    expect(all).toEqual({ record: JSON.parse(record()), results: expect.any(Array) });
    expect(all.results.map((x) => x.outcome)).toEqual(["active", "active"]);

    await remove({ sources: ["web"] });
    const before = { ...everything(), state: stateFiles() };
    const r = await restore({ dryRun: true });
    expect(r.results.map((x) => [x.source, x.outcome])).toEqual([
      ["api", "active"],
      ["web", "restored"],
    ]);
    expect(r.lifecycle).toEqual({
      ports: [],
      portRange: [27300, 27399],
      hooks: [planned("web")],
      warnings: [],
    });
    expect({ ...everything(), state: stateFiles() }).toEqual(before);
  });
});

describe("restoreTask fenced out", () => {
  /** The filesystem calls after the lease was stolen (at the first call matching `fault`). */
  async function fencedAt(fault: Omit<Fault, "before" | "times">) {
    workspace();
    await add();
    await remove();
    const before = record();
    let at = -1;
    const ports = portsOf([
      {
        ...fault,
        times: 1,
        before: () => {
          stealLease(root, "t1");
          at = ports.fs.log.length;
        },
      },
    ]);
    const e = await arielErrorOf(restore({ noHooks: true }, ports));
    expect([e.code, e.exit, record()]).toEqual(["ERR_FENCED", 75, before]);
    return ports.fs.log.slice(at);
  }

  it("while copying a leg's overlay: its new worktree is left as it is, no repository lock taken again", async () => {
    const after = await fencedAt({ op: "lstat", path: /\/api\/\.mcp\.json$/ }); // the overlay's first look
    expect(after.filter((l) => l.includes("ariel-worktree.lock"))).toEqual([]);
    expect(names(join(root, ".ariel/worktrees/t1"))).toEqual(["api"]);
  });

  it("between two legs: the first stays made; after the loss only web's lock and the lease are let go", async () => {
    const after = await fencedAt({ op: "createExclusive", path: /\/web\/\.git\/ariel-worktree\.lock$/ });
    // web's step proves the lease and fails; web's lock goes; then only the lease's release.
    const leaseRound = [
      "createExclusive .ariel/leases/t1.json.lock",
      "readFileNoFollow .ariel/leases/t1.json",
      "readFileNoFollow .ariel/leases/t1.json.lock",
      "unlink .ariel/leases/t1.json.lock",
    ];
    expect(after.map((l) => l.replace(`${root}/`, ""))).toEqual([
      ...leaseRound,
      "readFileNoFollow web/.git/ariel-worktree.lock",
      "unlink web/.git/ariel-worktree.lock",
      ...leaseRound,
    ]);
    expect(names(join(root, ".ariel/worktrees/t1"))).toEqual(["api"]);
  });
});

describe("restoreTask's crash-test point", () => {
  const VARS = ["ARIEL_TEST_HOOKS", "ARIEL_TEST_PAUSE_AT", "ARIEL_TEST_PAUSE_MS"] as const;
  const saved = VARS.map((k) => [k, process.env[k]] as const);
  afterEach(() => {
    for (const [k, v] of saved) {
      if (v === undefined) delete process.env[k];
      else process.env[k] = v;
    }
    vi.restoreAllMocks();
  });

  it("restore:after-worktree is reached once per leg made (docs/durability.md)", async () => {
    workspace();
    await add();
    await remove();
    Object.assign(process.env, {
      ARIEL_TEST_HOOKS: "1",
      ARIEL_TEST_PAUSE_AT: "restore:after-worktree",
      ARIEL_TEST_PAUSE_MS: "1",
    });
    const write = vi.spyOn(process.stderr, "write").mockImplementation(() => true);
    await restore({ noHooks: true });
    const paused = write.mock.calls.map((c) => String(c[0])).filter((l) => l.startsWith("ariel-test-paused"));
    expect(paused).toEqual([1, 2].map(() => `ariel-test-paused restore:after-worktree ${process.pid}\n`));
  });
});
