import { mkdtempSync, realpathSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { alive, binDir, until } from "./_fixture.ts";
import { type CallOptions, type CallResult, cliArgv, runCli, STDOUT_CAP } from "./call.ts";

// runCli against real processes: a stand-in for each bundled CLI (_fixture.ts).

const BIN = binDir();
const ROOT = realpathSync(mkdtempSync(join(tmpdir(), "ariel-mcp-root-")));

function call(
  fake: Record<string, string>,
  opts: Partial<CallOptions> = {},
  args: string[] = ["list", "--json"],
): Promise<CallResult> {
  return runCli(
    { cli: "worktree", args },
    {
      root: ROOT,
      env: { PATH: process.env.PATH ?? "", ARIEL_MCP_BIN_DIR: BIN, NO_COLOR: "0", ...fake },
      boundMs: 30_000,
      signal: new AbortController().signal,
      ...opts,
    },
  );
}

describe("cliArgv", () => {
  it("ARIEL_MCP_BIN_DIR names the bundle: node and <dir>/ariel-<cli>.cjs", () => {
    expect(cliArgv("runs", { ARIEL_MCP_BIN_DIR: "/opt/ariel" })).toEqual([
      process.execPath,
      "/opt/ariel/ariel-runs.cjs",
    ]);
    expect(cliArgv("discover", { ARIEL_MCP_BIN_DIR: "/x" })).toEqual([
      process.execPath,
      "/x/ariel-discover.cjs",
    ]);
  });

  it("without it, each CLI's package `bin` export beside this one", () => {
    for (const cli of ["discover", "worktree", "spawn", "runs"] as const) {
      const argv = cliArgv(cli, {});
      expect(argv[0]).toBe(process.execPath);
      // (node_modules may be a link to another copy of the repository: Stryker's sandbox)
      expect(realpathSync(argv[1]!)).toMatch(new RegExp(`/packages/cli-${cli}/dist/ariel-${cli}\\.cjs$`));
      expect(argv).toHaveLength(2);
    }
  });
});

describe("runCli", () => {
  it("runs the CLI with --workspace-root first, in the root, without colour; keeps records, drops other stdout", async () => {
    const seen: Record<string, unknown>[] = [];
    const logged: string[] = [];
    const r = await call(
      { FAKE: "echo" },
      { onRecord: (x) => seen.push(x), onStderr: (l) => logged.push(l) },
    );
    const first = {
      v: 1,
      type: "argv",
      argv: [`--workspace-root=${ROOT}`, "list", "--json"],
      cwd: ROOT,
      noColor: "1",
    };
    // the last line has no newline: it counts all the same; an indented object is not a record
    expect(r).toStrictEqual({
      exit: 0,
      records: [first, { v: 1, type: "last" }],
      messages: ["warning: one", "warning: two"],
      truncated: false,
    });
    expect(seen).toEqual(r.records);
    expect(logged).toEqual(["warning: one", "", "   ", "warning: two"]);
  });

  it("a failure: its exit status, the first error record on stderr, the other stderr lines as messages", async () => {
    const r = await call({ FAKE: "fail" });
    expect(r).toStrictEqual({
      exit: 3,
      records: [],
      error: { v: 1, type: "error", code: "ERR_DIRTY", message: "m", hint: "h", exit: 3 },
      messages: ["note: before"],
      truncated: false,
    });
  });

  it("a character cut between two reads of stdout is read whole", async () => {
    const r = await call({ FAKE: "split" });
    expect(r.records).toEqual([{ v: 1, type: "text", s: "é€" }]);
  });

  it("stdout up to the cap exactly is kept whole; the next line is cut, and so is every line after", async () => {
    const exact = await call({ FAKE: "exact" });
    expect(exact.records).toHaveLength(STDOUT_CAP / 1024);
    expect(exact.truncated).toBe(true);
    expect(exact.exit).toBe(0);
    // 1 KiB left: a 2000-byte line does not fit, and a 100-byte line after it is not kept either
    const over = await call({ FAKE: "overflow" });
    expect(over.records).toHaveLength(STDOUT_CAP / 1024 - 1);
    expect(over.records.every((r) => String(r.d).length === 1024 - 28)).toBe(true);
    expect(over.truncated).toBe(true);
  });

  it("the CLI's stdin is empty (it never waits for input)", async () => {
    expect((await call({ FAKE: "stdin" })).records).toEqual([{ v: 1, type: "stdin", got: "" }]);
  });

  it("a CLI that exits but leaves a process holding its output: stopped at the bound, that process too", async () => {
    const logged: string[] = [];
    const r = await call({ FAKE: "orphan" }, { boundMs: 500, onStderr: (l) => logged.push(l) });
    expect(r).toMatchObject({ stopped: "timeout", exit: 0 });
    const pid = Number(logged[0]?.split(" ")[1]);
    expect(pid).toBeGreaterThan(0);
    await until(() => !alive(pid));
  });

  it("stopped by the bound, then cancelled in the grace: still a timeout", async () => {
    const ac = new AbortController();
    const p = call({ FAKE: "stubborn" }, { boundMs: 200, signal: ac.signal });
    setTimeout(() => ac.abort(), 700);
    expect(await p).toMatchObject({ stopped: "timeout", exit: 137 });
  });

  it("past its bound: TERM to the whole process group, stopped as a timeout", async () => {
    let grandchild = 0;
    const r = await call({ FAKE: "sleep" }, { boundMs: 500, onRecord: (x) => (grandchild = Number(x.pid)) });
    expect(r.stopped).toBe("timeout");
    expect(r.exit).toBe(143);
    expect(grandchild).toBeGreaterThan(0);
    await until(() => !alive(grandchild));
  });

  it("a call that ignores TERM is killed after the grace", async () => {
    const t0 = Date.now();
    const r = await call({ FAKE: "stubborn" }, { boundMs: 300 });
    expect(r).toMatchObject({ stopped: "timeout", exit: 137 });
    expect(Date.now() - t0).toBeGreaterThanOrEqual(2_000);
  });

  it("cancelled: stopped as cancelled, and the signal's listener is gone", async () => {
    const ac = new AbortController();
    let grandchild = 0;
    const p = call({ FAKE: "sleep" }, { signal: ac.signal, onRecord: (x) => (grandchild = Number(x.pid)) });
    await until(() => grandchild > 0);
    ac.abort();
    const r = await p;
    expect(r).toMatchObject({ stopped: "cancelled", exit: 143 });
    await until(() => !alive(grandchild));
  });

  it.each([
    ["SIGHUP", 129],
    ["SIGINT", 130],
    ["SIGKILL", 137],
    ["SIGUSR2", 140],
    ["SIGTERM", 143],
  ])("a CLI ended by %s exits 128 + its number", async (sig, exit) => {
    const r = await call({ FAKE: "self", SIG: sig });
    expect(r).toStrictEqual({ exit, records: [], messages: [], truncated: false });
  });
});
