/**
 * Whether a loopback client is a sandbox's process, asked of the kernel's tables: this process's
 * own connection is not; a process in a user namespace of its own (bubblewrap, as a sandbox makes
 * it) holding the client's socket is; a port no connection has is not.
 */
import { type ChildProcess, spawn } from "node:child_process";
import { readlinkSync } from "node:fs";
import { connect, createServer, type Server, type Socket } from "node:net";
import { afterEach, describe, expect, it } from "vitest";
import { bwrapArgv } from "../../sandbox/mounts.ts";
import { findOnPath } from "../which.ts";
import { clientInSandbox } from "./peer.ts";

const bwrap = findOnPath("bwrap", process.env.PATH);
const envTool = findOnPath("env", process.env.PATH);
let server: Server | null = null;
let child: ChildProcess | null = null;
const sockets: Socket[] = [];
afterEach(async () => {
  child?.kill("SIGKILL");
  child = null;
  for (const s of sockets.splice(0)) s.destroy();
  await new Promise((r) => (server ? server.close(r) : r(null)));
  server = null;
});

/** A server on 127.0.0.1; resolves with its port and, on each connection, the client's port. */
function listen(onClient: (port: number) => void): Promise<number> {
  return new Promise((resolve) => {
    server = createServer((s) => {
      sockets.push(s);
      onClient(s.remotePort!);
    });
    server.listen(0, "127.0.0.1", () => resolve((server!.address() as { port: number }).port));
  });
}

describe("clientInSandbox", () => {
  it("a connection of this process is not a sandbox's", async () => {
    let client = 0;
    const port = await listen((p) => {
      client = p;
    });
    const s = connect(port, "127.0.0.1");
    sockets.push(s);
    await new Promise((r) => s.once("connect", r));
    for (let i = 0; i < 100 && client === 0; i++) await new Promise((r) => setTimeout(r, 10));
    expect(client).toBe(s.localPort);
    expect(clientInSandbox(client, port)).toBe(false);
  });

  it("a port with no connection to the server is no sandbox's", async () => {
    const port = await listen(() => {});
    expect(clientInSandbox(1, port)).toBe(false);
  });

  it.runIf(bwrap !== null && envTool !== null)(
    "a process in a user namespace of its own holding the client's socket is",
    async () => {
      let client = 0;
      const port = await listen((p) => {
        client = p;
      });
      const script = `require("net").connect(${port}, "127.0.0.1"); setInterval(() => {}, 1000);`;
      // The sandbox as a run gets it (network on, so it can reach loopback).
      const argv = bwrapArgv({ bwrap: bwrap!, env: envTool!, mounts: [], net: "on", cwd: "/", setenv: {} }, [
        process.execPath,
        "-e",
        script,
      ]);
      child = spawn(argv[0]!, argv.slice(1), { stdio: "ignore" });
      for (let i = 0; i < 2000 && client === 0; i++) await new Promise((r) => setTimeout(r, 10));
      expect(client).not.toBe(0);
      expect(clientInSandbox(client, port)).toBe(true);
      expect(clientInSandbox(client, port + 1 === 65536 ? 1 : port + 1)).toBe(false);
    },
  );
});

describe("clientInSandbox: processes in another user namespace", () => {
  const unshare = findOnPath("unshare", process.env.PATH);

  /** `node -e script` in a user namespace of its own (the network shared, as a sandbox with net on). */
  function foreign(script: string): ChildProcess {
    return spawn(unshare!, ["-U", process.execPath, "-e", script], { stdio: "ignore" });
  }

  it.runIf(unshare !== null)(
    "a foreign process that does not hold the client's socket does not make this process's client a sandbox's",
    async () => {
      child = foreign("setInterval(() => {}, 1000);");
      let client = 0;
      const port = await listen((p) => {
        client = p;
      });
      const s = connect(port, "127.0.0.1");
      sockets.push(s);
      await new Promise((r) => s.once("connect", r));
      for (let i = 0; i < 100 && client === 0; i++) await new Promise((r) => setTimeout(r, 10));
      // Wait until the foreign process is in its namespace and has its fds.
      for (let i = 0; i < 300; i++) {
        const ns = (() => {
          try {
            return readlinkSync(`/proc/${child!.pid}/ns/user`);
          } catch {
            return null;
          }
        })();
        if (ns !== null && ns !== readlinkSync("/proc/self/ns/user")) break;
        await new Promise((r) => setTimeout(r, 10));
      }
      expect(clientInSandbox(client, port)).toBe(false);
    },
  );

  it.runIf(unshare !== null)("a foreign client over IPv6 loopback is found in tcp6", async () => {
    let client = 0;
    const port = await new Promise<number>((resolve) => {
      server = createServer((s) => {
        sockets.push(s);
        client = s.remotePort!;
      });
      server.listen(0, "::1", () => resolve((server!.address() as { port: number }).port));
    });
    child = foreign(`require("net").connect(${port}, "::1"); setInterval(() => {}, 1000);`);
    for (let i = 0; i < 2000 && client === 0; i++) await new Promise((r) => setTimeout(r, 10));
    expect(client).not.toBe(0);
    expect(clientInSandbox(client, port)).toBe(true);
  });
});
