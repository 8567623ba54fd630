/**
 * Port leases as data: the variables a task's ports become, and the order candidates are tried
 * in. Pure; the registry and the bind check are in host/lifecycle.
 *
 * @example
 * ```ts
 * portEnv(["web", "api"], { web: 20000, api: 20001 });
 * // { ARIEL_PORT_WEB: "20000", ARIEL_PORT_API: "20001", PORT: "20000" }
 * ```
 */

/** A task's ports by name. */
export type TaskPorts = Record<string, number>;

/** `ARIEL_PORT_<NAME>` of a port name. */
export function portEnvName(name: string): string {
  return `ARIEL_PORT_${name.toUpperCase()}`;
}

/**
 * The environment of a task's ports: `ARIEL_PORT_<NAME>` each, and `PORT` the first in `order`
 * (the config's order) that the task has.
 */
export function portEnv(order: readonly string[], ports: TaskPorts | undefined): Record<string, string> {
  if (!ports) return {};
  const env: Record<string, string> = {};
  const names = [...order.filter((n) => n in ports), ...Object.keys(ports).filter((n) => !order.includes(n))];
  for (const n of names) env[portEnvName(n)] = String(ports[n]);
  const first = names[0];
  if (first !== undefined) env.PORT = String(ports[first]);
  return env;
}

/** The ports of `[lo, hi]` not in `taken`, lowest first. */
export function* portCandidates(
  range: readonly [number, number],
  taken: ReadonlySet<number>,
): Generator<number> {
  for (let p = range[0]; p <= range[1]; p++) if (!taken.has(p)) yield p;
}

/** Names of `wanted` (in order, each once ignoring case) that `have` lacks. */
export function missingPorts(wanted: readonly string[], have: TaskPorts | undefined): string[] {
  const seen = new Set(Object.keys(have ?? {}).map((n) => n.toUpperCase()));
  const out: string[] = [];
  for (const n of wanted) {
    if (seen.has(n.toUpperCase())) continue;
    seen.add(n.toUpperCase());
    out.push(n);
  }
  return out;
}
