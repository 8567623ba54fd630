import { serializeRecord } from "../ndjson.ts";

/** Thrown by {@link Output.write} once stdout's reader has gone away (`| head`). */
export class StdoutClosed extends Error {
  constructor() {
    super("stdout closed");
    this.name = "StdoutClosed";
  }
}

/** A sink for a stream's text; the default is the process's stdout or stderr. */
export interface TextSink {
  write(text: string): void;
}

/**
 * stdout for data only. Once the reader closes the pipe (EPIPE), further writes throw
 * {@link StdoutClosed} and `closed` turns true; the CLI runner then ends quietly with status 0.
 */
export class Output {
  closed = false;
  readonly #sink: TextSink;
  readonly #onClose: (() => void) | undefined;

  constructor(stream: NodeJS.WriteStream | TextSink = process.stdout, onClose?: () => void) {
    this.#sink = stream;
    this.#onClose = onClose;
    if ("on" in stream && typeof stream.on === "function") {
      stream.on("error", (e: NodeJS.ErrnoException) => {
        if (e.code === "EPIPE" || e.code === "ERR_STREAM_DESTROYED") this.markClosed();
        else throw e;
      });
    }
  }

  markClosed(): void {
    if (this.closed) return;
    this.closed = true;
    this.#onClose?.();
  }

  /** Write raw text (a line should end in "\n"). */
  write(text: string): void {
    if (this.closed) throw new StdoutClosed();
    try {
      this.#sink.write(text);
    } catch (e) {
      const code = (e as NodeJS.ErrnoException).code;
      if (code === "EPIPE" || code === "ERR_STREAM_DESTROYED") {
        this.markClosed();
        throw new StdoutClosed();
      }
      throw e;
    }
  }

  /** Write one NDJSON record. */
  record(value: Record<string, unknown>): void {
    this.write(`${serializeRecord(value)}\n`);
  }
}
