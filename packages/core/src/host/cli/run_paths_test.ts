import { EventEmitter } from "node:events";
import { describe, expect, it } from "vitest";
import { CONTRACT_SUMMARY } from "../../contract_summary.ts";
import { ArielError } from "../../errors.ts";
import type { TextSink } from "../output.ts";
import { defineCommand } from "./define.ts";
import { cliMain, runCli } from "./run.ts";
import { PIPE_TERMINAL } from "./terminal.ts";

class Sink implements TextSink {
  text = "";
  write(t: string): void {
    this.text += t;
  }
}

function errno(code: string, message = `${code}: read-only file system, open '/w/.ariel/x'`): Error {
  return Object.assign(new Error(message), { code });
}

function throwing(e: unknown) {
  return defineCommand({
    meta: { name: "ariel-x", description: "x" },
    args: { json: { type: "boolean", description: "json" } },
    run: () => {
      throw e;
    },
  });
}

async function run(
  def: ReturnType<typeof defineCommand>,
  argv: string[],
  env: Record<string, string> = {},
  more: { signal?: AbortSignal; cwd?: string } = {},
) {
  const stdout = new Sink();
  const stderr = new Sink();
  const code = await runCli(def, {
    version: "9.9.9",
    argv,
    stdout,
    stderr,
    env,
    term: PIPE_TERMINAL,
    ...more,
  });
  return { code, stdout: stdout.text, stderr: stderr.text };
}

