/**
 * Port leases end to end (docs/lifecycle.md, Ports), real git, the built CLIs: one port per name
 * per task from the configured range, unique across concurrent adds, a port another program
 * listens on skipped, given to ariel-spawn's children, released when the task closes (that
 * workspace's task alone: a task of the same id in another workspace keeps its own), and a
 * crashed add's leases given back by reconcile.
 */
import { createHash } from "node:crypto";
import { createServer, type Server } from "node:net";
import { join } from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { checkRecord, RECORD_SCHEMAS } from "../packages/core/src/schema/mod.ts";
import { serve } from "./fleet_helpers.ts";
import { arielIn, records, startPausedAt } from "./helpers/cli.ts";
import { git, initRepo, removeDir, tempDir, writeFile } from "./helpers/git.ts";
import { errors, taskFile, wt } from "./worktree-fixtures.ts";

let ws: string;
let state: string;
/** A range of this test process's own, away from the default one other suites may use. */
const BASE = 40000 + (process.pid % 500) * 40;
const env = () => ({ ARIEL_STATE_HOME: state });
const run = (args: string[]) => wt(ws, args, { env: env() });

function config(c: Record<string, unknown>): void {
  writeFile(join(ws, "ariel.config.json"), `${JSON.stringify(c)}\n`);
}

async function leases(): Promise<Record<string, unknown>[]> {
  const r = await run(["ports", "--json"]);
  expect(r.code).toBe(0);
  const recs = records(r.stdout);
  for (const l of recs) checkRecord(RECORD_SCHEMAS.port!, l, "ports --json");
  return recs;
}

function listen(port: number): Promise<Server> {
  return new Promise((resolve, reject) => {
    const s = createServer();
    s.once("error", reject);
    s.listen({ port, host: "127.0.0.1" }, () => resolve(s));
  });
}

beforeEach(() => {
  ws = tempDir("ariel-ports-");
  state = tempDir("ariel-ports-state-");
  initRepo(join(ws, "api"), { "README.md": "api\n" });
});
afterEach(() => {
  removeDir(ws);
  removeDir(state);
});

