/**
 * The preview of the selected item, kept current: a live tty run's screen from its monitor (a
 * read-only attach over the monitor's socket, host/supervise/tty_attach.ts, rendered by the
 * project's terminal emulator), an ended one's from its stored stream; the tail of a piped run's
 * log; a task's legs with their commits ahead and files changed (host/land diffTask).
 */
import { EventEmitter } from "node:events";
import { PassThrough, Writable } from "node:stream";
import { DEFAULT_TTY_SIZE, type FleetRun, runPaths } from "@ariel/core";
import {
  attachTty,
  diffTask,
  hostPorts,
  type LegDiff,
  renderStoredScreen,
  runsBackend,
  Screen,
} from "@ariel/core/host";
import type { Item, TaskItem } from "../model/items.ts";

/** Bytes of a piped run's streams read for its tail. */
const TAIL_BYTES = 16 * 1024;
/** At most this often a live screen is drawn again (a spinner writes far more often). */
const SCREEN_EVERY_MS = 50;

export type PreviewBody =
  | { kind: "screen"; screen: Screen; live: boolean }
  | { kind: "log"; lines: string[] }
  | { kind: "task"; legs: LegDiff[] }
  | { kind: "text"; lines: string[] };

export class Preview extends EventEmitter {
  key: string | null = null;
  body: PreviewBody = { kind: "text", lines: [] };
  readonly #env: NodeJS.ProcessEnv;
  #stop: AbortController | null = null;
  #drawTimer: ReturnType<typeof setTimeout> | null = null;
  #generation = 0;

  constructor(env: NodeJS.ProcessEnv) {
    super();
    this.#env = env;
  }

  /** Show `item` (null: nothing selected); the same item again only re-reads what changed. */
  async show(item: Item | null, force = false): Promise<void> {
    const key = item?.key ?? null;
    if (key === this.key && !force) {
      if (item?.kind === "run" && this.body.kind === "log") await this.#log(item.run, this.#generation);
      if (item?.kind === "run" && this.body.kind === "screen" && !this.body.live && this.#liveTty(item.run)) {
        return this.show(item, true); // it was restarted (respawn) or its monitor came back
      }
      return;
    }
    this.close();
    this.key = key;
    const gen = ++this.#generation;
    if (item === null) return this.#set(gen, { kind: "text", lines: [] });
    try {
      if (item.kind === "task") await this.#task(item, gen);
      else if (item.run.tty && item.run.kind === "detached") await this.#tty(item.run, gen);
      else await this.#log(item.run, gen);
    } catch (e) {
      this.#set(gen, { kind: "text", lines: [`(no preview: ${(e as Error).message})`] });
    }
  }

  #liveTty(r: FleetRun): boolean {
    return r.tty !== undefined && (r.state === "running" || r.state === "starting");
  }

  #set(gen: number, body: PreviewBody): void {
    if (gen !== this.#generation) {
      if (body.kind === "screen") body.screen.dispose();
      return;
    }
    this.body = body;
    this.emit("change");
  }

  async #task(t: TaskItem, gen: number): Promise<void> {
    this.#set(gen, { kind: "text", lines: ["reading the task's legs…"] });
    const legs = await diffTask(hostPorts({ env: this.#env, cwd: t.workspace.root }), {
      root: t.workspace.root,
      taskId: t.taskId,
    });
    this.#set(gen, { kind: "task", legs });
  }

  async #tty(r: FleetRun, gen: number): Promise<void> {
    const size = r.tty ?? DEFAULT_TTY_SIZE;
    if (!this.#liveTty(r)) {
      const screen = await renderStoredScreen(runPaths(r.workspace.root, r.runId), size);
      await screen.flush();
      return this.#set(gen, { kind: "screen", screen, live: false });
    }
    const screen = await Screen.open(size);
    if (gen !== this.#generation) return screen.dispose();
    const stop = new AbortController();
    this.#stop = stop;
    const output = new Writable({
      write: (chunk: Buffer, _enc, done) => {
        screen.write(new Uint8Array(chunk), () => this.#drawSoon(gen));
        done();
      },
    });
    this.#set(gen, { kind: "screen", screen, live: true });
    const end = await attachTty({
      root: r.workspace.root,
      hash: r.workspace.hash,
      runId: r.runId,
      readOnly: true,
      detachKey: null,
      input: new PassThrough() as unknown as NodeJS.ReadStream,
      output,
      signal: stop.signal,
    }).catch(() => null);
    if (gen !== this.#generation || stop.signal.aborted) return;
    if (end === null) {
      // Not live on its monitor any more (it ended as it was selected): its stored screen.
      this.body = { kind: "text", lines: [] };
      screen.dispose();
      const stored = await renderStoredScreen(runPaths(r.workspace.root, r.runId), size);
      await stored.flush();
      return this.#set(gen, { kind: "screen", screen: stored, live: false });
    }
    // The run ended or its monitor went: the screen stays as it was last drawn.
    await screen.flush();
    this.body = { kind: "screen", screen, live: false };
    this.emit("change");
    this.emit("ended", r, end);
  }

  #drawSoon(gen: number): void {
    if (this.#drawTimer !== null || gen !== this.#generation) return;
    this.#drawTimer = setTimeout(() => {
      this.#drawTimer = null;
      if (gen === this.#generation) this.emit("change");
    }, SCREEN_EVERY_MS);
  }

  async #log(r: FleetRun, gen: number): Promise<void> {
    if (r.kind !== "detached") {
      return this.#set(gen, {
        kind: "text",
        lines: [
          `a foreground ariel-spawn run (${r.state}): its output went to the terminal that started it`,
          `ariel-fleet events --follow shows its events`,
        ],
      });
    }
    const backend = runsBackend(r.workspace.root, r.workspace.hash);
    const lines: string[] = [];
    for (const stream of ["stdout", "stderr"] as const) {
      const { size } = await backend.readOutput(r.runId, stream, 0, 0);
      if (size === 0) continue;
      const from = Math.max(0, size - TAIL_BYTES);
      const read = await backend.readOutput(r.runId, stream, from, TAIL_BYTES);
      const text = new TextDecoder().decode(read.bytes);
      const got = text.split("\n");
      if (from > 0) got.shift(); // a torn first line
      if (got.at(-1) === "") got.pop();
      if (stream === "stderr" && lines.length > 0) lines.push("── stderr ──");
      lines.push(...got);
    }
    this.#set(gen, { kind: "log", lines });
  }

  /** Stop following (the selection moved, the UI attaches or quits). */
  close(): void {
    this.#generation++;
    this.#stop?.abort();
    this.#stop = null;
    if (this.#drawTimer) clearTimeout(this.#drawTimer);
    this.#drawTimer = null;
    if (this.body.kind === "screen") this.body.screen.dispose();
    this.body = { kind: "text", lines: [] };
    this.key = null;
  }
}
