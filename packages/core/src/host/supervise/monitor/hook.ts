import type { ChildProcess } from "node:child_process";
import { closeSync, openSync, writeSync } from "node:fs";
import { runPaths } from "../../../runs/paths.ts";
import { type ExitRecord, ON_EXIT_TIMEOUT_MS, type RunRecord } from "../../../runs/record.ts";
import { nodeChildProcess } from "../../builtins.ts";
import { attempt, log } from "./context.ts";

/** What became of an `--on-exit` hook: its end (null when it could not start) and whether it was stopped. */
export interface HookEnd {
  code: number | null;
  signal: string | null;
  timedOut: boolean;
}

/**
 * `--on-exit CMD`: argv, no shell, with the run's ARIEL_* env and ARIEL_EXIT_CODE; output to
 * on-exit.log. When that log cannot be opened (the run was removed) the failure is logged and
 * the hook still runs, its output discarded. Bounded: after `onExitTimeoutMs` (default
 * {@link ON_EXIT_TIMEOUT_MS}) its process group gets SIGTERM, and SIGKILL once the hook has
 * exited or `graceMs` has passed, whichever is first. What became of it goes into `run.finished`.
 */
export async function runHook(
  root: string,
  rec: RunRecord,
  env: Record<string, string>,
  exit: ExitRecord,
): Promise<HookEnd> {
  const argv = rec.onExit!;
  const path = runPaths(root, rec.runId).onExit;
  const fd = (await attempt(rec.runId, "on-exit.log", () => openSync(path, "a", 0o600))) ?? null;
  const say = (why: string) => {
    if (fd === null) log(`run ${rec.runId}: ${why}`);
    else writeSync(fd, `ariel: ${why}\n`);
  };
  try {
    const hook = nodeChildProcess().spawn(argv[0]!, argv.slice(1), {
      cwd: root,
      env: {
        ...env,
        ARIEL_EXIT_CODE: String(exit.status),
        ARIEL_RUN_STATE: exit.state,
        ...(rec.name ? { ARIEL_RUN_NAME: rec.name } : {}),
      },
      stdio: ["ignore", fd ?? "ignore", fd ?? "ignore"],
      detached: true,
    });
    return await boundHook(hook, rec.onExitTimeoutMs ?? ON_EXIT_TIMEOUT_MS, rec.graceMs, say, argv[0]!);
  } finally {
    if (fd !== null) closeSync(fd);
  }
}

/** SIGTERM/SIGKILL to process group `pgid`; one that is gone already is fine. */
function signalHookGroup(pgid: number | undefined, signal: NodeJS.Signals): void {
  if (pgid === undefined) return;
  try {
    process.kill(-pgid, signal);
  } catch {} // the group is gone
}

/**
 * Wait for a hook (its own process group, `detached`) to exit, at most `limitMs`: then SIGTERM
 * to the group, and SIGKILL to it as soon as the leader has exited (what it left behind) or after
 * `graceMs`. Each step is said in the hook's log by `say`.
 */
function boundHook(
  hook: ChildProcess,
  limitMs: number,
  graceMs: number,
  say: (why: string) => void,
  name: string,
): Promise<HookEnd> {
  return new Promise<HookEnd>((resolve) => {
    let timedOut = false;
    let grace: ReturnType<typeof setTimeout> | undefined;
    const limit = setTimeout(() => {
      timedOut = true;
      say(`on-exit hook still running after ${limitMs} ms: SIGTERM to its process group`);
      signalHookGroup(hook.pid, "SIGTERM");
      grace = setTimeout(() => {
        say(`on-exit hook still running ${graceMs} ms after SIGTERM: SIGKILL to its process group`);
        signalHookGroup(hook.pid, "SIGKILL");
      }, graceMs);
    }, limitMs);
    const done = (end: HookEnd) => {
      clearTimeout(limit);
      clearTimeout(grace);
      if (timedOut) signalHookGroup(hook.pid, "SIGKILL");
      resolve(end);
    };
    hook.once("error", (e) => {
      say(`on-exit hook: ${(e as NodeJS.ErrnoException).code ?? e.message}: ${name}`);
      done({ code: null, signal: null, timedOut: false });
    });
    hook.once("exit", (code, signal) => done({ code, signal, timedOut }));
  });
}
