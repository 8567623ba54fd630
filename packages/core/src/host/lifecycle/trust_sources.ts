/**
 * What `ariel-worktree trust` looks at: the config files of the workspace's sources that came
 * with their repository (git tracks them) and hold hooks, each with its trust state.
 *
 * @example
 * ```ts
 * const found = await repositoryHookSets(ports, "/ws", ["api"]);
 * found[0]; // { source: "api", set: { origin: "repository", trusted: false, untrusted: "never-approved", … } }
 * ```
 */
import { discoverSources } from "../../discovery/discover.ts";
import { hasHooks } from "../../lifecycle/hooks.ts";
import type { Ports } from "../../ports.ts";
import { openWorkspace, resolveSource } from "../worktree/workspace.ts";
import { type ConfigSet, readConfigSet } from "./hook_sets.ts";
import { readTrust } from "./trust_store.ts";

/** A source and the config file of its repository. */
export interface SourceHookSet {
  source: string;
  /** The source checkout. */
  path: string;
  set: ConfigSet;
}

/**
 * The repository config files with hooks of the named sources (default: every source the
 * workspace's discovery finds). A named source without one is listed in `without`.
 */
export async function repositoryHookSets(
  ports: Ports,
  root: string,
  sources?: readonly string[],
): Promise<{ root: string; found: SourceHookSet[]; without: string[] }> {
  const ws = await openWorkspace(ports, root);
  const named =
    sources && sources.length > 0
      ? await Promise.all(sources.map(async (name) => ({ name, path: (await resolveSource(ws, name)).path })))
      : (await discoverSources(ports.fs, ws.root, {})).map((s) => ({ name: s.name, path: s.path }));
  const trust = await readTrust(ports);
  const found: SourceHookSet[] = [];
  const without: string[] = [];
  for (const s of named) {
    const set = await readConfigSet(ports, s.path, trust);
    if (set && set.origin === "repository" && hasHooks(set.hooks))
      found.push({ source: s.name, path: s.path, set });
    else without.push(s.name);
  }
  return { root: ws.root, found, without };
}
