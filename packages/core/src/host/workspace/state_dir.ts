import type { Ports } from "../../ports.ts";
import { ensureStateDir } from "../../workspace.ts";
import { registerWorkspace } from "./registry.ts";

/**
 * {@link ensureStateDir}, and the workspace's entry in the user state dir's registry when it has
 * none: made with `.ariel/` the first time, or late for a `.ariel/` older than the registry (one
 * `lstat` of the entry per call; see docs/fleet.md). The registry is a convenience for fleet views:
 * failing to write it never fails the command. Callers decide first whether `.ariel/` may be made
 * there at all (`requireStateRoot`).
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
  const dir = await ensureStateDir(ports, ws.root);
  await registerWorkspace(ports, ws).catch(() => null); // writes only when the entry is missing
  return dir;
}
