/**
 * addTask on real repositories, beyond add_test.ts's faults: every refusal made before anything is
 * written (exact error), a new task's whole result (record, plan, warnings, hooks, ports, progress,
 * the lease released or held), generated task ids, the WARN_CHANGES_LEFT_OUT warnings, carried
 * changes, dry runs, an existing task, conflicts found under the lease, a crashed add's worktree
 * adopted, sparse legs, what a failed add's unwind reports, the ports given back or kept, the
 * crash-test points and the repository locks' purposes.
 */
import { createHash } from "node:crypto";
import { existsSync, mkdirSync, readFileSync } from "node:fs";
import { basename, join } from "node:path";
import { afterEach, describe, expect, it, vi } from "vitest";
import { arielErrorOf } from "../../_fixture.ts";
import type { GitResult, GitRunOptions, Ports } from "../../ports.ts";
import type { Fault, FaultyFs } from "../../testing/faulty_fs.ts";
import { taskRecordBytesAtMost } from "../../worktree/bounds.ts";
import { gitRaw, initRepo, removeDir, tempDir, writeFile } from "../_fixture.ts";
import { sourceFingerprint, workspaceHash } from "./_deps.ts";
import { faultyPorts, git, gitPicture, makeRoot, names, stealLease } from "./_fixture.ts";
import { type AddTaskOptions, addTask } from "./add.ts";

let root = "";
let home = "";
afterEach(() => {
  removeDir(root);
  removeDir(home);
});

const NOW = Date.parse("2026-02-03T04:05:06.000Z");
const STAMP = "2026-02-03T04:05:06.000Z";
const LOCK = "ariel-worktree.lock";
const sha = (text: string) => createHash("sha256").update(text).digest("hex");
const leg = (s: string, task = "t1") => join(root, ".ariel/worktrees", task, s);
const head = (dir: string) => git(dir, "rev-parse", "HEAD");

/** A git call: where it ran and its arguments. */
interface Call {
  cwd: string;
  args: string[];
}
/** Answers a git call instead of git (undefined: git runs). */
type GitHook = (
  args: readonly string[],
  o: GitRunOptions,
) => Promise<GitResult | undefined> | GitResult | undefined;

type TestPorts = Ports & { fs: FaultyFs; calls: Call[]; purposes: string[] };

/**
 * Host ports with a fixed clock, zero random bytes (ids end `-aaaaaa`), a state dir of the test's
 * own, a fault-injecting filesystem that keeps each repository lock's purpose, and git calls
 * recorded (and answered by `hook` when it answers).
 */
function portsOf(faults: Fault[] = [], hook?: GitHook): TestPorts {
  const base = faultyPorts(faults);
  const calls: Call[] = [];
  const purposes: string[] = [];
  const fs: FaultyFs = {
    ...base.fs,
    createExclusive: async (p: string, d: string) => {
      const r = await base.fs.createExclusive(p, d);
      if (p.endsWith(`/${LOCK}`)) purposes.push(`${p.split("/").at(-3)} ${JSON.parse(d).purpose}`);
      return r;
    },
  };
  const run = async (args: readonly string[], o: GitRunOptions): Promise<GitResult> => {
    calls.push({ cwd: o.cwd ?? "", args: [...args] });
    return (await hook?.(args, o)) ?? base.git.run(args, o);
  };
  return {
    ...base,
    fs,
    env: { ...base.env, ARIEL_STATE_HOME: home },
    clock: { now: () => NOW },
    random: { bytes: (n: number) => new Uint8Array(n) },
    git: { run },
    calls,
    purposes,
  };
}

/** A workspace of api and web (README, ignored .env), a state home, and `config` when given. */
function workspace(config?: Record<string, unknown>, sources?: string[]): void {
  root = makeRoot(sources);
  home = tempDir("ariel-add-home-");
  if (config) writeFile(join(root, "ariel.config.json"), `${JSON.stringify(config)}\n`);
}

const add = (o: Partial<AddTaskOptions> = {}, ports = portsOf()) =>
  addTask(ports, { root, taskId: "t1", sources: ["api", "web"], ...o });

/** A source's file, written (and its directories made). */
const put = (path: string, text = "x\n") => writeFile(join(root, path), text);
/** A commit in `repo` of every change there. */
function commit(repo: string, message = "change"): string {
  git(join(root, repo), "add", "-A");
  git(join(root, repo), "commit", "-q", "-m", message);
  return head(join(root, repo));
}

/** What a refusal before the lease must leave as it was: the root, the state home, git. */
function untouched() {
  return {
    root: names(root),
    home: names(home),
    api: gitPicture(join(root, "api")),
    web: gitPicture(join(root, "web")),
  };
}

const E = (
  code: string,
  exit: number,
  message: string,
  hint: string,
  context: Record<string, unknown> = {},
) => ({
  v: 1,
  type: "error",
  code,
  message,
  hint,
  exit,
  ...context,
});

const BAD_SPARSE = ["", "/", "/abs", "..", "a/../b", "./a", "a/.", "a//b", "a\0b"];

describe("addTask refuses a bad --sparse before anything is written", () => {
  it.each(BAD_SPARSE)("--sparse %j: ERR_USAGE naming the value", async (raw) => {
    workspace();
    const before = untouched();
    const e = await arielErrorOf(add({ sparse: ["ok/dir", raw] }));
    expect(e.toRecord()).toEqual(
      E(
        "ERR_USAGE",
        64,
        `--sparse: not a directory inside the checkout: ${JSON.stringify(raw)}`,
        "name directories relative to the source's top, e.g. --sparse packages/api",
        { value: raw },
      ),
    );
    expect(untouched()).toEqual(before);
  });
});

const DISK_HINT = /^free space first: ariel-worktree du shows what tasks cost, .* nothing was changed$/;
const diskLow = () =>
  E(
    "ERR_DISK_LOW",
    75,
    expect.stringMatching(new RegExp(`^add: only .+ free on ${root}, under the floor of .+$`)),
    expect.stringMatching(DISK_HINT),
    { path: root, free: expect.any(Number), minFreeBytes: 2 ** 52 },
  );

