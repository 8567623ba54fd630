import { spawnSync } from "node:child_process";
import { existsSync, mkdirSync, readdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import { git, initRepo, removeDir, tempDir } from "../../core/src/host/_fixture.ts";
import { runInProcess } from "../../core/src/host/cli/_fixture.ts";
import { command } from "./command.ts";

// ariel-spawn's command in this process, on the edges of a run: the config file (broken, with a
// disk floor), which place a run without --source takes, the plan of an isolated run, the
// events of one, --fail-fast with a child that ignores SIGTERM, partial lines, credentials in
// argv and output, and a sandboxed run. command_test.ts holds the plain runs.
let ws: string;

beforeAll(() => {
  ws = tempDir("ariel-spawn-edges-");
  initRepo(join(ws, "alpha"));
  initRepo(join(ws, "beta"));
  mkdirSync(join(ws, "alpha/sub"));
});
afterAll(() => removeDir(ws));
afterEach(() => rmSync(join(ws, "ariel.config.json"), { force: true }));

const spawn = (argv: string[], cwd = ws, env: Record<string, string | undefined> = {}) =>
  runInProcess(command, ["-C", ws, ...argv], { cwd, env });

const records = (stdout: string): Record<string, unknown>[] =>
  stdout
    .trimEnd()
    .split("\n")
    .map((l) => JSON.parse(l));

const histories = () =>
  existsSync(join(ws, ".ariel/runs"))
    ? readdirSync(join(ws, ".ariel/runs")).filter((f) => f.endsWith(".ndjson"))
    : [];

/**
 * The history of the one run `run` made (a run that succeeds prints no closing line naming it,
 * and run ids of one second do not sort by time).
 */
async function historyOfRun<T>(run: () => Promise<T>): Promise<[T, Record<string, unknown>[]]> {
  const before = new Set(histories());
  const r = await run();
  const made = histories().filter((f) => !before.has(f));
  expect(made).toHaveLength(1);
  return [r, records(readFileSync(join(ws, ".ariel/runs", made[0] as string), "utf8"))];
}

/** Both sources of the workspace, in order. */
const BOTH = ["--source", "alpha", "--source", "beta"];

const config = (text: string) => writeFileSync(join(ws, "ariel.config.json"), text);

/**
 * ^C as the run's process gets it: its SIGINT listeners called, as Node calls them for a real
 * signal (test/spawn*.test.ts send real ones to the bundled bin). Emitted, not sent: in a worker
 * thread (a mutation-testing run's vitest pool) a real signal never reaches the thread's
 * listeners, and the process's own would end the test process. No other listener is here.
 */
function interrupt(): void {
  expect(process.listenerCount("SIGINT")).toBe(1);
  process.emit("SIGINT", "SIGINT");
}

/** Resolves once `path` exists (a child's "I am ready"). */
async function exists(path: string): Promise<void> {
  for (let i = 0; i < 400 && !existsSync(path); i++) await new Promise((r) => setTimeout(r, 25));
  expect(existsSync(path)).toBe(true);
}

/** The bundled ariel-worktree (npm run build), for a gc from another process. */
const WORKTREE_BIN = fileURLToPath(new URL("../../cli-worktree/dist/ariel-worktree.cjs", import.meta.url));

describe("ariel-spawn (in-process): the config file", () => {
  it("a broken config file does not stop a shared run: it only reads the disk floor and the sandbox from it", async () => {
    config("{ not json");
    const r = await spawn(["--source", "alpha", "--", "echo", "ran"]);
    expect(r).toMatchObject({ code: 0, stdout: "ran\n" });
  });

  it("a broken config file that names the sandbox stops a shared run: ERR_CONFIG (78), nothing run", async () => {
    config('{ "sandbox": tru');
    const r = await spawn(["--source", "alpha", "--", "sh", "-c", "echo ran > ran.txt"]);
    expect(r.code).toBe(78);
    expect(r.stderr).toMatch(/^ariel-spawn: error: .*\[ERR_CONFIG\]\n/);
    expect(r.stdout).toBe("");
    expect(existsSync(join(ws, "alpha/ran.txt"))).toBe(false);
  });

  it("a broken config file stops an isolated run: ERR_CONFIG (78), no task made", async () => {
    config("{ not json");
    const r = await spawn(["--source", "alpha", "--isolate", "--task", "c1", "--", "true"]);
    expect(r.code).toBe(78);
    expect(r.stderr).toMatch(/\[ERR_CONFIG\]/);
    expect(existsSync(join(ws, ".ariel/worktrees/c1"))).toBe(false);
  });

  it("the disk floor: --min-free over what is free refuses with 75 before anything runs, shared and isolated", async () => {
    const shared = await spawn([
      "--min-free",
      "1000T",
      "--source",
      "alpha",
      "--",
      "sh",
      "-c",
      "echo x > floor.txt",
    ]);
    expect(shared.code).toBe(75);
    expect(shared.stderr).toMatch(/^ariel-spawn: error: .*spawn.*\[ERR_DISK_LOW\]\n/);
    expect(shared.stderr).not.toMatch(/spawn --isolate/);
    expect(existsSync(join(ws, "alpha/floor.txt"))).toBe(false);
    const isolated = await spawn([
      "--min-free",
      "1000T",
      "--source",
      "alpha",
      "--isolate",
      "--task",
      "f1",
      "--",
      "true",
    ]);
    expect(isolated.code).toBe(75);
    expect(isolated.stderr).toMatch(/spawn --isolate.*\[ERR_DISK_LOW\]/);
    expect(existsSync(join(ws, ".ariel/worktrees/f1"))).toBe(false);
  });

  it("the disk floor from config minFreeBytes, which --min-free 0 overrides", async () => {
    config('{ "minFreeBytes": 1000000000000000 }\n');
    const floor = await spawn(["--source", "alpha", "--", "true"]);
    expect(floor.code).toBe(75);
    expect(floor.stderr).toMatch(/\[ERR_DISK_LOW\]/);
    const isolated = await spawn(["--source", "alpha", "--isolate", "--task", "f2", "--", "true"]);
    expect(isolated.code).toBe(75);
    const zero = await spawn(["--min-free", "0", "--source", "alpha", "--", "echo", "ok"]);
    expect(zero).toMatchObject({ code: 0, stdout: "ok\n" });
  });
});

describe("ariel-spawn (in-process): where a run without --source works", () => {
  it("in the source the cwd is in (from a directory below its top), else at the workspace root", async () => {
    const inSource = await spawn(["--", "pwd"], join(ws, "alpha/sub"));
    expect(inSource).toMatchObject({ code: 0, stdout: `${join(ws, "alpha")}\n` });
    const atRoot = await spawn(["--", "pwd"], ws);
    expect(atRoot).toMatchObject({ code: 0, stdout: `${ws}\n` });
  });

  it("--isolate at a workspace root that is no checkout: ERR_NOT_A_CHECKOUT, nothing made", async () => {
    const r = await spawn(["--isolate", "--task", "nc", "--", "true"]);
    expect(r.code).not.toBe(0);
    expect(r.stderr).toMatch(
      /^ariel-spawn: error: workspace root \S+ is not a git checkout \[ERR_NOT_A_CHECKOUT\]\n/,
    );
    expect(existsSync(join(ws, ".ariel/worktrees/nc"))).toBe(false);
  });

  it("-C naming a directory in a task: the run works in that task's worktree, not in the checkout", async () => {
    const made = await spawn(["--source", "alpha", "--isolate", "--keep", "--task", "k1", "--", "true"]);
    expect(made.code).toBe(0);
    const leg = join(ws, ".ariel/worktrees/k1/alpha");
    const r = await runInProcess(command, ["-C", leg, "--", "sh", "-c", "pwd; git branch --show-current"], {
      cwd: ws,
    });
    expect(r.code).toBe(0);
    expect(r.stdout).toBe(`${leg}\nariel/k1\n`);
    expect(existsSync(leg)).toBe(true);
  });

  it("-C in a task with --source: the source's checkout, not the task's leg (the flag says otherwise); ARIEL_WORKSPACE_ROOT in a task: its leg", async () => {
    const made = await spawn(["--source", "beta", "--isolate", "--keep", "--task", "k4", "--", "true"]);
    expect(made.code).toBe(0);
    const leg = join(ws, ".ariel/worktrees/k4/beta");
    const named = await runInProcess(command, ["-C", leg, "--source", "beta", "--", "pwd"], { cwd: ws });
    expect(named.code).toBe(0);
    expect(named.stdout).toBe(`${join(ws, "beta")}\n`);
    expect(named.stderr).toBe(
      `ariel-spawn: warning: -C "${leg}" is in the directory of task "k4", which is never a workspace; acting on the workspace "${ws}" that owns it\n` +
        `ariel-spawn: hint: name the workspace itself: -C ${ws}\n`,
    );
    const byEnv = await runInProcess(command, ["--", "pwd"], { cwd: ws, env: { ARIEL_WORKSPACE_ROOT: leg } });
    expect(byEnv.code).toBe(0);
    expect(byEnv.stdout).toBe(`${leg}\n`);
  });

  it("from a plain directory (no workspace, no checkout): it runs there, and its history goes to the user's state dir", async () => {
    const plain = tempDir("ariel-spawn-plain-");
    try {
      const r = await runInProcess(command, ["--", "pwd"], { cwd: plain });
      expect(r).toEqual({ code: 0, stdout: `${plain}\n`, stderr: "" });
      expect(readdirSync(plain)).toEqual([]);
      const homeless = await runInProcess(command, ["--", "pwd"], {
        cwd: plain,
        env: { HOME: undefined, ARIEL_STATE_HOME: undefined, XDG_STATE_HOME: undefined },
      });
      expect(homeless).toEqual({
        code: 73,
        stdout: "",
        stderr:
          "ariel-spawn: error: cannot record the run: no user state dir (HOME is not set) [ERR_CANTCREAT]\n" +
          "ariel-spawn: hint: set ARIEL_STATE_HOME, or name the workspace root with -C\n",
      });
      expect(readdirSync(plain)).toEqual([]);
    } finally {
      removeDir(plain);
    }
  });

  it("a workspace whose .ariel is a file: the run is refused before it starts, ERR_CANTCREAT (73)", async () => {
    const odd = tempDir("ariel-spawn-odd-");
    try {
      initRepo(join(odd, "alpha"));
      writeFileSync(join(odd, ".ariel"), "");
      const r = await runInProcess(
        command,
        ["-C", odd, "--source", "alpha", "--", "sh", "-c", "echo ran > ran.txt"],
        {
          cwd: odd,
        },
      );
      expect(r).toEqual({
        code: 73,
        stdout: "",
        stderr:
          `ariel-spawn: error: cannot write the run history under ${odd}/.ariel/runs: EEXIST [ERR_CANTCREAT]\n` +
          "ariel-spawn: hint: check permissions and free space\n",
      });
      expect(existsSync(join(odd, "alpha/ran.txt"))).toBe(false);
    } finally {
      removeDir(odd);
    }
  });

  it("a kept worktree's closing line names the root with -C when the cwd would not find it", async () => {
    const elsewhere = tempDir("ariel-spawn-cwd-");
    try {
      const r = await spawn(
        ["--source", "beta", "--isolate", "--keep", "--task", "k2", "--", "true"],
        elsewhere,
      );
      expect(r.code).toBe(0);
      expect(r.stderr).toContain(
        `kept beta (keep): ariel-worktree remove -C ${ws} --task k2 --snapshot; history: ${ws}/.ariel/runs/`,
      );
      const here = await spawn(["--source", "beta", "--isolate", "--keep", "--task", "k3", "--", "true"]);
      expect(here.stderr).toMatch(
        /^ariel-spawn: kept beta \(keep\): ariel-worktree remove --task k3 --snapshot; history: \.ariel\/runs\//,
      );
    } finally {
      removeDir(elsewhere);
    }
  });
});

describe("ariel-spawn (in-process): plans and events of isolated runs", () => {
  it("-n --isolate: each leg's worktree and branch in the plan; no task, worktree or branch made", async () => {
    const r = await spawn(["-n", "--json", "--isolate", "--task", "p1", "--source", "alpha", "--", "make"]);
    expect(r.code).toBe(0);
    expect(records(r.stdout)[0]).toMatchObject({
      type: "plan",
      action: "spawn.run",
      source: "alpha",
      cwd: join(ws, ".ariel/worktrees/p1/alpha"),
      worktree: join(ws, ".ariel/worktrees/p1/alpha"),
      branch: "ariel/p1",
      argv: ["make"],
    });
    expect(existsSync(join(ws, ".ariel/worktrees/p1"))).toBe(false);
    expect(git(join(ws, "alpha"), "branch", "--list", "ariel/p1")).toBe("");
  });

  it("--json --isolate: run.started says isolate, worktree.created and worktree.removed name the leg", async () => {
    const r = await spawn(["--json", "--isolate", "--task", "e1", "--source", "alpha", "--", "true"]);
    expect(r.code).toBe(0);
    const recs = records(r.stdout);
    expect(recs.map((e) => [e.event, e.source])).toEqual([
      ["run.started", null],
      ["worktree.created", "alpha"],
      ["process.started", "alpha"],
      ["process.exited", "alpha"],
      ["worktree.removed", "alpha"],
      ["run.finished", null],
    ]);
    expect(recs[0]).toMatchObject({ mode: "isolate", targets: ["alpha"], workspace: { root: ws } });
    expect(recs[1]).toMatchObject({ task: "e1", branch: "ariel/e1" });
  });

  it("a terminal's stderr: the progress of each leg made and settled, each line erased before the next; a task per source, each kept leg's command", async () => {
    const term = { stdout: false, stderr: true, columns: 100, color: false };
    const r = await runInProcess(
      command,
      ["-C", ws, ...BOTH, "--isolate", "--task", "pg", "--", "sh", "-c", "echo out; echo x > f"],
      { cwd: ws, term },
    );
    expect(r.code).toBe(0);
    expect(r.stdout).toBe("[alpha] out\n[beta]  out\n");
    const erase = "\r\u001b[K";
    const kept = (s: string) =>
      `ariel-spawn: warning: kept the worktree of "${s}" (dirty): ${ws}/.ariel/worktrees/pg-${s}/${s} has uncommitted changes: f\n` +
      `ariel-spawn: hint: ariel-worktree remove --task pg-${s} --source ${s} --snapshot\n`;
    expect(r.stderr.replace(/history: \S+\n$/, "history: H\n")).toBe(
      `${erase}[1/2] alpha: creating worktree${erase}[2/2] beta: creating worktree${erase}` +
        `${erase}[1/2] alpha: removing worktree${erase}${kept("alpha")}` +
        `${erase}[2/2] beta: removing worktree${erase}${kept("beta")}` +
        "ariel-spawn: kept alpha (dirty): ariel-worktree remove --task pg-alpha --snapshot; kept beta (dirty): ariel-worktree remove --task pg-beta --snapshot; history: H\n",
    );
    expect(git(join(ws, ".ariel/worktrees/pg-beta/beta"), "branch", "--show-current")).toBe("ariel/pg-beta");
  });

  it("--json --isolate --span: run.started says span, one process for both legs", async () => {
    const r = await spawn(["--json", "--isolate", "--span", "--task", "e2", ...BOTH, "--", "true"]);
    expect(r.code).toBe(0);
    const recs = records(r.stdout);
    expect(recs[0]).toMatchObject({ mode: "span", targets: ["alpha", "beta"] });
    const started = recs.filter((e) => e.event === "process.started");
    expect(started).toHaveLength(1);
    expect(started[0]).toMatchObject({ source: null, sources: ["alpha", "beta"] });
  });
});

describe("ariel-spawn (in-process): a run that loses its task's lease", () => {
  it("taken over by gc while the command runs: its worktree left to the new holder, ERR_FENCED, exit 75", async () => {
    config('{ "leaseTtlMs": 1000 }\n');
    const started = join(ws, "fz-started");
    const go = join(ws, "fz-go");
    const run = spawn([
      "--source",
      "alpha",
      "--isolate",
      "--task",
      "fz",
      "--json",
      "--",
      "sh",
      "-c",
      `echo alpha > started.txt; touch ${started}; while [ ! -f ${go} ]; do sleep 0.05; done`,
    ]);
    for (let i = 0; i < 400 && !existsSync(started); i++) await new Promise((r) => setTimeout(r, 25));
    // This process holds the lease and renews it on a timer: hold the event loop until the lease
    // has run out, as a stopped process would, and let gc take the task meanwhile.
    const lease = join(ws, ".ariel/leases/fz.json");
    const nap = new Int32Array(new SharedArrayBuffer(4));
    while (Date.parse(JSON.parse(readFileSync(lease, "utf8")).expiresAt) >= Date.now())
      Atomics.wait(nap, 0, 0, 50);
    const gc = spawnSync(
      process.execPath,
      [WORKTREE_BIN, "-C", ws, "gc", "--state", "active", "--older-than", "0", "--json"],
      { encoding: "utf8" },
    );
    expect(gc.status).toBe(0);
    // (gc reclaims the other tests' kept tasks too: only this one's record matters here)
    expect(records(gc.stdout).find((e) => e.task === "fz")).toMatchObject({
      action: "gc.task.remove",
      outcome: "done",
    });
    writeFileSync(go, "");
    const r = await run;
    expect(r.code).toBe(75);
    const recs = records(r.stdout);
    expect(recs.find((e) => e.event === "worktree.kept")).toMatchObject({
      source: "alpha",
      reason: "ERR_FENCED",
    });
    expect(recs.at(-1)).toMatchObject({
      event: "run.finished",
      summary: { exit: 75 },
      error: { code: "ERR_FENCED" },
    });
    const error = records(r.stderr).find((e) => e.type === "error");
    expect(error).toMatchObject({ code: "ERR_FENCED", exit: 75, task: "fz", token: 1, leaseToken: 2 });
    expect(error?.message).toMatch(
      /^lost the lease of task "fz" while the command ran \(.*\); its worktrees were left as they are$/,
    );
    expect(error?.hint).toBe(
      "another process took the task over (the run was stopped past the lease's time to live); see ariel-worktree list, then remove or restore --task fz",
    );
    // gc snapshotted the leg it took (the command's write in it), and the run touched nothing after
    expect(git(join(ws, "alpha"), "show", "refs/ariel/snapshots/fz/alpha:started.txt")).toBe("alpha");
  });
});

describe("ariel-spawn (in-process): children", () => {
  it("SIGINT while a child runs: forwarded to it, nothing more starts (-j 1), the run ends 130 and says so", async () => {
    const ready = join(ws, "int-ready");
    rmSync(ready, { force: true });
    const run = spawn([...BOTH, "-j", "1", "--json", "--", "sh", "-c", `touch ${ready}; exec sleep 30`]);
    await exists(ready);
    interrupt();
    const r = await run;
    expect(r).toMatchObject({ code: 130, stderr: "" });
    const recs = records(r.stdout);
    expect(recs.map((e) => [e.event, e.source])).toEqual([
      ["run.started", null],
      ["process.started", "alpha"],
      ["process.exited", "alpha"],
      ["run.finished", null],
    ]);
    expect(recs[2]).toMatchObject({ signal: "SIGINT", status: 130 });
    expect(recs[3]).toMatchObject({
      interrupted: "SIGINT",
      summary: { targets: 2, succeeded: 0, failed: 1, skipped: 1, exit: 130 },
    });
  });

  it("a second SIGINT sends SIGKILL to children that ignore the first", async () => {
    const ready = (source: string) => join(ws, `int2-${source}`);
    for (const source of ["alpha", "beta"]) rmSync(ready(source), { force: true });
    const run = spawn([
      ...BOTH,
      "-j",
      "2",
      "--json",
      "--",
      "sh",
      "-c",
      `trap "" INT; touch ${ws}/int2-$ARIEL_SOURCE; exec sleep 30`,
    ]);
    await exists(ready("alpha"));
    await exists(ready("beta"));
    interrupt();
    await new Promise((r) => setTimeout(r, 100));
    interrupt();
    const r = await run;
    expect(r.code).toBe(130);
    const exited = records(r.stdout).filter((e) => e.event === "process.exited");
    expect(exited.map((e) => [e.source, e.signal, e.status]).sort()).toEqual([
      ["alpha", "SIGKILL", 137],
      ["beta", "SIGKILL", 137],
    ]);
  });

  it("--isolate --fail-fast -j 1: the leg that never ran is removed with the rest", async () => {
    const r = await spawn([
      ...BOTH,
      "--isolate",
      "--task",
      "ff",
      "-j",
      "1",
      "--fail-fast",
      "--json",
      "--",
      "sh",
      "-c",
      "exit 5",
    ]);
    expect(r.code).toBe(1);
    const recs = records(r.stdout);
    expect(recs.filter((e) => e.event === "process.started").map((e) => e.source)).toEqual(["alpha"]);
    expect(recs.filter((e) => e.event === "worktree.removed").map((e) => e.source)).toEqual([
      "alpha",
      "beta",
    ]);
    // several sources without --span: a task per source (ff-alpha, ff-beta), both gone
    expect(existsSync(join(ws, ".ariel/worktrees/ff-alpha"))).toBe(false);
    expect(existsSync(join(ws, ".ariel/worktrees/ff-beta"))).toBe(false);
    expect(git(join(ws, "beta"), "worktree", "list", "--porcelain")).not.toMatch(/ff/);
  });

  it.each([
    ["ends by it when it does not ignore it", "", 143, "SIGTERM"],
    ["is sent SIGKILL after --grace when it ignores it", 'trap "" TERM; ', 137, "SIGKILL"],
  ])("--fail-fast with -j 2: the other child gets SIGTERM and %s", async (_, trap, status, signal) => {
    const ready = join(ws, "ff2-ready");
    rmSync(ready, { force: true });
    // beta is ready (its trap set) before alpha fails
    const r = await spawn([
      ...BOTH,
      ...["-j", "2", "--fail-fast", "--grace", "0", "--json", "--", "sh", "-c"],
      `if [ "$ARIEL_SOURCE" = alpha ]; then while [ ! -f ${ready} ]; do sleep 0.05; done; exit 4; fi; ${trap}touch ${ready}; exec sleep 30`,
    ]);
    expect(r.code).toBe(1);
    const exited = records(r.stdout).filter((e) => e.event === "process.exited");
    expect(exited.map((e) => [e.source, e.status, e.signal])).toEqual([
      ["alpha", 4, null],
      ["beta", status, signal],
    ]);
  });

  it("--fail-fast when every command succeeds: every one runs", async () => {
    const r = await spawn([...BOTH, "-j", "1", "--fail-fast", "--", "sh", "-c", 'echo "$ARIEL_SOURCE"']);
    expect(r).toEqual({ code: 0, stdout: "[alpha] alpha\n[beta]  beta\n", stderr: "" });
  });

  it("one SIGINT to a child that ignores it: no SIGKILL follows, the child ends on its own, the run ends 130", async () => {
    const ready = join(ws, "int1-ready");
    const go = join(ws, "int1-go");
    for (const f of [ready, go]) rmSync(f, { force: true });
    const run = spawn([
      ...BOTH,
      "-j",
      "2",
      "--grace",
      "0",
      "--json",
      "--",
      "sh",
      "-c",
      `trap "" INT; [ "$ARIEL_SOURCE" = alpha ] && touch ${ready}; while [ ! -f ${go} ]; do sleep 0.05; done`,
    ]);
    await exists(ready);
    interrupt();
    await new Promise((r) => setTimeout(r, 200)); // time enough for a SIGKILL after --grace 0
    writeFileSync(go, "");
    const r = await run;
    expect(r.code).toBe(130);
    const exited = records(r.stdout).filter((e) => e.event === "process.exited");
    expect(exited.map((e) => [e.source, e.status, e.signal]).sort()).toEqual([
      ["alpha", 0, null],
      ["beta", 0, null],
    ]);
  });

  it("a command that cannot start: no process.started, its process.exited carries the error", async () => {
    const r = await spawn(["--source", "alpha", "--json", "--", "no-such-command-here"]);
    expect(r.code).toBe(127);
    const recs = records(r.stdout);
    expect(recs.map((e) => e.event)).toEqual(["run.started", "process.exited", "run.finished"]);
    expect(recs[1]).toMatchObject({
      source: "alpha",
      pid: null,
      status: 127,
      error: { code: "ERR_COMMAND_NOT_FOUND", message: "command not found: no-such-command-here" },
    });
  });

  it("process events of a shared run: no sources or sandbox fields, a duration within the run's", async () => {
    const before = Date.now();
    const r = await spawn(["--source", "alpha", "--json", "--", "true"]);
    const took = Date.now() - before;
    const recs = records(r.stdout);
    const started = recs.find((e) => e.event === "process.started");
    expect(started).toMatchObject({ source: "alpha", cwd: join(ws, "alpha"), argv: ["true"] });
    for (const key of ["sources", "sandbox", "sandboxId"]) expect(started).not.toHaveProperty(key);
    const exited = recs.find((e) => e.event === "process.exited");
    expect(exited).not.toHaveProperty("sources");
    expect(exited?.durationMs).toBeGreaterThanOrEqual(0);
    expect(exited?.durationMs).toBeLessThanOrEqual(took);
  });

  it("process groups: several children each lead a group of their own; a single one stays in ours", async () => {
    // field 5 of /proc/PID/stat is the process group (sh's comm has no space)
    const script = 'set -- $(cat /proc/$$/stat); [ "$5" = "$$" ] && echo own || echo shared';
    const several = await spawn(["--source", "alpha", "--source", "beta", "--", "sh", "-c", script]);
    expect(several.stdout).toBe("[alpha] own\n[beta]  own\n");
    const one = await spawn(["--source", "alpha", "--", "sh", "-c", script]);
    expect(one.stdout).toBe("shared\n");
  });

  it("a last line without a newline is an output event marked partial; several sources pad their prefixes", async () => {
    const [r, h] = await historyOfRun(() =>
      spawn(["--source", "alpha", "--source", "beta", "--", "sh", "-c", 'printf "a\\nno-newline"']),
    );
    expect(r.code).toBe(0);
    expect(r.stdout).toBe("[alpha] a\n[alpha] no-newline\n[beta]  a\n[beta]  no-newline\n");
    const lines = h.filter((e) => e.event === "output");
    expect(lines.map((e) => [e.source, e.line, e.partial ?? false])).toEqual([
      ["alpha", "a", false],
      ["alpha", "no-newline", true],
      ["beta", "a", false],
      ["beta", "no-newline", true],
    ]);
  });

  it("credentials in argv and in output lines never reach the history; the child's own output is as it wrote it", async () => {
    const url = "https://user:s3cret@example.com/repo.git";
    const [r, h] = await historyOfRun(() => spawn(["--source", "alpha", "--", "echo", url]));
    expect(r).toMatchObject({ code: 0, stdout: `${url}\n` });
    expect(JSON.stringify(h)).not.toContain("s3cret");
    expect(h[0]?.argv).toEqual(["echo", expect.stringContaining("example.com/repo.git")]);
  });

  it("several sources and a command that is not there: each one's error names its source, 127 each, the run fails with 1", async () => {
    const r = await spawn(["--source", "alpha", "--source", "beta", "--", "no-such-command-here"]);
    expect(r.code).toBe(1);
    expect(r.stdout).toBe("");
    const errors = r.stderr.split("\n").filter((l) => l.includes("[ERR_COMMAND_NOT_FOUND]"));
    expect(errors).toEqual([
      "ariel-spawn: error: [alpha] command not found: no-such-command-here [ERR_COMMAND_NOT_FOUND]",
      "ariel-spawn: error: [beta] command not found: no-such-command-here [ERR_COMMAND_NOT_FOUND]",
    ]);
    expect(r.stderr).toMatch(/2 of 2 failed: alpha \(exit 127\), beta \(exit 127\)/);
  });
});

const hasBwrap =
  spawnSync("bwrap", ["--ro-bind", "/", "/", "--unshare-user", "--unshare-pid", "true"], { stdio: "ignore" })
    .status === 0;

// Without bubblewrap these are skipped here; test/sandbox*.test.ts fail under CI instead.
describe.skipIf(!hasBwrap)("ariel-spawn (in-process): --sandbox", () => {
  let home: string;
  beforeAll(() => {
    home = tempDir("ariel-spawn-home-");
  });
  afterAll(() => removeDir(home));

  it("an isolated leg: the child commits on its branch, cannot write the checkout, and its work comes home", async () => {
    const r = await spawn(
      [
        "--sandbox",
        "--isolate",
        "--keep",
        "--task",
        "s1",
        "--source",
        "alpha",
        "--json",
        "--",
        "sh",
        "-c",
        `echo x > inside.txt && git add inside.txt && git commit -qm inside; echo "commit rc=$?"
echo evil > ${ws}/alpha/evil.txt; echo "checkout rc=$?"`,
      ],
      ws,
      { HOME: home },
    );
    expect(r.code).toBe(0);
    const recs = records(r.stdout);
    // the two streams are read apart: their lines are compared each in its own order
    const lines = recs.filter((e) => e.event === "output").map((e) => `${e.stream} ${e.line}`);
    expect(lines.sort()).toEqual([
      `stderr sh: 2: cannot create ${ws}/alpha/evil.txt: Read-only file system`,
      "stdout checkout rc=2",
      "stdout commit rc=0",
    ]);
    const started = recs.find((e) => e.event === "process.started");
    expect(started).toMatchObject({ source: "alpha", sandbox: { net: "on" } });
    expect(started?.sandboxId).toMatch(/^\d{8}T\d{6}Z-[a-z0-9]+$/);
    expect(recs.map((e) => e.event)).toContain("sandbox.synced");
    expect(recs.findIndex((e) => e.event === "sandbox.synced")).toBeGreaterThan(
      recs.findIndex((e) => e.event === "process.exited"),
    );
    expect(git(join(ws, "alpha"), "log", "--format=%s", "-1", "ariel/s1").trim()).toBe("inside");
    expect(existsSync(join(ws, "alpha/evil.txt"))).toBe(false);
  });

  it("in place, two sources: each child writes its own checkout only; the sandboxes are gone once their work is home", async () => {
    const r = await spawn(
      [
        "--sandbox",
        ...BOTH,
        "--",
        "sh",
        "-c",
        `other=$([ "$ARIEL_SOURCE" = alpha ] && echo beta || echo alpha)
echo x > mine.txt; echo "own rc=$?"; echo x > ${ws}/$other/theirs.txt 2>/dev/null; echo "other rc=$?"`,
      ],
      ws,
      { HOME: home },
    );
    expect(r.code).toBe(0);
    expect(r.stdout.split("\n").sort()).toEqual([
      "",
      "[alpha] other rc=2",
      "[alpha] own rc=0",
      "[beta]  other rc=2",
      "[beta]  own rc=0",
    ]);
    for (const s of ["alpha", "beta"]) {
      expect(existsSync(join(ws, s, "mine.txt"))).toBe(true);
      expect(existsSync(join(ws, s, "theirs.txt"))).toBe(false);
      rmSync(join(ws, s, "mine.txt"));
    }
    expect(readdirSync(join(ws, ".ariel/sandbox"))).toEqual([]);
  });

  it("in place: the checkout is writable, the other source is not", async () => {
    const r = await spawn(
      [
        "--sandbox",
        "--source",
        "alpha",
        "--",
        "sh",
        "-c",
        `echo here > inplace.txt; echo "own rc=$?"; echo evil > ${ws}/beta/evil.txt 2>/dev/null; echo "other rc=$?"`,
      ],
      ws,
      { HOME: home },
    );
    expect(r).toMatchObject({ code: 0, stdout: "own rc=0\nother rc=2\n" });
    expect(readFileSync(join(ws, "alpha/inplace.txt"), "utf8")).toBe("here\n");
    expect(existsSync(join(ws, "beta/evil.txt"))).toBe(false);
    rmSync(join(ws, "alpha/inplace.txt"));
  });

  it("a sandbox whose work cannot come home: WARN_SANDBOX_SYNC with the cause, the run's own status, the sandbox kept", async () => {
    const sandboxes = join(ws, ".ariel/sandbox");
    const before = new Set(existsSync(sandboxes) ? readdirSync(sandboxes) : []);
    const run = spawn(["--sandbox", "--source", "alpha", "--json", "--", "sh", "-c", "sleep 1; exit 4"], ws, {
      HOME: home,
    });
    // While the child sleeps, its manifest is broken from outside: the sync after it cannot read it.
    let id: string | undefined;
    for (let i = 0; i < 500 && id === undefined; i++) {
      await new Promise((r) => setTimeout(r, 10));
      id = readdirSync(sandboxes).find(
        (f) => !before.has(f) && !f.endsWith(".lock") && existsSync(join(sandboxes, f, "sandbox.json")),
      );
    }
    expect(id).toBeDefined();
    writeFileSync(join(sandboxes, `${id}/sandbox.json`), "{");
    const r = await run;
    expect(r.code).toBe(4);
    const warnings = records(r.stderr).filter((w) => w.code === "WARN_SANDBOX_SYNC");
    expect(warnings).toEqual([
      expect.objectContaining({
        code: "WARN_SANDBOX_SYNC",
        message: `the sandbox's work is not home yet (ERR_RECORD_CORRUPT); it stays in .ariel/sandbox/${id}`,
        sandbox: id,
        hint: "ariel-worktree reconcile finishes it",
      }),
    ]);
    expect(existsSync(join(sandboxes, `${id}`))).toBe(true);
    rmSync(join(sandboxes, `${id}`), { recursive: true, force: true });
    rmSync(join(sandboxes, `${id}.lock`), { force: true });
  });
});