describe("port leases", () => {
  it("give a task one port per name, shown by list and ports, released when it closes", async () => {
    config({ ports: ["web", "api"], portRange: [BASE, BASE + 9] });
    const add = await run(["add", "--source", "api", "--task", "t1", "--json"]);
    expect(add.code).toBe(0);
    expect(records(add.stdout)[0]?.ports).toEqual({ web: BASE, api: BASE + 1 });
    expect(taskFile(ws, "t1").ports).toEqual({ web: BASE, api: BASE + 1 });
    const list = await run(["list", "--no-bytes"]);
    expect(list.stdout).toBe(
      `t1\tapi\tactive\tariel:t1\tariel/t1\tweb=${BASE},api=${BASE + 1}\t-\t${join(ws, ".ariel/worktrees/t1/api")}\n`,
    );
    expect(
      (await leases()).map((l) => [l.type, l.port, l.name, l.task, (l.workspace as { root: string }).root]),
    ).toEqual([
      ["port", BASE, "web", "t1", ws],
      ["port", BASE + 1, "api", "t1", ws],
    ]);
    const human = await run(["ports"]);
    expect(human.stdout).toBe(`${BASE}\tweb\tt1\t${ws}\n${BASE + 1}\tapi\tt1\t${ws}\n`);

    expect((await run(["remove", "--task", "t1"])).code).toBe(0);
    expect(await leases()).toEqual([]);
    expect(taskFile(ws, "t1").ports).toBeUndefined();
    // Restored, the task leases again.
    expect((await run(["restore", "--task", "t1"])).code).toBe(0);
    expect(taskFile(ws, "t1").ports).toEqual({ web: BASE, api: BASE + 1 });
  });

  it("are in the fleet's task records", async () => {
    config({ ports: ["web"], portRange: [BASE + 9, BASE + 9] });
    expect((await run(["add", "--source", "api", "--task", "t1"])).code).toBe(0);
    const server = await serve([], { ARIEL_STATE_HOME: state });
    try {
      const hash = createHash("sha256").update(ws).digest("hex").slice(0, 16);
      const res = await fetch(`${server.url}api/workspaces/${hash}/tasks`);
      const tasks = (await res.json()) as Record<string, unknown>[];
      expect(tasks.map((t) => [t.taskId, t.ports])).toEqual([["t1", { web: BASE + 9 }]]);
    } finally {
      await server.stop();
    }
  });

  it("skip a port another program listens on", async () => {
    config({ ports: ["web"], portRange: [BASE + 10, BASE + 19] });
    const server = await listen(BASE + 10);
    try {
      const add = await run(["add", "--source", "api", "--task", "t1", "--json"]);
      expect([add.code, records(add.stdout)[0]?.ports]).toEqual([0, { web: BASE + 11 }]);
    } finally {
      server.close();
    }
  });

  it("refuse a task when the range is used up (75), making nothing", async () => {
    config({ ports: ["web"], portRange: [BASE + 20, BASE + 20] });
    expect((await run(["add", "--source", "api", "--task", "t1"])).code).toBe(0);
    const second = await run(["add", "--source", "api", "--task", "t2", "--json"]);
    expect(second.code).toBe(75);
    expect(errors(second.stderr).map((e) => [e.code, e.message])).toEqual([
      ["ERR_PORTS_EXHAUSTED", `no free port left in ${BASE + 20}-${BASE + 20} for "web" of task "t2"`],
    ]);
    expect(git(join(ws, "api"), "branch", "--list", "ariel/t2")).toBe("");
    expect((await leases()).map((l) => l.task)).toEqual(["t1"]);
  });

  it("reach ariel-spawn's children as ARIEL_PORT_<NAME> and PORT", async () => {
    config({ ports: ["web", "api"], portRange: [BASE + 21, BASE + 29] });
    const r = await arielIn(
      "spawn",
      ws,
      [
        "--source",
        "api",
        "--isolate",
        "--task",
        "s1",
        "--",
        "sh",
        "-c",
        'echo "$PORT $ARIEL_PORT_WEB $ARIEL_PORT_API"',
      ],
      { env: env() },
    );
    expect([r.code, r.stdout]).toEqual([0, `${BASE + 21} ${BASE + 21} ${BASE + 22}\n`]);
    // The run removed its clean worktree: the task closed and gave its ports back.
    expect(await leases()).toEqual([]);
  });

  it("left by a crashed add are given back by reconcile", async () => {
    config({ ports: ["web"], portRange: [BASE + 30, BASE + 39] });
    const add = await startPausedAt(
      "worktree",
      "add:after-ports",
      ["add", "--source", "api", "--task", "t1"],
      {
        cwd: ws,
        env: { ARIEL_WORKSPACE_ROOT: ws, ...env() },
      },
    );
    expect(await add.kill()).toEqual({ code: null, signal: "SIGKILL" });
    expect((await leases()).map((l) => [l.task, l.port])).toEqual([["t1", BASE + 30]]);
    const fix = await run(["reconcile", "--json"]);
    expect(fix.code).toBe(0);
    expect(records(fix.stdout).filter((s) => s.fix === "release-ports")).toEqual([
      {
        v: 1,
        type: "plan",
        action: "worktree.reconcile",
        task: "t1",
        fix: "release-ports",
        ports: [BASE + 30],
      },
    ]);
    expect(await leases()).toEqual([]);
  });

  // The registry is the machine's: a task is named by its workspace's hash and its id, so the
  // same id in another workspace is another task, and closing one gives back only its ports.
  it.each([
    {
      close: "remove",
      lease: (root: string) => wt(root, ["add", "--source", "api", "--task", "t1"], { env: env() }),
      end: (root: string) => wt(root, ["remove", "--task", "t1", "--json"], { env: env() }),
      planned: [],
    },
    {
      close: "reconcile after an add killed -9",
      lease: async (root: string) => {
        const add = await startPausedAt(
          "worktree",
          "add:after-ports",
          ["add", "--source", "api", "--task", "t1"],
          {
            cwd: root,
            env: { ARIEL_WORKSPACE_ROOT: root, ...env() },
          },
        );
        return add.kill();
      },
      end: (root: string) => wt(root, ["reconcile", "--json"], { env: env() }),
      planned: [
        {
          v: 1,
          type: "plan",
          action: "worktree.reconcile",
          task: "t1",
          fix: "release-ports",
          ports: [BASE, BASE + 1],
        },
      ],
    },
  ])(
    "of two workspaces' tasks of one id: closing one ($close) leaves the other's",
    async ({ lease, end, planned }) => {
      const other = tempDir("ariel-ports-other-");
      try {
        initRepo(join(other, "api"), { "README.md": "api\n" });
        for (const root of [ws, other])
          writeFile(
            join(root, "ariel.config.json"),
            `${JSON.stringify({ ports: ["web", "api"], portRange: [BASE, BASE + 9] })}\n`,
          );
        await lease(ws);
        expect((await wt(other, ["add", "--source", "api", "--task", "t1"], { env: env() })).code).toBe(0);
        const held = async () =>
          (await leases()).map((l) => [l.port, l.name, l.task, (l.workspace as { root: string }).root]);
        expect(await held()).toEqual([
          [BASE, "web", "t1", ws],
          [BASE + 1, "api", "t1", ws],
          [BASE + 2, "web", "t1", other],
          [BASE + 3, "api", "t1", other],
        ]);
        const r = await end(ws);
        expect(r.code, r.stderr).toBe(0);
        expect(records(r.stdout).filter((s) => s.fix === "release-ports")).toEqual(planned);
        expect(await held()).toEqual([
          [BASE + 2, "web", "t1", other],
          [BASE + 3, "api", "t1", other],
        ]);
        expect(taskFile(other, "t1").ports).toEqual({ web: BASE + 2, api: BASE + 3 });
      } finally {
        removeDir(other);
      }
    },
  );

  it("are distinct across 50 concurrent adds", async () => {
    const wide = 30000 + (process.pid % 150) * 60;
    config({ ports: ["web"], portRange: [wide, wide + 59] });
    const tasks = Array.from({ length: 50 }, (_, i) => `p${i}`);
    const results = await Promise.all(
      tasks.map((t) => wt(ws, ["add", "--source", "api", "--task", t, "--json"], { env: env() })),
    );
    expect(results.map((r) => r.code)).toEqual(tasks.map(() => 0));
    const ports = results.map((r) => (records(r.stdout)[0]?.ports as { web: number } | undefined)?.web);
    expect(new Set(ports).size).toBe(50);
    expect((await leases()).map((l) => l.port).sort()).toEqual([...ports].sort());
  }, 180_000);
});