describe("addTask refusals before anything is written", () => {
  it.each<[string, Record<string, unknown> | undefined, Partial<AddTaskOptions>, () => object]>([
    [
      "no source",
      undefined,
      { sources: [] },
      () => E("ERR_USAGE", 64, "add needs at least one --source", "run with --help to see the flags"),
    ],
    [
      "a root found only as the cwd",
      undefined,
      { via: "cwd" },
      () =>
        E(
          "ERR_NOT_A_WORKSPACE",
          66,
          `${JSON.stringify(root)} is not a workspace: it has no .ariel/ and is not a git checkout`,
          `name it once to make it one: -C ${root} (or ARIEL_WORKSPACE_ROOT=${root})`,
          { root, via: "cwd" },
        ),
    ],
    ["--min-free over the free space", undefined, { minFreeBytes: 2 ** 52 }, diskLow],
    ["config minFreeBytes over the free space", { minFreeBytes: 2 ** 52 }, {}, diskLow],
  ])("%s", async (_name, config, options, expected) => {
    workspace(config);
    const before = untouched();
    const e = await arielErrorOf(add(options));
    expect(e.toRecord()).toEqual(expected());
    expect(untouched()).toEqual(before);
  });
});

describe("addTask refuses a task it could not make as asked, before anything is written", () => {
  it("a task whose record could pass 64 KiB (its legs' paths counted): ERR_RECORD_TOO_LARGE", async () => {
    workspace({ overlay: ["big/*"] });
    const files = Array.from({ length: 300 }, (_, i) => `big/${"f".repeat(150)}${i}`);
    for (const f of files) put(`api/${f}`);
    const overlay = [".env", ...files];
    const task = { taskId: "t1", branch: "ariel/t1", root, owner: "tester" };
    const at = { name: "api", path: join(root, "api"), baseCommit: head(join(root, "api")), overlay };
    const size = taskRecordBytesAtMost(task, [{ ...at, worktreePath: leg("api") }]);
    const before = untouched();
    const e = await arielErrorOf(add({ sources: ["api"] }));
    expect(e.toRecord()).toEqual(
      E(
        "ERR_RECORD_TOO_LARGE",
        65,
        `task "t1" would need a record of up to ${size} bytes, over the 65536-byte bound (1 legs, 301 overlay files)`,
        "copy fewer overlay files (config overlay, .worktreeinclude) or split the task; nothing was changed",
        { task: "t1", size, max: 65536, legs: 1, overlay: 301 },
      ),
    );
    expect(untouched()).toEqual(before);
  });

  it("--with-changes with a --base that is not the HEAD of a changed source: ERR_USAGE", async () => {
    workspace();
    put("api/more.txt");
    commit("api");
    put("api/dirty.txt");
    const before = untouched();
    const e = await arielErrorOf(add({ sources: ["api"], withChanges: true, base: "HEAD~1" }));
    expect(e.toRecord()).toEqual(
      E(
        "ERR_USAGE",
        64,
        `--with-changes carries the changes of "api" made on its HEAD; --base names another commit`,
        "drop --base (the leg then starts at the source's HEAD), or commit the changes first",
      ),
    );
    expect(untouched()).toEqual(before);
  });
});

/** A post-create hook (the workspace's own: trusted) that logs its event and leg. */
const HOOK = `printf '%s %s\\n' "$ARIEL_HOOK" "$ARIEL_SOURCE" >> "$ARIEL_WORKSPACE_ROOT/hooked"`;
const hooked = () => (existsSync(join(root, "hooked")) ? readFileSync(join(root, "hooked"), "utf8") : null);
const HOOKS_AND_PORTS = { hooks: { "post-create": HOOK }, ports: ["www"], portRange: [27300, 27399] };
const onDisk = (task = "t1") => JSON.parse(readFileSync(join(root, ".ariel/tasks", `${task}.json`), "utf8"));
const leaseOnDisk = (task = "t1") =>
  JSON.parse(readFileSync(join(root, ".ariel/leases", `${task}.json`), "utf8"));
/** The port leases in the state home's registry, as `task name port`. */
const portLeases = () =>
  (
    JSON.parse(readFileSync(join(home, "ports.json"), "utf8")).leases as {
      task: string;
      name: string;
      port: number;
    }[]
  ).map((l) => `${l.task} ${l.name} ${l.port}`);

/** The record entry of a new leg of `s` at its source's HEAD now. */
async function legOf(s: string, extra: Record<string, unknown> = {}, task = "t1") {
  const at = head(join(root, s));
  return {
    source: s,
    sourcePath: join(root, s),
    fingerprint: await sourceFingerprint(portsOf().git, join(root, s)),
    branch: `ariel/${task}`,
    base: at,
    head: at,
    worktreePath: leg(s, task),
    overlay: [{ path: ".env", sha256: sha(`SECRET=${s}\n`) }],
    state: "active",
    ...extra,
  };
}

/** The record of a new task written once by the add (token 1). */
async function recordOf(legs: object[], extra: Record<string, unknown> = {}, task = "t1") {
  return {
    v: 1,
    type: "task",
    taskId: task,
    workspace: { root, hash: await workspaceHash(root) },
    owner: "tester",
    state: "active",
    legs,
    artifacts: [],
    fencingToken: 1,
    version: 1,
    createdAt: STAMP,
    updatedAt: STAMP,
    ...extra,
  };
}

/** The plan of a new leg of `s` at its source's HEAD now. */
function planLeg(s: string, extra: Record<string, unknown> = {}, task = "t1") {
  return {
    source: s,
    sourcePath: join(root, s),
    branch: `ariel/${task}`,
    base: head(join(root, s)),
    worktreePath: leg(s, task),
    mode: "create",
    overlay: [".env"],
    ...extra,
  };
}

const LEFT_OUT_HINT =
  "pass --with-changes to carry them into the worktree (the source stays as it is), or commit them first";
const leftOut = (source: string, shown: string, paths: string[]) => ({
  code: "WARN_CHANGES_LEFT_OUT",
  message: `"${source}" has uncommitted changes its new worktree starts without: ${shown}`,
  hint: LEFT_OUT_HINT,
  context: { source, paths },
});

