/**
 * For tests only (the core's own and the e2e suites'; the build leaves `_fixture.ts` out): which
 * processes a process has started (Linux: reads /proc), and the fields of a run record.
 * @internal
 *
 * @example
 * ```ts
 * childrenOf(process.pid, "perl"); // e.g. [4242], the hole punch helper
 * ```
 */
import { readdirSync, readFileSync } from "node:fs";
import type { RunRecord } from "../../runs/record.ts";

/** Live (not zombie) children of `pid` whose command name is `comm`, from /proc. */
export function childrenOf(pid: number, comm: string): number[] {
  const out: number[] = [];
  for (const p of readdirSync("/proc")) {
    if (!/^\d+$/.test(p)) continue;
    try {
      const stat = readFileSync(`/proc/${p}/stat`, "utf8");
      const [state, ppid] = stat.slice(stat.lastIndexOf(")") + 2).split(" ");
      if (Number(ppid) === pid && state !== "Z" && stat.includes(`(${comm})`)) out.push(Number(p));
    } catch {}
  }
  return out;
}

/**
 * The fields `createRun` takes for a detached local run of the workspace `{ root, hash }`: named
 * `agent`, started, no task, no monitor, no child; `more` overrides any of them.
 */
export function runFields(
  ws: { root: string; hash: string },
  runId: string,
  more: Partial<RunRecord> = {},
): Omit<RunRecord, "version" | "fencingToken"> {
  const ts = "2026-12-02T11:09:44.120Z";
  return {
    v: 1,
    type: "run",
    runId,
    name: "agent",
    backend: "local",
    workspace: { root: ws.root, hash: ws.hash },
    source: "api",
    cwd: ws.root,
    task: null,
    worktree: null,
    branch: null,
    argv: ["agent", "--go"],
    createdAt: ts,
    startedAt: ts,
    endedAt: null,
    monitor: null,
    child: null,
    restart: { policy: "no", max: 0, count: 0 },
    respawnOf: null,
    exit: null,
    timeoutMs: null,
    graceMs: 0,
    onExit: null,
    interactive: false,
    isolate: null,
    kill: null,
    worktreeOutcome: null,
    ...more,
  } as Omit<RunRecord, "version" | "fencingToken">;
}
