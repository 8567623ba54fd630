import { ArielError } from "../errors.ts";
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

function isClosedPipe(e: unknown): boolean {
  const code = (e as NodeJS.ErrnoException | null)?.code;
  return code === "EPIPE" || code === "ERR_STREAM_DESTROYED";
}

function outputError(e: unknown): ArielError {
  const code = (e as NodeJS.ErrnoException | null)?.code ?? "error";
  return new ArielError("ERR_OUTPUT", `cannot write to stdout (${code})`, {
    cause: e,
    context: { errno: code },
  });
}

/**
 * stdout for data only. Once the reader closes the pipe (EPIPE), further writes throw
 * {@link StdoutClosed} and `closed` turns true; the CLI runner then ends quietly with status 0.
 * Any other write error (ENOSPC on a redirected file, say) is ERR_OUTPUT, never a crash.
 */
export class Output {
  closed = false;
  /** The asynchronous write error other than EPIPE, if one happened. */
  failure: ArielError | undefined;
  readonly #sink: TextSink;
  readonly #onClose: (() => void) | undefined;

  constructor(stream: NodeJS.WriteStream | TextSink = process.stdout, onClose?: () => void) {
    this.#sink = stream;
    this.#onClose = onClose;
    if ("on" in stream && typeof stream.on === "function") {
      // Throwing from this listener would crash the process with a stack trace: remember the
      // failure instead, stop the command, and report it from the next write.
      stream.on("error", (e: NodeJS.ErrnoException) => {
        if (!isClosedPipe(e)) this.failure ??= outputError(e);
        this.markClosed();
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
    if (this.failure) throw this.failure;
    if (this.closed) throw new StdoutClosed();
    try {
      this.#sink.write(text);
    } catch (e) {
      if (!isClosedPipe(e)) this.failure = outputError(e);
      this.markClosed();
      throw this.failure ?? new StdoutClosed();
    }
  }

  /** Write one NDJSON record. */
  record(value: Record<string, unknown>): void {
    this.write(`${serializeRecord(value)}\n`);
  }
}
