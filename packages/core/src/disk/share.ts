/**
 * When may a new leg get a source's dependency directory (`add --share node_modules`) without a
 * copy? Only when the lockfiles next to it are byte-identical in the source and the leg. Pure.
 */
import { ArielError } from "../errors.ts";

/** Lockfiles compared before a directory is shared (those present in either tree). */
export const LOCKFILES: readonly string[] = [
  "package-lock.json",
  "npm-shrinkwrap.json",
  "pnpm-lock.yaml",
  "yarn.lock",
  "bun.lock",
  "bun.lockb",
  "deno.lock",
  "Cargo.lock",
  "poetry.lock",
  "uv.lock",
  "Pipfile.lock",
  "Gemfile.lock",
  "composer.lock",
  "go.sum",
];

/** Lockfile name → sha256 of its bytes, for the files present. */
export type LockHashes = Readonly<Record<string, string>>;

export type ShareDecision =
  | { share: true; lockfiles: string[] }
  | {
      share: false;
      reason: "no-source-dir" | "exists" | "no-lockfile" | "lockfile-differs" | "link-failed";
      detail: string;
    };

/** Whether to share directory `name` of a source into a leg. */
export function decideShare(
  name: string,
  facts: { sourceHasDir: boolean; legHasDir: boolean; source: LockHashes; leg: LockHashes },
): ShareDecision {
  if (!facts.sourceHasDir)
    return { share: false, reason: "no-source-dir", detail: `the source has no ${name}` };
  if (facts.legHasDir)
    return { share: false, reason: "exists", detail: `the worktree has a ${name} already` };
  const names = [...new Set([...Object.keys(facts.source), ...Object.keys(facts.leg)])].sort();
  if (names.length === 0) {
    return { share: false, reason: "no-lockfile", detail: `no lockfile next to ${name} to prove it matches` };
  }
  const differs = names.filter((n) => facts.source[n] !== facts.leg[n]);
  if (differs.length > 0) {
    return {
      share: false,
      reason: "lockfile-differs",
      detail: `${differs.join(", ")} differs from the source's: run the install in the worktree`,
    };
  }
  return { share: true, lockfiles: names };
}

/**
 * Check `--share` names (ERR_USAGE): each must be one directory name at the top of a checkout,
 * never a path. Shared by `ariel-worktree add` and `ariel-spawn --isolate`.
 *
 * @example
 * ```ts
 * checkShareNames(["node_modules", ".venv"]); // fine
 * checkShareNames(["../x"]); // throws ERR_USAGE: --share: not a directory name: "../x"
 * ```
 */
export function checkShareNames(names: readonly string[]): void {
  for (const name of names) {
    if (!/^[A-Za-z0-9._-]+$/.test(name) || name === "." || name === "..") {
      throw new ArielError("ERR_USAGE", `--share: not a directory name: ${JSON.stringify(name)}`, {
        hint: "name a directory at the top of the checkout, e.g. --share node_modules",
        context: { value: name },
      });
    }
  }
}

/**
 * The names to share into new legs: config `share` and the `--share` flags, once each, in that
 * order.
 */
export function shareNames(config: readonly string[], flags: readonly string[]): string[] {
  return [...new Set([...config, ...flags])];
}

/**
 * Whether a directory left out deserves a warning: always, except a configured name the source
 * simply has not got (config `share` applies to every source; a flag names this one).
 */
export function warnNotShared(
  decision: Extract<ShareDecision, { share: false }>,
  name: string,
  flags: readonly string[],
): boolean {
  return decision.reason !== "no-source-dir" || flags.includes(name);
}

/**
 * How a shared directory reaches a leg (config `shareMode`, `add --share-mode`):
 * - `tree` (default): the leg gets its own directories, every file a hardlink to the source's.
 * - `store`: one store per source, directory and lockfiles (`.ariel/share/<key>/<dir>`), its
 *   directories made once; each leg's `<dir>` is a real directory of symbolic links into it.
 *   Writes inside a package directory reach every leg using the store (docs/disk.md).
 */
export const SHARE_MODES = ["tree", "store"] as const;
export type ShareMode = (typeof SHARE_MODES)[number];

/** Under the workspace root: one directory per store. */
export const SHARE_STORE_DIR = ".ariel/share";
/** In a store-mode leg's `<dir>`: the one link to the store; every entry links through it. */
export const STORE_LINK = ".ariel-share";
/** The store's own record, next to its `<dir>`. */
export const STORE_MANIFEST = "store.json";

/** Check a `--share-mode` value (ERR_USAGE). */
export function parseShareMode(value: string): ShareMode {
  if ((SHARE_MODES as readonly string[]).includes(value)) return value as ShareMode;
  throw new ArielError("ERR_USAGE", `--share-mode: not a mode: ${JSON.stringify(value)}`, {
    hint: `use one of: ${SHARE_MODES.join(", ")}`,
    context: { value },
  });
}

/**
 * What identifies a store: the source, the directory, the lockfiles and the files at the top of
 * the directory (`.package-lock.json`, `.modules.yaml`, `.yarn-state.yml`: a package manager
 * rewrites them on every install, so a reinstall in the source makes a new store). The host
 * hashes this text into the store's key.
 */
export function storeKeyText(
  sourcePath: string,
  name: string,
  locks: LockHashes,
  topFiles: LockHashes,
): string {
  const lines = (h: LockHashes) =>
    Object.keys(h)
      .sort()
      .map((k) => `${k}\t${h[k]}`);
  return [`source\t${sourcePath}`, `dir\t${name}`, ...lines(locks), "--", ...lines(topFiles)].join("\n");
}

/**
 * Where one entry at the top of a shared directory goes in a store-mode leg:
 * - `link`: a symbolic link of the source's, made again in the leg with the same target (a
 *   relative one resolves against the leg, as in `tree` mode: pnpm's `zod -> .pnpm/…`, a
 *   workspace package's `../packages/x`);
 * - `file`: a file, hardlinked into the leg (its name costs the leg nothing);
 * - `scope`: an `@scope` directory, made real in the leg, each entry placed by the same rules;
 * - `tree`: a directory the leg gets as its own tree of hardlinks, as in `tree` mode: dot
 *   directories other than `.pnpm` (`.bin`, `.cache`, `.vite`, `.prisma`: what tools write at
 *   run time stays per leg) and any directory holding a relative link that leaves it (it would
 *   point elsewhere from the store);
 * - `store`: any other directory (a package, `.pnpm`): a link into the store.
 */
export function placeEntry(
  name: string,
  kind: "dir" | "file" | "symlink" | "other",
  facts: { scoped: boolean; escapes: boolean },
): "link" | "file" | "scope" | "tree" | "store" | "skip" {
  if (kind === "symlink") return "link";
  if (kind === "file") return "file";
  if (kind !== "dir") return "skip";
  if (!facts.scoped && name.startsWith("@")) return "scope";
  if (!facts.scoped && name.startsWith(".") && name !== ".pnpm") return "tree";
  return facts.escapes ? "tree" : "store";
}

/** Whether a relative link at `rel` (inside the shared directory, `/`-separated) with `target` points outside it. */
export function linkEscapes(rel: string, target: string): boolean {
  if (target.startsWith("/")) return false; // absolute: the same from anywhere
  const parts = rel.split("/").slice(0, -1);
  for (const seg of target.split("/")) {
    if (seg === "" || seg === ".") continue;
    if (seg === "..") {
      if (parts.length === 0) return true;
      parts.pop();
    } else parts.push(seg);
  }
  return false;
}
