import type { Ports } from "../../ports.ts";
import { ensureStateDir, stateDir } from "../../workspace.ts";
import { registerWorkspace } from "./registry.ts";

/**
 * {@link ensureStateDir}, and when that made `<root>/.ariel/` for the first time, the workspace's
 * entry in the user state dir's registry. The registry is a convenience for fleet views: failing
 * to write it never fails the command. Callers decide first whether `.ariel/` may be made there
 * at all (`requireStateRoot`).
 *
 * @example
 * ```ts
 * const dir = await ensureWorkspaceState(hostPorts(), { root: "/home/me/ws", hash });
 * ```
 */
export async function ensureWorkspaceState(
  ports: Pick<Ports, "fs" | "env" | "cwd" | "clock">,
  ws: { root: string; hash: string },
): Promise<string> {
  const existed = (await ports.fs.stat(stateDir(ws.root)))?.kind === "dir";
  const dir = await ensureStateDir(ports, ws.root);
  if (!existed) await registerWorkspace(ports, ws).catch(() => null);
  return dir;
}
