/**
 * One start of a run's child as its monitor makes it, on a real run directory: an unwired run
 * starts as planned, with no report variables of its own or a parent's; a tty run gets an
 * attention; a wired run gets its wiring's file (private), argv and a fresh secret each start;
 * a wiring that cannot be made starts the run unwired, said in monitor.log.
 */
import { existsSync, mkdirSync, readFileSync, statSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { WIRING_FILES } from "../../../runs/agents/wiring.ts";
import { runPaths } from "../../../runs/paths.ts";
import type { PlannedRun } from "../../../runs/plan.ts";
import { removeDir, tempDir } from "../../_fixture.ts";
import { REPORT_ENV } from "../protocol.ts";
import { captureMonitorLog } from "./_log_fixture.ts";
import { type Monitor, newActive } from "./context.ts";
import { startOf } from "./wire.ts";

const RUN = "20261204T120000Z-abc123";
let root: string;
const logged = captureMonitorLog();
let m: Monitor;
beforeEach(() => {
  root = tempDir("ariel-wire-");
  mkdirSync(runPaths(root, RUN).dir, { recursive: true });
  m = { root, socket: join(root, ".ariel/monitor.sock"), active: new Map() } as unknown as Monitor;
});
afterEach(() => {
  removeDir(root);
});

const planned = (over: Partial<PlannedRun>) =>
  ({
    runId: RUN,
    argv: ["claude", "-p", "fix it"],
    source: "api",
    tty: false,
    reports: null,
    ...over,
  }) as PlannedRun;
const stale = {
  [REPORT_ENV.socket]: "/x.sock",
  [REPORT_ENV.run]: "old",
  [REPORT_ENV.token]: "old",
  KEPT: "1",
};

describe("startOf", () => {
  it("an unwired piped run: its argv as planned, the report variables it inherited dropped, no attention", () => {
    const a = newActive(RUN, stale);
    const s = startOf(m, a, planned({}));
    expect(s).toEqual({ argv: ["claude", "-p", "fix it"], env: { KEPT: "1" }, files: [] });
    expect([a.attention, a.report]).toEqual([null, null]);
  });

  it("an unwired tty run gets an attention of its screen alone", () => {
    const a = newActive(RUN, {});
    startOf(m, a, planned({ tty: { cols: 80, rows: 24 } }));
    expect(a.attention).not.toBeNull();
    expect(a.attention!.agent).toBeNull();
    expect(a.report).toBeNull();
  });

  it("a wired Claude run: its settings file (0600), the argv that loads it, where to report and a fresh secret", () => {
    const a = newActive(RUN, stale);
    const s = startOf(m, a, planned({ reports: { agent: "claude", via: "claude-hooks" } }));
    const file = join(runPaths(root, RUN).dir, WIRING_FILES.claude);
    expect(s.argv).toEqual(["claude", "--settings", file, "-p", "fix it"]);
    expect(s.files).toEqual([file]);
    expect(statSync(file).mode & 0o777).toBe(0o600);
    expect(Object.keys(JSON.parse(readFileSync(file, "utf8")).hooks)).toContain("Stop");
    expect(s.env[REPORT_ENV.socket]).toBe(m.socket);
    expect(s.env[REPORT_ENV.run]).toBe(RUN);
    expect(s.env[REPORT_ENV.token]).toMatch(/^[A-Za-z0-9_-]{32}$/);
    expect(s.env.KEPT).toBe("1");
    expect(a.report?.token.toString()).toBe(s.env[REPORT_ENV.token]);
    expect(a.attention?.agent).toEqual({ name: "claude", via: "claude-hooks" });
    const again = startOf(m, a, planned({ reports: { agent: "claude", via: "claude-hooks" } }));
    expect(again.env[REPORT_ENV.token]).not.toBe(s.env[REPORT_ENV.token]);
  });

  it("a wired Codex run: notify in its argv, no file", () => {
    const a = newActive(RUN, {});
    const s = startOf(
      m,
      a,
      planned({ argv: ["codex", "exec", "x"], reports: { agent: "codex", via: "codex-notify" } }),
    );
    expect(s.argv[0]).toBe("codex");
    expect(s.argv[1]).toBe("-c");
    expect(s.argv[2]).toMatch(/^notify=\[.*"codex"\]$/);
    expect(s.argv.slice(3)).toEqual(["exec", "x"]);
    expect(s.files).toEqual([]);
  });

  it("a wiring that cannot be made: the run starts unwired and monitor.log says why", () => {
    const a = newActive(RUN, {});
    removeDir(runPaths(root, RUN).dir);
    const s = startOf(
      m,
      a,
      planned({ reports: { agent: "claude", via: "claude-hooks" }, tty: { cols: 80, rows: 24 } }),
    );
    expect(s.argv).toEqual(["claude", "-p", "fix it"]);
    expect(s.env[REPORT_ENV.token]).toBeUndefined();
    expect(a.report).toBeNull();
    expect(a.attention?.agent).toBeNull();
    expect(logged.join("")).toMatch(new RegExp(`run ${RUN}: claude's reports not wired: ENOENT`));
  });

  it("Gemini's system defaults that are not readable JSON leave the run unwired", () => {
    const defaults = join(root, "defaults.json");
    writeFileSync(defaults, "[1, 2]");
    const a = newActive(RUN, { GEMINI_CLI_SYSTEM_DEFAULTS_PATH: defaults });
    const s = startOf(m, a, planned({ argv: ["gemini"], reports: { agent: "gemini", via: "gemini-hooks" } }));
    expect(s.files).toEqual([]);
    expect(a.report).toBeNull();
    expect(logged.join("")).toContain("gemini's reports not wired");
  });

  it("a command that gives its own --settings is not wired over: unwired, said", () => {
    const a = newActive(RUN, {});
    const argv = ["claude", "--settings", "mine.json"];
    const s = startOf(m, a, planned({ argv, reports: { agent: "claude", via: "claude-hooks" } }));
    expect(s).toEqual({ argv, env: {}, files: [] });
    expect(logged.join("")).toContain(
      `run ${RUN}: claude's reports not wired: the command gives its own --settings`,
    );
  });

  it("what each agent's reports cover: Claude's every move, Codex's only its turn's end", () => {
    const a = newActive(RUN, {});
    startOf(m, a, planned({ reports: { agent: "claude", via: "claude-hooks" } }));
    expect(a.attention?.covers).toBe("all");
    startOf(m, a, planned({ argv: ["codex"], reports: { agent: "codex", via: "codex-notify" } }));
    expect(a.attention?.covers).toBe("turn-end");
  });

  it("Gemini without system defaults: its own defaults file is written and pointed at", () => {
    const a = newActive(RUN, { GEMINI_CLI_SYSTEM_DEFAULTS_PATH: join(root, "none.json") });
    const s = startOf(m, a, planned({ argv: ["gemini"], reports: { agent: "gemini", via: "gemini-hooks" } }));
    const file = join(runPaths(root, RUN).dir, WIRING_FILES.gemini);
    expect(s.files).toEqual([file]);
    expect(s.env.GEMINI_CLI_SYSTEM_DEFAULTS_PATH).toBe(file);
    expect(a.report).not.toBeNull();
  });

  it("Gemini's system defaults that cannot be read (a directory): unwired and said, the run still starts", () => {
    const a = newActive(RUN, { GEMINI_CLI_SYSTEM_DEFAULTS_PATH: root });
    const s = startOf(m, a, planned({ argv: ["gemini"], reports: { agent: "gemini", via: "gemini-hooks" } }));
    expect(s).toEqual({ argv: ["gemini"], env: { GEMINI_CLI_SYSTEM_DEFAULTS_PATH: root }, files: [] });
    expect(a.report).toBeNull();
    expect(logged.join("")).toMatch(new RegExp(`run ${RUN}: gemini's reports not wired: EISDIR`));
  });

  it("each move is a run.attention event; a move to waiting runs --notify, another move does not", async () => {
    const notified = join(root, "notified");
    const a = newActive(RUN, { PATH: process.env.PATH ?? "/usr/bin:/bin" });
    startOf(
      m,
      a,
      planned({ tty: { cols: 80, rows: 24 }, notify: ["sh", "-c", `echo "$ARIEL_NOTIFY" >> '${notified}'`] }),
    );
    a.attention!.screen({ activity: "idle", reason: "quiet" }, "$ ");
    a.attention!.screen({ activity: "waiting", reason: "pattern: (y/n)" }, "Proceed? (y/n)");
    for (let i = 0; i < 1000 && !existsSync(notified); i++) await new Promise((r) => setTimeout(r, 10));
    const events = readFileSync(runPaths(root, RUN).history, "utf8")
      .trim()
      .split("\n")
      .map((l) => JSON.parse(l))
      .filter((e) => e.event === "run.attention");
    expect(events.map((e) => [e.from, e.to, e.reason, e.by, e.source])).toEqual([
      ["busy", "idle", "quiet", "screen", "api"],
      ["idle", "waiting", "pattern: (y/n)", "screen", "api"],
    ]);
    expect(readFileSync(notified, "utf8")).toBe("waiting\n");
    a.attention!.close();
    await a.attention!.write();
  });
});
