import { closeSync, openSync, writeSync } from "node:fs";
import { runPaths } from "../../runs/paths.ts";
import type { RunRecord } from "../../runs/record.ts";
import { nodeChildProcess } from "../builtins.ts";

/** How long a `--notify` command may run before its process group is killed (env overrides, for tests). */
const DEFAULT_NOTIFY_MS = 60_000;

/**
 * Run a run's `--notify CMD` (argv, no shell) in the workspace root with the run's ARIEL_* env,
 * `ARIEL_NOTIFY` (`waiting` or `exit`) and `ARIEL_ACTIVITY`/`ARIEL_EXIT_CODE`; its output goes to
 * the run's notify.log. Bounded: after `ARIEL_NOTIFY_TIMEOUT_MS` (default 60 s) its process group
 * is killed. Resolves when it ended; never rejects (a command that cannot start is said in the log).
 */
export async function runNotify(
  root: string,
  rec: RunRecord,
  env: Record<string, string>,
  what: { event: "waiting" } | { event: "exit"; status: number; state: string },
): Promise<void> {
  const argv = rec.notify;
  if (!argv || argv.length === 0) return;
  let fd: number | null = null;
  try {
    fd = openSync(runPaths(root, rec.runId).notify, "a", 0o600);
  } catch {}
  const extra =
    what.event === "waiting"
      ? { ARIEL_ACTIVITY: "waiting" }
      : { ARIEL_EXIT_CODE: String(what.status), ARIEL_RUN_STATE: what.state };
  try {
    const child = nodeChildProcess().spawn(argv[0]!, argv.slice(1), {
      cwd: root,
      env: { ...env, ARIEL_NOTIFY: what.event, ...extra, ...(rec.name ? { ARIEL_RUN_NAME: rec.name } : {}) },
      stdio: ["ignore", fd ?? "ignore", fd ?? "ignore"],
      detached: true,
    });
    const ms = Number(process.env.ARIEL_NOTIFY_TIMEOUT_MS) || DEFAULT_NOTIFY_MS;
    await new Promise<void>((resolve) => {
      const t = setTimeout(() => {
        try {
          if (child.pid) process.kill(-child.pid, "SIGKILL");
        } catch {}
        if (fd !== null) writeSync(fd, `ariel: --notify ${argv[0]} killed after ${ms} ms\n`);
      }, ms);
      child.once("error", (e) => {
        clearTimeout(t);
        if (fd !== null)
          writeSync(fd, `ariel: --notify: ${(e as NodeJS.ErrnoException).code ?? e.message}: ${argv[0]}\n`);
        resolve();
      });
      child.once("exit", () => {
        clearTimeout(t);
        resolve();
      });
    });
  } finally {
    if (fd !== null) closeSync(fd);
  }
}
