/**
 * Whether this machine can make a sandbox, asked of real programs on a PATH the test makes: each
 * missing tool and each way a trial sandbox fails is ERR_SANDBOX_UNAVAILABLE (69) in its own
 * words; a success is remembered for the boot and these very tools, and only then.
 */
import {
  chmodSync,
  existsSync,
  mkdirSync,
  readFileSync,
  statSync,
  symlinkSync,
  writeFileSync,
} from "node:fs";
import { join } from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { arielErrorOf } from "../../_fixture.ts";
import { removeDir, tempDir } from "../_fixture.ts";
import { bootId } from "../runs/identity.ts";
import { findOnPath } from "../which.ts";
import { requireSandboxTools } from "./probe.ts";

let dir: string;
let bin: string;
let state: string;
beforeEach(() => {
  dir = tempDir("ariel-probe-");
  bin = join(dir, "bin");
  state = join(dir, "state");
  mkdirSync(bin);
});
afterEach(() => removeDir(dir));

const realEnv = findOnPath("env", process.env.PATH)!;
const realBwrap = findOnPath("bwrap", process.env.PATH);

/** A program `name` in the test's bin that runs `script` (sh). */
function program(name: string, script: string): string {
  const file = join(bin, name);
  writeFileSync(file, `#!/bin/sh\n${script}\n`);
  chmodSync(file, 0o755);
  return file;
}

/** The test's bin with `env` linked in, as the only PATH. */
function withEnv(): Record<string, string> {
  symlinkSync(realEnv, join(bin, "env"));
  return { PATH: bin, ARIEL_STATE_HOME: state };
}

const probeFile = () => join(state, "sandbox-probe.json");
const stamp = (f: string) => `${f}:${statSync(f).size}:${statSync(f).mtimeMs}`;

describe("requireSandboxTools", () => {
  it("no bwrap on PATH: unavailable, with the PATH it looked in", async () => {
    const e = await arielErrorOf(requireSandboxTools({ PATH: bin }, dir));
    expect([e.code, e.exit, e.message, e.context]).toEqual([
      "ERR_SANDBOX_UNAVAILABLE",
      69,
      "--sandbox needs bubblewrap (bwrap), which is not on PATH",
      { path: bin },
    ]);
    expect((await arielErrorOf(requireSandboxTools({}, dir))).context).toEqual({ path: null });
  });

  it("no env(1) on PATH: unavailable, naming the coreutils it needs", async () => {
    program("bwrap", "exit 0");
    const e = await arielErrorOf(requireSandboxTools({ PATH: bin }, dir));
    expect([e.code, e.message]).toEqual([
      "ERR_SANDBOX_UNAVAILABLE",
      "--sandbox needs env(1) on PATH (GNU coreutils 8.31 or newer)",
    ]);
  });

  it("a trial sandbox that fails: bubblewrap's first line, the hint, nothing remembered", async () => {
    const bwrap = program(
      "bwrap",
      "echo 'bwrap: No permissions to create new namespace' >&2; echo second >&2; exit 1",
    );
    const e = await arielErrorOf(requireSandboxTools(withEnv(), dir));
    expect([e.code, e.message, e.context]).toEqual([
      "ERR_SANDBOX_UNAVAILABLE",
      "bubblewrap cannot make a sandbox here: bwrap: No permissions to create new namespace",
      { bwrap },
    ]);
    expect(e.hint).toMatch(/^allow unprivileged user namespaces .*docs\/sandbox\.md$/);
    expect(existsSync(probeFile())).toBe(false);
  });

  it("a trial that fails without a word says its exit", async () => {
    program("bwrap", "exit 7");
    const e = await arielErrorOf(requireSandboxTools(withEnv(), dir));
    expect(e.message).toBe("bubblewrap cannot make a sandbox here: exit 7");
  });

  it("an env(1) without --ignore-signal: unavailable, naming coreutils 8.31", async () => {
    program("bwrap", "echo \"env: unrecognized option '--ignore-signal=INT'\" >&2; exit 125");
    const env = withEnv();
    const e = await arielErrorOf(requireSandboxTools(env, dir));
    expect(e.message).toBe(
      "--sandbox needs GNU env(1) 8.31 or newer (--ignore-signal): env: unrecognized option '--ignore-signal=INT'",
    );
    expect([e.hint, e.context]).toEqual([
      "install coreutils 8.31 or newer; docs/sandbox.md",
      { env: join(bin, "env") },
    ]);
  });

  it("the trial is a sandbox running true, with env between", async () => {
    const args = join(dir, "args");
    program("bwrap", `printf '%s\\n' "$@" > '${args}'`);
    const tools = await requireSandboxTools(withEnv(), dir);
    expect(tools).toEqual({ bwrap: join(bin, "bwrap"), env: join(bin, "env") });
    const argv = readFileSync(args, "utf8").trim().split("\n");
    expect(argv.slice(-1)).toEqual(["true"]);
    expect(argv).toContain(join(bin, "env"));
    expect(argv).toContain("--unshare-net");
  });

  it("a success is remembered for this boot and these tools: the next call runs no trial", async () => {
    const count = join(dir, "count");
    const bwrap = program("bwrap", `echo x >> '${count}'`);
    const env = withEnv();
    await requireSandboxTools(env, dir);
    await requireSandboxTools(env, dir);
    expect(readFileSync(count, "utf8")).toBe("x\n");
    expect(JSON.parse(readFileSync(probeFile(), "utf8"))).toEqual({
      v: 1,
      key: `${bootId() ?? "?"} ${stamp(bwrap)} ${stamp(join(bin, "env"))}`,
    });
  });

  it("another bwrap (or a remembered probe of other tools) is tried again", async () => {
    mkdirSync(state);
    const bwrap = program("bwrap", "echo 'bwrap: setting up uid map: Permission denied' >&2; exit 1");
    const env = withEnv();
    writeFileSync(
      probeFile(),
      JSON.stringify({ v: 1, key: `${bootId() ?? "?"} /usr/bin/bwrap:1:1 ${stamp(join(bin, "env"))}` }),
    );
    expect((await arielErrorOf(requireSandboxTools(env, dir))).message).toMatch(/setting up uid map/);
    writeFileSync(
      probeFile(),
      JSON.stringify({ v: 2, key: `${bootId() ?? "?"} ${stamp(bwrap)} ${stamp(join(bin, "env"))}` }),
    );
    expect((await arielErrorOf(requireSandboxTools(env, dir))).message).toMatch(/setting up uid map/);
    writeFileSync(probeFile(), "{");
    expect((await arielErrorOf(requireSandboxTools(env, dir))).message).toMatch(/setting up uid map/);
    writeFileSync(
      probeFile(),
      JSON.stringify({ v: 1, key: `${bootId() ?? "?"} ${stamp(bwrap)} ${stamp(join(bin, "env"))}` }),
    );
    expect(await requireSandboxTools(env, dir)).toEqual({ bwrap, env: join(bin, "env") });
  });

  it("without a state dir the probe runs each time and nothing is written", async () => {
    const count = join(dir, "count");
    program("bwrap", `echo x >> '${count}'`);
    symlinkSync(realEnv, join(bin, "env"));
    await requireSandboxTools({ PATH: bin }, dir);
    await requireSandboxTools({ PATH: bin }, dir);
    expect(readFileSync(count, "utf8")).toBe("x\nx\n");
    expect(existsSync(state)).toBe(false);
  });

  it.runIf(realBwrap !== null)("the real bubblewrap of this machine makes a sandbox", async () => {
    const tools = await requireSandboxTools({ PATH: process.env.PATH, ARIEL_STATE_HOME: state }, dir);
    expect(tools.bwrap).toBe(realBwrap);
    expect(existsSync(probeFile())).toBe(true);
  });
});

