/**
 * The attach client on a pipe (no terminal of its own, so the frames are relayed here) against a
 * fake monitor of this process on the real socket path: what it asks, what it writes of the
 * frames, how each way out resolves, and an abort at every moment (before it begins, while the
 * monitor has not answered, once attached) ending it as a detach with the connection closed.
 */
import { mkdirSync } from "node:fs";
import { createServer, type Server, type Socket } from "node:net";
import { join } from "node:path";
import { PassThrough } from "node:stream";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { removeDir, tempDir } from "../_fixture.ts";
import { monitorSocketPath } from "./client.ts";
import { attachTty, type TtyAttachOptions } from "./tty_attach.ts";

const HASH = "0123456789abcdef";
const RUN = "20261206T083000Z-abcdef";

interface Conn {
  sock: Socket;
  lines: Record<string, unknown>[];
  closed: boolean;
}

let root: string;
let server: Server | null;
let conns: Conn[];

beforeEach(() => {
  root = tempDir("ariel-tty-attach-");
  mkdirSync(join(root, ".ariel"), { recursive: true });
  server = null;
  conns = [];
});
afterEach(async () => {
  for (const c of conns) c.sock.destroy();
  await new Promise<void>((r) => (server ? server.close(() => r()) : r()));
  removeDir(root);
});

/** A monitor that records each connection's request lines and answers nothing by itself. */
async function monitor(): Promise<void> {
  const s = createServer((sock) => {
    const c: Conn = { sock, lines: [], closed: false };
    conns.push(c);
    let buf = "";
    sock.on("data", (b) => {
      buf += b.toString();
      for (let nl = buf.indexOf("\n"); nl !== -1; nl = buf.indexOf("\n")) {
        c.lines.push(JSON.parse(buf.slice(0, nl)) as Record<string, unknown>);
        buf = buf.slice(nl + 1);
      }
    });
    sock.on("close", () => {
      c.closed = true;
    });
    sock.on("error", () => {});
  });
  await new Promise<void>((r) => s.listen(monitorSocketPath(root, HASH), r));
  server = s;
}

async function until(check: () => boolean, what: string): Promise<void> {
  for (const deadline = Date.now() + 5000; !check(); ) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 5));
  }
}

function options(signal: AbortSignal, over: Partial<TtyAttachOptions> = {}) {
  const input = new PassThrough();
  const output = new PassThrough();
  const written: string[] = [];
  output.on("data", (b: Buffer) => written.push(b.toString()));
  const o: TtyAttachOptions = {
    root,
    hash: HASH,
    runId: RUN,
    readOnly: false,
    detachKey: 0x1d,
    input,
    output,
    signal,
    ...over,
  };
  return { o, input, written };
}

/** `p`, or an error naming `what` when it has not settled in 5 s (a hang fails, it does not wait). */
function within<T>(p: Promise<T>, what: string): Promise<T> {
  let timer: ReturnType<typeof setTimeout> | undefined;
  const late = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new Error(`${what}: still waiting after 5 s`)), 5000);
  });
  return Promise.race([p, late]).finally(() => clearTimeout(timer));
}

const reply = (c: Conn, r: Record<string, unknown>) => c.sock.write(`${JSON.stringify(r)}\n`);

