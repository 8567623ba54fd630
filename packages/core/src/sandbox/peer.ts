/**
 * Which socket a TCP client connected from, read from the kernel's socket table
 * (`/proc/net/tcp`, `/proc/net/tcp6`): the line whose local port is the client's and whose remote
 * port is the server's names the client socket's inode. The fleet's server uses it to refuse a
 * request from inside a sandbox (docs/sandbox.md, decision 0114).
 *
 * @example
 * ```ts
 * const table = "  sl  local_address rem_address   st …\n" +
 *   "   1: 0100007F:AEC8 0100007F:1EC6 01 00000000:00000000 00:00000000 00000000     0        0 4242 1 0 20 4 30 10 -1\n";
 * clientSocketInode(table, 0xaec8, 7878); // "4242"
 * ```
 */
export function clientSocketInode(table: string, clientPort: number, serverPort: number): string | null {
  for (const line of table.split("\n").slice(1)) {
    const f = line.trim().split(/\s+/);
    const local = f[1];
    const remote = f[2];
    const inode = f[9];
    if (local === undefined || remote === undefined || inode === undefined) continue;
    const port = (a: string) => Number.parseInt(a.slice(a.lastIndexOf(":") + 1), 16);
    if (port(local) === clientPort && port(remote) === serverPort && inode !== "0") return inode;
  }
  return null;
}
