import type { TextSink } from "./output.ts";

/** One step of long work over several sources: `[index/total] source: action`. */
export interface ProgressStep {
  /** 1-based position of this step. */
  index: number;
  total: number;
  source: string;
  /** What is being done, e.g. "creating worktree". */
  action: string;
}

/** Called as each step starts. */
export type OnProgress = (step: ProgressStep) => void;

/** Erase the current terminal line and return to its start. */
const ERASE = "\r\x1b[K";

/**
 * One updating line on stderr for long work (worktrees made or removed): each step overwrites
 * the last with a carriage return, and {@link clear} erases it, so nothing of it is left in the
 * scrollback. Disabled (it writes nothing at all) unless stderr is a terminal and --json is off.
 *
 * @example
 * ```ts
 * const progress = new ProgressLine(process.stderr, isTerminal("stderr") && !json);
 * try {
 *   await addTask(ports, { root, sources, onProgress: progress.report });
 * } finally {
 *   progress.clear();
 * }
 * // stderr meanwhile: "\r\x1b[K[1/2] api: creating worktree" … then "\r\x1b[K"
 * ```
 */
export class ProgressLine {
  readonly #sink: TextSink;
  readonly enabled: boolean;
  #shown = false;

  constructor(sink: TextSink, enabled: boolean) {
    this.#sink = sink;
    this.enabled = enabled;
  }

  /** Show a step (bound: pass it around as a callback). */
  readonly report: OnProgress = (step) => {
    if (!this.enabled) return;
    this.#write(`${ERASE}[${step.index}/${step.total}] ${printable(step.source)}: ${step.action}`);
    this.#shown = true;
  };

  /** Erase the line if one is shown (before other output, and at the end). */
  readonly clear = (): void => {
    if (!this.#shown) return;
    this.#shown = false;
    this.#write(ERASE);
  };

  #write(text: string): void {
    try {
      this.#sink.write(text);
    } catch {
      // a closed stderr loses the progress, nothing else
    }
  }
}

/** A source name cannot drive the terminal: control characters become `?`. */
function printable(text: string): string {
  return text.replace(/[\x00-\x1f\x7f]/g, "?");
}