/** `git worktree list --porcelain` of a source with one leg `t1`, locked `lock`. */
const listed = (s: string, lock = "ariel:t1", at = head(join(root, s))) =>
  `worktree ${join(root, s)}\nHEAD ${head(join(root, s))}\nbranch refs/heads/main\n\n` +
  `worktree ${leg(s)}\nHEAD ${at}\nbranch refs/heads/ariel/t1\nlocked ${lock}`;

describe("addTask makes a new task", () => {
  it("legs, overlay, ports and hooks recorded; progress; warnings; the lease released", async () => {
    workspace(HOOKS_AND_PORTS);
    put("api/dirty.txt");
    const steps: unknown[] = [];
    const { hooks, ...r } = await add({ onProgress: (s) => steps.push(s) });
    const [port] = portLeases().map((l) => Number(l.split(" ")[2]));
    expect(portLeases()).toEqual([`t1 www ${port}`]);
    expect(r).toStrictEqual({
      record: await recordOf([await legOf("api", { setup: "ok" }), await legOf("web", { setup: "ok" })], {
        version: 2,
        ports: { www: port },
      }),
      plan: { kind: "create", legs: [planLeg("api"), planLeg("web")] },
      created: true,
      warnings: [leftOut("api", "dirty.txt", ["dirty.txt"])],
    });
    expect(r.record).toEqual(onDisk());
    expect([
      hooks?.results.map((h) => `${h.source} ${h.status}`),
      hooks?.failed,
      [...(hooks?.legs ?? [])],
    ]).toEqual([
      ["api ok", "web ok"],
      [],
      [
        ["api", "ok"],
        ["web", "ok"],
      ],
    ]);
    expect(hooked()).toBe("post-create api\npost-create web\n");
    const action = (a: string) =>
      ["api", "web"].map((source, i) => ({ index: i + 1, total: 2, source, action: a }));
    expect(steps).toEqual([...action("creating worktree"), ...action("post-create hook")]);
    expect([listed("api"), listed("web")]).toEqual([
      git(join(root, "api"), "worktree", "list", "--porcelain"),
      git(join(root, "web"), "worktree", "list", "--porcelain"),
    ]);
    expect([
      readFileSync(join(leg("api"), ".env"), "utf8"),
      existsSync(join(leg("api"), "dirty.txt")),
    ]).toEqual(["SECRET=api\n", false]);
    expect(leaseOnDisk().expiresAt).toBe(STAMP); // released
  });

  it("no ports wanted, no hooks: the record has neither; no lease kept; the git calls made", async () => {
    workspace();
    const ports = portsOf();
    const r = await add({}, ports);
    expect(Object.keys(r)).toEqual(["record", "plan", "created", "warnings", "hooks"]);
    expect(r.record).toStrictEqual(await recordOf([await legOf("api"), await legOf("web")]));
    expect([r.created, r.warnings, r.hooks?.results, [...(r.hooks?.legs ?? [])]]).toEqual([true, [], [], []]);
    expect(existsSync(join(home, "ports.json"))).toBe(false);
    expect(leaseOnDisk().expiresAt).toBe(STAMP);
    const calls = ports.calls.map((c) => `${c.cwd.replace(root, "")}: ${c.args.join(" ")}`).sort();
    const status =
      "status --porcelain=v2 -z --branch --no-ahead-behind --untracked-files=all --ignored=no --ignore-submodules=dirty";
    expect(calls).toEqual(
      ["api", "web"]
        .flatMap((s) => [
          `/${s}: branch --no-track ariel/t1 ${head(join(root, s))}`,
          `/${s}: config -z --get-regexp ^remote\\..*\\.url$`,
          `/${s}: ${status}`,
          `/${s}: worktree add --quiet --lock --reason ariel:t1 ${leg(s)} ariel/t1`,
          `/.ariel/worktrees/t1/${s}: ls-files -z -- :(literal).env`,
        ])
        .sort(),
    );
  });
});

describe("addTask's lease and hooks", () => {
  it("holdLease: the lease comes back still held, for the caller to release", async () => {
    workspace();
    const r = await add({ holdLease: true });
    expect([r.lease?.taskId, r.lease?.token, r.lease?.owner]).toEqual(["t1", 1, "tester"]);
    expect(leaseOnDisk().expiresAt).toBe(new Date(NOW + 30_000).toISOString());
    await r.lease?.release();
    expect(leaseOnDisk().expiresAt).toBe(STAMP);
  });

  it("--no-hooks: no hook runs; the legs that have one are recorded skipped", async () => {
    workspace(HOOKS_AND_PORTS);
    const steps: unknown[] = [];
    const r = await add({ noHooks: true, onProgress: (s) => steps.push(s) });
    expect(r.record.legs.map((l) => l.setup)).toEqual(["skipped", "skipped"]);
    expect([r.hooks?.results, [...(r.hooks?.legs ?? [])]]).toEqual([
      [],
      [
        ["api", "skipped"],
        ["web", "skipped"],
      ],
    ]);
    expect(r.record).toEqual(onDisk());
    expect(hooked()).toBe(null);
    expect(steps).toEqual(
      ["api", "web"].map((source, i) => ({ index: i + 1, total: 2, source, action: "creating worktree" })),
    );
  });

  it("beforeHooks sees the recorded task before any hook ran", async () => {
    workspace(HOOKS_AND_PORTS);
    const seen: unknown[] = [];
    await add({
      beforeHooks: async (rec) => void seen.push([rec.version, rec.legs.map((l) => l.setup), hooked()]),
    });
    expect(seen).toEqual([[1, [undefined, undefined], null]]);
    expect(hooked()).toBe("post-create api\npost-create web\n");
  });
});

