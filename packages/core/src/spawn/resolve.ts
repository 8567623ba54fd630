import { discoverSources, discoverSourcesSync } from "../discovery/discover.ts";
import type { SyncReadFs } from "../discovery/io.ts";
import type { Source } from "../discovery/types.ts";
import { ArielError } from "../errors.ts";
import { quoteValue, sourceNameProblem } from "../names.ts";
import { isWithin, resolveContained, resolvePosix, toPosixRelative } from "../paths.ts";
import type { FsPort } from "../ports.ts";
import { didYouMean } from "../suggest.ts";
import type { TargetSpec } from "./targets.ts";

/** A resolved target: a source of the workspace, by name and canonical path. */
export interface SpawnSource {
  /** Workspace-relative POSIX path; `.` for the root. */
  name: string;
  /** Canonical absolute path. */
  path: string;
  /** False when the directory holds no `.git` (only the bare workspace root can be that). */
  checkout: boolean;
}

/**
 * Finds a source of the workspace by name (null when there is none); `names(depth)` lists the
 * names down to `depth` levels, for a "did you mean" when a name is not found.
 */
export interface SourceLookup {
  (name: string): Promise<SpawnSource | null>;
  names?: (depth: number) => Promise<string[]>;
}

/** Where a path target came from, without repeating the (unquoted) path itself. */
function where(spec: TargetSpec): string {
  return spec.origin.startsWith("--source ") ? "--source" : spec.origin;
}

async function notFound(
  name: string,
  origin: string,
  root: string,
  lookup: SourceLookup,
): Promise<ArielError> {
  const known = lookup.names ? await lookup.names(Math.max(1, name.split("/").length)) : [];
  const suggestion = didYouMean(name, known);
  return new ArielError(
    "ERR_SOURCE_NOT_FOUND",
    `no source ${quoteValue(name)} in workspace ${root} (${origin})`,
    {
      hint: `${suggestion ? `${suggestion} ` : ""}run ariel-discover to list the workspace's sources`,
      context: { source: name, workspaceRoot: root },
    },
  );
}

/** Throw ERR_PATH_ESCAPE (77) when `name` resolves, through links, to outside `root`; else nothing. */
async function escapes(fs: FsPort, root: string, name: string): Promise<void> {
  if (name.startsWith("/") || name === "") return;
  try {
    await resolveContained(fs, root, name);
  } catch (e) {
    if ((e as ArielError).code === "ERR_PATH_ESCAPE") throw e;
  }
}

/**
 * Turn what the user named into sources of the workspace, in order, without duplicates. Names
 * are looked up; paths are canonicalized and must lie inside the workspace; a record's name is
 * looked up and its path must agree with the workspace (else exit 65: it comes from another
 * workspace, or is stale). An unknown source gives ERR_SOURCE_NOT_FOUND (exit 66); a path, or a
 * name, that leads out of the workspace (through `..` or a symbolic link) gives ERR_PATH_ESCAPE
 * (exit 77), as ariel-worktree does.
 */
