import { EventEmitter } from "node:events";
import { mkdtempSync, realpathSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { InMemoryTransport } from "@modelcontextprotocol/sdk/inMemory.js";
import type { CallToolResult } from "@modelcontextprotocol/sdk/types.js";
import { afterEach, describe, expect, it } from "vitest";
import { alive, binDir, until } from "./_fixture.ts";
import { HEARTBEAT_MS, serve, toolList } from "./server.ts";

// The server in this process over an in-memory connection, with an SDK client on the other end;
// its tool calls run the stand-in CLIs of _fixture.ts as real processes.

const BIN = binDir();
const ROOT = realpathSync(mkdtempSync(join(tmpdir(), "ariel-mcp-serve-")));

interface Served {
  client: Client;
  /** The methods of the notifications the server sent, in order. */
  notes: string[];
  input: EventEmitter;
  log: string[];
  done: Promise<void>;
  ended: () => boolean;
}

const open: Served[] = [];
afterEach(async () => {
  for (const s of open.splice(0)) await s.client.close().catch(() => {});
});

async function start(fake: Record<string, string> = {}, allowLand = false): Promise<Served> {
  const [clientSide, serverSide] = InMemoryTransport.createLinkedPair();
  const input = new EventEmitter();
  const log: string[] = [];
  const notes: string[] = [];
  const send = serverSide.send.bind(serverSide);
  serverSide.send = (m, o) => {
    if ("method" in m && !("id" in m)) notes.push(m.method);
    return send(m, o);
  };
  let finished = false;
  const done = serve(
    {
      root: ROOT,
      version: "9.9.9-test",
      allowLand,
      env: { PATH: process.env.PATH ?? "", ARIEL_MCP_BIN_DIR: BIN, ...fake },
    },
    { transport: serverSide, input, log: (l) => log.push(l) },
  ).then(() => {
    finished = true;
  });
  const client = new Client({ name: "test", version: "1" });
  await client.connect(clientSide);
  const s = { client, notes, input, log, done, ended: () => finished };
  open.push(s);
  return s;
}

const callTool = (c: Client, name: string, args: Record<string, unknown> = {}) =>
  c.callTool({ name, arguments: args }) as Promise<CallToolResult>;

describe("serve", () => {
  it("introduces itself and lists the tools, land_task only with --allow-land", async () => {
    const { client } = await start();
    expect(client.getServerVersion()).toEqual({ name: "ariel-mcp", version: "9.9.9-test" });
    expect(client.getInstructions()).toMatch(/^ariel: isolated git worktrees .* read the error's hint/);
    const { tools } = await client.listTools();
    expect(tools).toEqual(toolList(false));
    expect(tools.map((t) => t.name)).not.toContain("land_task");
    const landing = await start({}, true);
    const all = (await landing.client.listTools()).tools;
    expect(all).toEqual(toolList(true));
    expect(all.map((t) => t.name)).toContain("land_task");
  });

  it("an unknown tool is ERR_USAGE (64); land_task without --allow-land says how to get it", async () => {
    const { client } = await start();
    expect(await callTool(client, "nope")).toEqual({
      isError: true,
      content: [
        { type: "text", text: 'ERR_USAGE: no tool "nope"\nhint: list the tools with tools/list\nexit: 64' },
      ],
      structuredContent: {
        records: [],
        truncated: false,
        exit: 64,
        error: {
          code: "ERR_USAGE",
          message: 'no tool "nope"',
          hint: "list the tools with tools/list",
          exit: 64,
        },
      },
    });
    const land = await callTool(client, "land_task", { task: "t1" });
    expect(land.isError).toBe(true);
    expect(land.content).toEqual([
      {
        type: "text",
        text: "ERR_USAGE: land_task is offered only when ariel-mcp runs with --allow-land\nhint: list the tools with tools/list\nexit: 64",
      },
    ]);
  });

  it("arguments against the schema are ERR_INVALID_INPUT (65) and run nothing", async () => {
    const { client, log } = await start({ FAKE: "echo" });
    const r = await callTool(client, "list_sources", { status: "yes" });
    expect(r.isError).toBe(true);
    const error = (r.structuredContent as { error: Record<string, unknown> }).error;
    expect(error).toMatchObject({
      code: "ERR_INVALID_INPUT",
      hint: "check the arguments against the tool's input schema (tools/list)",
      exit: 65,
    });
    expect(error.message).toMatch(/^invalid arguments for list_sources: .*boolean/);
    expect(log).toEqual([]);
    // the same tool again, now valid: its compiled schema is reused and passes
    expect((await callTool(client, "list_sources", { status: true })).isError).toBeUndefined();
  });

  it("a valid call runs the tool's CLI in the root and answers with its records; stderr goes to the log", async () => {
    const { client, log, notes } = await start({ FAKE: "echo" });
    const r = await callTool(client, "list_sources", { status: true });
    // no progress token, no progress notes
    expect(notes).toEqual([]);
    const argv = {
      v: 1,
      type: "argv",
      argv: [`--workspace-root=${ROOT}`, "--json", "--status"],
      cwd: ROOT,
      noColor: "1",
    };
    expect(r).toEqual({
      content: [{ type: "text", text: `${JSON.stringify(argv)}\n{"v":1,"type":"last"}\n` }],
      structuredContent: {
        records: [argv, { v: 1, type: "last" }],
        truncated: false,
        exit: 0,
        messages: ["warning: one", "warning: two"],
      },
    });
    expect(log).toEqual(["warning: one", "", "   ", "warning: two"]);
  });

  it("a refusal carries the CLI's error record and its messages", async () => {
    const { client } = await start({ FAKE: "fail" });
    const r = await callTool(client, "remove_task", { task: "t1" });
    expect(r).toEqual({
      isError: true,
      content: [{ type: "text", text: "ERR_DIRTY: m\nhint: h\nexit: 3" }],
      structuredContent: {
        records: [],
        truncated: false,
        exit: 3,
        messages: ["note: before"],
        error: { v: 1, type: "error", code: "ERR_DIRTY", message: "m", hint: "h", exit: 3 },
      },
    });
  });

  it("with a progress token: a progress note per record, and a heartbeat while it runs; cancelling stops the CLI", async () => {
    const { client } = await start({ FAKE: "sleep" });
    const notes: { progress: number; message?: string }[] = [];
    const ac = new AbortController();
    const p = client.callTool({ name: "list_sources", arguments: {} }, undefined, {
      onprogress: (n) => notes.push({ progress: n.progress, ...(n.message ? { message: n.message } : {}) }),
      signal: ac.signal,
      timeout: 60_000,
    });
    p.catch(() => {});
    await until(() => notes.length >= 2, HEARTBEAT_MS * 3);
    const pid = Number(notes[0]?.message?.split(" ")[1]);
    expect(notes).toEqual([
      { progress: 1, message: `grandchild ${pid}` },
      // the first heartbeat, some two seconds in (later on a loaded machine)
      { progress: 2, message: expect.stringMatching(/^list_sources: [2-9]s$/) },
    ]);
    expect(alive(pid)).toBe(true);
    ac.abort();
    await expect(p).rejects.toThrow();
    // the CLI's process group is stopped: its grandchild too
    await until(() => !alive(pid));
  });

  it("progress notes name each record: its type, event or action, source or task; the heartbeat stops with the answer", async () => {
    const s = await start({ FAKE: "progress" });
    const notes: string[] = [];
    const r = await s.client.callTool({ name: "list_runs", arguments: {} }, undefined, {
      onprogress: (n) => notes.push(`${n.progress} ${n.message}`),
    });
    expect(r.isError).toBeUndefined();
    expect(notes).toEqual(["1 task created t1", "2 run run.started api", "3 "]);
    const sent = s.notes.length;
    expect(sent).toBe(3);
    await new Promise((res) => setTimeout(res, HEARTBEAT_MS + 500));
    expect(s.notes).toHaveLength(sent);
  });

  it("the end of input: the calls in flight are answered, then serve returns", async () => {
    const s = await start({ FAKE: "slow", SLOW_MS: "600" });
    const answered: string[] = [];
    const calls = [0, 1].map((i) =>
      callTool(s.client, "list_runs").then((r) => {
        answered.push(`${i}:${s.ended()}`);
        return r;
      }),
    );
    await new Promise((r) => setTimeout(r, 100));
    s.input.emit("end");
    const results = await Promise.all(calls);
    for (const r of results)
      expect(r.structuredContent).toEqual({
        records: [{ v: 1, type: "slow", done: true }],
        truncated: false,
        exit: 0,
      });
    expect(answered.sort()).toEqual(["0:false", "1:false"]);
    await s.done;
    expect(s.ended()).toBe(true);
  });

  it("the end of input with nothing in flight returns at once; so does the client closing", async () => {
    const a = await start();
    a.input.emit("end");
    await a.done;
    const b = await start();
    expect(b.ended()).toBe(false);
    await b.client.close();
    await b.done;
    expect(b.ended()).toBe(true);
  });
});
