import { spawnSync } from "node:child_process";
import { fileURLToPath } from "node:url";
import { type InProcessOptions, inProcessEnv, runInProcess } from "../../core/src/host/cli/_fixture.ts";
import { command } from "./command.ts";

// What the in-process tests of ariel-runs share: real background runs started by the bundled
// ariel-spawn --detach (npm run build) under their workspace's monitor, and the command run here.

/** The bundled ariel-spawn: what starts the runs. */
export const SPAWN_BIN = fileURLToPath(new URL("../../cli-spawn/dist/ariel-spawn.cjs", import.meta.url));

/** The bundled ariel-runs: what a monitor started from this process runs (`node <argv[1]> --ariel-run-monitor`). */
export const RUNS_BIN = fileURLToPath(new URL("../dist/ariel-runs.cjs", import.meta.url));

/**
 * A detached run named `name` in `ws`'s source api, started by the bundled CLI: `sh -c script`,
 * or a command's argv (`flags` before it, e.g. --tty; `env` for the child); its run id. --shared
 * unless --isolate: several runs in one checkout (each alone would be ERR_CHECKOUT_IN_USE). Its monitor ends 1.5 s
 * after its last run, not after the default idle time.
 */
export function startRun(
  ws: string,
  name: string,
  command: string | readonly string[],
  flags: readonly string[] = [],
  env: Record<string, string> = {},
): string {
  const argv = typeof command === "string" ? ["sh", "-c", command] : command;
  // No run outlives its test by long, even when the test process is killed before its clean-up.
  const timeout = flags.includes("--timeout") ? [] : ["--timeout", "90s"];
  const r = spawnSync(
    process.execPath,
    [
      SPAWN_BIN,
      "-C",
      ws,
      "-d",
      ...(flags.includes("--isolate") ? [] : ["--shared"]),
      ...timeout,
      ...flags,
      "--name",
      name,
      "--source",
      "api",
      "--",
      ...argv,
    ],
    { env: inProcessEnv({ ARIEL_MONITOR_IDLE_MS: "1500", ...env }), encoding: "utf8" },
  );
  if (r.status !== 0) throw new Error(`spawn -d ${name}: ${r.status} ${r.stderr}`);
  return r.stdout.split("\t")[0] as string;
}

/** ariel-runs in this process, in `ws`. */
export const runsIn =
  (ws: string) =>
  (argv: readonly string[], options: Omit<InProcessOptions, "cwd" | "env"> = {}) =>
    runInProcess(command, ["-C", ws, ...argv], {
      cwd: ws,
      env: { ARIEL_MONITOR_IDLE_MS: "1500" },
      ...options,
    });

export const lines = (text: string) => text.split("\n").filter(Boolean);

/** A usage error as ariel-runs prints it: 64, the message, the sub-command's --help hint. */
export const usage = (message: string, sub: string) => ({
  code: 64,
  stdout: "",
  stderr: `ariel-runs: error: ${message} [ERR_USAGE]\nariel-runs: hint: run ariel-runs ${sub} --help to see the flags\n`,
});

/**
 * `read` every 25 ms until `done` holds of what it gives, for at most `ms`; the last value. A
 * command that failed (code not 0) ends it at once: a broken command fails its test, it does not
 * keep it waiting.
 */
export async function poll<T extends { code: number }>(
  read: () => Promise<T>,
  done: (v: T) => boolean,
  ms = 10_000,
): Promise<T> {
  const end = Date.now() + ms;
  for (;;) {
    const v = await read();
    if (done(v) || v.code !== 0 || Date.now() > end) return v;
    await new Promise((r) => setTimeout(r, 25));
  }
}
