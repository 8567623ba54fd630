import { chmodSync, mkdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import type { SpawnUnit } from "../../spawn/plan.ts";
import { removeDir, tempDir } from "../_fixture.ts";
import { Reporter } from "../cli/mod.ts";
import { type ExecuteOptions, executeUnits } from "./execute.ts";
import type { Interrupts } from "./interrupts.ts";
import type { ForegroundSandboxes } from "./sandbox.ts";

// executeUnits on its own, with real children: what stops them (a closed stdout, a signal while
// one starts, --fail-fast), what each outcome and event says, and that it lets go of its
// listeners when it returns.

let dir: string;
beforeEach(() => {
  dir = tempDir("ariel-execute-");
});
afterEach(() => {
  removeDir(dir);
});

interface Emitted {
  event: string;
  source: string | null;
  fields: Record<string, unknown>;
}

/** An Interrupts whose signals the test sends, and whose listeners it can count. */
function fakeInterrupts() {
  const listeners = new Set<(signal: NodeJS.Signals, count: number) => void>();
  const fake = {
    received: null as NodeJS.Signals | null,
    count: 0,
    listeners,
    listen(fn: (signal: NodeJS.Signals, count: number) => void) {
      listeners.add(fn);
      return () => listeners.delete(fn);
    },
    send(signal: NodeJS.Signals) {
      fake.received ??= signal;
      fake.count++;
      for (const fn of [...listeners]) fn(signal, fake.count);
    },
  };
  return fake;
}

function unit(source: string | null, argv: string[], extra: Partial<SpawnUnit> = {}): SpawnUnit {
  return {
    source,
    sources: source === null ? [] : [source],
    cwd: dir,
    worktree: null,
    branch: null,
    overlay: [],
    legs: [],
    argv,
    env: {},
    ...extra,
  };
}

function harness(units: SpawnUnit[], extra: Partial<ExecuteOptions> = {}) {
  const events: Emitted[] = [];
  const out: string[] = [];
  const err: string[] = [];
  const log: string[] = [];
  const interrupts = fakeInterrupts();
  const controller = new AbortController();
  const options: ExecuteOptions = {
    units,
    jobs: units.length,
    failFast: false,
    graceMs: 200,
    json: false,
    stdout: { write: (t) => void out.push(t) },
    stderr: { write: (t) => void err.push(t) },
    log: new Reporter("ariel-spawn", true, { write: (t) => void log.push(t) }),
    emit: (event, source, fields = {}) => void events.push({ event, source, fields }),
    inheritedEnv: { PATH: process.env.PATH },
    stdinFree: false,
    interrupts: interrupts as unknown as Interrupts,
    abort: controller.signal,
    now: Date.now,
    ...extra,
  };
  const lines = (source: string | null) =>
    events.filter((e) => e.event === "output" && e.source === source).map((e) => e.fields.line);
  /** Resolves once every named source wrote a line "up". */
  const up = async (...sources: (string | null)[]) => {
    for (let i = 0; i < 1000; i++) {
      if (sources.every((s) => lines(s).includes("up"))) return;
      await new Promise((r) => setTimeout(r, 10));
    }
    throw new Error(`not up: ${sources.join(",")}`);
  };
  return { options, events, out, err, log, interrupts, controller, lines, up };
}

const UP_THEN_SLEEP = ["sh", "-c", "echo up; exec sleep 5"];
const UP_IGNORING_TERM = ["sh", "-c", "trap '' TERM; echo up; sleep 5"];

describe("executeUnits", () => {
  it("a closed stdout (the abort) terminates every child, with SIGKILL after the grace for one that ignores SIGTERM", async () => {
    const h = harness([unit("api", UP_THEN_SLEEP), unit("web", UP_IGNORING_TERM)]);
    const done = executeUnits(h.options);
    await h.up("api", "web");
    h.controller.abort();
    const outcomes = await done;
    expect(outcomes).toStrictEqual([
      { source: "api", status: 143, signal: "SIGTERM" },
      { source: "web", status: 137, signal: "SIGKILL" },
    ]);
  });

  it.each([
    ["a signal already received", (h: ReturnType<typeof harness>) => h.interrupts.send("SIGINT")],
    ["stdout already closed", (h: ReturnType<typeof harness>) => h.controller.abort()],
  ])("%s: nothing starts, and `after` hears of every unit as never started", async (_, before) => {
    const h = harness([unit("api", ["true"]), unit("web", ["true"])]);
    before(h);
    const after: [string | null, boolean][] = [];
    const outcomes = await executeUnits({
      ...h.options,
      after: async (u, started) => void after.push([u.source, started]),
    });
    expect(outcomes).toStrictEqual([
      { source: "api", status: null },
      { source: "web", status: null },
    ]);
    expect(after).toEqual([
      ["api", false],
      ["web", false],
    ]);
    expect(h.events).toEqual([]);
  });

  it("a unit that never ran is fine without an `after`", async () => {
    const h = harness([unit("api", ["true"])]);
    h.controller.abort();
    expect(await executeUnits(h.options)).toStrictEqual([{ source: "api", status: null }]);
  });

  it.each([
    ["a ^C", (h: ReturnType<typeof harness>) => h.interrupts.send("SIGINT"), "SIGINT", 130],
    ["a closed stdout", (h: ReturnType<typeof harness>) => h.controller.abort(), "SIGTERM", 143],
  ])("%s while a child is being started still reaches it", async (_, during, signal, status) => {
    const h = harness([unit("api", ["sleep", "5"])]);
    const sandboxes = {
      wrap: async () => {
        during(h);
        return null;
      },
      idOf: () => null,
      started: async () => {},
      settle: async () => {},
    } as unknown as ForegroundSandboxes;
    const outcomes = await executeUnits({ ...h.options, sandboxes });
    expect(outcomes).toStrictEqual([{ source: "api", status, signal }]);
  });

  it("a sandbox id without a sandbox adds nothing to process.started; a plain exit records no signal", async () => {
    const h = harness([unit("api", ["true"])]);
    const sandboxes = {
      wrap: async () => null,
      idOf: () => "sb-1",
      started: async () => {},
      settle: async () => {},
    } as unknown as ForegroundSandboxes;
    const outcomes = await executeUnits({ ...h.options, sandboxes });
    expect(outcomes).toStrictEqual([{ source: "api", status: 0 }]);
    const started = h.events.find((e) => e.event === "process.started");
    expect(Object.keys(started?.fields ?? {}).sort()).toEqual(["argv", "cwd", "pid"]);
  });

  it("a sandboxed child that shares the terminal's stdin still runs in a process group of its own", async () => {
    const script = "read -r _ _ _ _ pgid _ < /proc/$$/stat; echo $$ $pgid";
    const h = harness([unit("api", ["true"])], { stdinFree: true });
    const sandboxes = {
      wrap: async () => ["sh", "-c", script],
      idOf: () => null,
      started: async () => {},
      settle: async () => {},
    } as unknown as ForegroundSandboxes;
    expect(await executeUnits({ ...h.options, sandboxes })).toStrictEqual([{ source: "api", status: 0 }]);
    const [pid, pgid] = String(h.lines("api")[0]).split(" ");
    expect(pid).toMatch(/^\d+$/);
    expect(pgid).toBe(pid);
  });

  it("--fail-fast: a failure terminates the others with SIGTERM, and `after` hears of each as started", async () => {
    const h = harness([unit("api", ["sh", "-c", "exit 3"]), unit("web", UP_THEN_SLEEP)], { failFast: true });
    const after: [string | null, boolean][] = [];
    const outcomes = await executeUnits({
      ...h.options,
      after: async (u, started) => void after.push([u.source, started]),
    });
    expect(outcomes[0]).toStrictEqual({ source: "api", status: 3 });
    // web may be stopped before or after it said "up"; either way by SIGTERM, not by the grace's SIGKILL
    expect(outcomes[1]).toStrictEqual({ source: "web", status: 143, signal: "SIGTERM" });
    expect(after.sort()).toEqual([
      ["api", true],
      ["web", true],
    ]);
  });

  it("several units: each line prefixed with its label, a --span unit's naming all its sources", async () => {
    const span = unit(null, ["sh", "-c", "echo up"], { sources: ["api", "web"] });
    const h = harness([unit("db", ["echo", "up"]), span]);
    await executeUnits(h.options);
    expect(h.out.sort()).toEqual(["[api,web] up\n", "[db]      up\n"]);
    const started = h.events.filter((e) => e.event === "process.started").map((e) => e.fields.sources);
    expect(started.sort()).toEqual([["api", "web"], undefined]);
  });

  it("each unit's command is looked up along its own PATH, not the first unit's", async () => {
    for (const name of ["a", "b"]) {
      mkdirSync(join(dir, name));
      writeFileSync(join(dir, name, "tool"), `#!/bin/sh\necho ${name}\n`);
      chmodSync(join(dir, name, "tool"), 0o755);
    }
    const h = harness(
      [
        unit("api", ["tool"], { env: { PATH: join(dir, "a") } }),
        unit("web", ["tool"], { env: { PATH: join(dir, "b") } }),
      ],
      { jobs: 1 },
    );
    await executeUnits(h.options);
    expect([h.lines("api"), h.lines("web")]).toEqual([["a"], ["b"]]);
  });

  it("lets go of the signal listener when it returns", async () => {
    const h = harness([unit("api", ["true"])]);
    await executeUnits(h.options);
    expect(h.interrupts.listeners.size).toBe(0);
  });
});
