/**
 * Whether a loopback TCP client is a process of a sandbox (docs/sandbox.md, decision 0114): one
 * in another user namespace than this process's holds the client's socket. Only processes in
 * another user namespace are looked at (usually none, or a sandbox's few), so the common answer,
 * no, costs a readlink per process.
 */
import { readdirSync, readFileSync, readlinkSync } from "node:fs";
import { clientSocketInode } from "../../sandbox/peer.ts";

function link(path: string): string | null {
  try {
    return readlinkSync(path);
  } catch {
    return null;
  }
}

function table(path: string): string {
  try {
    return readFileSync(path, "utf8");
  } catch {
    return "";
  }
}

/** The pids of processes in another user namespace than this one (Linux; none elsewhere). */
function foreignProcesses(): string[] {
  const own = link("/proc/self/ns/user");
  if (own === null) return [];
  let pids: string[];
  try {
    pids = readdirSync("/proc").filter((p) => /^\d+$/.test(p));
  } catch {
    return [];
  }
  return pids.filter((p) => {
    const ns = link(`/proc/${p}/ns/user`);
    return ns !== null && ns !== own;
  });
}

/** Whether the client at `clientPort` of a connection to `serverPort` is a sandbox's process. */
export function clientInSandbox(clientPort: number, serverPort: number): boolean {
  const foreign = foreignProcesses();
  if (foreign.length === 0) return false;
  const inode =
    clientSocketInode(table("/proc/net/tcp"), clientPort, serverPort) ??
    clientSocketInode(table("/proc/net/tcp6"), clientPort, serverPort);
  if (inode === null) return false;
  const want = `socket:[${inode}]`;
  for (const pid of foreign) {
    let fds: string[];
    try {
      fds = readdirSync(`/proc/${pid}/fd`);
    } catch {
      continue;
    }
    if (fds.some((fd) => link(`/proc/${pid}/fd/${fd}`) === want)) return true;
  }
  return false;
}
