/**
 * For tests only (the build leaves `*_fixture.ts` out): run a CLI's command definition in this
 * process, as its bin's `runCli` would, on real files and repositories. The end-to-end tests run
 * the bundled bins as processes; these runs are what lets a unit test of a CLI's command module,
 * or of the host code under it, see a change to that source (mutation testing, docs/testing.md).
 * @internal
 *
 * @example
 * ```ts
 * const r = await runInProcess(command, ["--json"], { cwd: ws });
 * expect(r).toEqual({ code: 0, stdout: "...", stderr: "" });
 * ```
 */
import { mkdirSync, readFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { VERSION } from "../../version.ts";
import { GIT_TEST_ENV } from "../_fixture.ts";
import type { CommandDef } from "./define.ts";
import { renderHelpReference } from "./help.ts";
import { runCli } from "./run.ts";
import { processTerminal, type Terminal } from "./terminal.ts";

// ariel's own git processes take their environment from this process's (host/git.ts), not from
// the command's: the commits it makes (snapshots) get the tests' fixed identity and dates here.
Object.assign(process.env, GIT_TEST_ENV);

export interface InProcessResult {
  code: number;
  stdout: string;
  stderr: string;
}

export interface InProcessOptions {
  cwd: string;
  /** On top of the test environment (undefined removes a variable). */
  env?: Record<string, string | undefined>;
  /**
   * Default: a pipe on both streams, unless the environment forces a terminal as it does for a
   * bin (`ARIEL_TEST_HOOKS=1 ARIEL_TEST_TTY=stderr`, see processTerminal).
   */
  term?: Terminal;
  /** Ends a long-running command (a server) as SIGINT would. */
  signal?: AbortSignal;
  /** The command's stdin, whole (default: empty). */
  stdin?: string;
  /** Each write to stdout, as it happens (a server's address line). */
  onStdout?: (text: string) => void;
}

/**
 * The user state dir of the in-process runs: the suite run's (test/helpers/state_home_setup.ts),
 * shared by every test process (files named uniquely).
 */
export function inProcessStateHome(): string {
  const dir =
    process.env.TEST_ARIEL_STATE_HOME ?? join(tmpdir(), `ariel-test-state-${process.getuid?.() ?? "user"}`);
  mkdirSync(dir, { recursive: true });
  return dir;
}

/**
 * The environment a command run in-process gets: this process's, git's test identity and
 * isolation (GIT_TEST_ENV), no colour, the shared test state home, then `extra`.
 */
export function inProcessEnv(extra: Record<string, string | undefined> = {}): NodeJS.ProcessEnv {
  const env: NodeJS.ProcessEnv = {};
  const base = {
    ...process.env,
    ...GIT_TEST_ENV,
    NO_COLOR: "1",
    ARIEL_STATE_HOME: inProcessStateHome(),
    // The switch that made this run in-process (test/worktree-fixtures.ts) is not the command's.
    ARIEL_TEST_IN_PROCESS: undefined,
  };
  for (const [k, v] of Object.entries({ ...base, ...extra })) if (v !== undefined) env[k] = v;
  return env;
}

/** Run `def` on `argv` in this process; its exit status and what it wrote. */
export async function runInProcess(
  def: CommandDef,
  argv: readonly string[],
  options: InProcessOptions,
): Promise<InProcessResult> {
  const env = inProcessEnv(options.env);
  const stdout: string[] = [];
  const stderr: string[] = [];
  const code = await runCli(def, {
    version: VERSION,
    argv,
    stdout: {
      write: (t: string) => {
        stdout.push(t);
        options.onStdout?.(t);
      },
    },
    stderr: { write: (t: string) => stderr.push(t) },
    stdin: (async function* () {
      if (options.stdin) yield new TextEncoder().encode(options.stdin);
    })(),
    env,
    cwd: options.cwd,
    term: options.term ?? processTerminal(env, {}, {}),
    ...(options.signal ? { signal: options.signal } : {}),
  });
  return { code, stdout: stdout.join(""), stderr: stderr.join("") };
}

/**
 * `def` run in this process as `-C ws ARGV` from `ws` (unless told another cwd), with `ws` shown
 * as `<ws>` in what it wrote: the runner of a command module's tests on one workspace.
 * `defaults` go under each call's options (the environments merged).
 */
export function inWorkspace(
  def: CommandDef,
  ws: string,
  defaults: Partial<InProcessOptions> = {},
): (argv: readonly string[], options?: Partial<InProcessOptions>) => Promise<InProcessResult> {
  return async (argv, o = {}) => {
    const env = { ...defaults.env, ...o.env };
    const r = await runInProcess(def, ["-C", ws, ...argv], {
      ...defaults,
      ...o,
      cwd: o.cwd ?? defaults.cwd ?? ws,
      env,
    });
    return { code: r.code, stdout: r.stdout.replaceAll(ws, "<ws>"), stderr: r.stderr.replaceAll(ws, "<ws>") };
  };
}

/** The NDJSON records of a command's output, one object per non-empty line. */
export function records(text: string): Record<string, unknown>[] {
  return text
    .split("\n")
    .filter(Boolean)
    .map((l) => JSON.parse(l) as Record<string, unknown>);
}

/**
 * A CLI's help pages as its commands render them now, and as docs/help/<bin>.md holds them
 * (`npm run schema` writes that file): a CLI's help_test.ts expects the two equal.
 */
export async function helpReference(def: CommandDef): Promise<{ rendered: string; stored: string }> {
  const file = new URL(`../../../../../docs/help/${def.meta.name}.md`, import.meta.url);
  return { rendered: await renderHelpReference(def), stored: readFileSync(file, "utf8") };
}
