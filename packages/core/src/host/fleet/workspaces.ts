import { promises as fsp } from "node:fs";
import { resolve } from "node:path";
import { ArielError } from "../../errors.ts";
import { workspaceHash } from "../../hash.ts";
import { quoteValue } from "../../names.ts";
import { taskOwner } from "../../task_owner.ts";
import { nodeFs } from "../fs.ts";
import { readWorkspaceRegistry, workspaceEntryPath } from "../workspace/registry.ts";

/** A workspace the fleet knows, whether or not its root still exists. */
export interface KnownWorkspace {
  root: string;
  hash: string;
  origin: "registry" | "flag";
  exists: boolean;
}

export interface KnownWorkspaces {
  workspaces: KnownWorkspace[];
  /** Registry files that could not be read; reported, never touched. */
  problems: ArielError[];
}

async function isDir(p: string): Promise<boolean> {
  return (await fsp.stat(p).catch(() => null))?.isDirectory() === true;
}

/**
 * The registry entries of the user state dir ({@link readWorkspaceRegistry}, the one reader), plus
 * the fleet's own check that an entry's hash is its root's. Unusable files become ERR_RECORD_CORRUPT
 * problems, reported and never touched. A missing registry is empty.
 */
async function readRegistry(
  env: Readonly<Record<string, string | undefined>>,
  cwd: string,
): Promise<{ entries: { root: string; hash: string }[]; problems: ArielError[] }> {
  const read = await readWorkspaceRegistry({ fs: nodeFs, env, cwd });
  const bad = read.problems.map((p) => ({ path: p.path, why: p.message.split("\n")[0] ?? "cannot be read" }));
  const entries: { root: string; hash: string }[] = [];
  for (const e of read.entries) {
    if ((await workspaceHash(e.root)) === e.hash) entries.push({ root: e.root, hash: e.hash });
    else
      bad.push({
        path: workspaceEntryPath({ env, cwd }, e.hash) ?? e.hash,
        why: "its hash is not the hash of its root",
      });
  }
  bad.sort((a, b) => (a.path < b.path ? -1 : a.path > b.path ? 1 : 0));
  const problems = bad.map(
    (b) =>
      new ArielError("ERR_RECORD_CORRUPT", `workspace registry entry ${quoteValue(b.path)}: ${b.why}`, {
        hint: "move the file aside; the workspace is registered again by its next ariel command",
        context: { path: b.path },
      }),
  );
  return { entries, problems };
}

/**
 * The fleet's workspaces: the user state dir's registry plus `extra` directories (`--workspace`,
 * taken from `cwd` and canonicalized; one in a task's directory is the workspace that owns the
 * task), one per hash. A root that no longer exists is kept and
 * reported `exists: false`; nothing is ever removed from the registry.
 *
 * @example
 * ```ts
 * const { workspaces } = await knownWorkspaces(process.env, process.cwd(), ["../other"]);
 * ```
 */
export async function knownWorkspaces(
  env: Readonly<Record<string, string | undefined>>,
  cwd: string,
  extra: readonly string[] = [],
): Promise<KnownWorkspaces> {
  const { entries, problems } = await readRegistry(env, cwd);
  const out = new Map<string, KnownWorkspace>();
  for (const dir of extra) {
    if (dir === "") throw new ArielError("ERR_USAGE", "--workspace needs a directory");
    const abs = resolve(cwd, dir);
    const real = await fsp.realpath(abs).catch(() => abs);
    // A task's directory is never a workspace: the workspace that owns the task is meant.
    const root = (await taskOwner(nodeFs, real).catch(() => null))?.root ?? real;
    const hash = await workspaceHash(root);
    if (!out.has(hash)) out.set(hash, { root, hash, origin: "flag", exists: await isDir(root) });
  }
  for (const e of entries) {
    if (!out.has(e.hash)) out.set(e.hash, { ...e, origin: "registry", exists: await isDir(e.root) });
  }
  return { workspaces: [...out.values()], problems };
}
