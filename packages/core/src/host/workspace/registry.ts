import { isArielError } from "../../errors.ts";
import type { FsPort, Ports } from "../../ports.ts";
import { checkRecord } from "../../schema/mod.ts";
import { type WorkspaceEntry, workspaceEntrySchema } from "../../schema/workspace.ts";
import { userStateDir, workspacesDir } from "../../state_home.ts";

/**
 * The registry of workspaces in the user state dir: `workspaces/<hash>.json`, one file per
 * workspace root that ariel made `.ariel/` in, written once. A fleet view lists workspaces from
 * it ({@link readWorkspaceRegistry}); a root that no longer exists stays listed (report it as
 * gone, never delete it).
 */

/** The path of a workspace's entry, or null when there is no user state dir. */
export function workspaceEntryPath(ports: Pick<Ports, "env" | "cwd">, hash: string): string | null {
  const home = userStateDir(ports.env, ports.cwd);
  return home === null ? null : `${workspacesDir(home)}/${hash}.json`;
}

/**
 * Write `workspaces/<hash>.json` (`v`, `root`, `hash`, `firstSeen`) unless it exists: temp file +
 * fsync + rename + directory fsync, so a reader sees the whole entry or none. Returns the path
 * written, or null when the entry existed already or there is no user state dir.
 *
 * @example
 * ```ts
 * await registerWorkspace(hostPorts(), { root: "/home/me/ws", hash: await workspaceHash("/home/me/ws") });
 * ```
 */
export async function registerWorkspace(
  ports: Pick<Ports, "fs" | "env" | "cwd" | "clock">,
  ws: { root: string; hash: string },
): Promise<string | null> {
  const path = workspaceEntryPath(ports, ws.hash);
  if (path === null || (await ports.fs.lstat(path)) !== null) return null;
  const entry: WorkspaceEntry = {
    v: 1,
    root: ws.root,
    hash: ws.hash,
    firstSeen: new Date(ports.clock.now()).toISOString(),
  };
  await ports.fs.mkdirp(path.slice(0, path.lastIndexOf("/")));
  await ports.fs.writeAtomic(path, `${JSON.stringify(entry)}\n`);
  return path;
}

/** One registry file that could not be used, and why. */
export interface RegistryProblem {
  path: string;
  message: string;
}

/**
 * Every entry of the registry, sorted by root (bytewise); files that are not valid entries (or
 * whose name is not their hash) are returned as problems, never deleted. An absent registry is
 * empty.
 */
export async function readWorkspaceRegistry(
  ports: Pick<Ports, "fs" | "env" | "cwd">,
): Promise<{ entries: WorkspaceEntry[]; problems: RegistryProblem[] }> {
  const home = userStateDir(ports.env, ports.cwd);
  if (home === null) return { entries: [], problems: [] };
  const dir = workspacesDir(home);
  const names = await listJson(ports.fs, dir);
  const entries: WorkspaceEntry[] = [];
  const problems: RegistryProblem[] = [];
  for (const name of names) {
    const path = `${dir}/${name}`;
    try {
      const entry = checkRecord(workspaceEntrySchema(), JSON.parse(await ports.fs.readText(path)), path);
      if (`${entry.hash}.json` !== name) throw new Error(`names hash ${entry.hash}`);
      entries.push(entry);
    } catch (e) {
      const message = isArielError(e) || e instanceof Error ? e.message : String(e);
      problems.push({ path, message });
    }
  }
  entries.sort((a, b) => (a.root < b.root ? -1 : a.root > b.root ? 1 : 0));
  return { entries, problems };
}

async function listJson(fs: FsPort, dir: string): Promise<string[]> {
  try {
    return (await fs.readDir(dir))
      .filter((e) => e.kind === "file" && e.name.endsWith(".json") && !e.name.startsWith("."))
      .map((e) => e.name)
      .sort();
  } catch (e) {
    if ((e as { code?: string }).code === "ENOENT") return [];
    throw e;
  }
}
