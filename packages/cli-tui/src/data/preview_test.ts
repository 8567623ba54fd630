import { appendFileSync, mkdirSync, readdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { type FleetRun, runPaths, workspaceHash } from "@ariel/core";
import {
  addTask,
  createRun,
  hostPorts,
  type KnownWorkspace,
  loadRun,
  runsBackend,
  selfMonitorRef,
  sendToRun,
  writeExitOnce,
} from "@ariel/core/host";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { commitAll, GIT_TEST_ENV, removeDir, tempDir, writeFile } from "../../../core/src/host/_fixture.ts";
import { runFields } from "../../../core/src/host/runs/_fixture.ts";
import { makeRoot } from "../../../core/src/host/worktree/_fixture.ts";
import { type RunItem, runKey, type TaskItem, taskKey } from "../model/items.ts";
import { exited, monitorsOf, until, useLiveRuns } from "./_fixture.ts";
import { Actions } from "./actions.ts";
import { Preview, type PreviewBody } from "./preview.ts";

// The preview of the selected item on a workspace in a temp dir: a run's log tail or screen (its
// stored stream, or live from its monitor), a task's legs; what each change event shows, and
// that a newer selection wins over an older one still being read.

const A = "20261202T110943Z-aaaaaa";
const B = "20261202T110944Z-bbbbbb";

let root: string;
let state: string;
let env: NodeJS.ProcessEnv;
let ws: KnownWorkspace;
let preview: Preview;
/** What the preview showed at each change event. */
let seen: Shown[];

type Shown =
  | { kind: "screen"; live: boolean; size: { cols: number; rows: number }; text: string }
  | Exclude<PreviewBody, { kind: "screen" }>;

/** A body as a plain value (a screen by its size and text). */
function shown(body: PreviewBody): Shown {
  if (body.kind !== "screen") return structuredClone(body);
  return { kind: "screen", live: body.live, size: body.screen.size, text: body.screen.text() };
}

beforeEach(async () => {
  root = makeRoot(["api"]);
  state = tempDir("ariel-tui-preview-state-");
  env = { ...process.env, ...GIT_TEST_ENV, ARIEL_STATE_HOME: state, ARIEL_OWNER: "tester" };
  ws = { root, hash: await workspaceHash(root), origin: "flag", exists: true };
  preview = new Preview(env);
  seen = [];
  preview.on("change", () => seen.push(shown(preview.body)));
});
afterEach(() => {
  preview.close();
  removeDir(root);
  removeDir(state);
});

const view = async (id: string): Promise<FleetRun> => (await loadRun(ws, id))!.view;
const item = (run: FleetRun): RunItem => ({
  kind: "run",
  key: runKey(run),
  run,
  attention: null,
  tool: null,
  fresh: false,
});

/** A detached run's record (no process), ended unless `live`, with its output files. */
async function detached(
  id: string,
  o: { stdout?: string; stderr?: string; tty?: { cols: number; rows: number }; live?: boolean } = {},
): Promise<FleetRun> {
  const more = { ...(o.tty ? { tty: o.tty } : {}), ...(o.live ? { monitor: selfMonitorRef() } : {}) };
  await createRun(root, runFields(ws, id, more as Record<string, unknown>));
  if (o.stdout !== undefined) writeFileSync(runPaths(root, id).stdout, o.stdout);
  if (o.stderr !== undefined) writeFileSync(runPaths(root, id).stderr, o.stderr);
  if (!o.live) {
    await writeExitOnce(root, exited(id));
  }
  return view(id);
}

describe("Preview of a run's log", () => {
  // A piped run: the tail of stdout, then stderr under a rule; a foreground run: where its output went.
  it.each([
    ["stdout only, its last newline dropped", "one\ntwo\n", undefined, ["one", "two"]],
    ["a last line without its newline", "one\ntwo", undefined, ["one", "two"]],
    ["stderr only: no rule", undefined, "bad\n", ["bad"]],
    ["both: stderr under a rule", "out\n", "err1\nerr2\n", ["out", "── stderr ──", "err1", "err2"]],
    ["empty files: nothing", "", "", []],
    ["no output files: nothing", undefined, undefined, []],
    ["a blank line kept", "a\n\nb\n", undefined, ["a", "", "b"]],
  ])("%s", async (_name, stdout, stderr, lines) => {
    const run = await detached(A, { stdout, stderr });
    await preview.show(item(run));
    expect(preview.key).toBe(`run:${ws.hash}/${A}`);
    expect(preview.body).toEqual({ kind: "log", lines });
    expect(seen).toEqual([{ kind: "log", lines }]);
  });
});

describe("Preview of a run's log: its tail, read again", () => {
  // The last 16 KiB of a long log; the same run shown again reads what was appended.
  it("a long stdout: its last 16 KiB to the last byte, the torn first line left out", async () => {
    const all = Array.from({ length: 200 }, (_, i) => `line ${String(i).padStart(3, "0")} `.padEnd(99, "x"));
    const text = `${all.map((l) => `${l}\n`).join("")}end`;
    expect(text.length).toBe(20_003);
    await preview.show(item(await detached(A, { stdout: text })));
    // 20003 - 16384 = 3619: inside line 36 (bytes 3600..3699), which is torn.
    expect(preview.body).toEqual({ kind: "log", lines: [...all.slice(37), "end"] });
  });

  it("exactly 16 KiB: every line", async () => {
    const all = Array.from({ length: 128 }, (_, i) => `${String(i).padStart(3, "0")}`.padEnd(127, "y"));
    const text = all.map((l) => `${l}\n`).join("");
    expect(text.length).toBe(16 * 1024);
    await preview.show(item(await detached(A, { stdout: text })));
    expect(preview.body).toEqual({ kind: "log", lines: all });
  });

  it("the same run again: its log read again; forced: read again too", async () => {
    const run = await detached(A, { stdout: "one\n" });
    await preview.show(item(run));
    appendFileSync(runPaths(root, A).stdout, "two\n");
    await preview.show(item(run));
    expect(preview.body).toEqual({ kind: "log", lines: ["one", "two"] });
    appendFileSync(runPaths(root, A).stdout, "three\n");
    await preview.show(item(run), true);
    expect(seen).toEqual([
      { kind: "log", lines: ["one"] },
      { kind: "log", lines: ["one", "two"] },
      { kind: "log", lines: ["one", "two", "three"] },
    ]);
  });

  it("a foreground run: where its output went, in its state", async () => {
    mkdirSync(join(root, ".ariel/runs"), { recursive: true });
    const line = { v: 1, type: "event", event: "run.started", runId: B, ts: "2026-12-02T11:09:44.120Z" };
    writeFileSync(
      runPaths(root, B).history,
      `${JSON.stringify({ ...line, source: "api", argv: ["make"], targets: ["api"] })}\n`,
    );
    const run = await view(B);
    await preview.show(item({ ...run, tty: { cols: 80, rows: 24 } }));
    const lines = [
      "a foreground ariel-spawn run (lost): its output went to the terminal that started it",
      "ariel-fleet events --follow shows its events",
    ];
    expect(preview.body).toEqual({ kind: "text", lines });
    expect(seen).toEqual([{ kind: "text", lines }]);
  });
});

describe("Preview of nothing, and close", () => {
  // Nothing selected: an empty text; close forgets the item and frees its screen.
  it("null at first is no change; after an item: the empty text, one change", async () => {
    await preview.show(null);
    expect([preview.key, preview.body, seen]).toEqual([null, { kind: "text", lines: [] }, []]);
    await preview.show(item(await detached(A, { stdout: "x\n" })));
    await preview.show(null);
    expect([preview.key, preview.body]).toEqual([null, { kind: "text", lines: [] }]);
    expect(seen).toEqual([
      { kind: "log", lines: ["x"] },
      { kind: "text", lines: [] },
    ]);
  });

  it("close: no key, the empty text, no change event; the item shows again after", async () => {
    const run = await detached(A, { stdout: "x\n" });
    await preview.show(item(run));
    preview.close();
    expect([preview.key, preview.body, seen.length]).toEqual([null, { kind: "text", lines: [] }, 1]);
    await preview.show(item(run));
    expect(seen).toEqual([
      { kind: "log", lines: ["x"] },
      { kind: "log", lines: ["x"] },
    ]);
  });
});

describe("Preview of a task", () => {
  // Its legs as diffTask reads them (no patch), after a line saying they are being read.
  const taskItem = (taskId: string): TaskItem => ({
    kind: "task",
    key: taskKey(ws.hash, taskId),
    workspace: { root, hash: ws.hash },
    taskId,
    state: "active",
    legs: [],
    createdAt: null,
  });
  const reading = { kind: "text", lines: ["reading the task's legs…"] };

  it("its legs with their commits and files", async () => {
    await addTask(hostPorts({ env, cwd: root }), { root, taskId: "t1", sources: ["api"], noHooks: true });
    const leg = join(root, ".ariel/worktrees/t1/api");
    writeFile(join(leg, "f.txt"), "one\n");
    const head = commitAll(leg, "t1 work");
    await preview.show(taskItem("t1"));
    expect(preview.key).toBe(`task:${ws.hash}/t1`);
    expect(seen).toHaveLength(2);
    expect(seen[0]).toEqual(reading);
    const body = preview.body as Extract<PreviewBody, { kind: "task" }>;
    expect(body.kind).toBe("task");
    expect(body.legs.map((l) => [l.source, l.head, l.commits, l.files, "patch" in l])).toEqual([
      [
        "api",
        head,
        [{ commit: head, subject: "t1 work" }],
        [{ path: "f.txt", status: "A", added: 1, deleted: 0 }],
        false,
      ],
    ]);
    // The same task again: nothing read, nothing changes.
    await preview.show(taskItem("t1"));
    expect(seen).toHaveLength(2);
  });

  it("a task that cannot be read: why, in place of the preview", async () => {
    await preview.show(taskItem("nope"));
    expect(seen).toEqual([reading, { kind: "text", lines: [`(no preview: no task "nope" in ${root})`] }]);
  });

  it("closed while its legs are read: they are not shown", async () => {
    await addTask(hostPorts({ env, cwd: root }), { root, taskId: "t1", sources: ["api"], noHooks: true });
    const showing = preview.show(taskItem("t1"));
    preview.close();
    await showing;
    expect([preview.key, preview.body, seen]).toEqual([null, { kind: "text", lines: [] }, [reading]]);
  });

  it("a newer selection wins over a task still being read", async () => {
    await addTask(hostPorts({ env, cwd: root }), { root, taskId: "t1", sources: ["api"], noHooks: true });
    const run = await detached(A, { stdout: "newer\n" });
    const first = preview.show(taskItem("t1"));
    const second = preview.show(item(run));
    await Promise.all([first, second]);
    expect(preview.key).toBe(`run:${ws.hash}/${A}`);
    expect(preview.body).toEqual({ kind: "log", lines: ["newer"] });
    expect(seen).toEqual([reading, { kind: "log", lines: ["newer"] }]);
  });
});

/**
 * A monitor for the describe that calls this: ariel-spawn's bundle, run by this process as
 * `process.argv[1]` when a run is attached; after each test every run's process group and the
 * workspace's monitors are killed.
 */
const useMonitor = () => useLiveRuns(() => [root]);

const size = { cols: 40, rows: 6 };
const stored = { kind: "screen", live: false, size, text: "hello\nworld\n" } as const;

describe("Preview of a tty run's stored screen", () => {
  // An ended run's screen from its stored stream, at its own size; one that is not live on its
  // monitor any more falls back to it.
  useMonitor();

  it("an ended run: its stored screen at its size; the same again: nothing read", async () => {
    const run = await detached(A, { tty: size, stdout: "hello\r\nworld" });
    await preview.show(item(run));

    expect(seen).toEqual([stored]);
    expect(shown(preview.body)).toEqual(stored);
    await preview.show(item({ ...run, state: "exited" }));
    expect(seen).toEqual([stored]);
    expect(monitorsOf(root)).toEqual([]);
  });

  it("a run its monitor does not have (it ended as it was selected): live, then its stored screen", async () => {
    const run = await detached(A, { tty: size, stdout: "hello\r\nworld", live: true });
    expect(run.state).toBe("starting");
    await preview.show(item(run));
    expect(seen).toEqual([{ kind: "screen", live: true, size, text: "" }, stored]);
  });

  it("the same run seen live again (respawned): shown afresh", async () => {
    const run = await detached(A, { tty: size, stdout: "hello\r\nworld" });
    await preview.show(item(run));
    await preview.show(item({ ...run, state: "running" }));
    expect(seen).toEqual([stored, { kind: "screen", live: true, size, text: "" }, stored]);
  });

  it("a newer selection while the screen opens: no attach (no monitor started)", async () => {
    const run = await detached(A, { tty: size, stdout: "x", live: true });
    await Promise.all([preview.show(item(run)), preview.show(null)]);
    expect([preview.key, preview.body, seen]).toEqual([
      null,
      { kind: "text", lines: [] },
      [{ kind: "text", lines: [] }],
    ]);
    expect(monitorsOf(root)).toEqual([]);
  });
});

/** Start a tty run of `script` in api; its view. */
async function live(script: string): Promise<FleetRun> {
  const act = new Actions(env);
  const argv = ["sh", "-c", script];
  expect(await act.start(ws, { ...newRun, name: "reader", argv })).toEqual({
    ok: true,
    message: "started reader",
    exit: 0,
  });
  const [id] = readdirSync(join(root, ".ariel/runs")).filter((n) => !n.endsWith(".ndjson"));
  return view(id!);
}

const tty = { cols: 80, rows: 24 };
const screenOf = (text: string, isLive: boolean) => ({ kind: "screen", live: isLive, size: tty, text });
const saw = (want: unknown) => seen.some((x) => JSON.stringify(x) === JSON.stringify(want));

describe("Preview of a live tty run", () => {
  // Read-only from its monitor, drawn as it writes; kept as last drawn at its end.
  useMonitor();

  it("a live run: what it writes, drawn as it comes; at its end the screen stays and `ended` says how", async () => {
    const run = await live("read x; echo got $x; read y; echo got $y; read z; exit 3");
    const ended: unknown[] = [];
    preview.on("ended", (r, end) => ended.push([r, end, seen.at(-1)]));
    // Shown live until the run ends: the show resolves only then.
    const showing = preview.show(item(run));
    await until(() => seen.length > 0, "the live screen");
    expect(seen[0]).toEqual(screenOf("", true));
    const screen = (preview.body as Extract<PreviewBody, { kind: "screen" }>).screen;
    // The same run again while live: the same screen goes on.
    const again = preview.show(item(run));
    const backend = runsBackend(root, ws.hash);
    await sendToRun(backend, run.runId, "ping", true);
    await until(() => saw(screenOf("ping\ngot ping\n", true)), "the first line drawn");
    await sendToRun(backend, run.runId, "pong", true);
    await until(
      () => saw(screenOf("ping\ngot ping\npong\ngot pong\n", true)),
      "the second line drawn",
      5_000,
    );
    await sendToRun(backend, run.runId, "bye", true);
    await Promise.all([showing, again]);
    const last = screenOf("ping\ngot ping\npong\ngot pong\nbye\n", false);
    expect(ended).toEqual([[run, { kind: "exited", status: 3 }, last]]);
    expect(shown(preview.body)).toEqual(last);
    expect((preview.body as Extract<PreviewBody, { kind: "screen" }>).screen).toBe(screen);
  });
});

describe("Preview of a live tty run left", () => {
  // The selection moves or the preview closes: the attach stops at once, nothing more is shown.
  useMonitor();

  it("another item selected while live: the attach stops, the other item shows", async () => {
    const run = await live("read x; exit 0");
    const other = await detached(B, { stdout: "other\n" });
    let settled = false;
    const showing = preview.show(item(run)).then(() => {
      settled = true;
    });
    // Attached: the monitor's repaint is drawn. (attachTty hears the abort only once attached: a
    // close before the monitor answers leaves the attach on until the run ends.)
    await until(() => seen.length > 1, "the repaint drawn");
    await preview.show(item(other));
    await until(() => settled, "the live show to end", 5_000);
    await showing;
    expect([preview.key, preview.body, seen.at(-1)]).toEqual([
      `run:${ws.hash}/${B}`,
      { kind: "log", lines: ["other"] },
      { kind: "log", lines: ["other"] },
    ]);
  });

  it("closed while live: the attach stops, nothing more is shown, no `ended`", async () => {
    const run = await live("read x; exit 0");
    const ended: unknown[] = [];
    preview.on("ended", (...a) => ended.push(a));
    let settled = false;
    const showing = preview.show(item(run)).then(() => {
      settled = true;
    });
    await until(() => seen.length > 1, "the repaint drawn");
    preview.close();
    const shownBefore = seen.length;
    await until(() => settled, "the show to end once closed", 5_000);
    await showing;
    expect([preview.key, preview.body, seen.slice(shownBefore), ended]).toEqual([
      null,
      { kind: "text", lines: [] },
      [],
      [],
    ]);
    expect(new Set(seen.map((x) => JSON.stringify(x)))).toEqual(
      new Set([JSON.stringify(screenOf("", true))]),
    );
  });
});

const newRun = {
  source: "api",
  task: "",
  name: "",
  agent: "",
  argv: ["true"],
  isolate: false,
  span: false,
  keep: false,
  sandbox: false,
};