describe("addTask names the task from its first source when no id is given", () => {
  it("a named source: <source>-<6 chars>, its branch and directory", async () => {
    workspace();
    const r = await add({ taskId: undefined, sources: ["web", "api"] });
    expect([r.record.taskId, r.record.legs.map((l) => [l.branch, l.worktreePath])]).toEqual([
      "web-aaaaaa",
      [
        ["ariel/web-aaaaaa", leg("web", "web-aaaaaa")],
        ["ariel/web-aaaaaa", leg("api", "web-aaaaaa")],
      ],
    ]);
  });

  it("the root itself (`.`): the root's directory name; ariel's own state is no change of it", async () => {
    root = tempDir("ariel-hostwt-");
    home = tempDir("ariel-add-home-");
    initRepo(root, { "README.md": "# root\n" });
    put(".ariel/notes.txt"); // made before the state dir's exclude line
    const ports = portsOf();
    const r = await add({ taskId: undefined, sources: ["."] }, ports);
    const id = `${basename(root).toLowerCase()}-aaaaaa`;
    const legs = r.record.legs.map((l) => [l.source, l.branch, l.worktreePath, l.overlay]);
    expect([r.record.taskId, legs, r.warnings]).toEqual([
      id,
      [[".", `ariel/${id}`, join(root, ".ariel/worktrees", id, basename(root)), []]],
      [],
    ]);
    // No overlay to copy: the lease lock is taken to acquire, make the leg, write the record, release.
    const leaseLock = `createExclusive ${join(root, ".ariel/leases", `${id}.json.lock`)}`;
    expect(ports.fs.log.filter((l) => l === leaseLock).length).toBe(4);
  });
});

/** `n` untracked files `NN.txt` in `dir`. */
const untracked = (dir: string, n: number) => {
  for (let i = 1; i <= n; i++) put(`${dir}/${String(i).padStart(2, "0")}.txt`);
};
const TWELVE = Array.from({ length: 12 }, (_, i) => `${String(i + 1).padStart(2, "0")}.txt`);

describe("addTask warns of the uncommitted changes a new leg starts without", () => {
  it.each<[string, () => void, object[]]>([
    ["one untracked file", () => put("api/dirty.txt"), [leftOut("api", "dirty.txt", ["dirty.txt"])]],
    [
      "a tracked edit and an untracked file: sorted bytewise (git lists tracked ones first)",
      () => {
        put("api/README.md", "edited\n");
        put("api/0.txt");
      },
      [leftOut("api", "0.txt, README.md", ["0.txt", "README.md"])],
    ],
    [
      "three: all named",
      () => untracked("web", 3),
      [leftOut("web", "01.txt, 02.txt, 03.txt", TWELVE.slice(0, 3))],
    ],
    [
      "four: three named and 1 more",
      () => untracked("web", 4),
      [leftOut("web", "01.txt, 02.txt, 03.txt and 1 more", TWELVE.slice(0, 4))],
    ],
    [
      "twelve: the context keeps the first ten",
      () => untracked("api", 12),
      [leftOut("api", "01.txt, 02.txt, 03.txt and 9 more", TWELVE.slice(0, 10))],
    ],
    [
      "both sources: one warning each, in source order",
      () => {
        put("web/w.txt");
        put("api/a.txt");
      },
      [leftOut("api", "a.txt", ["a.txt"]), leftOut("web", "w.txt", ["w.txt"])],
    ],
    [
      "overlay files (copied anyway) and ariel's state (`.ariel`, `.ariel/...`) are no changes",
      () => {
        put("api/.mcp.json", "{}\n");
        put("api/.ariel", "a file\n");
        put("web/.ariel/x.json");
      },
      [],
    ],
  ])("%s", async (_name, dirty, warnings) => {
    workspace();
    dirty();
    const r = await add();
    expect(r.warnings).toEqual(warnings);
  });

  it("--base at an older commit without --with-changes: the leg starts there, the changes warned of", async () => {
    workspace();
    const old = head(join(root, "api"));
    put("api/more.txt");
    commit("api");
    put("api/dirty.txt");
    const r = await add({ sources: ["api"], base: old });
    expect(r.record.legs.map((l) => [l.base, l.head])).toEqual([[old, old]]);
    expect(r.warnings).toEqual([leftOut("api", "dirty.txt", ["dirty.txt"])]);
    expect(head(leg("api"))).toBe(old);
  });
});

/** Porcelain status of a checkout, one entry per path, sorted. */
const status = (dir: string) =>
  gitRaw(dir, "status", "--porcelain", "--untracked-files=all").stdout.split("\n").filter(Boolean).sort();

describe("addTask --with-changes carries each changed source's work into its new leg", () => {
  /** api: an unstaged edit, a staged new file, an untracked file; web clean. */
  function dirtyApi(): string[] {
    put("api/README.md", "edited\n");
    put("api/staged.txt", "staged\n");
    git(join(root, "api"), "add", "staged.txt");
    put("api/untracked.txt", "u\n");
    return status(join(root, "api"));
  }

  it("staged, unstaged and untracked alike; the source as it was; a clean source not captured", async () => {
    workspace();
    const before = dirtyApi();
    const ports = portsOf();
    const r = await add({ withChanges: true }, ports);
    expect(r.warnings).toEqual([]);
    expect(before).toEqual([" M README.md", "?? untracked.txt", "A  staged.txt"].sort());
    expect([status(leg("api")), status(join(root, "api")), status(leg("web"))]).toEqual([before, before, []]);
    expect(readFileSync(join(leg("api"), "README.md"), "utf8")).toBe("edited\n");
    const captures = ports.calls.filter((c) => c.args.includes("--absolute-git-dir")).map((c) => c.cwd);
    expect(captures).toEqual([join(root, "api")]);
  });

  it("--base naming the changed source's HEAD is allowed", async () => {
    workspace();
    const before = dirtyApi();
    const r = await add({ withChanges: true, base: "HEAD" });
    expect([status(leg("api")), r.warnings, r.record.legs[0]?.base]).toEqual([
      before,
      [],
      head(join(root, "api")),
    ]);
  });

  it("--base at an older commit of a clean source: no refusal, the leg starts there", async () => {
    workspace();
    const old = head(join(root, "api"));
    put("api/more.txt");
    commit("api");
    const r = await add({ sources: ["api"], withChanges: true, base: old });
    expect([r.record.legs[0]?.base, head(leg("api")), status(leg("api"))]).toEqual([old, old, []]);
  });
});

/** The post-create hook a dry run plans for leg `s` of t1. */
const planned = (s: string) => ({
  event: "post-create",
  source: s,
  path: leg(s),
  origin: "workspace",
  file: join(root, "ariel.config.json"),
  hook: HOOK,
  argv: ["sh", "-c", HOOK],
  trusted: true,
});

