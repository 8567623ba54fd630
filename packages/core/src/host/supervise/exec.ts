import { accessSync, constants as fsConstants, statSync } from "node:fs";
import { closingExec, type ExecArgv } from "../../runs/exec_shim.ts";
import { findOnPath } from "../spawn/process.ts";

/**
 * How the monitor starts a run's command, piped or on a terminal: the file execvp would run,
 * checked first (a missing or unrunnable command is told as ENOENT/EACCES, so it ends 127/126
 * at once like any spawn error), behind the descriptor-closing shim of runs/exec_shim.ts. The
 * one place a run's exec argv is made.
 *
 * @example
 * ```ts
 * const { file, args } = runExec(["sleep", "5"], "/tmp", { PATH: "/usr/bin:/bin" });
 * // file: "/usr/bin/perl", args: ["-e", CLOSE_FDS_PERL, "/usr/bin/sleep", "sleep", "5"]
 * ```
 */
export function runExec(argv: readonly string[], cwd: string, env: Record<string, string>): ExecArgv {
  return closingExec(shimPerl(), resolveExecutable(argv[0]!, cwd, env), argv);
}

let perl: string | null | undefined;

/**
 * The perl that runs the shim, looked up once on the monitor's own PATH (not the child's: a
 * run's PATH is the user's to change), or null where there is none (then children start
 * directly and may inherit the monitor's descriptors, as they did before; docs/runs.md).
 * `ARIEL_TEST_NO_PERL=1` makes it null, for the test of that case.
 */
export function shimPerl(): string | null {
  if (perl === undefined) {
    perl = process.env.ARIEL_TEST_NO_PERL === "1" ? null : findOnPath("perl", process.env.PATH);
  }
  return perl;
}

/**
 * The file `argv0` names, as execvp would find it for a child in `cwd` with `env`'s PATH; an
 * ENOENT or EACCES error when there is none (a pty child cannot report a failed exec but by
 * printing it: checked first, so it is told as when a piped child cannot start: 127 or 126).
 */
export function resolveExecutable(argv0: string, cwd: string, env: Record<string, string>): string {
  const fail = (code: string) =>
    Object.assign(new Error(`${code}: ${argv0}`), { code }) as NodeJS.ErrnoException;
  const path = argv0.includes("/")
    ? argv0.startsWith("/")
      ? argv0
      : `${cwd}/${argv0}`
    : findOnPath(argv0, env.PATH);
  if (path === null) {
    // A relative PATH entry (or none): let execvp search as it would.
    if (env.PATH?.split(":").some((d) => !d.startsWith("/"))) return argv0;
    throw fail("ENOENT");
  }
  try {
    statSync(path);
  } catch {
    throw fail("ENOENT");
  }
  try {
    accessSync(path, fsConstants.X_OK);
    if (!statSync(path).isFile()) throw new Error("not a file");
  } catch {
    throw fail("EACCES");
  }
  return path;
}
