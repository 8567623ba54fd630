import { mkdirSync, mkdtempSync, rmSync } from "node:fs";
import { createServer, type Server, type Socket } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { connectAndRequest } from "./client.ts";

// A stand-in monitor on the workspace's socket: each connection is handed to `onConn`.
let dirs: string[] = [];
let servers: Server[] = [];

afterEach(() => {
  for (const s of servers) s.close();
  for (const d of dirs) rmSync(d, { recursive: true, force: true });
  dirs = [];
  servers = [];
});

function workspace(): { root: string; socket: string } {
  const root = mkdtempSync(join(tmpdir(), "ariel-client-"));
  dirs.push(root);
  mkdirSync(join(root, ".ariel"));
  return { root, socket: join(root, ".ariel", "monitor.sock") };
}

function listen(path: string, onConn: (c: Socket, line: string) => void): Promise<Server> {
  const server = createServer((c) => {
    let buf = "";
    c.on("data", (b) => {
      buf += b.toString();
      if (buf.includes("\n")) onConn(c, buf.slice(0, buf.indexOf("\n")));
    });
  });
  servers.push(server);
  return new Promise((resolve) => server.listen(path, () => resolve(server)));
}

const req = { v: 1, op: "input", runId: "r1", data: "" } as const;

describe("connectAndRequest", () => {
  it("asks again once when an idle monitor left (its socket removed) without replying", async () => {
    const { root, socket } = workspace();
    const seen: string[] = [];
    await listen(socket, (c, line) => {
      seen.push(`first ${line}`);
      // As an idle monitor leaving: its socket gone, a new monitor on the path, no reply.
      rmSync(socket);
      void listen(socket, (c2, line2) => {
        seen.push(`second ${line2}`);
        c2.write('{"ok":true}\n');
      }).then(() => c.destroy());
    });
    const { sock, reply } = await connectAndRequest(root, "h", req);
    sock.destroy();
    expect(reply).toEqual({ ok: true });
    expect(seen).toEqual([`first ${JSON.stringify(req)}`, `second ${JSON.stringify(req)}`]);
  });

  it("does not ask again when the monitor that closed still owns the socket", async () => {
    const { root, socket } = workspace();
    let conns = 0;
    await listen(socket, (c) => {
      conns++;
      c.destroy();
    });
    await expect(connectAndRequest(root, "h", req)).rejects.toMatchObject({
      code: "ERR_MONITOR",
      message: "the run monitor closed the connection before it replied",
    });
    expect(conns).toBe(1);
  });

  it("does not ask again when part of a reply came before the close", async () => {
    const { root, socket } = workspace();
    let conns = 0;
    await listen(socket, (c) => {
      conns++;
      rmSync(socket);
      void listen(socket, (c2) => {
        conns++;
        c2.write('{"ok":true}\n');
      }).then(() => c.end('{"ok":'));
    });
    await expect(connectAndRequest(root, "h", req)).rejects.toMatchObject({ code: "ERR_MONITOR" });
    expect(conns).toBe(1);
  });

  it("asks again only once: a second monitor that leaves too is an error", async () => {
    const { root, socket } = workspace();
    let conns = 0;
    const leave = (c: Socket) => {
      conns++;
      rmSync(socket);
      void listen(socket, leave).then(() => c.destroy());
    };
    await listen(socket, leave);
    await expect(connectAndRequest(root, "h", req)).rejects.toMatchObject({ code: "ERR_MONITOR" });
    expect(conns).toBe(2);
  });
});