describe("addTask dry run", () => {
  it("a new task: the draft record, the plan, the warnings, the ports and hooks; nothing written", async () => {
    workspace(HOOKS_AND_PORTS);
    put("web/dirty.txt");
    const before = untouched();
    const r = await add({ dryRun: true });
    expect(r).toStrictEqual({
      record: await recordOf([await legOf("api"), await legOf("web")], { fencingToken: 0, version: 0 }),
      plan: { kind: "create", legs: [planLeg("api"), planLeg("web")] },
      created: false,
      warnings: [leftOut("web", "dirty.txt", ["dirty.txt"])],
      lifecycle: {
        ports: ["www"],
        portRange: [27300, 27399],
        hooks: [planned("api"), planned("web")],
        warnings: [],
      },
    });
    expect(untouched()).toEqual(before);
    expect(hooked()).toBe(null);
  });

  it("--no-hooks and --sparse: no hook planned; each leg's sparse dirs in the draft", async () => {
    workspace(HOOKS_AND_PORTS);
    const r = await add({ dryRun: true, noHooks: true, sparse: ["lib/"] });
    expect(r.lifecycle).toStrictEqual({ ports: ["www"], portRange: [27300, 27399], hooks: [], warnings: [] });
    expect(r.record.legs).toStrictEqual([
      await legOf("api", { sparse: ["lib"] }),
      await legOf("web", { sparse: ["lib"] }),
    ]);
    expect(names(root)).toEqual(["api", "ariel.config.json", "web"]);
  });

  it("an existing task: returned as it is, no warnings, nothing written", async () => {
    workspace();
    await add();
    put("api/dirty.txt");
    const before = { ...untouched(), record: onDisk(), lease: leaseOnDisk() };
    const r = await add({ dryRun: true });
    expect(r).toStrictEqual({
      record: onDisk(),
      plan: { kind: "existing", record: onDisk() },
      created: false,
      warnings: [],
    });
    expect({ ...untouched(), record: onDisk(), lease: leaseOnDisk() }).toEqual(before);
  });
});

describe("addTask of a task that exists", () => {
  it("the same add again: the task as it is, no warnings, no hook run again, the lease released", async () => {
    workspace(HOOKS_AND_PORTS);
    await add();
    put("api/dirty.txt");
    const before = { ...untouched(), record: readFileSync(join(root, ".ariel/tasks/t1.json"), "utf8") };
    const r = await add();
    expect(r).toStrictEqual({
      record: onDisk(),
      plan: { kind: "existing", record: onDisk() },
      created: false,
      warnings: [],
    });
    expect({ ...untouched(), record: readFileSync(join(root, ".ariel/tasks/t1.json"), "utf8") }).toEqual(
      before,
    );
    expect(hooked()).toBe("post-create api\npost-create web\n");
    expect([leaseOnDisk().token, leaseOnDisk().expiresAt]).toEqual([2, STAMP]);
  });

  it("again with holdLease: the task and its lease, still held", async () => {
    workspace();
    await add();
    const r = await add({ holdLease: true });
    expect([r.created, r.plan.kind, r.lease?.token, leaseOnDisk().expiresAt]).toEqual([
      false,
      "existing",
      2,
      new Date(NOW + 30_000).toISOString(),
    ]);
    await r.lease?.release();
  });

  it("again with --base: the same base is the same task; another base is ERR_TASK_CONFLICT", async () => {
    workspace();
    const old = head(join(root, "api"));
    await add({ sources: ["api"] });
    expect((await add({ sources: ["api"], base: old })).plan).toStrictEqual({
      kind: "existing",
      record: onDisk(),
    });
    put("api/more.txt");
    commit("api");
    const before = { ...untouched(), record: onDisk() };
    const e = await arielErrorOf(add({ sources: ["api"], base: "HEAD" }));
    const why = `the base of api is ${old.slice(0, 12)}`;
    expect(e.toRecord()).toEqual(
      E(
        "ERR_TASK_CONFLICT",
        3,
        `task "t1" already exists and differs: ${why}`,
        "use another --task id, or remove the existing task first",
        { task: "t1", reasons: [why] },
      ),
    );
    expect({ ...untouched(), record: onDisk() }).toEqual(before);
  });
});

const BRANCH_HINT = "pass another --task id or --branch; ariel never takes over an existing branch";

describe("addTask refuses what it finds under the lease, changing nothing", () => {
  it.each<[string, () => void, () => object]>([
    [
      "the branch exists in a source and is not the task's",
      () => git(join(root, "api"), "branch", "ariel/t1"),
      () =>
        E("ERR_TASK_CONFLICT", 3, "branch ariel/t1 already exists in api and is not ours", BRANCH_HINT, {
          task: "t1",
          source: "api",
          branch: "ariel/t1",
        }),
    ],
    [
      "the branch is checked out in another worktree",
      () => git(join(root, "web"), "worktree", "add", "-q", "-b", "ariel/t1", join(root, "elsewhere")),
      () =>
        E(
          "ERR_TASK_CONFLICT",
          3,
          `branch ariel/t1 of web is checked out at ${join(root, "elsewhere")}`,
          BRANCH_HINT,
          {
            task: "t1",
            source: "web",
            branch: "ariel/t1",
            checkedOutAt: join(root, "elsewhere"),
          },
        ),
    ],
    [
      "an empty directory at a leg's path",
      () => mkdirSync(leg("web"), { recursive: true }),
      () =>
        E(
          "ERR_EXISTS",
          73,
          `${leg("web")} exists but is not a worktree of web`,
          "move it away, or run ariel-worktree reconcile",
          { task: "t1", source: "web", path: leg("web") },
        ),
    ],
    [
      "a worktree at a leg's path that ariel did not make (no branch of the task anywhere)",
      () => git(join(root, "api"), "worktree", "add", "-q", "--detach", leg("api")),
      () =>
        E(
          "ERR_TASK_CONFLICT",
          3,
          `${leg("api")} is already a worktree of api that ariel did not make for task "t1"`,
          "use another --task id, or remove the existing task first",
          { task: "t1", source: "api", path: leg("api"), lock: null },
        ),
    ],
  ])("%s", async (_name, setup, expected) => {
    workspace();
    setup();
    const before = { ...untouched(), legs: names(join(root, ".ariel/worktrees/t1")) };
    const e = await arielErrorOf(add());
    expect(e.toRecord()).toEqual(expected());
    expect({ ...untouched(), legs: names(join(root, ".ariel/worktrees/t1")) }).toEqual({
      ...before,
      root: [...new Set([...before.root, ".ariel"])].sort(),
      home: ["workspaces"], // the workspace registered; nothing else
    });
    expect([names(join(root, ".ariel/tasks")), leaseOnDisk().expiresAt]).toEqual([[], STAMP]);
  });
});

