import type { ChildProcess } from "node:child_process";
import { closeSync, statSync, writeSync } from "node:fs";
import { isArielError } from "../../../errors.ts";
import type { StartResult } from "../../../runs/backend.ts";
import type { PlannedRun } from "../../../runs/plan.ts";
import { nodeChildProcess } from "../../builtins.ts";
import { blockingFs } from "../../fs.ts";
import { createRun } from "../../runs/store.ts";
import { startError } from "../../spawn/process.ts";
import { runExec } from "../exec.ts";
import type { Active, Monitor } from "./context.ts";
import { sandboxed } from "./sandbox.ts";
import { finish } from "./settle.ts";
import { startOf } from "./wire.ts";

/** Spawn the run's child (on a pseudo-terminal for a tty run); a child that cannot start, its error. */
export async function spawnChild(
  m: Monitor,
  a: Active,
  rec: PlannedRun,
  out: number,
  err: number,
): Promise<{ child: ChildProcess | null; startErr: NodeJS.ErrnoException | null }> {
  let child: ChildProcess | null = null;
  let startErr: NodeJS.ErrnoException | null = null;
  try {
    const { argv, env } = await sandboxed(m, a, rec, startOf(m, a, rec));
    child = rec.tty
      ? await m.ttys.spawn(a.runId, rec, env, a.attention!, argv)
      : spawnPiped(rec, argv, env, out, err);
    if (child.pid === undefined) {
      startErr = await new Promise<NodeJS.ErrnoException>((resolve) =>
        child?.once("error", (e) => resolve(e as NodeJS.ErrnoException)),
      );
    }
  } catch (e) {
    startErr = e as NodeJS.ErrnoException;
  }
  return { child, startErr };
}

/** A piped child: its own process group, stdout and stderr on the run's files, nothing else held. */
function spawnPiped(
  rec: PlannedRun,
  argv: readonly string[],
  env: Record<string, string>,
  out: number,
  err: number,
): ChildProcess {
  const { file, args } = runExec(argv, rec.cwd, env);
  return nodeChildProcess().spawn(file, args, {
    cwd: rec.cwd,
    env,
    stdio: [rec.interactive ? "pipe" : "ignore", out, err],
    detached: true,
    shell: false,
  });
}

/** A command that could not start: said in its stderr file, and the run ended (status 125-127). */
export async function startFailed(
  m: Monitor,
  a: Active,
  rec: PlannedRun,
  e: NodeJS.ErrnoException,
  fds: { out: number; err: number },
  planned: PlannedRun | undefined,
): Promise<StartResult> {
  const cwdGone = (() => {
    try {
      return !statSync(rec.cwd).isDirectory();
    } catch {
      return true;
    }
  })();
  const error = cwdGone
    ? { code: "ERR_SPAWN", message: `working directory missing: ${rec.cwd}`, exit: 125 }
    : isArielError(e)
      ? e
      : startError(e, rec.argv[0]!);
  writeSync(fds.err, `ariel: ${error.message}\n`);
  closeSync(fds.out);
  closeSync(fds.err);
  if (planned) await createRun(m.root, { ...planned, monitor: m.me }, blockingFs, true);
  const ending = finish(m, a, { code: null, signal: null, status: error.exit }, "spawn");
  // A new run is answered first: its worktree is settled under the task's lease, which the
  // CLI that asked holds until it has this reply (it then waits for the settled run).
  if (!planned) await ending;
  return { runId: a.runId, ok: false, status: error.exit, code: error.code, message: error.message };
}
