/**
 * The lifecycle half of a dry run's plan (docs/lifecycle.md): which hooks an event would run in
 * which legs, whether each is trusted (an untrusted one is listed as skipped, with the warning the
 * real run prints), and which port names a new task would lease. Read only: the trust store and
 * the configs are read, nothing is run, prompted or leased. The hooks are chosen by
 * {@link hookSteps}, the rule the hook runner follows.
 *
 * @example
 * ```ts
 * const plan = await planHooks(ports, { root: "/ws", event: "post-create", legs: record.legs });
 * plan.hooks.map((h) => [h.source, h.trusted]); // [["api", true]]
 * lifecyclePlanRecords("t1", { ports: [], portRange: [20000, 29999], ...plan });
 * ```
 */
import type { HookEvent } from "../../lifecycle/events.ts";
import { describeHook, type Hook, hookArgv, hookSteps } from "../../lifecycle/hooks.ts";
import type { Ports } from "../../ports.ts";
import type { Leg } from "../../schema/task.ts";
import { type ConfigSet, hookSetsFor } from "./hook_sets.ts";
import { type HookWarning, untrustedWarning } from "./run_hooks.ts";
import { taskPortNames } from "./task_setup.ts";
import { readTrust } from "./trust_store.ts";

/** One hook a step would run (or skip as untrusted) in one leg. */
export interface PlannedHook {
  event: HookEvent;
  source: string;
  /** The leg's worktree: where the hook would run. */
  path: string;
  origin: ConfigSet["origin"];
  file: string;
  /** As configured: a string for `sh -c`, or an argv array. */
  hook: Hook;
  argv: string[];
  /** False: skipped as the real run skips it (`untrusted` says why). */
  trusted: boolean;
  untrusted?: "never-approved" | "changed";
}

/** The hooks and ports of a plan, and the warnings the real run would print about them. */
export interface LifecyclePlan {
  /** Port names a new task would lease (numbers are only known when they are leased). */
  ports: string[];
  portRange: readonly [number, number];
  hooks: PlannedHook[];
  warnings: HookWarning[];
}

/** The legs' fields a plan needs. */
export type PlanLeg = Pick<Leg, "source" | "sourcePath" | "worktreePath">;

/** The hooks `event` would run for the legs, in the runner's order; none with `skip` (--no-hooks). */
export async function planHooks(
  ports: Ports,
  o: { root: string; event: HookEvent; legs: readonly PlanLeg[]; skip?: boolean },
): Promise<Pick<LifecyclePlan, "hooks" | "warnings">> {
  const out: Pick<LifecyclePlan, "hooks" | "warnings"> = { hooks: [], warnings: [] };
  if (o.skip || o.legs.length === 0) return out;
  const trust = await readTrust(ports);
  for (const leg of o.legs) {
    const { sets, problems } = await hookSetsFor(ports, o.root, leg.sourcePath, trust);
    out.warnings.push(...problems);
    for (const { set, hook, runs } of hookSteps(sets, o.event)) {
      out.hooks.push(plannedHook(o.event, leg, set, hook));
      if (!runs) out.warnings.push(untrustedWarning(set, o.event, leg.source, o.root, "would skip"));
    }
  }
  return out;
}

/**
 * A task's lifecycle plan when its legs come into being (add's post-create, restore's
 * post-restore): the port names its sources declare, then `event`'s hooks for `legs`.
 */
export async function planLegsLifecycle(
  ports: Ports,
  o: {
    root: string;
    portRange: readonly [number, number];
    sourcePaths: readonly string[];
    event: HookEvent;
    legs: readonly PlanLeg[];
    skip?: boolean;
  },
): Promise<LifecyclePlan> {
  const names = await taskPortNames(ports, o.root, o.sourcePaths);
  const hooks = await planHooks(ports, {
    root: o.root,
    event: o.event,
    legs: o.legs,
    ...(o.skip ? { skip: true } : {}),
  });
  return { ports: names, portRange: o.portRange, ...hooks };
}

function plannedHook(event: HookEvent, leg: PlanLeg, set: ConfigSet, hook: Hook): PlannedHook {
  return {
    event,
    source: leg.source,
    path: leg.worktreePath,
    origin: set.origin,
    file: set.file,
    hook,
    argv: hookArgv(hook),
    trusted: set.trusted,
    ...(set.untrusted ? { untrusted: set.untrusted } : {}),
  };
}

/** Two plans' hooks and warnings one after the other (the ports of the first). */
export function joinLifecyclePlans(
  a: LifecyclePlan,
  b: Pick<LifecyclePlan, "hooks" | "warnings">,
): LifecyclePlan {
  return { ...a, hooks: [...a.hooks, ...b.hooks], warnings: [...a.warnings, ...b.warnings] };
}

/** Whose a hook is and whether it runs, in a word: `yours`, `trusted`, `untrusted`, `changed`. */
export function hookTrustWord(h: PlannedHook): string {
  if (h.origin === "workspace") return "yours";
  if (h.trusted) return "trusted";
  return h.untrusted === "changed" ? "changed" : "untrusted";
}

/** A task's lifecycle plan (none: nothing to list for it). */
export interface TaskLifecyclePlan {
  task: string;
  plan: LifecyclePlan | undefined;
}

/**
 * The `plan` records of tasks' lifecycle plans: every `port.lease` (one per name), then every
 * `hook.run` or `hook.skip` (one per hook and leg).
 */
export function lifecyclePlanRecords(plans: readonly TaskLifecyclePlan[]): Record<string, unknown>[] {
  const ports = plans.flatMap(({ task, plan }) =>
    (plan?.ports ?? []).map((name) => ({
      v: 1,
      type: "plan",
      action: "port.lease",
      task,
      name,
      range: [...(plan?.portRange ?? [])],
    })),
  );
  const hooks = plans.flatMap(({ task, plan }) => (plan?.hooks ?? []).map((h) => hookRecord(task, h)));
  return [...ports, ...hooks];
}

function hookRecord(task: string, h: PlannedHook): Record<string, unknown> {
  return {
    v: 1,
    type: "plan",
    action: h.trusted ? "hook.run" : "hook.skip",
    task,
    event: h.event,
    source: h.source,
    path: h.path,
    origin: h.origin,
    file: h.file,
    hook: h.hook,
    argv: h.argv,
    trusted: h.trusted,
    ...(h.untrusted ? { reason: h.untrusted } : {}),
  };
}

/** A table of a plan for people: its header and rows. */
export interface PlanTable {
  header: string[];
  rows: string[][];
}

/**
 * The tables of tasks' lifecycle plans: a `port` table (name and range) and a `hook` table
 * (`hook`, or `skip-hook` for an untrusted one); an empty one left out.
 */
export function lifecyclePlanTables(plans: readonly TaskLifecyclePlan[]): PlanTable[] {
  const tables: PlanTable[] = [
    {
      header: ["ACTION", "TASK", "PORT", "RANGE"],
      rows: plans.flatMap(({ task, plan }) =>
        (plan?.ports ?? []).map((n) => ["port", task, n, `${plan?.portRange[0]}-${plan?.portRange[1]}`]),
      ),
    },
    {
      header: ["ACTION", "TASK", "EVENT", "SOURCE", "TRUST", "FILE", "COMMAND"],
      rows: plans.flatMap(({ task, plan }) =>
        (plan?.hooks ?? []).map((h) => [
          h.trusted ? "hook" : "skip-hook",
          task,
          h.event,
          h.source,
          hookTrustWord(h),
          h.file,
          describeHook(h.hook),
        ]),
      ),
    },
  ];
  return tables.filter((t) => t.rows.length > 0);
}
