/**
 * A fleet run for the terminal UI's tests: detached, running in workspace /w since
 * 2026-12-04T00:00Z, `claude` in source api, nothing else known; `over` sets the rest. Test-only.
 * @internal
 */
import type { FleetRun } from "@ariel/core";

export function fleetRun(over: Partial<FleetRun> = {}): FleetRun {
  return {
    v: 1,
    type: "run",
    runId: "20261204T000000Z-aaaaaa",
    workspace: { root: "/w", hash: "h" },
    kind: "detached",
    name: null,
    group: null,
    state: "running",
    sources: ["api"],
    task: null,
    branch: null,
    argv: ["claude"],
    startedAt: "2026-12-04T00:00:00.000Z",
    endedAt: null,
    status: null,
    respawnOf: null,
    lastSeq: 0,
    lastLine: null,
    kept: null,
    ...over,
  } as FleetRun;
}
