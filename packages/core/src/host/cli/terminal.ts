/**
 * What a command may know about the terminal: whether stdout and stderr are TTYs, how wide it
 * is, whether colour is wanted. Commands read it from `ctx.term`, never from `process.stdout`,
 * so tests can pretend to be a terminal (unit tests pass one; end-to-end tests set
 * `ARIEL_TEST_HOOKS=1 ARIEL_TEST_TTY=stderr`, see {@link processTerminal}).
 */
export interface Terminal {
  /** stdout is a TTY: human tables, human sizes. */
  readonly stdout: boolean;
  /** stderr is a TTY: progress lines, colour in messages. */
  readonly stderr: boolean;
  /** Columns of the terminal (stdout's, else stderr's), when known. */
  readonly columns: number | undefined;
  /** Colour in messages on stderr: a TTY and neither NO_COLOR nor TERM=dumb. */
  readonly color: boolean;
}

/** A stream that may be a TTY. */
interface MaybeTty {
  isTTY?: boolean;
  columns?: number;
}

/**
 * The terminal of this process.
 *
 * @example
 * ```ts
 * const term = processTerminal(process.env); // { stdout: false, stderr: true, columns: 120, color: true }
 * ```
 */
export function processTerminal(
  env: Record<string, string | undefined>,
  stdoutStream: object = process.stdout,
  stderrStream: object = process.stderr,
): Terminal {
  const stdout = stdoutStream as MaybeTty;
  const stderr = stderrStream as MaybeTty;
  // Test hook: a child of a test cannot be given a terminal cheaply; with ARIEL_TEST_HOOKS=1,
  // ARIEL_TEST_TTY names the streams to treat as terminals ("stderr", "stdout,stderr", "").
  const forced = env.ARIEL_TEST_HOOKS === "1" ? env.ARIEL_TEST_TTY?.split(",") : undefined;
  const out = forced ? forced.includes("stdout") : stdout.isTTY === true;
  const err = forced ? forced.includes("stderr") : stderr.isTTY === true;
  const columns = (out ? stdout.columns : undefined) ?? (err ? stderr.columns : undefined);
  const color = err && env.NO_COLOR === undefined && env.TERM !== "dumb";
  return { stdout: out, stderr: err, columns, color };
}

/** No terminal at all: what a pipe sees. */
export const PIPE_TERMINAL: Terminal = { stdout: false, stderr: false, columns: undefined, color: false };
