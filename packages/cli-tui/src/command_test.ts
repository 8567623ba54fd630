import { join } from "node:path";
import { addTask, createRun, hostPorts, registerWorkspace, selfMonitorRef } from "@ariel/core/host";
import { afterEach, beforeEach, describe, expect, it, vi } from "vitest";
import { GIT_TEST_ENV } from "../../core/src/host/_fixture.ts";
import { runInProcess } from "../../core/src/host/cli/_fixture.ts";
import { runFields } from "../../core/src/host/runs/_fixture.ts";
import { A, ended, event, foreground, LEAVE, state, useApp, useMonitor, workspace } from "./_app_fixture.ts";
import { command } from "./command.ts";
import { until } from "./data/_fixture.ts";
import { plain } from "./text.ts";

// ariel-tui's command run in this process: refused without a terminal (stdin and stdout must be
// one, and stdin able to go raw), a -C root that is none refused; else the app on this process's
// stdin and stdout (made to look like a terminal here, what is written to them kept) until q.

/** writeSync to fd 1 or 2 (the terminal given back) recorded, not written. */
const rec = vi.hoisted(() => ({ synced: [] as [number, string][] }));
vi.mock("node:fs", async (importOriginal) => {
  const fs = await importOriginal<typeof import("node:fs")>();
  const writeSync = (fd: number, s: string, ...rest: unknown[]) => {
    if (fd === 1 || fd === 2) {
      rec.synced.push([fd, s]);
      return s.length;
    }
    return (fs.writeSync as (...a: unknown[]) => number)(fd, s, ...rest);
  };
  return { ...fs, default: { ...fs, writeSync }, writeSync };
});

const NOT_A_TERMINAL = {
  code: 2,
  stdout: "",
  stderr:
    "ariel-tui: error: ariel is a full-screen program: stdin and stdout must be a terminal [ERR_NOT_A_TERMINAL]\n" +
    "ariel-tui: hint: from a script or a pipe: ariel-runs list (--json) lists the runs, ariel-fleet events --follow follows them\n",
};

useApp("ariel-tui-cmd-state-");

/** What the app wrote to stdout; raw mode as it was set. */
let writes: string[];
let raw: boolean[];
let restore: (() => void)[];

beforeEach(() => {
  writes = [];
  raw = [];
  restore = [];
  rec.synced = [];
});
afterEach(() => {
  for (const r of restore.splice(0).reverse()) r();
});

/** Set `key` of `target` to `value` until the test ends (undefined: as if it had none). */
function set(target: object, key: string, value: unknown): void {
  const had = Object.getOwnPropertyDescriptor(target, key);
  Object.defineProperty(target, key, { value, configurable: true, writable: true });
  restore.push(() => {
    if (had) Object.defineProperty(target, key, had);
    else delete (target as Record<string, unknown>)[key];
  });
}

/** This process's stdin and stdout as a terminal (or the parts `o` says not), stdout's writes kept. */
function terminal(o: { stdin?: boolean; stdout?: boolean; raw?: boolean } = {}): void {
  set(process.stdin, "isTTY", o.stdin ?? true);
  set(process.stdout, "isTTY", o.stdout ?? true);
  set(process.stdin, "setRawMode", o.raw === false ? undefined : (on: boolean) => void raw.push(on));
  const write = vi.spyOn(process.stdout, "write").mockImplementation((s: string | Uint8Array) => {
    writes.push(typeof s === "string" ? s : Buffer.from(s).toString("utf8"));
    return true;
  });
  restore.push(() => write.mockRestore());
}

/** What the app drew so far, as text (its rows' styles dropped). */
const drawn = () => plain(writes.join(""));

const testEnv = (more: Record<string, string> = {}) => ({
  ARIEL_STATE_HOME: state,
  ARIEL_OWNER: "tester",
  ...more,
});

/** The command on `argv` from `cwd`, running: once `shows` is drawn, `keys` typed. */
async function begin(
  argv: string[],
  cwd: string,
  shows: string,
  o: { env?: Record<string, string>; keys?: string[] } = {},
) {
  const result = runInProcess(command, argv, { cwd, env: o.env ?? testEnv() });
  await until(() => drawn().includes(shows), shows);
  for (const k of o.keys ?? []) process.stdin.emit("data", Buffer.from(k));
  return { result };
}

/** The command on `argv` from `cwd` until `shows` is drawn, then q; its result. */
async function run(argv: string[], cwd: string, shows: string, env?: Record<string, string>) {
  const { result } = await begin(argv, cwd, shows, { keys: ["q"], ...(env ? { env } : {}) });
  return result;
}

describe("ariel-tui without a terminal", () => {
  // ERR_NOT_A_TERMINAL (exit 2) naming what says the same from a script; nothing drawn.
  it.each([
    ["no terminal at all (as under vitest)", null],
    ["stdin not a terminal", { stdin: false }],
    ["stdout not a terminal", { stdout: false }],
    ["stdin that cannot go raw", { raw: false }],
  ])("%s: ERR_NOT_A_TERMINAL", async (_name, o) => {
    const ws = await workspace();
    if (o) terminal(o);
    expect(await runInProcess(command, ["-C", ws.root], { cwd: ws.root, env: testEnv() })).toEqual(
      NOT_A_TERMINAL,
    );
    expect([writes, raw, rec.synced]).toEqual([[], [], []]);
  });

  it("a -C root that is none: still ERR_NOT_A_TERMINAL first", async () => {
    expect(await runInProcess(command, ["-C", join(state, "none")], { cwd: state, env: testEnv() })).toEqual(
      NOT_A_TERMINAL,
    );
  });
});

