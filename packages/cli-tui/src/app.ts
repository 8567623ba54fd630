/**
 * The program: the terminal taken, the fleet read and watched, the selected item previewed, keys
 * dispatched to the actions, a frame drawn after each change (never on a timer but the duration
 * tick). Resolves with the exit status when the person quits or a signal ends it; the terminal
 * is given back first on every way out.
 */
import { parseDetachKey } from "@ariel/core";
import { attachTty, type KnownWorkspace, workspaceSources } from "@ariel/core/host";
import { Actions, failed, type Outcome } from "./data/actions.ts";
import { FleetSource } from "./data/fleet.ts";
import { Preview } from "./data/preview.ts";
import { runAction, taskAction, type Ui } from "./flows.ts";
import { newForm } from "./model/form.ts";
import { nextDurationChange } from "./model/format.ts";
import { buildRows, type Item, type Row } from "./model/items.ts";
import { type Action, actionOf, decodeKeys } from "./model/keys.ts";
import { Painter, Terminal, type TerminalIo } from "./term/terminal.ts";
import { draw, type Frame, layout, type PreviewView, previewBackMax } from "./ui/draw.ts";
import { edit, formKey, pagerKey } from "./ui/panels.ts";
import { initialState, scrollTo, type UiState } from "./ui/state.ts";

export interface AppOptions {
  io: TerminalIo;
  env: NodeJS.ProcessEnv;
  cwd: string;
  only: KnownWorkspace | null;
  detachKey: string;
  bell: boolean;
}

/** Signals end the program with the shell's status for them. */
const SIGNAL_EXIT: Record<string, number> = { SIGINT: 130, SIGTERM: 143, SIGHUP: 129 };

export class App {
  readonly #o: AppOptions;
  readonly #term: Terminal;
  readonly #painter: Painter;
  readonly #fleet: FleetSource;
  readonly #preview: Preview;
  readonly #actions: Actions;
  #state: UiState = initialState();
  #rows: Row[] = [];
  #drawQueued = false;
  #tick: ReturnType<typeof setTimeout> | null = null;
  #attached = false;
  #attachAbort: AbortController | null = null;
  #quitting = false;
  #done!: (code: number) => void;
  readonly #colour: boolean;

  /** What the key flows (flows.ts) use of the app. */
  readonly #ui: Ui;

