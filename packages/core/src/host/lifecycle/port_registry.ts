/**
 * The machine's port leases: `<user state dir>/ports.json`, changed only under its lock, so every
 * task of every workspace gets ports no other task holds (docs/lifecycle.md, Ports). A candidate
 * is also checked free by binding it on 127.0.0.1: a port another program listens on is skipped.
 *
 * @example
 * ```ts
 * const got = await leaseTaskPorts(ports, { root, hash, task: "t1", names: ["web", "api"], range: [20000, 29999] });
 * got; // { web: 20000, api: 20001 }
 * await releaseTaskPorts(ports, { hash, task: "t1" });
 * ```
 */
import type { Server } from "node:net";
import * as z from "zod/mini";
import { ArielError } from "../../errors.ts";
import { missingPorts, portCandidates, type TaskPorts } from "../../lifecycle/ports.ts";
import type { Ports } from "../../ports.ts";
import { portRegistryPath, userStateDir } from "../../state_home.ts";
import { nodeNet } from "../builtins.ts";
import { withLockFile } from "../lock-file.ts";

/** One port held by one task. */
export interface PortLease {
  port: number;
  name: string;
  workspace: { root: string; hash: string };
  task: string;
  leasedAt: string;
}

type StatePorts = Pick<Ports, "fs" | "env" | "cwd" | "clock">;

function registrySchema() {
  return z.object({
    v: z.literal(1),
    leases: z.array(
      z.object({
        port: z.int(),
        name: z.string(),
        workspace: z.object({ root: z.string(), hash: z.string() }),
        task: z.string(),
        leasedAt: z.string(),
      }),
    ),
  });
}

/** The registry's path; ERR_CANTCREAT when there is no user state dir to keep it in. */
function registryPath(ports: Pick<Ports, "env" | "cwd">): string {
  const home = userStateDir(ports.env, ports.cwd);
  if (home === null) {
    throw new ArielError("ERR_CANTCREAT", "no user state dir to keep port leases in", {
      hint: "set ARIEL_STATE_HOME (or HOME) so ariel has a state dir",
    });
  }
  return portRegistryPath(home);
}

/** Every lease on the machine, by port; an absent registry is empty. */
export async function listPortLeases(ports: Pick<Ports, "fs" | "env" | "cwd">): Promise<PortLease[]> {
  const path = registryPath(ports);
  let text: string;
  try {
    text = await ports.fs.readText(path);
  } catch (e) {
    if ((e as { code?: string }).code === "ENOENT") return [];
    throw e;
  }
  let raw: unknown = null;
  try {
    raw = JSON.parse(text);
  } catch {
    // reported below
  }
  const r = z.safeParse(registrySchema(), raw);
  if (!r.success) {
    throw new ArielError("ERR_RECORD_CORRUPT", `the port registry ${path} is not valid`, {
      hint: "repair or delete it (running tasks keep their ports; new ones may then collide)",
      context: { path },
    });
  }
  return r.data.leases.sort((a, b) => a.port - b.port);
}

/** Change the registry under its lock: `fn` gets the leases and returns the new list. */
async function updateRegistry<T>(
  ports: StatePorts,
  fn: (leases: PortLease[]) => Promise<{ leases: PortLease[]; result: T }>,
): Promise<T> {
  const path = registryPath(ports);
  await ports.fs.mkdirp(path.slice(0, path.lastIndexOf("/")));
  return withLockFile(`${path}.lock`, { what: "port registry lock", fs: ports.fs }, async () => {
    const { leases, result } = await fn(await listPortLeases(ports));
    leases.sort((a, b) => a.port - b.port);
    await ports.fs.writeAtomic(path, `${JSON.stringify({ v: 1, leases })}\n`);
    return result;
  });
}

/** True when nothing listens on `port` at 127.0.0.1 (it could be bound, and was let go). */
export async function portIsFree(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const server: Server = nodeNet().createServer();
    server.unref();
    server.once("error", () => resolve(false));
    server.listen({ port, host: "127.0.0.1", exclusive: true }, () => server.close(() => resolve(true)));
  });
}

/**
 * Lease one port per name to a task: names it holds already keep their ports; each new one gets
 * the lowest port of `range` that no lease holds and that binds. ERR_PORTS_EXHAUSTED (75) when
 * the range has none left; then nothing is leased.
 */
export async function leaseTaskPorts(
  ports: StatePorts,
  o: { root: string; hash: string; task: string; names: readonly string[]; range: readonly [number, number] },
): Promise<TaskPorts> {
  if (o.names.length === 0) return {};
  return updateRegistry(ports, async (leases) => {
    const own = leases.filter((l) => l.workspace.hash === o.hash && l.task === o.task);
    const have: TaskPorts = Object.fromEntries(own.map((l) => [l.name, l.port]));
    const taken = new Set(leases.map((l) => l.port));
    const leasedAt = new Date(ports.clock.now()).toISOString();
    const added: PortLease[] = [];
    const candidates = portCandidates(o.range, taken);
    for (const name of missingPorts(o.names, have)) {
      const port = await nextFree(candidates);
      if (port === null) {
        throw new ArielError(
          "ERR_PORTS_EXHAUSTED",
          `no free port left in ${o.range[0]}-${o.range[1]} for ${JSON.stringify(name)} of task ${JSON.stringify(o.task)}`,
          { context: { task: o.task, name, range: [...o.range] } },
        );
      }
      added.push({ port, name, workspace: { root: o.root, hash: o.hash }, task: o.task, leasedAt });
    }
    const result: TaskPorts = { ...have };
    for (const a of added) result[a.name] = a.port;
    return { leases: [...leases, ...added], result };
  });
}

/** The next candidate that binds (never for-of: leaving one closes the generator for the next name). */
async function nextFree(candidates: Generator<number>): Promise<number | null> {
  for (let c = candidates.next(); !c.done; c = candidates.next())
    if (await portIsFree(c.value)) return c.value;
  return null;
}

/** Release every port of the tasks `tasks` of workspace `hash`; returns the leases released. */
export async function releaseTaskPorts(
  ports: StatePorts,
  o: { hash: string; tasks: readonly string[] },
): Promise<PortLease[]> {
  const home = userStateDir(ports.env, ports.cwd);
  if (home === null || (await ports.fs.lstat(portRegistryPath(home))) === null) return [];
  return updateRegistry(ports, async (leases) => {
    const gone = leases.filter((l) => l.workspace.hash === o.hash && o.tasks.includes(l.task));
    return { leases: leases.filter((l) => !gone.includes(l)), result: gone };
  });
}