/** What a crashed add of t1 left in api: its branch and locked worktree, moved on by a commit. */
function crashedApiLeg(lock: string): string {
  git(join(root, "api"), "worktree", "add", "-q", "--lock", "--reason", lock, "-b", "ariel/t1", leg("api"));
  writeFile(join(leg("api"), "work.txt"), "w\n");
  git(leg("api"), "add", "-A");
  git(leg("api"), "commit", "-q", "-m", "work");
  return head(leg("api"));
}

describe("addTask adopts the worktree a crashed add of the task left", () => {
  it("relocked for the task, recorded at its own HEAD; the other leg made; progress says which", async () => {
    workspace();
    const moved = crashedApiLeg("initializing");
    const steps: unknown[] = [];
    const ports = portsOf();
    const r = await add({ onProgress: (s) => steps.push(s) }, ports);
    expect(r.plan).toStrictEqual({
      kind: "create",
      legs: [planLeg("api", { base: moved, mode: "adopt" }), planLeg("web")],
    });
    expect(r.record).toStrictEqual(
      await recordOf([await legOf("api", { base: moved, head: moved }), await legOf("web")]),
    );
    expect(steps).toEqual([
      { index: 1, total: 2, source: "api", action: "adopting worktree" },
      { index: 2, total: 2, source: "web", action: "creating worktree" },
    ]);
    expect(git(join(root, "api"), "worktree", "list", "--porcelain")).toBe(listed("api", "ariel:t1", moved));
    const heads = ports.calls.filter((c) => c.args.join(" ") === "rev-parse HEAD").map((c) => c.cwd);
    expect(heads).toEqual([leg("api")]);
    expect(readFileSync(join(leg("api"), ".env"), "utf8")).toBe("SECRET=api\n");
  });

  it("with --with-changes and --sparse: only the new leg gets the changes and the sparse checkout", async () => {
    workspace();
    const moved = crashedApiLeg("ariel:t1");
    put("api/dirty.txt");
    put("web/lib/x.txt");
    put("web/other/y.txt");
    commit("web");
    put("web/dirty.txt");
    const r = await add({ withChanges: true, sparse: ["lib"] });
    expect(r.record.legs).toStrictEqual([
      await legOf("api", { base: moved, head: moved }),
      await legOf("web", { sparse: ["lib"] }),
    ]);
    // web's files outside the cone are skipped, not deleted: only the carried file shows.
    expect([status(leg("api")), status(leg("web")), git(leg("web"), "ls-files", "-v", "other")]).toEqual([
      [],
      ["?? dirty.txt"],
      "S other/y.txt",
    ]);
    expect(["lib/x.txt", "other/y.txt", "work.txt"].map((f) => existsSync(join(leg("web"), f)))).toEqual([
      true,
      false,
      false,
    ]);
  });
});