  constructor(o: AppOptions) {
    this.#o = o;
    this.#term = new Terminal(o.io);
    this.#painter = new Painter((s) => o.io.output.write(s));
    this.#fleet = new FleetSource({ env: o.env, cwd: o.cwd, only: o.only });
    this.#preview = new Preview(o.env);
    this.#actions = new Actions(o.env);
    this.#colour = o.env.NO_COLOR === undefined || o.env.NO_COLOR === "";
    this.#ui = {
      state: this.#state,
      actions: this.#actions,
      fleet: this.#fleet,
      preview: this.#preview,
      selected: () => this.#selected(),
      redraw: () => this.#redraw(),
      say: (m, ok) => this.#say(m, ok),
      show: (m) => this.#show(m),
      after: (m, run) => this.#after(m, run),
      busy: (title, f) => this.#busy(title, f),
    };
  }

  async run(): Promise<number> {
    const done = new Promise<number>((resolve) => {
      this.#done = resolve;
    });
    this.#term.enter(
      (signal) => this.quit(SIGNAL_EXIT[signal] ?? 1),
      (e) => {
        const text = e instanceof Error ? (e.stack ?? e.message) : String(e);
        this.#o.io.output.write(`ariel-tui: crashed (a bug; the runs go on): ${text}\n`);
        this.quit(70);
      },
    );
    const onData = (chunk: Buffer | string) => {
      if (!this.#attached) for (const key of decodeKeys(chunk.toString())) void this.#key(key);
    };
    const onResize = () => {
      this.#painter.invalidate();
      this.#redraw();
    };
    this.#o.io.input.on("data", onData);
    this.#o.io.output.on("resize", onResize);
    this.#fleet.on("change", (c: { waiting: string[] }) => {
      if (c.waiting.length > 0 && this.#o.bell && !this.#attached) this.#o.io.output.write("\x07");
      this.#refreshRows();
    });
    this.#preview.on("change", () => this.#redraw());
    this.#preview.on("ended", () => this.#fleet.refresh());
    this.#state.mode = { kind: "busy", title: "reading the fleet" };
    this.#redraw();
    await this.#fleet.start();
    this.#state.mode = { kind: "list" };
    this.#refreshRows();
    const code = await done;
    this.#o.io.input.off("data", onData);
    this.#o.io.output.off("resize", onResize);
    return code;
  }

  quit(code = 0): void {
    this.#quitting = true;
    this.#attachAbort?.abort(); // a signal while attached: the attach ends, the terminal is given back
    if (this.#tick) clearTimeout(this.#tick);
    this.#preview.close();
    this.#fleet.close();
    this.#term.leave();
    this.#done(code);
  }

  // ── the list ────────────────────────────────────────────────────────────────────────────

  #items(): Item[] {
    return this.#rows.flatMap((r) => (r.kind === "item" ? [r.item] : []));
  }

  #selected(): Item | null {
    return this.#items().find((i) => i.key === this.#state.selected) ?? null;
  }

  /** The rows again from the fleet's runs and tasks; the selection kept (or the first item). */
  #refreshRows(): void {
    this.#rows = buildRows(
      [...this.#fleet.runs.values()],
      [...this.#fleet.tasks.values()],
      this.#state.filter,
    );
    const items = this.#items();
    if (!items.some((i) => i.key === this.#state.selected)) this.#state.selected = items[0]?.key ?? null;
    this.#keepInView();
    void this.#preview.show(this.#selected());
    this.#scheduleTick();
    this.#redraw();
  }

  #keepInView(): void {
    const index = this.#rows.findIndex((r) => r.kind === "item" && r.item.key === this.#state.selected);
    const { list } = layout(this.#term.rows);
    // A group's header stays in view above its first item.
    const want = index > 0 && this.#rows[index - 1]?.kind === "header" ? index - 1 : index;
    this.#state.scroll = scrollTo(
      Math.min(this.#state.scroll, Math.max(0, this.#rows.length - list)),
      Math.max(0, want),
      list,
    );
    if (index >= 0) this.#state.scroll = scrollTo(this.#state.scroll, index, list);
  }

  #move(by: number): void {
    const items = this.#items();
    if (items.length === 0) return;
    const at = items.findIndex((i) => i.key === this.#state.selected);
    const next = items[Math.max(0, Math.min(items.length - 1, Math.max(at, 0) + by))]!;
    this.#select(next);
  }

  #select(item: Item): void {
    this.#state.selected = item.key;
    this.#state.previewBack = 0;
    if (item.kind === "run" && item.fresh) item.fresh = false;
    this.#keepInView();
    void this.#preview.show(item);
    this.#redraw();
  }

  /** The duration column changes at most once a minute: one timer for the next change, none idle-busy. */
  #scheduleTick(): void {
    if (this.#tick) clearTimeout(this.#tick);
    const now = Date.now();
    let next = Number.POSITIVE_INFINITY;
    for (const r of this.#fleet.runs.values()) {
      if (r.run.state !== "running" && r.run.state !== "starting") continue;
      next = Math.min(next, nextDurationChange(Date.parse(r.run.startedAt ?? "") || now, now));
    }
    if (!Number.isFinite(next)) return;
    this.#tick = setTimeout(() => {
      this.#tick = null;
      this.#fleet.touchLive(); // a piped run's activity, a monitor gone: read the live ones again
    }, next + 50);
    this.#tick.unref?.();
  }

  #redraw(): void {
    if (this.#drawQueued || this.#attached) return;
    this.#drawQueued = true;
    setImmediate(() => {
      this.#drawQueued = false;
      if (!this.#attached) this.#painter.paint(this.frame());
    });
  }

  /** The frame now (also what the tests' snapshots are made of, through the terminal). */
  frame(): string[] {
    return draw(this.#frameData());
  }

  #frameData(): Frame {
    const taskRuns = (item: Item) =>
      item.kind === "task"
        ? [...this.#fleet.runs.values()].filter(
            (r) => r.run.task === item.taskId && r.run.workspace.hash === item.workspace.hash,
          ).length
        : 0;
    return {
      cols: this.#term.cols,
      rows: this.#term.rows,
      now: Date.now(),
      state: this.#state,
      list: this.#rows,
      taskRuns,
      preview: this.#previewView(),
      workspaces: this.#fleet.workspaces.length,
      colour: this.#colour,
    };
  }

  #previewView(): PreviewView {
    const b = this.#preview.body;
    if (b.kind === "screen") {
      const screen = b.screen;
      return {
        kind: "screen",
        live: b.live,
        lines: (cols, rows) => screen.styledLines(cols, rows, this.#colour),
      };
    }
    return b;
  }

  #say(o: Outcome | string, ok = true): void {
    this.#state.message = typeof o === "string" ? { text: o, ok } : { text: o.message, ok: o.ok };
    this.#redraw();
  }

  // ── keys ────────────────────────────────────────────────────────────────────────────────

  async #key(key: string): Promise<void> {
    // The crash test's way in: an error nobody catches, from a key (ARIEL_TEST_HOOKS only).
    if (this.#o.env.ARIEL_TEST_HOOKS === "1" && this.#o.env.ARIEL_TEST_CRASH_KEY === key) {
      setImmediate(() => {
        throw new Error("test crash");
      });
    }
    const m = this.#state.mode;
    if (m.kind === "busy") return;
    if (m.kind !== "list") return this.#panelKey(key);
    if (key === "escape") {
      this.#state.message = null;
      return this.#redraw();
    }
    const action = actionOf(key, this.#state.focus);
    if (action) await this.#do(action);
  }

  async #do(action: Action): Promise<void> {
    const item = this.#selected();
    const run = item?.kind === "run" ? item.run : null;
    const preview = this.#state.focus === "preview";
    const page = Math.max(1, layout(this.#term.rows)[preview ? "preview" : "list"] - 1);
    switch (action) {
      case "quit":
        return this.quit(0);
      case "help":
        this.#state.mode = { kind: "help" };
        return this.#redraw();
      case "focus":
        this.#state.focus = preview ? "list" : "preview";
        return this.#redraw();
      case "up":
      case "down":
      case "pageUp":
      case "pageDown": {
        const by = { up: -1, down: 1, pageUp: -page, pageDown: page }[action];
        if (!preview) return this.#move(by);
        const back = Math.min(this.#state.previewBack - by, previewBackMax(this.#frameData()));
        this.#state.previewBack = Math.max(0, back);
        return this.#redraw();
      }
      case "filter":
        this.#state.mode = { kind: "filter", text: this.#state.filter };
        return this.#redraw();
      case "attach":
        if (item?.kind === "task") return this.#do("diff");
        if (run) return this.#attach(item as Extract<Item, { kind: "run" }>);
        return;
      case "new":
        return this.#newRun();
      case "send":
      case "kill":
      case "respawn":
      case "resume":
        return runAction(this.#ui, action, run);
      case "diff":
      case "land":
      case "remove":
        return taskAction(this.#ui, action, item);
    }
  }

  /** An outcome with more to say than one line: a pager; else the message line. */
  #show(o: Outcome): void {
    this.#say(o);
    const lines = o.lines?.[0] === o.message ? o.lines.slice(1) : (o.lines ?? []);
    if (lines.length > 0) {
      this.#state.mode = { kind: "pager", title: o.message, lines, scroll: 0 };
    } else this.#state.mode = { kind: "list" };
    this.#redraw();
  }

  async #after(o: Outcome, run: { workspace: { root: string; hash: string }; runId: string }): Promise<void> {
    await this.#fleet.touch(run);
    if (o.ok || !o.lines || o.lines.length <= 1) {
      this.#state.mode = { kind: "list" };
      return this.#say(o.ok ? o : { ...o, message: o.lines?.join(" ") ?? o.message });
    }
    this.#show(o);
  }

  async #busy(title: string, f: () => Promise<void>): Promise<void> {
    this.#state.mode = { kind: "busy", title };
    this.#redraw();
    try {
      await f();
    } finally {
      if (this.#state.mode.kind === "busy") this.#state.mode = { kind: "list" };
      this.#redraw();
    }
  }

  // ── panels ──────────────────────────────────────────────────────────────────────────────

  async #panelKey(key: string): Promise<void> {
    const m = this.#state.mode;
    if (key === "ctrl-c") return this.quit(0);
    if (m.kind === "help") {
      this.#state.mode = { kind: "list" };
    } else if (m.kind === "confirm") {
      this.#state.mode = { kind: "list" };
      if (key === "y" || key === "Y") return this.#busy(m.title.replace(/\?.*$/, ""), m.yes);
      this.#say("nothing was done");
    } else if (m.kind === "filter") {
      if (key === "escape") {
        this.#state.filter = "";
        this.#state.mode = { kind: "list" };
      } else if (key === "enter") this.#state.mode = { kind: "list" };
      else {
        m.text = edit(m.text, key);
        this.#state.filter = m.text;
      }
      return this.#refreshRows();
    } else if (m.kind === "input") {
      if (key === "escape") this.#state.mode = { kind: "list" };
      else if (key === "enter") return this.#busy("sending", () => m.submit(m.text));
      else m.text = edit(m.text, key);
    } else if (m.kind === "pager") {
      const { list, preview } = layout(this.#term.rows);
      if (pagerKey(m, key, this.#term.cols, list + preview + 1) === "close")
        this.#state.mode = { kind: "list" };
    } else if (m.kind === "form") return this.#formKey(m, key);
    this.#redraw();
  }

  async #newRun(): Promise<void> {
    const item = this.#selected();
    const hash =
      item?.kind === "run" ? item.run.workspace.hash : item?.kind === "task" ? item.workspace.hash : null;
    const ws = this.#fleet.workspaces.find((w) => w.hash === hash) ?? this.#fleet.workspaces[0];
    if (!ws) return this.#say("no workspace: start ariel with -C DIR", false);
    // Keys typed while the sources are read wait for the form: none reaches the list behind it.
    this.#state.mode = { kind: "busy", title: "reading the sources" };
    this.#redraw();
    const sources = (await workspaceSources(ws.root).catch(() => []))
      .map((s) => s.name)
      .filter((n) => n !== ".");
    const tasks = [...this.#fleet.tasks.values()]
      .filter((t) => t.workspace.hash === ws.hash)
      .map((t) => t.taskId);
    this.#state.mode = {
      kind: "form",
      title: `new run in ${ws.root}`,
      form: newForm({ agent: "claude" }),
      complete: { source: sources, task: tasks, agent: ["claude", "codex", "gemini", "aider"] },
    };
    this.#formWs = ws;
    this.#redraw();
  }

  #formWs: KnownWorkspace | null = null;

  async #formKey(m: Extract<UiState["mode"], { kind: "form" }>, key: string): Promise<void> {
    const r = formKey(m, key);
    if (r === "close") this.#state.mode = { kind: "list" };
    else if (r !== null && this.#formWs) {
      const ws = this.#formWs;
      const req = r.start;
      return this.#busy("starting", async () => {
        const o = await this.#actions.start(ws, req);
        this.#fleet.touchTasks(ws.hash);
        if (o.ok) this.#say(o);
        else this.#show(o);
      });
    }
    this.#redraw();
  }

  // ── attach ──────────────────────────────────────────────────────────────────────────────

  /**
   * Enter on a run: a live tty run's terminal becomes this one (the real attach: the monitor
   * reads the keys and writes the screen itself where it can, decision 0091) until the detach key;
   * then the list again. A run without a terminal shows its log in the preview.
   */
  async #attach(item: Extract<Item, { kind: "run" }>): Promise<void> {
    const r = item.run;
    const live = r.state === "running" || r.state === "starting";
    if (!r.tty || !live || r.kind !== "detached") {
      this.#state.focus = "preview";
      return this.#say(
        !live
          ? `${r.name ?? r.runId} has ended (${r.state}); its ${r.tty ? "last screen" : "log"} is in the preview`
          : `${r.name ?? r.runId} has no terminal (started without --tty): its log is in the preview`,
        live,
      );
    }
    this.#attached = true;
    item.fresh = false;
    this.#preview.close();
    this.#fleet.pause();
    this.#term.suspend();
    const io = this.#o.io;
    io.input.pause();
    const abort = new AbortController();
    this.#attachAbort = abort;
    let end: Awaited<ReturnType<typeof attachTty>> | null = null;
    let error: unknown = null;
    try {
      end = await attachTty({
        root: r.workspace.root,
        hash: r.workspace.hash,
        runId: r.runId,
        readOnly: false,
        detachKey: parseDetachKey(this.#o.detachKey),
        input: io.input,
        output: io.output,
        signal: abort.signal,
      });
    } catch (e) {
      error = e;
    }
    this.#attached = false;
    this.#attachAbort = null;
    if (this.#quitting) return;
    this.#term.resume();
    this.#painter.invalidate();
    this.#fleet.resume();
    if (error) this.#show(failed(error));
    else if (end?.kind === "exited") this.#say(`${r.name ?? r.runId} ended (status ${end.status})`);
    else this.#say(`detached from ${r.name ?? r.runId}; it goes on`);
    void this.#preview.show(this.#selected(), true);
    this.#redraw();
  }
}
