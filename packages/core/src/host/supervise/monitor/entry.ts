import { readFileSync, rmSync, statSync } from "node:fs";
import type { Server } from "node:net";
import { monitorPaths } from "../../../runs/paths.ts";
import { writeAtomic } from "../../fs.ts";
import { MONITOR_ARG, REPORT_ARG } from "../protocol.ts";
import { runReporter } from "../reporter.ts";
import { createMonitor, log } from "./context.ts";
import { untilIdle } from "./idle.ts";
import { serve } from "./server.ts";
import { watchDisk, watchOutput } from "./watch.ts";

/** Seconds without a child, a hook or a client before the monitor exits (env overrides, for tests). */
const DEFAULT_IDLE_MS = 10_000;

/**
 * The workspace's run monitor: started on demand by `ariel-spawn --detach` (new session, stdio
 * on /dev/null and a log file, SIGHUP ignored), it is the parent of every detached child of
 * the workspace, so it reaps them and records how they ended. The children write their output
 * files themselves, so the monitor's death costs a run its supervision (it reads `lost`),
 * never its output; the monitor only drops the head of a stream past the output cap (a hole
 * punched in the file, docs/runs.md). It exits when it has had nothing to do for a while.
 *
 * Its parts: the request server (`server.ts`), supervision of each run's child (`supervise.ts`,
 * `child.ts`), the end of a run (`settle.ts`, `hook.ts`), the output cap and free-space watches
 * (`watch.ts`); what they share is one {@link Monitor} (`context.ts`).
 */
export async function runMonitor(root: string, socketPath: string): Promise<number> {
  const net = process.getBuiltinModule?.("node:net") ?? (require("node:net") as typeof import("node:net"));
  process.on("SIGHUP", () => {});
  process.on("SIGINT", () => {});
  process.on("uncaughtException", (e) => log(`uncaught: ${e.stack ?? e}`));
  process.on("unhandledRejection", (e) => log(`unhandled: ${(e as Error)?.stack ?? e}`));
  const idleMs = Number(process.env.ARIEL_MONITOR_IDLE_MS ?? DEFAULT_IDLE_MS);
  const m = createMonitor(root, socketPath);

  const server: Server = net.createServer((sock) => serve(m, sock));
  await new Promise<void>((resolve, reject) => {
    server.once("error", reject);
    server.listen(socketPath, () => resolve());
  });
  const socketIno = statSync(socketPath).ino;
  const info = monitorPaths(root).info;
  await writeAtomic(info, `${JSON.stringify({ v: 1, type: "monitor", ...m.me, socket: socketPath })}\n`);
  log(`listening on ${socketPath} for ${root}`);
  const watches = [watchDisk(m), watchOutput(m)];
  await untilIdle(m, idleMs, socketPath, socketIno, () => {
    for (const t of watches) clearInterval(t);
    m.puncher.close();
    // Not close(): libuv unlinks the bound path when it closes a listener, and by now that
    // path may be a new monitor's socket. Unreferenced, the listener goes with the process.
    server.unref();
    try {
      const cur = JSON.parse(readFileSync(info, "utf8")) as { pid?: number };
      if (cur.pid === process.pid) rmSync(info, { force: true });
    } catch {}
    log("idle: exiting");
  });
  return 0;
}

/**
 * A CLI's entry point: `--ariel-run-monitor ROOT SOCKET` (hidden, how `ariel-spawn --detach`
 * starts the workspace's monitor from the CLI's own bundle) runs the monitor,
 * `--ariel-agent-report AGENT [PAYLOAD]` the agents' reporter (where its own small bundle is not
 * at hand: Deno, sources), anything else the CLI. Resolves with the exit status.
 */
export function runCliOrMonitor(argv: readonly string[], cli: () => Promise<number>): Promise<number> {
  const [first, root, socket] = argv;
  if (first === REPORT_ARG) {
    const io = { env: process.env, stdin: process.stdin, startedMs: Math.round(performance.timeOrigin) };
    return runReporter(argv.slice(1), io).then(() => 0);
  }
  return first === MONITOR_ARG && root !== undefined && socket !== undefined
    ? runMonitor(root, socket)
    : cli();
}
