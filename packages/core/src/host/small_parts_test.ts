/**
 * The host's small parts that other folders reach but no test beside them did: the crash-test
 * pause points, the baseline-JIT switch, the real ports, a runtime dependency's loading and a
 * warning with its hint.
 */
import { realpathSync } from "node:fs";
import { createRequire } from "node:module";
import { join } from "node:path";
import { afterEach, beforeEach, describe, expect, it, vi } from "vitest";
import { removeDir, tempDir, writeFile } from "./_fixture.ts";
import { nodeFs } from "./fs.ts";
import { nodeGit } from "./git.ts";
import { cryptoRandom, hostPorts, systemClock } from "./ports.ts";
import { loadRuntimeDependency } from "./runtime_dep.ts";
import { testPause } from "./test-hooks.ts";
import { warnWithHint } from "./warn.ts";

describe("testPause", () => {
  let written: string[];
  beforeEach(() => {
    vi.useFakeTimers();
    written = [];
    vi.spyOn(process.stderr, "write").mockImplementation((t) => {
      written.push(String(t));
      return true;
    });
  });
  afterEach(() => {
    vi.clearAllTimers();
    vi.useRealTimers();
    vi.restoreAllMocks();
  });

  /** Whether `p` has settled after `ms` of fake time. */
  async function settledAfter(p: Promise<void>, ms: number): Promise<boolean> {
    let done = false;
    void p.then(() => {
      done = true;
    });
    await vi.advanceTimersByTimeAsync(ms);
    return done;
  }

  it("without ARIEL_TEST_HOOKS=1, or at a point not named, it says nothing and goes on", async () => {
    const at = { ARIEL_TEST_PAUSE_AT: "a", ARIEL_TEST_PAUSE_MS: "1000" };
    expect(await settledAfter(testPause("a", at), 0)).toBe(true);
    expect(await settledAfter(testPause("a", { ...at, ARIEL_TEST_HOOKS: "true" }), 0)).toBe(true);
    expect(await settledAfter(testPause("c", { ...at, ARIEL_TEST_HOOKS: "1" }), 0)).toBe(true);
    expect(await settledAfter(testPause("a", { ARIEL_TEST_HOOKS: "1" }), 0)).toBe(true);
    expect(written).toEqual([]);
  });

  it("at a named point (of a list): it says where it is and sleeps ARIEL_TEST_PAUSE_MS", async () => {
    const env = { ARIEL_TEST_HOOKS: "1", ARIEL_TEST_PAUSE_AT: "a,b", ARIEL_TEST_PAUSE_MS: "300" };
    const p = testPause("b", env);
    expect(await settledAfter(p, 299)).toBe(false);
    expect(written).toEqual([`ariel-test-paused b ${process.pid}\n`]);
    expect(await settledAfter(p, 1)).toBe(true);
  });

  it("with ARIEL_TEST_RELEASE_FILE it goes on once that file exists", async () => {
    const dir = tempDir("ariel-pause-");
    try {
      const release = join(dir, "go");
      const env = { ARIEL_TEST_HOOKS: "1", ARIEL_TEST_PAUSE_AT: "a", ARIEL_TEST_RELEASE_FILE: release };
      const p = testPause("a", { ...env, ARIEL_TEST_PAUSE_MS: "10" });
      expect(await settledAfter(p, 5000)).toBe(false);
      writeFile(release, "");
      expect(await settledAfter(p, 50)).toBe(true);
    } finally {
      removeDir(dir);
    }
  });

  it("without a time or a release file (or a time of 0) it waits until killed", async () => {
    const env = { ARIEL_TEST_HOOKS: "1", ARIEL_TEST_PAUSE_AT: "a" };
    expect(await settledAfter(testPause("a", env), 60_000)).toBe(false);
    expect(await settledAfter(testPause("a", { ...env, ARIEL_TEST_PAUSE_MS: "0" }), 60_000)).toBe(false);
    expect(vi.getTimerCount()).toBe(2); // each holds the process with a timer of its own
  });
});

describe("preferBaselineJit", () => {
  afterEach(() => {
    vi.restoreAllMocks();
    vi.resetModules();
    vi.unstubAllGlobals();
  });

  /** A fresh copy of jit.ts (its once-only flag unset) with node:v8 stood in for. */
  async function fresh(setFlags: (flag: string) => void) {
    const real = process.getBuiltinModule;
    const asked: string[] = [];
    vi.spyOn(process, "getBuiltinModule").mockImplementation(((id: string) => {
      asked.push(id);
      return id === "node:v8" ? { setFlagsFromString: setFlags } : real(id);
    }) as typeof process.getBuiltinModule);
    const { preferBaselineJit } = await import("./jit.ts");
    return { preferBaselineJit, asked };
  }

  it("caps V8 at its baseline compiler once per process", async () => {
    const flags: string[] = [];
    const { preferBaselineJit, asked } = await fresh((f) => flags.push(f));
    preferBaselineJit();
    preferBaselineJit();
    expect(flags).toEqual(["--max-opt=1"]);
    expect(asked).toEqual(["node:v8"]);
  });

  it("a V8 that does not know the flag keeps its tiering, quietly", async () => {
    const { preferBaselineJit } = await fresh(() => {
      throw new Error("unknown flag");
    });
    expect(() => preferBaselineJit()).not.toThrow();
  });

  it("under Deno it does nothing", async () => {
    vi.stubGlobal("Deno", {});
    const flags: string[] = [];
    const { preferBaselineJit, asked } = await fresh((f) => flags.push(f));
    preferBaselineJit();
    expect([flags, asked]).toEqual([[], []]);
  });
});

describe("hostPorts", () => {
  afterEach(() => vi.useRealTimers());

  it("the real ports, each replaced by an override", () => {
    const ports = hostPorts();
    expect(ports).toEqual({
      fs: nodeFs,
      git: nodeGit,
      clock: systemClock,
      random: cryptoRandom,
      env: process.env,
      cwd: process.cwd(),
    });
    const env = { A: "1" };
    expect(hostPorts({ env, cwd: "/x" })).toEqual({ ...ports, env, cwd: "/x" });
  });

  it("the system clock is Date.now; the randomness gives the bytes asked for", () => {
    vi.useFakeTimers({ now: 1_234_567 });
    expect(systemClock.now()).toBe(1_234_567);
    const a = cryptoRandom.bytes(16);
    expect([a.length, cryptoRandom.bytes(0).length]).toEqual([16, 0]);
    expect(Buffer.from(a).equals(Buffer.from(cryptoRandom.bytes(16)))).toBe(false);
  });
});

describe("loadRuntimeDependency", () => {
  it("with require at hand (a bundle; and here, where each module gets one): the package required by its real path", async () => {
    const req = createRequire(import.meta.url);
    const yaml = await loadRuntimeDependency("yaml");
    expect(typeof yaml.parse).toBe("function");
    expect(yaml).toBe(req(realpathSync(req.resolve("yaml"))));
  });
});

describe("warnWithHint", () => {
  it("one warning: its code and message, the hint after the context", () => {
    const calls: unknown[][] = [];
    const log = { warn: (...a: unknown[]) => calls.push(a) };
    warnWithHint(log as never, { code: "WARN_X", message: "m", hint: "h", context: { a: 1 } });
    warnWithHint(log as never, { code: "WARN_Y", message: "n", hint: "i" });
    expect(calls).toEqual([
      ["WARN_X", "m", { a: 1, hint: "h" }],
      ["WARN_Y", "n", { hint: "i" }],
    ]);
    expect(Object.keys(calls[0]?.[2] as object)).toEqual(["a", "hint"]);
  });
});