describe("addTask --sparse: cone-mode legs", () => {
  /** api with directories inside and outside the cone. */
  function sparseApi(): void {
    workspace();
    for (const f of ["lib/l.txt", "pkg/a/p.txt", "pkg/b/q.txt", "a/b/w.txt", "a/c/v.txt", "-d/x.txt"])
      put(`api/${f}`);
    commit("api");
  }
  const present = (files: string[]) => files.filter((f) => existsSync(join(leg("api"), f)));
  const ALL = ["README.md", "lib/l.txt", "pkg/a/p.txt", "pkg/b/q.txt", "a/b/w.txt", "a/c/v.txt", "-d/x.txt"];

  it("paths deduplicated, trailing slashes dropped, sorted; only they are checked out", async () => {
    sparseApi();
    const ports = portsOf();
    const r = await add({ sources: ["api"], sparse: ["pkg/a/", "lib//", "lib", "a/b", "-d"] }, ports);
    expect(r.record.legs).toStrictEqual([await legOf("api", { sparse: ["-d", "a/b", "lib", "pkg/a"] })]);
    expect(present(ALL)).toEqual(["README.md", "lib/l.txt", "pkg/a/p.txt", "a/b/w.txt", "-d/x.txt"]);
    expect(git(leg("api"), "sparse-checkout", "list")).toBe("-d\na/b\nlib\npkg/a");
    expect([status(leg("api")), git(leg("api"), "ls-files", "-v", "pkg/b")]).toEqual([[], "S pkg/b/q.txt"]);
    const wt = ports.calls.filter((c) => c.args[0] === "worktree" && c.args[1] === "add").map((c) => c.args);
    expect(wt).toEqual([
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
  });

  it("with --with-changes: the cone set over the carried work; a change outside it stays, as git leaves one", async () => {
    sparseApi();
    put("api/lib/l.txt", "edited\n");
    put("api/pkg/b/q.txt", "edited outside\n");
    put("api/pkg/b/new.txt", "new outside\n");
    put("api/lib/staged.txt", "staged\n");
    git(join(root, "api"), "add", "lib/staged.txt");
    const before = status(join(root, "api"));
    const r = await add({ sources: ["api"], withChanges: true, sparse: ["lib"] });
    expect(r.record.legs).toStrictEqual([await legOf("api", { sparse: ["lib"] })]);
    // Every change carried, none read as a deletion; the clean files outside the cone skipped.
    expect([status(leg("api")), before]).toEqual([
      [" M lib/l.txt", " M pkg/b/q.txt", "?? pkg/b/new.txt", "A  lib/staged.txt"].sort(),
      [" M lib/l.txt", " M pkg/b/q.txt", "?? pkg/b/new.txt", "A  lib/staged.txt"].sort(),
    ]);
    expect(git(leg("api"), "ls-files", "-v", "pkg", "a")).toBe(
      "S a/b/w.txt\nS a/c/v.txt\nS pkg/a/p.txt\nH pkg/b/q.txt",
    );
    expect(readFileSync(join(leg("api"), "pkg/b/q.txt"), "utf8")).toBe("edited outside\n");
    expect(git(leg("api"), "sparse-checkout", "list")).toBe("lib");
  });

  it("an empty --sparse list: a full checkout, no sparse in the record", async () => {
    sparseApi();
    const r = await add({ sources: ["api"], sparse: [] });
    expect(r.record.legs).toStrictEqual([await legOf("api")]);
    expect(present(ALL)).toEqual(ALL);
    expect(gitRaw(leg("api"), "config", "--get", "core.sparseCheckout")).toEqual({
      code: 1,
      stdout: "",
      stderr: "",
    });
  });
});

/** Fails the add once both legs are made (copying web's overlay), after `meanwhile` ran. */
const failAtWebOverlay = (meanwhile: () => void = () => {}): Fault => ({
  op: "readBytes",
  path: join(root, "web/.env"),
  code: "EACCES",
  before: meanwhile,
});
/** Remove `s`'s leg behind the add's back. */
const dropLeg = (s: string) => git(join(root, s), "worktree", "remove", "--force", "--force", leg(s));
/** Move `s`'s task branch to a new commit behind the add's back. */
function moveBranch(s: string): void {
  const c = git(join(root, s), "commit-tree", "-p", "HEAD", "-m", "moved", "HEAD^{tree}");
  git(join(root, s), "update-ref", "refs/heads/ariel/t1", c);
}

/** The failed add's error code and what its unwind could not undo. */
async function failedAdd(ports: TestPorts, o: Partial<AddTaskOptions> = {}): Promise<[string, unknown]> {
  const e = await arielErrorOf(add({ noHooks: true, ...o }, ports));
  return [e.code, e.context.unwindProblems];
}

describe("a failed add's unwind: what it could not undo is named, in order", () => {
  it("legs gone already, one branch moved (kept), one checked out (kept); later legs first", async () => {
    workspace();
    const ports = portsOf([
      failAtWebOverlay(() => {
        dropLeg("web");
        moveBranch("web");
        dropLeg("api");
        git(join(root, "api"), "checkout", "-q", "ariel/t1");
      }),
    ]);
    expect(await failedAdd(ports)).toEqual([
      "ERR_INTERNAL",
      [
        `worktree ${leg("web")}: gone already`,
        `worktree ${leg("api")}: gone already`,
        "branch ariel/t1 moved; kept",
        "branch ariel/t1 is checked out; kept",
      ],
    ]);
    expect([
      git(join(root, "web"), "branch", "--list", "ariel/t1"),
      names(join(root, ".ariel/worktrees")),
    ]).toEqual(["ariel/t1", []]);
  });

  it("a leg whose lock changed is kept with its branch; a branch deleted already is no problem", async () => {
    workspace();
    const ports = portsOf([
      failAtWebOverlay(() => {
        git(join(root, "api"), "worktree", "unlock", leg("api"));
        git(join(root, "api"), "worktree", "lock", "--reason", "someone", leg("api"));
        dropLeg("web");
        git(join(root, "web"), "branch", "-D", "-q", "ariel/t1");
      }),
    ]);
    const [code, problems] = await failedAdd(ports);
    expect([code, problems]).toEqual([
      "ERR_INTERNAL",
      [
        `worktree ${leg("web")}: gone already`,
        `worktree ${leg("api")}: lock changed; kept`,
        "branch ariel/t1 is checked out; kept",
        `directory ${join(root, ".ariel/worktrees/t1")}: ENOTEMPTY: directory not empty, rmdir '${join(root, ".ariel/worktrees/t1")}'`,
      ],
    ]);
    expect(git(join(root, "api"), "worktree", "list", "--porcelain")).toBe(listed("api", "someone"));
  });
});

describe("a failed add's unwind: git failing, the task directory, the unwind's own failure", () => {
  it("git failing to remove a leg or delete a branch: its own message, or its exit status", async () => {
    workspace(undefined, ["api", "web", "cli"]);
    const failing: GitHook = (args, o) => {
      const at = `${o.cwd?.replace(`${root}/`, "")} ${args[0]} ${args[1]}`;
      if (at === "web worktree remove") return { code: 1, stdout: "", stderr: "" };
      if (at.startsWith("cli update-ref")) return { code: 1, stdout: "", stderr: "\nerror: boom\n" };
      if (at.startsWith("api update-ref")) return { code: 2, stdout: "", stderr: "" };
      return undefined;
    };
    const dir = join(root, ".ariel/worktrees/t1");
    const fault = { ...failAtWebOverlay(), path: join(root, "cli/.env") };
    expect(await failedAdd(portsOf([fault], failing), { sources: ["api", "web", "cli"] })).toEqual([
      "ERR_INTERNAL",
      [
        `worktree ${leg("web")}: exit 1`,
        "branch ariel/t1: error: boom",
        "branch ariel/t1 is checked out; kept",
        "branch ariel/t1: exit 2",
        `directory ${dir}: ENOTEMPTY: directory not empty, rmdir '${dir}'`,
      ],
    ]);
    expect(names(dir)).toEqual(["web"]);
  });

  it("the task directory cannot be removed: named with the error", async () => {
    workspace();
    const dir = join(root, ".ariel/worktrees/t1");
    const ports = portsOf([failAtWebOverlay(), { op: "rmdir", path: dir, code: "EBUSY" }]);
    expect(await failedAdd(ports)).toEqual(["ERR_INTERNAL", [`directory ${dir}: EBUSY: rmdir '${dir}'`]]);
    expect(names(dir)).toEqual([]);
  });

  it("the unwind itself fails (a repository lock cannot be taken): its message, the rest left", async () => {
    workspace();
    const lock = join(root, "api/.git", LOCK);
    const ports = portsOf([
      failAtWebOverlay(),
      { op: "createExclusive", path: lock, skip: 1, code: "EACCES" },
    ]);
    const [code, problems] = await failedAdd(ports);
    expect(code).toBe("ERR_INTERNAL");
    expect(problems).toEqual([`internal error: EACCES: createExclusive '${lock}'`]);
    expect(names(join(root, ".ariel/worktrees/t1"))).toEqual(["api"]);
  });

  it("a task directory that was there before is not this add's to remove", async () => {
    workspace();
    mkdirSync(join(root, ".ariel/worktrees/t1"), { recursive: true });
    const ports = portsOf([failAtWebOverlay()]);
    expect(await failedAdd(ports)).toEqual(["ERR_INTERNAL", undefined]);
    expect([names(join(root, ".ariel/worktrees")), names(join(root, ".ariel/worktrees/t1"))]).toEqual([
      ["t1"],
      [],
    ]);
    expect(ports.fs.log.filter((l) => l.startsWith("rmdir"))).toEqual([]);
  });
});

/** `git worktree add` of web answered by `answer` (git itself never runs it). */
const webWorktreeAdd =
  (answer: (args: readonly string[], o: GitRunOptions) => GitResult): GitHook =>
  (args, o) =>
    o.cwd === join(root, "web") && args[0] === "worktree" && args[1] === "add" ? answer(args, o) : undefined;

describe("addTask when git fails to make a worktree", () => {
  it("nothing made at the leg's path: only the branch is undone (another worktree locked for the task is not ours)", async () => {
    workspace();
    git(
      join(root, "web"),
      "worktree",
      "add",
      "-q",
      "--detach",
      "--lock",
      "--reason",
      "ariel:t1",
      join(root, "other"),
    );
    const before = gitPicture(join(root, "web"));
    const ports = portsOf(
      [],
      webWorktreeAdd(() => ({ code: 128, stdout: "", stderr: "fatal: nope\n" })),
    );
    const e = await arielErrorOf(add({ noHooks: true }, ports));
    expect(e.toRecord()).toEqual(
      E("ERR_GIT", 1, `git worktree failed in ${join(root, "web")}: fatal: nope`, "see git's message above", {
        git: "worktree",
        cwd: join(root, "web"),
        status: 128,
      }),
    );
    expect([gitPicture(join(root, "web")), names(join(root, ".ariel/worktrees"))]).toEqual([before, []]);
  });

  it("a worktree made at the path but not locked for the task: not ours to remove, its branch kept", async () => {
    workspace();
    const unlocked = webWorktreeAdd((args, o) => {
      const path = args.at(-2) ?? "";
      git(o.cwd ?? "", "worktree", "add", "-q", path, "ariel/t1");
      return { code: 1, stdout: "", stderr: "fatal: hook failed\n" };
    });
    const [code, problems] = await failedAdd(portsOf([], unlocked));
    const dir = join(root, ".ariel/worktrees/t1");
    expect([code, problems]).toEqual([
      "ERR_GIT",
      [
        "branch ariel/t1 is checked out; kept",
        `directory ${dir}: ENOTEMPTY: directory not empty, rmdir '${dir}'`,
      ],
    ]);
    expect(names(dir)).toEqual(["web"]);
  });
});

describe("addTask's task ports when the add fails", () => {
  it("a failure unwound: the ports leased for the task are given back", async () => {
    workspace(HOOKS_AND_PORTS);
    expect(await failedAdd(portsOf([failAtWebOverlay()]))).toEqual(["ERR_INTERNAL", undefined]);
    expect(portLeases()).toEqual([]);
    expect(hooked()).toBe(null);
  });

  it("fenced out between the legs: the ports stay the successor's, no lock on api taken again", async () => {
    workspace(HOOKS_AND_PORTS);
    let at = -1;
    const ports = portsOf([
      {
        op: "createExclusive",
        path: join(root, "web/.git", LOCK),
        times: 1,
        before: () => {
          stealLease(root, "t1");
          at = ports.fs.log.length;
        },
      },
    ]);
    const e = await arielErrorOf(add({}, ports));
    expect([e.code, e.exit, e.context.unwindProblems]).toEqual(["ERR_FENCED", 75, undefined]);
    expect(portLeases()).toEqual([expect.stringMatching(/^t1 www \d+$/)]);
    expect(ports.fs.log.slice(at).filter((l) => l.includes("/api/"))).toEqual([]);
    expect(names(join(root, ".ariel/worktrees/t1"))).toEqual(["api"]);
  });
});

describe("addTask's crash-test points and lock purposes", () => {
  const VARS = ["ARIEL_TEST_HOOKS", "ARIEL_TEST_PAUSE_AT", "ARIEL_TEST_PAUSE_MS"] as const;
  const saved = VARS.map((k) => [k, process.env[k]] as const);
  afterEach(() => {
    for (const [k, v] of saved) {
      if (v === undefined) delete process.env[k];
      else process.env[k] = v;
    }
    vi.restoreAllMocks();
  });

  it("each point is reached in order: lease, ports, per leg worktree and lock, record (docs/durability.md)", async () => {
    workspace(HOOKS_AND_PORTS);
    const points = ["lease", "ports", "worktree", "lock", "record"].map((p) => `add:after-${p}`);
    Object.assign(process.env, {
      ARIEL_TEST_HOOKS: "1",
      ARIEL_TEST_PAUSE_AT: points.join(","),
      ARIEL_TEST_PAUSE_MS: "1",
    });
    const write = vi.spyOn(process.stderr, "write").mockImplementation(() => true);
    await add({ noHooks: true });
    const paused = write.mock.calls.map((c) => String(c[0])).filter((l) => l.startsWith("ariel-test-paused"));
    const seen = (p: string) => `ariel-test-paused add:after-${p} ${process.pid}\n`;
    expect(paused).toEqual(["lease", "ports", "worktree", "lock", "worktree", "lock", "record"].map(seen));
  });

  it("each repository lock names what it is held for: the add, then the unwind of the task's branch", async () => {
    workspace();
    const ports = portsOf([failAtWebOverlay()]);
    await failedAdd(ports);
    expect(ports.purposes).toEqual([
      "api add t1",
      "web add t1",
      "web unwind ariel/t1",
      "api unwind ariel/t1",
      "web unwind ariel/t1",
      "api unwind ariel/t1",
    ]);
  });
});
