/**
 * Where a workspace keeps its sandboxes: `<root>/.ariel/sandbox/<runId>/`, one per sandboxed run
 * (or foreground spawn) until its work is home.
 *
 * @example
 * ```ts
 * sandboxPaths("/ws", "20261202T110943Z-abc123").manifest;
 * // "/ws/.ariel/sandbox/20261202T110943Z-abc123/sandbox.json"
 * sandboxPaths("/ws", "20261202T110943Z-abc123").shadow(1);
 * // "/ws/.ariel/sandbox/20261202T110943Z-abc123/1"
 * ```
 */
import { compareBytewise } from "../discovery/compare.ts";
import { ArielError } from "../errors.ts";
import { joinPosix } from "../paths.ts";
import { RUN_ID_PATTERN } from "../spawn/run_id.ts";
import { stateDir } from "../state_paths.ts";

/** `<root>/.ariel/sandbox`. */
export function sandboxesDir(root: string): string {
  return joinPosix(stateDir(root), "sandbox");
}

export interface SandboxPaths {
  dir: string;
  /** `sandbox.json`: the manifest the sync reads. */
  manifest: string;
  /** Serializes the syncs of this sandbox (beside its directory, which the last sync removes). */
  lock: string;
  /** Written once everything is home: what is left is only removed. */
  done: string;
  /** The sandbox's outer process once started (`{pid, startTime}`), written by its owner. */
  child: string;
  /** The restricted monitor socket a detached sandboxed run sees as the workspace's. */
  socket: string;
  /** An empty read-only file: what a hidden file reads as inside. */
  empty: string;
  /** Repository `n`'s shadow common dir. */
  shadow(n: number): string;
  /** Repository `n`'s refs at the start (`<oid> <ref>` lines). */
  startRefs(n: number): string;
  /** Repository `n`'s refs a sync brought home (the new bases). */
  syncedRefs(n: number): string;
  /** The prefix of repository `n`'s main-worktree state at the start (in place): `<prefix>-index`, `<prefix>-logs-HEAD`. */
  startState(n: number): string;
  /** What a sync could not put back (an in-place index both sides changed): kept for the user. */
  kept: string;
}

/** Every path of one sandbox; `runId` must be a run id (ERR_INVALID_INPUT otherwise: no `/`, no `..`). */
export function sandboxPaths(root: string, runId: string): SandboxPaths {
  if (!RUN_ID_PATTERN.test(runId)) {
    throw new ArielError("ERR_INVALID_INPUT", `not a run id: ${JSON.stringify(runId)}`);
  }
  const dir = `${sandboxesDir(root)}/${runId}`;
  return {
    dir,
    manifest: `${dir}/sandbox.json`,
    lock: `${dir}.lock`,
    done: `${dir}/done`,
    child: `${dir}/child`,
    socket: `${dir}/monitor.sock`,
    empty: `${dir}/empty`,
    shadow: (n) => `${dir}/${n}`,
    startRefs: (n) => `${dir}/${n}.start-refs`,
    syncedRefs: (n) => `${dir}/${n}.synced-refs`,
    startState: (n) => `${dir}/${n}.start`,
    kept: joinPosix(stateDir(root), "sandbox-kept", runId),
  };
}

/**
 * `<oid> <ref>` lines (start-refs, synced-refs) to a map; lines that are not are skipped.
 *
 * @example
 * ```ts
 * parseRefLines("0123…abcd refs/heads/main\n"); // Map { "refs/heads/main" => "0123…abcd" }
 * ```
 */
export function parseRefLines(text: string): Map<string, string> {
  const out = new Map<string, string>();
  for (const line of text.split("\n")) {
    const sp = line.indexOf(" ");
    if (sp <= 0) continue;
    const oid = line.slice(0, sp);
    if (/^[0-9a-f]{40}([0-9a-f]{24})?$/.test(oid)) out.set(line.slice(sp + 1), oid);
  }
  return out;
}

/** A map of refs as `<oid> <ref>` lines, sorted by ref (bytewise, as git sorts `packed-refs`). */
export function refLines(refs: ReadonlyMap<string, string>): string {
  return [...refs.entries()]
    .sort(([a], [b]) => compareBytewise(a, b))
    .map(([ref, oid]) => `${oid} ${ref}\n`)
    .join("");
}
