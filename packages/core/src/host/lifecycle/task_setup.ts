/**
 * The lifecycle steps of making a task, shared by `ariel-worktree add` and `ariel-spawn
 * --isolate` (which makes its tasks through the same add): the port names a task leases, and
 * the post-create hooks with the legs' `setup` recorded after them.
 *
 * @example
 * ```ts
 * const names = await taskPortNames(ports, root, ["/ws/api"]); // ["web", "api"]
 * const { record, hooks } = await runPostCreate(ports, { root, hash, record, lease });
 * ```
 */

import { missingPorts } from "../../lifecycle/ports.ts";
import type { Ports } from "../../ports.ts";
import type { Leg, TaskRecord } from "../../schema/task.ts";
import type { Lease } from "../lease-store.ts";
import type { OnProgress } from "../progress.ts";
import { writeTask } from "../worktree/store.ts";
import { hookSetsFor } from "./hook_sets.ts";
import { leaseTaskPorts } from "./port_registry.ts";
import { type RunHooksResult, runHooks } from "./run_hooks.ts";

/**
 * The port names of a task over sources at `sourcePaths`: the workspace config's first, then each
 * source config's (a repository may say which ports it needs; leasing one runs nothing).
 */
export async function taskPortNames(
  ports: Ports,
  root: string,
  sourcePaths: readonly string[],
): Promise<string[]> {
  const names: string[] = [];
  const add = (more: readonly string[]) =>
    names.push(...missingPorts(more, Object.fromEntries(names.map((n) => [n, 0]))));
  const rootSets = await hookSetsFor(ports, root, root);
  for (const s of rootSets.sets) add(s.ports);
  for (const path of sourcePaths) {
    if (path === root) continue;
    const { sets } = await hookSetsFor(ports, root, path);
    for (const s of sets) add(s.ports);
  }
  return names;
}

/** Input of {@link runLegHooks}. */
export interface LegHooksOptions {
  root: string;
  hash: string;
  record: TaskRecord;
  lease: Lease;
  legs?: readonly Leg[];
  skip?: boolean;
  onProgress?: OnProgress;
}

/**
 * Run the post-create hooks of the legs (default: all active) and record each leg's `setup`
 * (`ok`, `failed`, `skipped`) by CAS under the lease. Legs without a post-create hook keep their
 * record as it is. A failed hook keeps the leg: the caller names the retry command.
 */
export async function runPostCreate(
  ports: Ports,
  o: LegHooksOptions,
): Promise<{ record: TaskRecord; hooks: RunHooksResult }> {
  const hooks = await runHooks(ports, {
    root: o.root,
    hash: o.hash,
    record: o.record,
    event: "post-create",
    ...(o.legs ? { legs: o.legs } : {}),
    ...(o.skip ? { skip: true } : {}),
    ...(o.onProgress ? { onProgress: o.onProgress } : {}),
  });
  if (hooks.legs.size === 0) return { record: o.record, hooks };
  const legs = o.record.legs.map((l) => {
    const setup = hooks.legs.get(l.source);
    return setup ? { ...l, setup } : l;
  });
  const record = await writeTask(ports, { ...o.record, legs }, o.record.version, o.lease);
  return { record, hooks };
}

/**
 * Lease the ports a task lacks (a restored task gave its ports back when it closed) and record
 * them; the record as it is when it wants none or has them all.
 */
export async function ensureTaskPorts(
  ports: Ports,
  o: { root: string; hash: string; range: readonly [number, number]; record: TaskRecord; lease: Lease },
): Promise<TaskRecord> {
  const names = await taskPortNames(
    ports,
    o.root,
    o.record.legs.map((l) => l.sourcePath),
  );
  if (names.length === 0) return o.record;
  const got = await leaseTaskPorts(ports, {
    root: o.root,
    hash: o.hash,
    task: o.record.taskId,
    names,
    range: o.range,
  });
  const had = o.record.ports ?? {};
  if (
    Object.keys(got).every((n) => had[n] === got[n]) &&
    Object.keys(had).length === Object.keys(got).length
  ) {
    return o.record;
  }
  return writeTask(ports, { ...o.record, ports: got }, o.record.version, o.lease);
}
