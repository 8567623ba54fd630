import { closeSync, fsyncSync, mkdirSync, openSync, writeSync } from "node:fs";
import { join } from "node:path";
import { serializeRecord } from "../../ndjson.ts";

/** Flush buffered events to the file once this many characters are waiting. */
const FLUSH_AT = 64 * 1024;
/** ...or this long after the first of them, so a reader following the file (ariel-fleet) sees output live. */
const FLUSH_AFTER_MS = 100;

/**
 * The durable history of one run: `<root>/.ariel/runs/<runId>.ndjson`, one event a line,
 * appended as the run goes (buffered for at most 100 ms; lifecycle events flush) and fsynced when it is closed.
 * The file is private to its owner (0600): it holds the children's output.
 */
export class RunHistory {
  readonly path: string;
  #fd: number | null;
  #buf: string[] = [];
  #size = 0;
  #timer: ReturnType<typeof setTimeout> | null = null;

  private constructor(path: string, fd: number) {
    this.path = path;
    this.#fd = fd;
  }

  /** Create `<stateDir>/runs/` if needed and open `<runId>.ndjson` for appending. */
  static open(stateDir: string, runId: string): RunHistory {
    const dir = join(stateDir, "runs");
    mkdirSync(dir, { recursive: true });
    const path = join(dir, `${runId}.ndjson`);
    return new RunHistory(path, openSync(path, "a", 0o600));
  }

  /** Append one record; `flush` writes it (and everything buffered) through at once. */
  append(record: Record<string, unknown>, flush = false): void {
    const line = `${serializeRecord(record)}\n`;
    this.#buf.push(line);
    this.#size += line.length;
    if (flush || this.#size >= FLUSH_AT) this.flush();
    else if (this.#timer === null) {
      this.#timer = setTimeout(() => this.flush(), FLUSH_AFTER_MS);
      this.#timer.unref?.();
    }
  }

  flush(): void {
    if (this.#timer !== null) {
      clearTimeout(this.#timer);
      this.#timer = null;
    }
    if (this.#fd === null || this.#buf.length === 0) return;
    const data = this.#buf.join("");
    this.#buf = [];
    this.#size = 0;
    writeSync(this.#fd, data);
  }

  /** Write what is buffered, fsync, close. Safe to call twice. */
  close(): void {
    if (this.#fd === null) return;
    this.flush();
    try {
      fsyncSync(this.#fd);
    } finally {
      closeSync(this.#fd);
      this.#fd = null;
    }
  }
}
