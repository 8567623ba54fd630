/**
 * SIGINT/SIGTERM while ariel-spawn runs: remembered (the run ends 128+N after cleaning up) and
 * handed to listeners, which forward them to the children. Installing handlers keeps Node from
 * dying at once, so worktrees are still cleaned up and `run.finished` is still written.
 */
export class Interrupts {
  /** The first terminating signal received, if any. */
  received: NodeJS.Signals | null = null;
  /** How many have arrived (a second one escalates to SIGKILL). */
  count = 0;
  readonly #listeners = new Set<(signal: NodeJS.Signals, count: number) => void>();
  readonly #handler = (signal: NodeJS.Signals) => {
    this.received ??= signal;
    this.count++;
    for (const fn of [...this.#listeners]) fn(signal, this.count);
  };

  static readonly SIGNALS: readonly NodeJS.Signals[] = ["SIGINT", "SIGTERM"];

  install(): void {
    for (const s of Interrupts.SIGNALS) process.on(s, this.#handler);
  }

  uninstall(): void {
    for (const s of Interrupts.SIGNALS) process.off(s, this.#handler);
  }

  /** Call `fn` on every signal from now on; returns the unsubscribe function. */
  listen(fn: (signal: NodeJS.Signals, count: number) => void): () => void {
    this.#listeners.add(fn);
    return () => this.#listeners.delete(fn);
  }
}