export async function resolveTargets(
  fs: FsPort,
  options: { root: string; cwd: string; lookup: SourceLookup },
  specs: readonly TargetSpec[],
): Promise<SpawnSource[]> {
  const { root, cwd, lookup } = options;
  const out: SpawnSource[] = [];
  const seen = new Set<string>();
  for (const spec of specs) {
    let name: string;
    if (spec.kind === "path") {
      const abs = resolvePosix(cwd, spec.path);
      let real: string;
      try {
        real = await fs.realpath(abs);
      } catch {
        throw new ArielError(
          "ERR_SOURCE_NOT_FOUND",
          `no such directory: ${quoteValue(spec.path)} (${where(spec)})`,
          {
            context: { path: abs },
          },
        );
      }
      if (!isWithin(root, real)) {
        // A containment refusal, as in ariel-worktree: 77, not "not found".
        throw new ArielError(
          "ERR_PATH_ESCAPE",
          `${quoteValue(spec.path)} is not inside workspace ${root} (${where(spec)})`,
          { hint: "pass -C DIR to choose the workspace", context: { path: real, workspaceRoot: root } },
        );
      }
      name = toPosixRelative(root, real);
    } else name = spec.name;
    const found = await lookup(name);
    if (!found) {
      // A name that is a link out of the workspace is an escape (77), as ariel-worktree says.
      if (spec.kind === "name") await escapes(fs, root, name);
      throw await notFound(name, spec.origin, root, lookup);
    }
    if (spec.kind === "record" && spec.path !== found.path) {
      throw new ArielError(
        "ERR_INVALID_INPUT",
        `${spec.origin}: source ${quoteValue(name)} is at ${found.path} in this workspace, not ${quoteValue(spec.path)}`,
        {
          hint: "the record comes from another workspace or is stale; pass -C DIR or re-run ariel-discover",
          context: { source: name, path: spec.path, expected: found.path },
        },
      );
    }
    if (seen.has(found.name)) continue;
    seen.add(found.name);
    out.push(found);
  }
  return out;
}

/**
 * Look sources up by discovering them ({@link discoverSources}) as deep as the name goes, nested
 * sources included, so a name resolves exactly when discovery would list it: symbolic links are
 * not followed, `.ariel` and `node_modules` are skipped, a broken `.git` is not a source. The bare
 * root (no `.git`) is `.` with `checkout: false`. With `syncFs` (the same filesystem as `fs`),
 * discovery runs over it synchronously: the same algorithm and result, without a promise per
 * read (a CLI that has nothing else to do meanwhile).
 */
export function discoverLookup(fs: FsPort, root: string, syncFs?: SyncReadFs): SourceLookup {
  const byDepth = new Map<number, Promise<Map<string, string>>>();
  const sourcesTo = (depth: number) => {
    let p = byDepth.get(depth);
    if (!p) {
      const options = { maxDepth: depth, nested: true };
      p = (
        syncFs
          ? new Promise<Source[]>((resolve) => resolve(discoverSourcesSync(syncFs, root, options)))
          : discoverSources(fs, root, options)
      ).then((list) => new Map(list.map((s) => [s.name, s.path])));
      byDepth.set(depth, p);
    }
    return p;
  };
  const lookup: SourceLookup = async (name) => {
    if (sourceNameProblem(name) !== null) return null;
    const depth = name === "." ? 0 : name.split("/").length;
    const path = (await sourcesTo(depth)).get(name);
    if (path !== undefined) return { name, path, checkout: true };
    return name === "." ? { name, path: root, checkout: false } : null;
  };
  lookup.names = async (depth) => [...(await sourcesTo(depth)).keys()];
  return lookup;
}

/**
 * The source the user stands in, as git would find its checkout: the deepest source of the
 * workspace whose directory holds `cwd` (a nested source wins over its parent), or null when
 * `cwd` is in none of them (the workspace root itself, a plain directory, `.ariel/`, outside).
 * Only directories holding `.git` are looked up, so discovery runs once at most.
 *
 * @example
 * ```ts
 * await sourceAtCwd(fs, { root: "/w", cwd: "/w/api/src", lookup }); // { name: "api", path: "/w/api", checkout: true }
 * await sourceAtCwd(fs, { root: "/w", cwd: "/w", lookup });         // null
 * ```
 */
export async function sourceAtCwd(
  fs: FsPort,
  options: { root: string; cwd: string; lookup: SourceLookup },
): Promise<SpawnSource | null> {
  const { root, lookup } = options;
  const cwd = await fs.realpath(options.cwd).catch(() => null);
  if (cwd === null || cwd === root || !isWithin(root, cwd)) return null;
  const parts = toPosixRelative(root, cwd).split("/");
  for (let n = parts.length; n > 0; n--) {
    const name = parts.slice(0, n).join("/");
    if ((await fs.lstat(`${root}/${name}/.git`)) === null) continue;
    const found = await lookup(name);
    if (found?.checkout) return found;
  }
  return null;
}
