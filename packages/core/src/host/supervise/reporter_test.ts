/**
 * The agents' reporter against a real unix socket: one report line with the run, its secret,
 * the agent, the time and the payload (from stdin, or Codex's last argument), cut to size, or a
 * problem in its place; nothing at all outside a wired run; bounded when the monitor is gone or
 * does not read.
 */
import { createServer, type Server } from "node:net";
import { join } from "node:path";
import { PassThrough, Readable } from "node:stream";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { PAYLOAD_BOUNDS } from "../../runs/agents/bound.ts";
import { removeDir, tempDir } from "../_fixture.ts";
import { runReporter } from "./reporter.ts";

let dir: string;
let socket: string;
let server: Server | null;
let got: string[];
beforeEach(() => {
  dir = tempDir("ariel-reporter-");
  socket = join(dir, "monitor.sock");
  server = null;
  got = [];
});
afterEach(async () => {
  await new Promise((r) => (server ? server.close(r) : r(null)));
  removeDir(dir);
});

/** A monitor that keeps what each connection sent. */
function monitor(): Promise<void> {
  return new Promise((resolve) => {
    server = createServer((c) => {
      let text = "";
      c.on("data", (b) => {
        text += b;
      });
      c.on("end", () => got.push(text));
    });
    server.listen(socket, () => resolve());
  });
}

const wired = { ARIEL_REPORT_SOCKET: "", ARIEL_REPORT_RUN: "r1", ARIEL_REPORT_TOKEN: "secret" };
const env = () => ({ ...wired, ARIEL_REPORT_SOCKET: socket });
const stdin = (text: string) => Readable.from([Buffer.from(text)]);

/** The report lines the monitor got, parsed, once the connection ended. */
async function reports(): Promise<unknown[]> {
  for (let i = 0; i < 500 && got.length === 0; i++) await new Promise((r) => setTimeout(r, 10));
  return got.map((t) => {
    expect(t.endsWith("\n")).toBe(true);
    expect(t.split("\n")).toHaveLength(2);
    return JSON.parse(t);
  });
}

