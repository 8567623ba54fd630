import type { Output, TextSink } from "../output.ts";
import type { ArgsDef, ParsedArgs } from "./define.ts";
import type { Reporter } from "./reporter.ts";
import type { Terminal } from "./terminal.ts";

/** What a command's `run` gets: its typed args, the channels, and the process's surroundings. */
export interface RunContext<T extends ArgsDef = ArgsDef> {
  /** Parsed flags and positionals by name (aliases folded in), typed from the command's `args`. */
  args: ParsedArgs<T>;
  /** Everything after a literal `--` (only for commands that declare `rest`). */
  rest: string[];
  /** Data channel (stdout). */
  out: Output;
  /** Messages channel (stderr): warnings, notes, errors. */
  log: Reporter;
  /** Raw stderr, for text that is not a message (a child's output passed through). */
  stderr: TextSink;
  /** The input channel (the process's stdin unless the caller gives one; made when first read). */
  stdin: AsyncIterable<Uint8Array | string>;
  /** Whether stdout and stderr are terminals, and how wide. */
  term: Terminal;
  /** Aborted when stdout closes or a terminating signal arrives. */
  signal: AbortSignal;
  env: NodeJS.ProcessEnv;
  cwd: string;
  /** The full command path, e.g. "ariel-worktree add". */
  commandPath: string;
}
