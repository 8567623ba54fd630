/**
 * The machine's port registry on a real state dir: leases per task (kept across calls, the
 * lowest free port of the range, none that something listens on), releases by workspace and
 * task, and what an absent, damaged or impossible registry does.
 */
import { existsSync, mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { createServer, type Server } from "node:net";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { arielErrorOf } from "../../_fixture.ts";
import { removeDir, tempDir } from "../_fixture.ts";
import { hostPorts } from "../ports.ts";
import { leaseTaskPorts, listPortLeases, portIsFree, releaseTaskPorts } from "./port_registry.ts";

let home: string;
const servers: Server[] = [];
afterEach(async () => {
  removeDir(home);
  await Promise.all(servers.splice(0).map((s) => new Promise((r) => s.close(r))));
});

const portsIn = (h: string) => hostPorts({ env: { ARIEL_STATE_HOME: h }, cwd: "/" });
const registry = () => join(home, "ports.json");

/** `n` consecutive ports that are free now, from a random place in 20000-59999. */
async function freeRange(n: number): Promise<[number, number]> {
  for (;;) {
    const first = 20_000 + Math.floor(Math.random() * 40_000);
    const all = Array.from({ length: n }, (_, i) => first + i);
    if ((await Promise.all(all.map(portIsFree))).every(Boolean)) return [first, first + n - 1];
  }
}

function listen(port: number): Promise<void> {
  return new Promise((resolve, reject) => {
    const s = createServer();
    servers.push(s);
    s.once("error", reject);
    s.listen({ port, host: "127.0.0.1" }, () => resolve());
  });
}

const A = { root: "/w/a", hash: "aaaaaaaaaaaaaaaa" };
const B = { root: "/w/b", hash: "bbbbbbbbbbbbbbbb" };

describe("the port registry", () => {
  it("leases the lowest free ports, keeps a task's own across calls, and lists every lease by port", async () => {
    home = tempDir("ariel-ports-");
    const ports = portsIn(home);
    const [lo, hi] = await freeRange(5);
    await listen(lo + 1);
    const t1 = await leaseTaskPorts(ports, { ...A, task: "t1", names: ["web", "api"], range: [lo, hi] });
    expect(t1).toEqual({ web: lo, api: lo + 2 });
    const again = await leaseTaskPorts(ports, { ...A, task: "t1", names: ["api", "db"], range: [lo, hi] });
    expect(again).toEqual({ web: lo, api: lo + 2, db: lo + 3 });
    // The same task id in another workspace is another task.
    expect(await leaseTaskPorts(ports, { ...B, task: "t1", names: ["web"], range: [lo, hi] })).toEqual({
      web: lo + 4,
    });
    const listed = await listPortLeases(ports);
    expect(listed.map((l) => [l.port, l.name, l.workspace.hash, l.task])).toEqual([
      [lo, "web", A.hash, "t1"],
      [lo + 2, "api", A.hash, "t1"],
      [lo + 3, "db", A.hash, "t1"],
      [lo + 4, "web", B.hash, "t1"],
    ]);
    expect(JSON.parse(readFileSync(registry(), "utf8")).v).toBe(1);
    expect(await leaseTaskPorts(ports, { ...A, task: "t2", names: [], range: [lo, hi] })).toEqual({});
  });

  it("a range with no free port left: ERR_PORTS_EXHAUSTED naming it, and nothing leased", async () => {
    home = tempDir("ariel-ports-");
    const ports = portsIn(home);
    const [lo, hi] = await freeRange(2);
    await leaseTaskPorts(ports, { ...A, task: "t1", names: ["web"], range: [lo, hi] });
    await listen(hi);
    const before = readFileSync(registry(), "utf8");
    const e = await arielErrorOf(
      leaseTaskPorts(ports, { ...A, task: "t2", names: ["a", "b"], range: [lo, hi] }),
    );
    expect([e.code, e.exit, e.message]).toEqual([
      "ERR_PORTS_EXHAUSTED",
      75,
      `no free port left in ${lo}-${hi} for "a" of task "t2"`,
    ]);
    expect(readFileSync(registry(), "utf8")).toBe(before);
  });

  it("releases the ports of the named tasks of one workspace only, and says which", async () => {
    home = tempDir("ariel-ports-");
    const ports = portsIn(home);
    const [lo, hi] = await freeRange(4);
    await leaseTaskPorts(ports, { ...A, task: "t1", names: ["web", "api"], range: [lo, hi] });
    await leaseTaskPorts(ports, { ...A, task: "t2", names: ["web"], range: [lo, hi] });
    await leaseTaskPorts(ports, { ...B, task: "t1", names: ["web"], range: [lo, hi] });
    const gone = await releaseTaskPorts(ports, { hash: A.hash, tasks: ["t1"] });
    expect(gone.map((l) => [l.port, l.task, l.workspace.hash])).toEqual([
      [lo, "t1", A.hash],
      [lo + 1, "t1", A.hash],
    ]);
    expect((await listPortLeases(ports)).map((l) => [l.port, l.task, l.workspace.hash])).toEqual([
      [lo + 2, "t2", A.hash],
      [lo + 3, "t1", B.hash],
    ]);
    expect(await releaseTaskPorts(ports, { hash: A.hash, tasks: ["t9"] })).toEqual([]);
  });

  it("no registry yet: none listed, a release writes none", async () => {
    home = tempDir("ariel-ports-");
    const ports = portsIn(home);
    expect(await listPortLeases(ports)).toEqual([]);
    expect(await releaseTaskPorts(ports, { hash: A.hash, tasks: ["t1"] })).toEqual([]);
    expect(existsSync(registry())).toBe(false);
  });

  it("no state dir at all: a lease or a listing is ERR_CANTCREAT with its hint; a release has nothing to do", async () => {
    home = tempDir("ariel-ports-");
    const none = hostPorts({ env: {}, cwd: "/" });
    const e = await arielErrorOf(listPortLeases(none));
    expect([e.code, e.message, e.hint]).toEqual([
      "ERR_CANTCREAT",
      "no user state dir to keep port leases in",
      "set ARIEL_STATE_HOME (or HOME) so ariel has a state dir",
    ]);
    const [lo, hi] = await freeRange(1);
    expect(
      (await arielErrorOf(leaseTaskPorts(none, { ...A, task: "t1", names: ["web"], range: [lo, hi] }))).code,
    ).toBe("ERR_CANTCREAT");
    expect(await releaseTaskPorts(none, { hash: A.hash, tasks: ["t1"] })).toEqual([]);
  });

  it("a damaged registry is ERR_RECORD_CORRUPT naming it; one that cannot be read is that error", async () => {
    home = tempDir("ariel-ports-");
    const ports = portsIn(home);
    writeFileSync(registry(), '{"v":1,"leases":[{"port":"x"}]}\n');
    const e = await arielErrorOf(listPortLeases(ports));
    expect([e.code, e.message]).toEqual([
      "ERR_RECORD_CORRUPT",
      `the port registry ${registry()} is not valid`,
    ]);
    writeFileSync(registry(), "{not json");
    expect((await arielErrorOf(releaseTaskPorts(ports, { hash: A.hash, tasks: ["t1"] }))).code).toBe(
      "ERR_RECORD_CORRUPT",
    );
    removeDir(registry());
    mkdirSync(registry());
    await expect(listPortLeases(ports)).rejects.toMatchObject({ code: "EISDIR" });
  });
});
