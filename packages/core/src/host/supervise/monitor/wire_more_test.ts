/**
 * More of one start of a run's child, on a real run directory: a wired tty run keeps its wired
 * attention; only Gemini reads Gemini's system defaults, from the platform's own path when the
 * environment names none (an empty file is no defaults); --notify runs on a move to waiting
 * alone (runNotify replaced by a recorder, so each move's effect is seen at once).
 */
import { mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { afterEach, beforeEach, describe, expect, it, vi } from "vitest";
import { WIRING_FILES } from "../../../runs/agents/wiring.ts";
import { runPaths } from "../../../runs/paths.ts";
import type { PlannedRun } from "../../../runs/plan.ts";
import { removeDir, tempDir } from "../../_fixture.ts";
import { REPORT_ENV } from "../protocol.ts";
import { captureMonitorLog } from "./_log_fixture.ts";
import { type Monitor, newActive } from "./context.ts";
import { startOf } from "./wire.ts";

const fake = vi.hoisted(() => ({
  notified: [] as unknown[][],
  /** Paths read as if they were other files (machine-wide paths a test must not write). */
  redirect: new Map<string, string>(),
}));

vi.mock("../notify.ts", () => ({
  runNotify: (...args: unknown[]) => {
    fake.notified.push(args);
    return Promise.resolve();
  },
}));

vi.mock("node:fs", async (importOriginal) => {
  const fs = await importOriginal<typeof import("node:fs")>();
  const readFileSync = ((p: string, o?: never) =>
    fs.readFileSync(fake.redirect.get(String(p)) ?? p, o)) as typeof fs.readFileSync;
  return { ...fs, readFileSync, default: { ...fs, readFileSync } };
});

const RUN = "20261204T120000Z-def456";
const LINUX_DEFAULTS = "/etc/gemini-cli/system-defaults.json";
const MAC_DEFAULTS = "/Library/Application Support/GeminiCli/system-defaults.json";
let root: string;
let m: Monitor;
const logged = captureMonitorLog();
beforeEach(() => {
  root = tempDir("ariel-wire-more-");
  mkdirSync(runPaths(root, RUN).dir, { recursive: true });
  m = { root, socket: join(root, ".ariel/monitor.sock"), active: new Map() } as unknown as Monitor;
  fake.notified.length = 0;
  fake.redirect.clear();
});
afterEach(() => {
  removeDir(root);
});

const planned = (over: Partial<PlannedRun>) =>
  ({
    runId: RUN,
    argv: ["claude", "-p", "go"],
    source: "api",
    tty: false,
    reports: null,
    ...over,
  }) as PlannedRun;
const gemini = planned({ argv: ["gemini"], reports: { agent: "gemini", via: "gemini-hooks" } });
const geminiFile = () => join(runPaths(root, RUN).dir, WIRING_FILES.gemini);
const written = () => JSON.parse(readFileSync(geminiFile(), "utf8")) as Record<string, unknown>;

describe("startOf: the attention of a wired tty run", () => {
  it("is its wiring's (the agent's reports), the same one its reports move", () => {
    const a = newActive(RUN, {});
    const s = startOf(m, a, {
      ...planned({ reports: { agent: "claude", via: "claude-hooks" } }),
      tty: { cols: 80, rows: 24 },
    });
    expect(s.env[REPORT_ENV.run]).toBe(RUN);
    expect(a.attention?.agent).toEqual({ name: "claude", via: "claude-hooks" });
    expect(a.attention?.covers).toBe("all");
    expect(a.report?.attention).toBe(a.attention);
  });
});

describe("startOf: Gemini's system defaults", () => {
  it("a Claude run does not read them: defaults Gemini could not read leave it wired", () => {
    const a = newActive(RUN, { GEMINI_CLI_SYSTEM_DEFAULTS_PATH: root });
    const s = startOf(m, a, planned({ reports: { agent: "claude", via: "claude-hooks" } }));
    expect(s.files).toEqual([join(runPaths(root, RUN).dir, WIRING_FILES.claude)]);
    expect(a.report).not.toBeNull();
    expect(logged.join("")).toBe("");
  });

  it("an empty defaults file is no defaults: the run is wired with ariel's hooks alone", () => {
    const empty = join(root, "empty.json");
    writeFileSync(empty, "");
    const s = startOf(m, newActive(RUN, { GEMINI_CLI_SYSTEM_DEFAULTS_PATH: empty }), gemini);
    expect(s.files).toEqual([geminiFile()]);
    expect(s.env.GEMINI_CLI_SYSTEM_DEFAULTS_PATH).toBe(geminiFile());
    expect(Object.keys(written())).toEqual(["hooks"]);
  });

  it.each([
    ["linux", LINUX_DEFAULTS],
    ["darwin", MAC_DEFAULTS],
  ])("on %s, with no path in the environment, the machine's own file (%s) is extended", (platform, path) => {
    const mine = join(root, "machine.json");
    writeFileSync(mine, JSON.stringify({ general: { vimMode: true } }));
    fake.redirect.set(path, mine);
    const saved = Object.getOwnPropertyDescriptor(process, "platform")!;
    Object.defineProperty(process, "platform", { ...saved, value: platform });
    try {
      const s = startOf(m, newActive(RUN, {}), gemini);
      expect(s.env.GEMINI_CLI_SYSTEM_DEFAULTS_PATH).toBe(geminiFile());
    } finally {
      Object.defineProperty(process, "platform", saved);
    }
    expect(written().general).toEqual({ vimMode: true });
    expect(Object.keys(written())).toEqual(["general", "hooks"]);
  });
});

describe("startOf: --notify on the run's moves", () => {
  const withNotify = planned({ tty: { cols: 80, rows: 24 }, notify: ["true"] });

  it("a move to waiting runs it once its event is told; moves to idle or busy do not", async () => {
    const a = newActive(RUN, { PATH: "/usr/bin:/bin" });
    startOf(m, a, withNotify);
    a.attention!.screen({ activity: "idle", reason: "quiet" }, "$ ");
    await a.moves;
    expect(fake.notified).toEqual([]);
    a.attention!.screen({ activity: "waiting", reason: "pattern: (y/n)" }, "Proceed? (y/n)");
    await a.moves;
    expect(fake.notified).toEqual([[root, withNotify, { PATH: "/usr/bin:/bin" }, { event: "waiting" }]]);
    a.attention!.screen({ activity: "busy", reason: "output" }, "working");
    await a.moves;
    expect(fake.notified).toHaveLength(1);
    a.attention!.close();
    await a.attention!.write();
  });

  it("a run without --notify: a move to waiting runs nothing", async () => {
    const a = newActive(RUN, {});
    startOf(m, a, planned({ tty: { cols: 80, rows: 24 } }));
    a.attention!.screen({ activity: "waiting", reason: "pattern: (y/n)" }, "Proceed? (y/n)");
    await a.moves;
    expect(fake.notified).toEqual([]);
    a.attention!.close();
    await a.attention!.write();
  });
});
