import { type ChildProcess, spawn } from "node:child_process";
import { existsSync, readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import {
  addTask,
  bootId,
  createRun,
  hostPorts,
  type KnownWorkspace,
  processStartTime,
  registerWorkspace,
  selfMonitorRef,
} from "@ariel/core/host";
import { afterEach, describe, expect, it, type MockInstance, vi } from "vitest";
import { commitAll, git, initRepo, removeDir, writeFile } from "../../core/src/host/_fixture.ts";
import { runFields } from "../../core/src/host/runs/_fixture.ts";
import {
  A,
  added,
  B,
  blank,
  colourEnv,
  cut,
  ended,
  env,
  foreground,
  frame24,
  KEYS_ROW,
  LEAVE,
  listeners,
  RULE,
  start,
  styledRow,
  type Tui,
  useApp,
  useMonitor,
  workspace,
} from "./_app_fixture.ts";
import { until } from "./data/_fixture.ts";
import { Actions } from "./data/actions.ts";

useApp();

const PANEL_KEYS = " Esc closes";
const PAGER_KEYS = " ↑↓ j K scroll · PgUp PgDn · ] [ next/previous file · q Esc close";
/** A panel's frame of 80×24: the title line, the panel's 21 rows, the message, the keys. */
const panel24 = (title: string, lines: string[], message = "", keys = PANEL_KEYS) => [
  title,
  ...lines,
  ...blank(21 - lines.length),
  message,
  keys,
];
const endedRow = "  agent          api            exited 0   <1m";
const oneRun = (message = "", rule = `agent · log · ${A}`) =>
  frame24(
    " ariel  1 run · 0 need you · 1 workspace",
    ["Needs you (0)", "  Nothing is waiting for you.", "Ended (1)", endedRow],
    rule,
    [],
    message,
  );

/** Task `taskId` of `ws`, its one leg api, as ariel-worktree add makes it (no hooks run). */
const newTask = (ws: KnownWorkspace, taskId: string) =>
  addTask(hostPorts({ env, cwd: ws.root }), { root: ws.root, taskId, sources: ["api"], noHooks: true });

describe("App: a question", () => {
  // k asks; y or Y does it (busy under the question's title), any other key: nothing was done.
  it("k on an ended run: n does nothing; Y and y kill, which says it had ended", async () => {
    const ws = await workspace();
    await ended(ws, A);
    const t = start(ws, { env: colourEnv() });
    await t.settle((r) => r[10] === RULE(`agent · log · ${A}`), "the list");
    const asks = panel24(" ariel  1 run · 0 need you · 1 workspace", [
      "kill agent?",
      "",
      "  TERM to its process group, KILL after 10 s (ariel-runs kill agent)",
      "",
      "  y yes   any other key: no",
    ]);
    t.type("k");
    expect(await t.settle((r) => r[1] === "kill agent?", "the question")).toEqual(asks);
    t.type("n");
    expect(await t.settle((r) => r[22] === "nothing was done", "no")).toEqual(oneRun("nothing was done"));
    expect(t.app.frame()[22]).toBe(styledRow("\x1b[32mnothing was done\x1b[0m", 16));
    const said = "agent had already ended; nothing was signalled";
    for (const yes of ["Y", "y"]) {
      t.type("\x1b");
      t.type("k");
      expect(await t.settle((r) => r[1] === "kill agent?", "the question again")).toEqual(asks);
      const n = t.output.writes.length;
      t.type(yes);
      expect(await t.settle((r) => r[22] === said, "the kill")).toEqual(oneRun(said));
      const drawn = t.output.writes.slice(n).join("");
      expect([drawn.includes("kill agent…"), drawn.includes("?…")]).toEqual([true, false]);
      expect(t.app.frame()[22]).toBe(styledRow(`\x1b[32m${said}\x1b[0m`, said.length));
    }
  });

  it("r on a live run asks first; y: the refusal in a pager (its hint), q closes it", async () => {
    const ws = await workspace();
    foreground(ws, A);
    const t = start(ws, { env: colourEnv() });
    await t.settle((r) => r[10] === RULE(`${A} · log · ${A}`), "the list");
    t.type("r");
    const title = `respawn ${A}? it is live: it is killed first`;
    expect(await t.settle((r) => r[1] === title, "the question")).toEqual(
      panel24(" ariel  1 run · 0 need you · 1 workspace", [title, "", "", "  y yes   any other key: no"]),
    );
    const n = t.output.writes.length;
    t.type("y");
    const refusal = `ERR_REFUSED: run ${A} is a foreground ariel-spawn: it cannot be respawned from here`;
    const pager = await t.settle((r) => r[23] === PAGER_KEYS, "the refusal");
    expect(pager).toEqual(
      panel24(
        " ariel  1 run · 0 need you · 1 workspace",
        [
          cut(`${refusal}  1-2 of 2`),
          "hint: stop it where it runs (Ctrl-C); start runs with ariel-spawn --detach (or n",
          " here) to control them",
        ],
        cut(refusal),
        PAGER_KEYS,
      ),
    );
    const drawn = t.output.writes.slice(n).join("");
    expect([drawn.includes(`respawn ${A}…`), drawn.includes("first…")]).toEqual([true, false]);
    expect(t.app.frame()[22]).toBe(`\x1b[31m${refusal.slice(0, 80)}\x1b[0m`);
    t.type("q");
    expect((await t.settle((r) => r[23] === KEYS_ROW, "the list"))[22]).toBe(cut(refusal));
  });
});

describe("App: a prompt", () => {
  // s asks for a line: typed, edited, Esc cancels; Enter sends it (busy), the outcome after.
  it("s on a run: typed and edited; Esc cancels; Enter sends, a refusal's hint in a pager", async () => {
    const ws = await workspace();
    foreground(ws, A);
    const t = start(ws);
    await t.settle((r) => r[10] === RULE(`${A} · log · ${A}`), "the list");
    const prompt = (text: string) =>
      panel24(" ariel  1 run · 0 need you · 1 workspace", [
        `send a line to ${A}`,
        "",
        `  > ${text}`.trimEnd(),
        "",
        "  Enter sends (then Enter in the run), Esc cancels",
      ]);
    t.type("s");
    expect(await t.settle((r) => r[1] === `send a line to ${A}`, "the prompt")).toEqual(prompt(""));
    t.type("hi yo");
    expect(await t.settle((r) => r[3] === "  > hi yo", "typed")).toEqual(prompt("hi yo"));
    t.type("\x7f\x7f\x15x");
    expect(await t.settle((r) => r[3] === "  > x", "edited")).toEqual(prompt("x"));
    t.type("\x1b");
    const list = await t.settle((r) => r[23] === KEYS_ROW, "cancelled");
    expect(list[22]).toBe("");
    const n = t.output.writes.length;
    t.type("sok\r");
    const refusal = `ERR_REFUSED: run ${A} is a foreground ariel-spawn: it cannot be sent input from here`;
    const pager = await t.settle((r) => r[23] === PAGER_KEYS, "the refusal");
    expect(t.output.writes.slice(n).join("").includes("sending…")).toBe(true);
    expect(pager.slice(1, 4)).toEqual([
      cut(`${refusal}  1-2 of 2`),
      "hint: stop it where it runs (Ctrl-C); start runs with ariel-spawn --detach (or n",
      " here) to control them",
    ]);
  });
});

describe("App: a task", () => {
  // Enter on a task is its diff, in a pager that scrolls by line, page and file; s is no run's.
  it("Enter: the diff in a pager; j, PgDn, ] and [ scroll it; q closes it", async () => {
    const ws = await workspace();
    await newTask(ws, "t1");
    const leg = join(ws.root, ".ariel/worktrees/t1/api");
    writeFile(join(leg, "f.txt"), Array.from({ length: 40 }, (_, i) => `l${i + 1}\n`).join(""));
    const head = commitAll(leg, "t1: f.txt");
    const base = git(join(ws.root, "api"), "rev-parse", "main").trim();
    const t = start(ws);
    await t.settle(
      (r) => r[11] === "api  ariel/t1  1 commit ahead, 1 file changed, 0 uncommitted",
      "the task",
    );
    t.type("s");
    expect((await t.settle((r) => r[22] !== "", "no run"))[22]).toBe("select a run to send a line to");
    t.type("\r");
    const top = [
      `── api · ariel/t1 · 1 commit(s) ahead of ${base.slice(0, 12)}, 1 file(s) changed, 0 unco`,
      "mmitted",
      `commit ${head.slice(0, 12)} t1: f.txt`,
      "diff --git a/f.txt b/f.txt",
      "new file mode 100644",
    ];
    const pager = await t.settle((r) => r[23] === PAGER_KEYS, "the diff");
    expect(pager.slice(0, 7)).toEqual([
      " ariel  0 runs · 1 needs you · 1 workspace",
      "diff of task t1  1-19 of 50",
      ...top,
    ]);
    expect(pager.slice(8, 24)).toEqual([
      "--- /dev/null",
      "+++ b/f.txt",
      "@@ -0,0 +1,40 @@",
      ...Array.from({ length: 10 }, (_, i) => `+l${i + 1}`),
      "",
      "select a run to send a line to",
      PAGER_KEYS,
    ]);
    const steps: [string, string, string][] = [
      ["j", "2-20 of 50", "mmitted"],
      ["\x1b[6~", "21-39 of 50", "+l12"],
      [" ", "32-50 of 50", "+l23"],
      ["[", "4-22 of 50", "diff --git a/f.txt b/f.txt"],
      ["]", "4-22 of 50", "diff --git a/f.txt b/f.txt"],
      ["K", "3-21 of 50", `commit ${head.slice(0, 12)} t1: f.txt`],
      ["\x1b[5~", "1-19 of 50", top[0]!],
    ];
    for (const [key, where, first] of steps) {
      t.type(key);
      const rows = await t.settle((r) => r[1] === `diff of task t1  ${where}`, `${key}: ${where}`);
      expect(rows[2]).toBe(first);
    }
    t.type("q");
    expect((await t.settle((r) => r[23] === KEYS_ROW, "the list"))[22]).toBe(
      "select a run to send a line to",
    );
  });

  it("x on a task with work not committed: the refusal, every line of it in a pager", async () => {
    const ws = await workspace();
    await newTask(ws, "t3");
    writeFile(join(ws.root, ".ariel/worktrees/t3/api/new.txt"), "work\n");
    const t = start(ws);
    await t.settle(
      (r) => r[11] === "api  ariel/t3  0 commits ahead, 0 files changed, 1 uncommitted",
      "the task",
    );
    t.type("x");
    await t.settle((r) => r[1] === "remove task t3's worktrees?", "the question");
    t.type("y");
    const rows = await t.settle((r) => r[23] === PAGER_KEYS, "the refusal");
    const refusal = `ERR_DIRTY: ${ws.root}/.ariel/worktrees/t3/api has uncommitted changes: new.txt`;
    const summary = `refused, nothing changed: api (dirty); next: ariel-worktree remove -C ${ws.root} --task t3 --snapshot`;
    const wrap80 = (line: string) => line.match(/.{1,80}/g)!;
    expect(rows).toEqual(
      panel24(
        " ariel  0 runs · 1 needs you · 1 workspace",
        [cut(`${summary}  1-4 of 4`), ...wrap80(refusal), ...wrap80(summary)],
        cut(summary),
        PAGER_KEYS,
      ),
    );
  });

  it("x asks, y removes the task's worktrees: said on the message line", async () => {
    const ws = await workspace();
    await newTask(ws, "t2");
    const t = start(ws);
    await t.settle(
      (r) => r[11] === "api  ariel/t2  0 commits ahead, 0 files changed, 0 uncommitted",
      "the task",
    );
    t.type("x");
    expect(await t.settle((r) => r[1] === "remove task t2's worktrees?", "the question")).toEqual(
      panel24(" ariel  0 runs · 1 needs you · 1 workspace", [
        "remove task t2's worktrees?",
        "",
        "  branches are kept; a leg with work that would be lost is refused",
        "  (ariel-worktree remove --task t2)",
        "",
        "  y yes   any other key: no",
      ]),
    );
    t.type("y");
    const rows = await t.settle((r) => r[22] === "removed t2: api", "removed");
    expect(rows[23]).toBe(KEYS_ROW);
  });
});

/** The new-run form's rows for `root`, the row `at` current, `hint` its completions; `more` under the command line. */
function form(
  root: string,
  at: number,
  hint: string,
  values: Partial<Record<string, string>> = {},
  more: string[] = [],
) {
  const fields = ["source", "task", "agent", "command", "name"].map((f, i) => {
    const value = values[f] ?? (f === "agent" ? "claude" : "");
    return i === at ? `▶ ${f.padEnd(8)} ${value} ${hint}`.trimEnd() : `  ${f.padEnd(8)} ${value}`.trimEnd();
  });
  return [
    `new run in ${root}`,
    "",
    ...fields,
    "  [ ] isolate (own worktree)  --isolate",
    "  [ ] keep the worktree when it ends  --keep",
    "  [ ] span (one task over the sources)  --span",
    "  [ ] sandbox  --sandbox",
    "",
    ...more,
    "",
    "  ↑↓ move · type to fill · Space toggles · Enter starts · Esc cancels",
  ];
}

/** The app on `ws`, the list read, then n: its new-run form shown. */
async function formOn(ws: KnownWorkspace): Promise<Tui> {
  const t = start(ws);
  await t.settle((r) => r[1] === "Needs you (0)", "the list");
  t.type("n");
  await t.settle((r) => r[1] === `new run in ${ws.root}`, "the form");
  return t;
}

describe("App: the new-run form", () => {
  // n: the form for the selected item's workspace (else the first), its sources (not the root)
  // and its tasks to complete; Esc closes it, Enter starts or says what is missing.
  it("with -C: the workspace's sources to complete, not its root; Esc closes; a missing command is said", async () => {
    const ws = await workspace(["api", "web"]);
    initRepo(ws.root);
    const t = start(ws);
    await t.settle((r) => r[1] === "Needs you (0)", "the list");
    const title = " ariel  0 runs · 0 need you · 1 workspace";
    t.type("n");
    const opened = await t.settle((r) => r[1] === `new run in ${ws.root}`, "the form");
    expect(opened).toEqual(
      panel24(
        title,
        form(ws.root, 0, "  (Tab completes: api web)", {}, ["  ariel-spawn --detach --tty -- claude"]),
      ),
    );
    t.type("\x1b[B");
    expect(await t.settle((r) => r[4] === "▶ task", "the task row")).toEqual(
      panel24(title, form(ws.root, 1, "", {}, ["  ariel-spawn --detach --tty -- claude"])),
    );
    t.type("\x1b[B\x15\r");
    expect(await t.settle((r) => r[14] === "  name an agent or a command to run", "what is missing")).toEqual(
      panel24(
        title,
        form(ws.root, 2, "  (Tab completes: claude codex gemini aider)", { agent: "" }, [
          "  (name an agent or a command)",
          "  name an agent or a command to run",
        ]),
      ),
    );
    t.type("\x1b");
    expect(await t.settle((r) => r[23] === KEYS_ROW, "the list")).toEqual(
      frame24(title, ["Needs you (0)", "  Nothing is waiting for you."], "nothing selected", []),
    );
  });

  it("a source that is none: the refusal in a pager, its hint", async () => {
    const ws = await workspace();
    const t = await formOn(ws);
    const n = t.output.writes.length;
    t.type("nope\r");
    const refusal = cut(`ERR_SOURCE_NOT_FOUND: no source "nope" in workspace ${ws.root} (--`);
    const rows = await t.settle((r) => r[23] === PAGER_KEYS, "the refusal");
    expect(t.output.writes.slice(n).join("").includes("starting…")).toBe(true);
    expect(rows.slice(1, 3).concat(rows.slice(22))).toEqual([
      refusal,
      "hint: run ariel-discover to list the workspace's sources",
      refusal,
      PAGER_KEYS,
    ]);
  });

  it("a workspace whose sources cannot be read (its root gone): the form, nothing to complete", async () => {
    const ws = await workspace();
    const t = start(ws);
    await t.settle((r) => r[1] === "Needs you (0)", "the list");
    removeDir(ws.root);
    t.type("n");
    const rows = await t.settle((r) => r[1] === `new run in ${ws.root}`, "the form");
    expect(rows.slice(1, 6)).toEqual(form(ws.root, 0, "").slice(0, 5));
    expect(t.exited()).toBe(null);
  });

  it("no workspace: said, in red", async () => {
    const ws = await workspace();
    const t = start({ ...ws, exists: false }, { env: colourEnv() });
    await t.settle((r) => r[1] === "Needs you (0)", "the list");
    t.type("n");
    const said = "no workspace: start ariel with -C DIR";
    const rows = await t.settle((r) => r[22] === said, "no workspace");
    expect(rows[0]).toBe(" ariel  0 runs · 0 need you · 0 workspaces");
    expect(t.app.frame()[22]).toBe(styledRow(`\x1b[31m${said}\x1b[0m`, said.length));
  });
});

describe("App: keys typed as the form opens", () => {
  // The sources are read before the form shows: a key typed meanwhile is not the list's.
  it("n then q at once: the form, the program not quit", async () => {
    const ws = await workspace(["api"]);
    await ended(ws, A);
    const t = start(ws);
    await t.settle((r) => r[10] === RULE(`agent · log · ${A}`), "the list");
    t.type("nq");
    await t.settle((r) => r[1] === `new run in ${ws.root}`, "the form");
    expect(t.exited()).toBe(null);
  });
});

describe("App: several workspaces", () => {
  // Without -C: the form is for the selected run's or task's workspace, with its tasks only; a
  // task's line counts its runs in its own workspace.
  it("the form follows the selection; each task's runs counted in its workspace", async () => {
    const [one, two] = (await Promise.all([workspace(), workspace()])).sort((a, b) =>
      a.root < b.root ? -1 : 1,
    );
    for (const ws of [one!, two!]) await registerWorkspace(hostPorts({ env, cwd: ws.root }), ws);
    await newTask(one!, "t1");
    await newTask(two!, "t1");
    await newTask(two!, "t9");
    const at = (s: number) => `2026-12-02T11:10:0${s}.000Z`;
    await ended(one!, A, { task: "t1", endedAt: at(2) });
    await ended(one!, B, { task: "t1", name: "b", endedAt: at(1) });
    await ended(two!, "20261202T110945Z-cccccc", { task: "t1", name: "c", endedAt: at(3) });
    await ended(two!, "20261202T110946Z-dddddd", { name: "d", endedAt: at(4) });
    const t = start(null);
    const title = " ariel  4 runs · 3 need you · 2 workspaces";
    const rows = await t.settle((r) => r[0] === title, "the list");
    expect(rows.slice(1, 10)).toEqual([
      "Needs you (3)",
      "▸ task t9  api  0 runs",
      "▸ task t1  api  1 run",
      "▸ task t1  api  2 runs",
      "Ended (4)",
      "  d              api            exited 0   <1m",
      "  c              t1:api         exited 0   <1m",
      "  agent          t1:api         exited 0   <1m",
      "  b              t1:api         exited 0   <1m",
    ]);
    const steps: [string, string, KnownWorkspace, string][] = [
      ["", `task t9 · legs · ${two!.root}`, two!, "  (Tab completes: t1 t9)"],
      ["jj", `task t1 · legs · ${one!.root}`, one!, "  (Tab completes: t1)"],
      ["j", `d · log · 20261202T110946Z-dddddd`, two!, "  (Tab completes: t1 t9)"],
      ["jj", `agent · log · ${A}`, one!, "  (Tab completes: t1)"],
    ];
    for (const [keys, rule, ws, hint] of steps) {
      t.type(keys);
      await t.settle((r) => r[10] === RULE(rule), rule);
      t.type("n");
      await t.settle((r) => r[1] === `new run in ${ws.root}`, `the form in ${ws.root}`);
      t.type("\x1b[B");
      expect((await t.settle((r) => r[4] !== "  task", "the task row")).slice(1, 5)).toEqual(
        form(ws.root, 1, hint).slice(0, 4),
      );
      t.type("\x1b");
      await t.settle((r) => r[23] === KEYS_ROW, "the list");
    }
  });
});

describe("App: the duration tick", () => {
  // One timer, for the next change of a live run's duration (+50 ms), unref'd, set again on each
  // refresh (the one before cleared) and cleared on quit; when it fires the live runs are read
  // again (a monitor gone shows). None for runs that are not live.
  const NOW = Date.parse("2026-12-02T11:12:00.000Z");
  let sleeper: ChildProcess | null = null;
  afterEach(() => {
    vi.useRealTimers();
    vi.restoreAllMocks();
    sleeper?.kill("SIGKILL");
    sleeper = null;
  });

  /** The timers set with `delay` since `spy` was made: each one's callback and handle. */
  const timers = (spy: MockInstance<typeof setTimeout>, delay: number) =>
    spy.mock.calls.flatMap((c, i) =>
      c[1] === delay
        ? [{ fire: c[0] as () => void, handle: spy.mock.results[i]!.value as NodeJS.Timeout }]
        : [],
    );

  /** A lost run that began at 11:09:01, an ended one. */
  async function notLive(ws: KnownWorkspace): Promise<void> {
    const lost = { name: "lost", startedAt: "2026-12-02T11:09:01.000Z" };
    await createRun(ws.root, runFields(ws, "20261202T110901Z-llllll", lost));
    await ended(ws, "20261202T110902Z-eeeeee", { name: "ended" });
  }

  /** A run starting since 11:09:30 (its monitor `monitor`), one running since 11:09:44.120 (this process). */
  async function liveRuns(ws: KnownWorkspace, monitor: unknown): Promise<void> {
    const starting = { name: "starting", startedAt: "2026-12-02T11:09:30.000Z", monitor };
    await createRun(ws.root, runFields(ws, A, starting as Record<string, unknown>));
    const me = selfMonitorRef();
    const running = {
      name: "running",
      monitor: me,
      child: { pid: process.pid, pgid: process.pid, startTime: me.startTime },
    };
    await createRun(ws.root, runFields(ws, B, running as Record<string, unknown>));
  }

  it("live runs: the soonest change; fired, a run whose monitor went is read as lost", async () => {
    const ws = await workspace();
    sleeper = spawn("sleep", ["60"], { stdio: "ignore" });
    const pid = sleeper.pid!;
    const monitor = { pid, startTime: processStartTime(pid), bootId: bootId() };
    // At 11:12: starting since 11:09:30 (its 2m becomes 3m in 30 s), running since 11:09:44.120
    // (in 44.12 s); a lost run that began at 11:09:01 (in 1 s) and an ended one are not counted.
    await liveRuns(ws, monitor);
    await notLive(ws);
    vi.useFakeTimers({ toFake: ["Date"], now: NOW });
    const set = vi.spyOn(globalThis, "setTimeout");
    const clear = vi.spyOn(globalThis, "clearTimeout");
    const t = start(ws);
    const rows = await t.settle((r) => r[0] === " ariel  4 runs · 1 needs you · 1 workspace", "the list");
    expect(rows.slice(1, 9)).toEqual([
      "Needs you (1)",
      "  lost           api            lost       2m",
      "Running (2)",
      "  running        api            idle       2m",
      "  starting       api            idle       2m",
      "Ended (1)",
      "  ended          api            exited 0   <1m",
      "",
    ]);
    t.type("/");
    t.type("\x1b");
    await t.settle((r) => r[23] === KEYS_ROW, "the filter closed");
    const ticks = timers(set, 30_050);
    expect(ticks.length).toBeGreaterThanOrEqual(2);
    expect([1_050, 44_170, 60_050].map((d) => timers(set, d).length)).toEqual([0, 0, 0]);
    const last = ticks.at(-1)!;
    expect(ticks.slice(0, -1).every((x) => clear.mock.calls.some((c) => c[0] === x.handle))).toBe(true);
    expect([last.handle.hasRef(), clear.mock.calls.some((c) => c[0] === last.handle)]).toEqual([
      false,
      false,
    ]);
    sleeper.kill("SIGKILL");
    await until(
      () => !existsSync(`/proc/${pid}`) || readFileSync(`/proc/${pid}/stat`, "utf8").includes(") Z "),
      "the monitor gone",
    );
    last.fire();
    const lost = await t.settle((r) => r[1] === "Needs you (2)", "the run read as lost");
    expect(lost.slice(1, 8)).toEqual([
      "Needs you (2)",
      "  starting       api            lost       2m",
      "  lost           api            lost       2m",
      "Running (1)",
      "  running        api            idle       2m",
      "Ended (1)",
      "  ended          api            exited 0   <1m",
    ]);
    // The run left live: its change, in 44.12 s.
    const now = timers(set, 44_170).at(-1)!;
    expect(now.handle.hasRef()).toBe(false);
    t.app.quit();
    expect(clear.mock.calls.some((c) => c[0] === now.handle)).toBe(true);
  });

  it("no live run: no tick", async () => {
    const ws = await workspace();
    await notLive(ws);
    vi.useFakeTimers({ toFake: ["Date"], now: NOW });
    const set = vi.spyOn(globalThis, "setTimeout");
    const t = start(ws);
    await t.settle((r) => r[0] === " ariel  2 runs · 1 needs you · 1 workspace", "the list");
    expect(set.mock.calls.filter((c) => (c[1] ?? 0) >= 1_000)).toEqual([]);
  });
});

/** A tty run of `script` started in `ws` (through the host, as `n` would), named `name`; its id. */
async function liveRun(ws: KnownWorkspace, script: string, name = "reader"): Promise<string> {
  const req = {
    source: "api",
    task: "",
    name,
    agent: "",
    argv: ["sh", "-c", script],
    isolate: false,
    span: false,
    keep: false,
    sandbox: false,
  };
  expect(await new Actions(env).start(ws, req)).toEqual({ ok: true, message: `started ${name}`, exit: 0 });
  return readdirSync(join(ws.root, ".ariel/runs")).filter((n) => !n.endsWith(".ndjson"))[0]!;
}

const SUSPEND = "\x1b[0m\x1b[?7h\x1b[?25h\x1b[H\x1b[2J";
const RESUME = "\x1b[0m\x1b[?7l\x1b[?25l\x1b[H\x1b[2J";

describe("App: attached to a live terminal run", () => {
  // Enter: the run's terminal is this one (the list's screen cleared, keys to the run, the run's
  // output here) until the detach key, or the run's end; then the list again, drawn whole.
  useMonitor();

  it("keys go to the run; the detach key (ctrl-b) comes back; attached again until it ends", async () => {
    const ws = await workspace();
    const id = await liveRun(ws, "read x; echo got $x; read y; exit 3");
    const t = start(ws, { detachKey: "ctrl-b" });
    await t.settle((r) => r[10] === RULE(`reader · live screen · ${id}`), "the live screen");
    const attach = async () => {
      const n = t.output.writes.length;
      const calls = t.input.calls.length;
      t.type("\r");
      await until(() => t.output.writes.slice(n).join("").length > SUSPEND.length, "the run's screen");
      expect(t.output.writes[n]).toBe(SUSPEND);
      expect(t.input.calls.slice(calls, calls + 1)).toEqual(["pause"]);
      return n;
    };
    let n = await attach();
    t.type("hi q\r");
    await until(() => t.output.writes.slice(n).join("").includes("got hi q"), "the run's answer");
    // Attached, the fleet is not watched: a run made meanwhile is read once the list is back.
    await ended(ws, B, { name: "meanwhile" });
    await new Promise((r) => setTimeout(r, 300));
    expect(t.text().some((r) => r.includes("meanwhile"))).toBe(false);
    n = t.output.writes.length;
    t.type("\x02");
    const back = await t.settle(
      (r) => r[22] === "detached from reader; it goes on" && r.includes("Ended (1)"),
      "detached",
    );
    expect(t.exited()).toBe(null);
    expect(back.slice(3, 7)).toEqual([
      "Running (1)",
      back[4],
      "Ended (1)",
      "  meanwhile      api            exited 0   <1m",
    ]);
    expect(back[23]).toBe(KEYS_ROW);
    expect(t.output.writes.slice(n).join("").startsWith(`${RESUME}\x1b[?2026h\x1b[0m\x1b[H\x1b[2J`)).toBe(
      true,
    );
    await t.settle((r) => r[10] === RULE(`reader · live screen · ${id}`), "the live screen again");
    n = await attach();
    t.type("bye\r");
    const done = await t.settle((r) => r[22] === "reader ended (status 3)", "the run's end");
    expect(done[23]).toBe(KEYS_ROW);
  });

  it("a signal while attached: the attach ends, the list is not drawn again; 143", async () => {
    const ws = await workspace();
    const id = await liveRun(ws, "read x; exit 0");
    const before = listeners();
    const t = start(ws);
    await t.settle((r) => r[10] === RULE(`reader · live screen · ${id}`), "the live screen");
    const n = t.output.writes.length;
    t.type("\r");
    await until(() => t.output.writes.slice(n).join("").length > SUSPEND.length, "the run's screen");
    const m = t.output.writes.length;
    added(before).SIGTERM[0]!();
    expect(await t.code).toBe(143);
    await new Promise((r) => setTimeout(r, 100));
    expect(t.output.writes.slice(m)).toEqual([]);
    expect(t.synced()).toBe(LEAVE);
  });

  it("a run its monitor does not have: the attach's refusal, the list again", async () => {
    const ws = await workspace();
    await createRun(
      ws.root,
      runFields(ws, A, { tty: { cols: 40, rows: 6 }, monitor: selfMonitorRef() } as Record<string, unknown>),
    );
    const t = start(ws);
    await t.settle((r) => r[10] === RULE(`agent · screen · ${A}`), "the run");
    const n = t.output.writes.length;
    t.type("\r");
    const rows = await t.settle((r) => r[23] === PAGER_KEYS, "the refusal");
    const refusal = cut(`ERR_RUN_NOT_FOUND: run ${A} is not live on a terminal: no live run`);
    expect(rows.slice(1, 3).concat(rows.slice(22))).toEqual([
      refusal,
      "hint: run ariel-runs list --all to see the runs",
      refusal,
      PAGER_KEYS,
    ]);
    expect(t.output.writes.slice(n, n + 2)).toEqual([SUSPEND, RESUME]);
    t.type("q");
    expect((await t.settle((r) => r[23] === KEYS_ROW, "the list"))[22]).toBe(refusal);
  });

  it("n: a run started from the form is said and listed", async () => {
    const ws = await workspace();
    const t = await formOn(ws);
    t.type("api\x1b[B\x1b[B\x1b[Bsleep 60\x1b[Bformed\r");
    const rows = await t.settle((r) => r[22] === "started formed" && r[3] === "Running (1)", "started");
    expect(rows.slice(0, 5)).toEqual([
      " ariel  1 run · 0 need you · 1 workspace",
      "Needs you (0)",
      "  Nothing is waiting for you.",
      "Running (1)",
      rows[4],
    ]);
    expect(rows[4]!.startsWith("  formed         api            ")).toBe(true);
  });
});