describe("runReporter", () => {
  it("a hook's payload on stdin: one line with the run, its secret, the agent and the start time", async () => {
    await monitor();
    await runReporter(["claude"], {
      env: env(),
      stdin: stdin('{"hook_event_name":"Stop"}'),
      startedMs: 1234,
    });
    expect(await reports()).toEqual([
      {
        v: 1,
        op: "report",
        runId: "r1",
        token: "secret",
        agent: "claude",
        at: 1234,
        payload: { hook_event_name: "Stop" },
      },
    ]);
  });

  it("Codex's payload is its last argument; stdin is not read", async () => {
    await monitor();
    const never = new PassThrough();
    await runReporter(["codex", '{"type":"agent-turn-complete"}'], {
      env: env(),
      stdin: never,
      startedMs: 5,
    });
    expect(await reports()).toEqual([
      expect.objectContaining({ agent: "codex", payload: { type: "agent-turn-complete" } }),
    ]);
  });

  it("a payload that is not JSON is reported as such, with no payload", async () => {
    await monitor();
    await runReporter(["gemini"], { env: env(), stdin: stdin("not json"), startedMs: 1 });
    expect(await reports()).toEqual([
      expect.objectContaining({ agent: "gemini", payload: null, problem: "not JSON" }),
    ]);
  });

  it("more than a MiB on stdin: too large, no payload", async () => {
    await monitor();
    const big = `{"x":"${"a".repeat((1 << 20) + 10)}"}`;
    await runReporter(["claude"], { env: env(), stdin: stdin(big), startedMs: 1 });
    expect(await reports()).toEqual([expect.objectContaining({ payload: null, problem: "too large" })]);
  });

  it("long strings and lists are cut to the bounds", async () => {
    await monitor();
    const payload = {
      s: "b".repeat(PAYLOAD_BOUNDS.string + 5),
      list: Array.from({ length: 40 }, (_, i) => i),
    };
    await runReporter(["claude"], { env: env(), stdin: stdin(JSON.stringify(payload)), startedMs: 1 });
    const [r] = (await reports()) as { payload: { s: string; list: number[] } }[];
    expect(r!.payload.s).toBe(`${"b".repeat(PAYLOAD_BOUNDS.string - 1)}…`);
    expect(r!.payload.list).toEqual(Array.from({ length: PAYLOAD_BOUNDS.items }, (_, i) => i));
  });

  it.each([
    ["an agent it does not know", ["aider"], env()],
    ["no agent", [], env()],
    ["no socket", ["claude"], { ...wired, ARIEL_REPORT_SOCKET: "" }],
    ["no run", ["claude"], { ...env(), ARIEL_REPORT_RUN: undefined }],
    ["no secret", ["claude"], { ...env(), ARIEL_REPORT_TOKEN: undefined }],
  ])("outside a wired run (%s) nothing is sent, and it says so only in debug", async (_, argv, e) => {
    await monitor();
    const lines: string[] = [];
    await runReporter(argv, {
      env: { ...e, ARIEL_REPORT_SOCKET: e.ARIEL_REPORT_SOCKET === "" ? "" : socket },
      stdin: stdin("{}"),
      startedMs: 1,
      debug: (l) => lines.push(l),
    });
    await new Promise((r) => setTimeout(r, 50));
    expect(got).toEqual([]);
    expect(lines).toHaveLength(1);
    expect(lines[0]).toMatch(/^ariel report: not a wired run/);
  });

  it("no monitor on the socket: resolves, saying so in debug", async () => {
    const lines: string[] = [];
    await runReporter(["claude"], {
      env: env(),
      stdin: stdin("{}"),
      startedMs: 1,
      debug: (l) => lines.push(l),
    });
    expect(lines).toEqual(["ariel report: no monitor (ENOENT)"]);
  });

  it("stdin that never ends: what came by the deadline is sent", async () => {
    await monitor();
    const open = new PassThrough();
    open.write('{"partial":');
    const lines: string[] = [];
    await runReporter(["claude"], { env: env(), stdin: open, startedMs: 1, debug: (l) => lines.push(l) });
    expect(await reports()).toEqual([expect.objectContaining({ payload: null, problem: "not JSON" })]);
    expect(lines).toEqual(["ariel report: sent"]);
  });

  it("exactly a MiB on stdin is read; a payload still too large once cut is sent without it", async () => {
    await monitor();
    const pad = (1 << 20) - '{"x":""}'.length;
    const exact = `{"x":"${"a".repeat(pad)}"}`;
    expect(Buffer.byteLength(exact)).toBe(1 << 20);
    await runReporter(["claude"], { env: env(), stdin: stdin(exact), startedMs: 1 });
    const wide = JSON.stringify(
      Object.fromEntries(Array.from({ length: 40 }, (_, i) => [`k${i}`, "z".repeat(2000)])),
    );
    await runReporter(["claude"], { env: env(), stdin: stdin(wide), startedMs: 2 });
    for (let i = 0; i < 500 && got.length < 2; i++) await new Promise((r) => setTimeout(r, 10));
    const [first, second] = got.map((t) => JSON.parse(t));
    expect(first.problem).toBeUndefined();
    expect(first.payload.x).toHaveLength(PAYLOAD_BOUNDS.string);
    expect(second).toMatchObject({ at: 2, payload: null, problem: "too large" });
    expect(got[1]!.length).toBeLessThan(1000);
  });

  it("stdin that fails: what came before is sent", async () => {
    await monitor();
    const failing = new PassThrough();
    failing.write('{"hook_event_name":');
    setTimeout(() => failing.destroy(new Error("EIO")), 20);
    await runReporter(["claude"], { env: env(), stdin: failing, startedMs: 1 });
    expect(await reports()).toEqual([expect.objectContaining({ payload: null, problem: "not JSON" })]);
  });
});