describe("attachTty on a pipe", () => {
  it("asks to attach (no size, no terminal), relays keys and frames, and the detach key ends it", async () => {
    await monitor();
    const { o, input, written } = options(new AbortController().signal);
    const ended = attachTty(o);
    await until(() => conns[0]?.lines.length === 1, "the attach request");
    expect(conns[0]!.lines).toEqual([{ v: 1, op: "attach", runId: RUN, readOnly: false }]);
    reply(conns[0]!, { ok: true });
    conns[0]!.sock.write(
      `${JSON.stringify({ t: "o", d: Buffer.from("screen").toString("base64") })}\n${JSON.stringify({ t: "bell" })}\n`,
    );
    await until(() => written.join("") === "screen\x07", "the frames written");
    input.write("ls\r");
    await until(() => conns[0]!.lines.length === 2, "the keys sent");
    expect(conns[0]!.lines[1]).toEqual({ op: "input", data: Buffer.from("ls\r").toString("base64") });
    input.write(Buffer.from([0x61, 0x1d, 0x62]));
    expect(await ended).toEqual({ kind: "detached" });
    await until(() => conns[0]!.closed, "the connection closed");
    // The key before the detach key went; the one after did not.
    expect(conns[0]!.lines.slice(2)).toEqual([{ op: "input", data: Buffer.from("a").toString("base64") }]);
  });

  it("an input its owner paused (ariel's list, to attach) is read all the same", async () => {
    await monitor();
    const { o, input } = options(new AbortController().signal);
    input.pause();
    const ended = attachTty(o);
    await until(() => conns[0]?.lines.length === 1, "the attach request");
    reply(conns[0]!, { ok: true });
    input.write("y\r");
    await until(() => conns[0]!.lines.length === 2, "the keys sent");
    expect(conns[0]!.lines[1]).toEqual({ op: "input", data: Buffer.from("y\r").toString("base64") });
    input.write(Buffer.from([0x1d]));
    expect(await within(ended, "the detach")).toEqual({ kind: "detached" });
    // Given back as it was: paused.
    expect(input.isPaused()).toBe(true);
  });

  it.each([
    ["the run ends", { t: "exit", status: 7 }, { kind: "exited", status: 7 }],
    ["the monitor detaches it", { t: "detached" }, { kind: "detached" }],
  ])("%s: resolves with how it ended", async (_, last, want) => {
    await monitor();
    const { o } = options(new AbortController().signal, { readOnly: true });
    const ended = attachTty(o);
    await until(() => conns[0]?.lines.length === 1, "the attach request");
    expect(conns[0]!.lines[0]).toEqual({ v: 1, op: "attach", runId: RUN, readOnly: true });
    reply(conns[0]!, { ok: true });
    conns[0]!.sock.write(`${JSON.stringify(last)}\n`);
    expect(await ended).toEqual(want);
  });

  it("the monitor going ends it as closed", async () => {
    await monitor();
    const { o } = options(new AbortController().signal);
    const ended = attachTty(o);
    await until(() => conns[0]?.lines.length === 1, "the attach request");
    reply(conns[0]!, { ok: true });
    await new Promise((r) => setTimeout(r, 20));
    conns[0]!.sock.destroy();
    expect(await ended).toEqual({ kind: "closed" });
  });

  it("a refusal is ERR_RUN_NOT_FOUND with the monitor's words", async () => {
    await monitor();
    const { o } = options(new AbortController().signal);
    const ended = attachTty(o);
    await until(() => conns[0]?.lines.length === 1, "the attach request");
    reply(conns[0]!, { ok: false, message: "no such run" });
    await expect(ended).rejects.toMatchObject({
      code: "ERR_RUN_NOT_FOUND",
      message: `run ${RUN} is not live on a terminal: no such run`,
    });
  });
});

describe("attachTty given up", () => {
  it("aborted before it begins: detached, and the monitor never hears of it", async () => {
    await monitor();
    const abort = new AbortController();
    abort.abort();
    const { o } = options(abort.signal);
    expect(await within(attachTty(o), "the attach")).toEqual({ kind: "detached" });
    await new Promise((r) => setTimeout(r, 50));
    expect(conns).toEqual([]);
  });

  it("aborted while the monitor has not answered: detached at once, the connection closed, a late yes attaches nothing", async () => {
    await monitor();
    const abort = new AbortController();
    const { o, input, written } = options(abort.signal);
    const ended = attachTty(o);
    await until(() => conns[0]?.lines.length === 1, "the attach request");
    abort.abort();
    expect(await within(ended, "the attach")).toEqual({ kind: "detached" });
    await until(() => conns[0]!.closed, "the connection closed");
    reply(conns[0]!, { ok: true });
    input.write("x");
    await new Promise((r) => setTimeout(r, 50));
    expect(conns[0]!.lines).toHaveLength(1);
    expect(written).toEqual([]);
  });

  it("aborted once attached: detached and the connection closed", async () => {
    await monitor();
    const abort = new AbortController();
    const { o } = options(abort.signal);
    const ended = attachTty(o);
    await until(() => conns[0]?.lines.length === 1, "the attach request");
    reply(conns[0]!, { ok: true, direct: false });
    await new Promise((r) => setTimeout(r, 20));
    abort.abort();
    expect(await within(ended, "the attach")).toEqual({ kind: "detached" });
    await until(() => conns[0]!.closed, "the connection closed");
  });
});
