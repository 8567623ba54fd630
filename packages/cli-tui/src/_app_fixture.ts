/**
 * Set-up shared by the tests of ariel's terminal UI run in this process (`app_test.ts`,
 * `app_more_test.ts`, `command_test.ts`): the `App` on a fake terminal (keys typed in, every write
 * kept and rendered by the emulator), a state home and an environment of its own for each test,
 * workspaces and runs written as the host writes them, the frames of 80×24 the app draws, and the
 * live runs' monitors killed after each test. Test-only (the build leaves `*_fixture.ts` out).
 * @internal
 *
 * @example
 * ```ts
 * useApp();
 * it("q: 0", async () => {
 *   const t = start(await workspace());
 *   await t.settle((r) => r[1] === "Needs you (0)", "the list");
 *   t.type("q");
 *   expect(await t.code).toBe(0);
 * });
 * ```
 */
import { EventEmitter } from "node:events";
import { appendFileSync, closeSync, mkdirSync, openSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { PassThrough } from "node:stream";
import { runPaths, workspaceHash } from "@ariel/core";
import { createRun, type KnownWorkspace, Screen, writeExitOnce } from "@ariel/core/host";
import { afterEach, beforeEach } from "vitest";
import { GIT_TEST_ENV, removeDir, tempDir } from "../../core/src/host/_fixture.ts";
import { runFields } from "../../core/src/host/runs/_fixture.ts";
import { makeRoot } from "../../core/src/host/worktree/_fixture.ts";
import { App } from "./app.ts";
import { exited, until, useLiveRuns } from "./data/_fixture.ts";
import { plain } from "./text.ts";

/** The terminal's input: keys typed in; what is done to it (raw mode, pause, resume) noted. */
export class FakeInput extends PassThrough {
  isTTY = true;
  calls: string[] = [];
  setRawMode(on: boolean): this {
    this.calls.push(`raw ${on}`);
    return this;
  }
  override pause(): this {
    this.calls.push("pause");
    return super.pause();
  }
  override resume(): this {
    this.calls.push("resume");
    return super.resume();
  }
}

/** The terminal's output: every write kept; a size to change before a resize; a file for the synchronous writes. */
export class FakeOutput extends EventEmitter {
  isTTY = true;
  writes: string[] = [];
  columns: number;
  rows: number;
  readonly file: string;
  readonly fd: number;
  constructor(columns: number, rows: number, file: string) {
    super();
    this.columns = columns;
    this.rows = rows;
    this.file = file;
    this.fd = openSync(file, "w");
  }
  write(s: string | Uint8Array): boolean {
    this.writes.push(typeof s === "string" ? s : Buffer.from(s).toString("utf8"));
    return true;
  }
}

export interface Tui {
  app: App;
  input: FakeInput;
  output: FakeOutput;
  code: Promise<number>;
  exited: () => number | null;
  type: (keys: string) => void;
  /** The frame now, plain (no SGR), trailing blanks dropped. */
  text: () => string[];
  /** What the terminal shows now: every write rendered by the emulator. */
  painted: () => Promise<string[]>;
  /** Once the frame passes `check` and the terminal shows it. */
  settle: (check: (rows: string[]) => boolean, what: string) => Promise<string[]>;
  /** What the synchronous writes (the terminal given back) wrote. */
  synced: () => string;
}

export const A = "20261202T110943Z-aaaaaa";
export const B = "20261202T110944Z-bbbbbb";
/** What the terminal is given back with (the synchronous writes). */
export const LEAVE = "\x1b[0m\x1b[?7h\x1b[?25h\x1b[?1049l";

/** The current test's state home; the apps' environment (NO_COLOR set), which names it. */
export let state: string;
export let env: NodeJS.ProcessEnv;
/** The current test's workspaces (removed after it). */
let dirs: string[];
/** The apps the current test started (each quit after it). */
let open: Tui[];

/**
 * The state home, the environment and the apps of each test of the file that calls this (once, at
 * its top level): before each test a fresh state home (a temporary directory named `prefix`…) and
 * `env` naming it (git's test identity, owner tester, NO_COLOR, no test hooks nor workspace root);
 * after it every app still running quit, every workspace and the state home removed.
 */
export function useApp(prefix = "ariel-tui-app-state-"): void {
  beforeEach(() => {
    dirs = [];
    open = [];
    state = tempDir(prefix);
    env = { ...process.env, ...GIT_TEST_ENV, ARIEL_STATE_HOME: state, ARIEL_OWNER: "tester", NO_COLOR: "1" };
    for (const k of ["ARIEL_TEST_HOOKS", "ARIEL_TEST_CRASH_KEY", "ARIEL_WORKSPACE_ROOT"]) delete env[k];
  });
  afterEach(async () => {
    for (const t of open.splice(0)) {
      if (t.exited() === null) t.app.quit();
      await t.code;
      closeSync(t.output.fd);
    }
    for (const d of dirs) removeDir(d);
    removeDir(state);
  });
}

/**
 * Live runs for each test of the describe that calls this: ariel-spawn's bundle is the monitor
 * (run by this process as `process.argv[1]`); after each test every run's process group and
 * every monitor of the test's workspaces are killed.
 */
export const useMonitor = () => useLiveRuns(() => dirs);

/** A workspace of repositories `sources`, as -C names it. */
export async function workspace(sources: string[] = ["api"]): Promise<KnownWorkspace> {
  const root = makeRoot(sources);
  dirs.push(root);
  return { root, hash: await workspaceHash(root), origin: "flag", exists: true };
}

const rowsOf = (lines: readonly string[]) => lines.map((l) => plain(l).trimEnd());

/** The terminal's screen after `writes`, rendered by the emulator. */
export async function render(writes: readonly string[], cols = 80, rows = 24): Promise<string[]> {
  const s = await Screen.open({ cols, rows });
  try {
    s.write(Buffer.from(writes.join("")));
    await s.flush();
    return s.lines();
  } finally {
    s.dispose();
  }
}

/** The app on a fake terminal of `cols`×`rows`, running. */
export function start(
  only: KnownWorkspace | null,
  o: { cols?: number; rows?: number; bell?: boolean; env?: NodeJS.ProcessEnv; detachKey?: string } = {},
): Tui {
  const input = new FakeInput();
  const output = new FakeOutput(o.cols ?? 80, o.rows ?? 24, join(state, `synced-${open.length}`));
  const app = new App({
    io: { input: input as unknown as NodeJS.ReadStream, output: output as unknown as NodeJS.WriteStream },
    env: o.env ?? env,
    cwd: state,
    only,
    detachKey: o.detachKey ?? "ctrl-]",
    bell: o.bell ?? true,
  });
  let status: number | null = null;
  const code = app.run().then((c) => {
    status = c;
    return c;
  });
  const text = () => rowsOf(app.frame());
  const painted = () => render(output.writes, output.columns, output.rows);
  const t: Tui = {
    app,
    input,
    output,
    code,
    exited: () => status,
    type: (keys) => void input.emit("data", Buffer.from(keys)),
    text,
    painted,
    settle: async (check, what) => {
      let last: string[] = [];
      let shown: string[] = [];
      try {
        await until(async () => {
          last = text();
          shown = await painted();
          return check(last) && JSON.stringify(shown) === JSON.stringify(last);
        }, what);
      } catch (e) {
        throw new Error(
          `${(e as Error).message}; the frame: ${JSON.stringify(last)}; shown: ${JSON.stringify(shown)}`,
        );
      }
      return last;
    },
    synced: () => readFileSync(output.file, "utf8"),
  };
  open.push(t);
  return t;
}

/** A detached run that ended (exited 0 at `endedAt`), its stdout written (`exitOnly`: its exit only). */
export async function ended(
  ws: KnownWorkspace,
  id: string,
  o: {
    name?: string;
    endedAt?: string;
    stdout?: string;
    tty?: boolean;
    task?: string;
    exitOnly?: boolean;
  } = {},
): Promise<void> {
  if (!o.exitOnly)
    await createRun(
      ws.root,
      runFields(ws, id, {
        name: o.name ?? "agent",
        ...(o.tty ? { tty: { cols: 40, rows: 6 } } : {}),
        ...(o.task ? { task: o.task } : {}),
      } as Record<string, unknown>),
    );
  if (o.stdout !== undefined) writeFileSync(runPaths(ws.root, id).stdout, o.stdout);
  await writeExitOnce(ws.root, exited(id, o.endedAt ?? "2026-12-02T11:10:00.000Z"));
}

/** One history line of run `id`, dated now unless `ts` says. */
export function historyLine(
  id: string,
  fields: Record<string, unknown>,
  ts = new Date().toISOString(),
): string {
  return `${JSON.stringify({ v: 1, type: "event", runId: id, ts, source: "api", ...fields })}\n`;
}

/** A foreground run whose ariel-spawn is this process (so it runs), begun now. */
export function foreground(ws: KnownWorkspace, id: string): void {
  mkdirSync(join(ws.root, ".ariel/runs"), { recursive: true });
  const begun = { event: "run.started", argv: ["make"], targets: ["api"], pid: process.pid };
  appendFileSync(runPaths(ws.root, id).history, historyLine(id, begun));
}

/** Append an event of run `id` to its history, dated now. */
export const event = (ws: KnownWorkspace, id: string, fields: Record<string, unknown>) =>
  appendFileSync(runPaths(ws.root, id).history, historyLine(id, fields));

export const KEYS_ROW = " Enter attach  n new  s send  k kill  d diff  L land  / filter  ? help  q quit";
export const RULE = (title: string) => `── ${title} ${"─".repeat(80 - title.length - 4)}`;
export const blank = (n: number) => Array.from({ length: n }, () => "");
/** A frame of 80×24: the title, nine list rows, the preview's rule and eleven rows, the message, the keys. */
export function frame24(
  title: string,
  list: string[],
  rule: string,
  preview: string[],
  message = "",
  keys = KEYS_ROW,
) {
  return [
    title,
    ...list,
    ...blank(9 - list.length),
    RULE(rule),
    ...preview,
    ...blank(11 - preview.length),
    message,
    keys,
  ];
}

/** A row as the frame styles it: `styled` (of `width` columns) padded to 80, then a reset. */
export const styledRow = (styled: string, width: number) => `${styled}${" ".repeat(80 - width)}\x1b[0m`;
/** The test's environment with NO_COLOR unset. */
export const colourEnv = () => {
  const e = { ...env };
  delete e.NO_COLOR;
  return e;
};

/** What a row of 80 columns shows of `s`. */
export const cut = (s: string) => s.slice(0, 80).trimEnd();

const EVENTS = ["SIGTERM", "SIGHUP", "SIGINT", "exit", "uncaughtException", "unhandledRejection"] as const;
/** The process's listeners now, by event of EVENTS (the ones the terminal adds). */
export const listeners = () => EVENTS.map((e) => process.listeners(e as NodeJS.Signals));
/** The process listeners added since `before` (the terminal's), by event. */
export function added(
  before: ReturnType<typeof listeners>,
): Record<(typeof EVENTS)[number], ((...a: unknown[]) => void)[]> {
  const now = listeners();
  return Object.fromEntries(
    EVENTS.map((e, i) => [e, now[i]!.filter((l) => !before[i]!.includes(l))]),
  ) as Record<(typeof EVENTS)[number], ((...a: unknown[]) => void)[]>;
}