describe("requireSandboxTools: at the edges", () => {
  it("not Linux: unavailable before anything is looked for, naming the platform", async () => {
    const was = Object.getOwnPropertyDescriptor(process, "platform")!;
    Object.defineProperty(process, "platform", { ...was, value: "darwin" });
    try {
      const e = await arielErrorOf(requireSandboxTools({ PATH: bin }, dir));
      expect([e.code, e.exit, e.message, e.hint, e.context]).toEqual([
        "ERR_SANDBOX_UNAVAILABLE",
        69,
        "--sandbox needs Linux (bubblewrap and user namespaces); this is darwin",
        "run sandboxed agents on a Linux machine or in a Linux VM, or drop --sandbox",
        { platform: "darwin" },
      ]);
    } finally {
      Object.defineProperty(process, "platform", was);
    }
  });

  it("the trial's arguments are bubblewrap's options, not its own path", async () => {
    const args = join(dir, "args");
    program("bwrap", `printf '%s\\n' "$@" > '${args}'`);
    await requireSandboxTools(withEnv(), dir);
    const argv = readFileSync(args, "utf8").trim().split("\n");
    expect(argv[0]).not.toBe(join(bin, "bwrap"));
    expect(argv[0]?.startsWith("--")).toBe(true);
  });

  it("the reason is bubblewrap's first line that says something", async () => {
    program("bwrap", "printf '\\n  bwrap: creating new namespace failed\\nmore\\n' >&2; exit 1");
    const e = await arielErrorOf(requireSandboxTools(withEnv(), dir));
    expect(e.message).toBe("bubblewrap cannot make a sandbox here: bwrap: creating new namespace failed");
  });

  it("a state dir not made yet is made, parents and all, to remember the probe", async () => {
    program("bwrap", "exit 0");
    symlinkSync(realEnv, join(bin, "env"));
    const deep = join(dir, "a/b/state");
    await requireSandboxTools({ PATH: bin, ARIEL_STATE_HOME: deep }, dir);
    expect(JSON.parse(readFileSync(join(deep, "sandbox-probe.json"), "utf8")).v).toBe(1);
  });
});