describe("ariel-tui on a terminal", () => {
  // -C resolved from the command's cwd (a root that is none refused); without it, the registry of
  // the command's state home; the app on stdin and stdout until q, the terminal given back.
  it("a -C root that is none: ERR_WORKSPACE_NOT_FOUND, nothing drawn", async () => {
    terminal();
    const r = await runInProcess(command, ["-C", "none"], { cwd: state, env: testEnv() });
    expect(r).toEqual({
      code: 66,
      stdout: "",
      stderr:
        `ariel-tui: error: workspace root "${join(state, "none")}" does not exist [ERR_WORKSPACE_NOT_FOUND]\n` +
        "ariel-tui: hint: pass -C DIR or set ARIEL_WORKSPACE_ROOT\n",
    });
    expect([writes, raw]).toEqual([[], []]);
  });

  it("-C relative to the cwd: that workspace, its runs and tasks; q: 0, the terminal given back", async () => {
    const ws = await workspace();
    await addTask(hostPorts({ env: { ...process.env, ...GIT_TEST_ENV, ...testEnv() }, cwd: ws.root }), {
      root: ws.root,
      taskId: "t1",
      sources: ["api"],
      noHooks: true,
    });
    await ended(ws, A, { task: "t1" });
    const parent = join(ws.root, "..");
    terminal();
    const r = await run(["-C", ws.root.slice(parent.length + 1)], parent, "▸ task t1  api  1 run");
    expect(r).toEqual({ code: 0, stdout: "", stderr: "" });
    expect(drawn()).toContain(" ariel  1 run · 1 needs you · 1 workspace");
    expect(writes[0]).toBe("\x1b[?1049h\x1b[?25l\x1b[?7l\x1b[H\x1b[2J");
    expect([raw, rec.synced]).toEqual([[true, false], [[1, LEAVE]]]);
    expect([process.stdin.listenerCount("data"), process.stdout.listenerCount("resize")]).toEqual([0, 0]);
  });

  it("without -C: the workspaces of the state home ARIEL_STATE_HOME names (relative to the cwd)", async () => {
    const [one, two] = await Promise.all([workspace(), workspace()]);
    for (const ws of [one!, two!])
      await registerWorkspace(hostPorts({ env: { ...process.env, ...testEnv() }, cwd: ws.root }), ws);
    const home = join(state, "..");
    terminal();
    const r = await run(
      [],
      home,
      " ariel  0 runs · 0 need you · 2 workspaces",
      testEnv({ ARIEL_STATE_HOME: state.slice(home.length + 1) }),
    );
    expect(r).toEqual({ code: 0, stdout: "", stderr: "" });
  });
});

describe("ariel-tui: the bell", () => {
  // A run that begins to wait rings the bell, unless --no-bell.
  it.each([
    ["by default", [], true],
    ["--no-bell", ["--no-bell"], false],
  ])("%s", async (_name, flags, rings) => {
    const ws = await workspace();
    foreground(ws, A);
    terminal();
    const result = runInProcess(command, ["-C", ws.root, ...flags], { cwd: ws.root, env: testEnv() });
    await until(() => drawn().includes("Running (1)"), "the run");
    event(ws, A, { event: "run.attention", to: "waiting", reason: "ask", by: "agent" });
    await until(() => drawn().includes(`● ${A.slice(0, 14)}`), "the run marked");
    process.stdin.emit("data", Buffer.from("q"));
    expect((await result).code).toBe(0);
    expect(writes.includes("\x07")).toBe(rings);
  });
});

describe("ariel-tui: the detach key", () => {
  // --detach-key (default ctrl-]) is checked before anything is drawn, and used when a run is attached.
  useMonitor();

  it.each([
    ["bogus", "bogus", true],
    ["empty", "", true],
    ["ctrl- with no key", "ctrl-", true],
    ["bogus, from a pipe (no terminal): the flag is said first", "bogus", false],
  ])("--detach-key %s: ERR_USAGE (exit 64), nothing drawn", async (_name, key, onTerminal) => {
    const ws = await workspace();
    if (onTerminal) terminal();
    expect(
      await runInProcess(command, ["-C", ws.root, "--detach-key", key], { cwd: ws.root, env: testEnv() }),
    ).toEqual({
      code: 64,
      stdout: "",
      stderr:
        `ariel-tui: error: --detach-key: expected ctrl-X or none, got ${JSON.stringify(key)} [ERR_USAGE]\n` +
        "ariel-tui: hint: e.g. --detach-key ctrl-] (the default) or --detach-key ctrl-q\n",
    });
    expect([writes, raw]).toEqual([[], []]);
  });

  it.each([
    ["the default", [], `ERR_RUN_NOT_FOUND: run ${A} is not live on a terminal`],
    [
      "--detach-key ctrl-b",
      ["--detach-key", "ctrl-b"],
      `ERR_RUN_NOT_FOUND: run ${A} is not live on a terminal`,
    ],
  ])("%s", async (_name, flags, said) => {
    const ws = await workspace();
    await createRun(
      ws.root,
      runFields(ws, A, { tty: { cols: 40, rows: 6 }, monitor: selfMonitorRef() } as Record<string, unknown>),
    );
    terminal();
    const { result } = await begin(["-C", ws.root, ...flags], ws.root, `agent · screen · ${A}`, {
      keys: ["\r"],
    });
    await until(() => drawn().includes(said), said);
    process.stdin.emit("data", Buffer.from("q"));
    process.stdin.emit("data", Buffer.from("q"));
    expect(await result).toEqual({ code: 0, stdout: "", stderr: "" });
  });
});
