import { promises as fsp } from "node:fs";
import { resolve } from "node:path";
import { ArielError } from "../../errors.ts";
import { parseRegistryEntry } from "../../fleet/registry.ts";
import { workspaceHash } from "../../hash.ts";
import { quoteValue } from "../../names.ts";
import { userStateDir, workspacesDir } from "../../state_home.ts";

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

/** The registry entries of the user state dir (a missing registry is empty). */
async function readRegistry(
  env: Readonly<Record<string, string | undefined>>,
  cwd: string,
): Promise<{ entries: { root: string; hash: string }[]; problems: ArielError[] }> {
  const home = userStateDir(env, cwd);
  if (home === null) return { entries: [], problems: [] };
  const dir = workspacesDir(home);
  const names = await fsp.readdir(dir).catch(() => [] as string[]);
  const entries: { root: string; hash: string }[] = [];
  const problems: ArielError[] = [];
  for (const name of names.filter((n) => /^[0-9a-f]{16}\.json$/.test(n)).sort()) {
    const path = `${dir}/${name}`;
    let entry: ReturnType<typeof parseRegistryEntry>;
    try {
      entry = parseRegistryEntry(JSON.parse(await fsp.readFile(path, "utf8")));
    } catch (e) {
      entry = (e as Error).message.split("\n")[0] ?? "cannot be read";
    }
    if (typeof entry !== "string" && (await workspaceHash(entry.root)) !== entry.hash) {
      entry = "its hash is not the hash of its root";
    }
    if (typeof entry !== "string" && `${entry.hash}.json` !== name) entry = "its name is not its hash";
    if (typeof entry === "string") {
      problems.push(
        new ArielError("ERR_RECORD_CORRUPT", `workspace registry entry ${quoteValue(path)}: ${entry}`, {
          hint: "move the file aside; the workspace is registered again by its next ariel command",
          context: { path },
        }),
      );
      continue;
    }
    entries.push({ root: entry.root, hash: entry.hash });
  }
  return { entries, problems };
}

/**
 * The fleet's workspaces: the user state dir's registry plus `extra` directories (`--workspace`,
 * taken from `cwd` and canonicalized), one per hash. A root that no longer exists is kept and
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
    const root = await fsp.realpath(abs).catch(() => abs);
    const hash = await workspaceHash(root);
    if (!out.has(hash)) out.set(hash, { root, hash, origin: "flag", exists: await isDir(root) });
  }
  for (const e of entries) {
    if (!out.has(e.hash)) out.set(e.hash, { ...e, origin: "registry", exists: await isDir(e.root) });
  }
  return { workspaces: [...out.values()], problems };
}