describe("runCli inside a sandboxed run", () => {
  it.each(["EROFS", "ENOENT", "EACCES", "EPERM", "EBUSY"])(
    "a file-system %s there is ERR_SANDBOXED (3), not an internal error",
    async (code) => {
      const r = await run(throwing(errno(code, `${code}: nope`)), ["--json"], { ARIEL_SANDBOX: "1" });
      expect(r.code).toBe(3);
      const rec = JSON.parse(r.stderr.trim().split("\n")[0] as string);
      expect(rec).toMatchObject({
        type: "error",
        code: "ERR_SANDBOXED",
        message: `not from inside a sandboxed run: ${code}: nope`,
        errno: code,
      });
      expect(rec.hint).toMatch(/^inside a sandboxed run, ariel's state is out of reach/);
      expect(rec.stack).toBeUndefined();
    },
  );

  it("outside a sandbox the same error stays internal (70)", async () => {
    for (const env of [{}, { ARIEL_SANDBOX: "0" }] as Record<string, string>[]) {
      const r = await run(throwing(errno("EROFS")), ["--json"], env);
      expect(r.code).toBe(70);
      expect(JSON.parse(r.stderr.trim().split("\n")[0] as string).code).toBe("ERR_INTERNAL");
    }
  });

  it("another errno, no errno, or an ariel error is left as it is", async () => {
    const other = await run(throwing(errno("ENOSPC")), ["--json"], { ARIEL_SANDBOX: "1" });
    expect(other.code).toBe(70);
    const none = await run(throwing(new Error("boom")), ["--json"], { ARIEL_SANDBOX: "1" });
    expect(none.code).toBe(70);
    const nul = await run(throwing(null), ["--json"], { ARIEL_SANDBOX: "1" });
    expect(nul.code).toBe(70);
    const ours = await run(throwing(new ArielError("ERR_CONFLICT", "moved")), ["--json"], {
      ARIEL_SANDBOX: "1",
    });
    expect(ours.code).toBe(new ArielError("ERR_CONFLICT", "x").exit);
    expect(JSON.parse(ours.stderr.trim()).code).toBe("ERR_CONFLICT");
  });

  it("the plain message drops the internal-error prefix", async () => {
    const r = await run(throwing(errno("EACCES", "EACCES: denied")), [], { ARIEL_SANDBOX: "1" });
    expect(r.code).toBe(3);
    expect(r.stderr.split("\n")[0]).toBe(
      "ariel-x: error: not from inside a sandboxed run: EACCES: denied [ERR_SANDBOXED]",
    );
  });
});

describe("runCli routes", () => {
  const group = defineCommand({
    meta: { name: "ariel-g", description: "g" },
    args: { json: { type: "boolean", description: "json" } },
    subCommands: {
      list: defineCommand({ meta: { name: "list", description: "list things" }, run: () => 4 }),
    },
  });

  it("help contract prints the contract in brief, 0", async () => {
    const r = await run(group, ["help", "contract"]);
    expect(r).toEqual({ code: 0, stdout: CONTRACT_SUMMARY, stderr: "" });
  });

  it("help lists the group's commands; a command's help does not", async () => {
    const g = await run(group, ["help"]);
    expect(g.code).toBe(0);
    expect(g.stdout).toMatch(/\n {2}list\s+list things\n/);
    const l = await run(group, ["help", "list"]);
    expect(l.stdout).not.toMatch(/list things\n.*list things/s);
    expect(l.stdout.split("\n")[0]).toBe("ariel-g list 9.9.9: list things");
  });

  it("--help of the group lists its commands; --help of a command does not list the group's", async () => {
    const g = await run(group, ["--help"]);
    expect(g.stdout).toMatch(/list things/);
    const l = await run(group, ["list", "--help"]);
    expect(l.stdout).not.toMatch(/^ {2}list\s/m);
  });

  it("a usage error gets the exact --help to run", async () => {
    const r = await run(group, ["list", "--nope"]);
    expect(r.code).toBe(64);
    expect(r.stderr).toMatch(/hint: run ariel-g list --help to see the flags\n/);
    const own = await run(throwing(new ArielError("ERR_USAGE", "bad", { hint: "do this instead" })), []);
    expect(own.stderr).toBe("ariel-x: error: bad [ERR_USAGE]\nariel-x: hint: do this instead\n");
  });

  it("--detailed-exitcode without --dry-run is refused before the command runs", async () => {
    let ran = false;
    const cmd = defineCommand({
      meta: { name: "ariel-d", description: "d" },
      args: {
        "dry-run": { type: "boolean", alias: "n", description: "n" },
        "detailed-exitcode": { type: "boolean", description: "d" },
      },
      run: () => {
        ran = true;
        return 0;
      },
    });
    const r = await run(cmd, ["--detailed-exitcode"]);
    expect(r.code).toBe(64);
    expect(r.stderr.split("\n")[0]).toBe("ariel-d: error: --detailed-exitcode needs --dry-run [ERR_USAGE]");
    expect(ran).toBe(false);
    expect((await run(cmd, ["-n", "--detailed-exitcode"])).code).toBe(0);
    expect(ran).toBe(true);
  });
});

describe("runCli's context", () => {
  it("a signal aborted while the command runs aborts the command's signal, with its reason", async () => {
    const outer = new AbortController();
    let seen: unknown = "not aborted";
    const cmd = defineCommand({
      meta: { name: "ariel-s", description: "s" },
      run: async (ctx) => {
        outer.abort("stop");
        await Promise.resolve();
        seen = ctx.signal.aborted ? ctx.signal.reason : "not aborted";
        return 0;
      },
    });
    expect((await run(cmd, [], {}, { signal: outer.signal })).code).toBe(0);
    expect(seen).toBe("stop");
  });

  it("the cwd given, else the process's", async () => {
    let cwd = "";
    const cmd = defineCommand({
      meta: { name: "ariel-c", description: "c" },
      run: (ctx) => {
        cwd = ctx.cwd;
        return 0;
      },
    });
    await run(cmd, [], {}, { cwd: "/given" });
    expect(cwd).toBe("/given");
    await run(cmd, []);
    expect(cwd).toBe(process.cwd());
  });

  it("a stderr stream with no error listener gets one (a closed stderr does not crash); one with a listener keeps its own", async () => {
    const cmd = defineCommand({ meta: { name: "ariel-q", description: "q" }, run: () => 0 });
    const bare = Object.assign(new EventEmitter(), { write: () => true });
    await runCli(cmd, {
      version: "1",
      argv: [],
      stdout: new Sink(),
      stderr: bare,
      env: {},
      term: PIPE_TERMINAL,
    });
    expect(bare.listenerCount("error")).toBe(1);
    expect(() => bare.emit("error", new Error("EPIPE"))).not.toThrow();
    const own = Object.assign(new EventEmitter(), { write: () => true });
    own.on("error", () => {});
    await runCli(cmd, {
      version: "1",
      argv: [],
      stdout: new Sink(),
      stderr: own,
      env: {},
      term: PIPE_TERMINAL,
    });
    expect(own.listenerCount("error")).toBe(1);
  });
});

describe("cliMain", () => {
  it("hands the process's arguments and the CLI to orMonitor, which decides", async () => {
    const cmd = defineCommand({ meta: { name: "ariel-m", description: "m" }, run: () => 0 });
    let args: readonly string[] = [];
    const status = await cliMain(cmd, {
      version: "1",
      orMonitor: async (argv) => {
        args = argv;
        return 42;
      },
    });
    expect(status).toBe(42);
    expect(args).toEqual(process.argv.slice(2));
  });
});
