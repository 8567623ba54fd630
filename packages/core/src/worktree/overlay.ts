/**
 * The parity overlay: local files (secrets, editor and agent settings) copied from a source
 * into each new worktree so an agent there is a full peer of one working in the source.
 */
import { compareBytewise } from "./_deps.ts";

/**
 * The patterns of a `.worktreeinclude` file (gitignore syntax): one per line, blank lines and
 * `#` comments dropped, trailing spaces trimmed (unless escaped).
 *
 * @example
 * ```ts
 * parseWorktreeInclude("# local\n.env.*\n\nconfig/local/\n"); // [".env.*", "config/local/"]
 * ```
 */
export function parseWorktreeInclude(text: string): string[] {
  const out: string[] = [];
  for (const raw of text.split(/\r?\n/)) {
    const line = raw.replace(/(?<!\\)\s+$/, "");
    if (line === "" || line.startsWith("#")) continue;
    out.push(line);
  }
  return out;
}

/**
 * A candidate overlay path as a clean relative POSIX path, or null when it is absolute, empty,
 * or climbs out (`..`): such a path is never copied.
 *
 * @example
 * ```ts
 * normalizeOverlayPath("./.env");      // ".env"
 * normalizeOverlayPath("../secrets");  // null
 * ```
 */
export function normalizeOverlayPath(path: string): string | null {
  if (path === "" || path.startsWith("/") || path.includes("\0")) return null;
  const parts: string[] = [];
  for (const seg of path.split("/")) {
    if (seg === "" || seg === ".") continue;
    if (seg === "..") return null;
    parts.push(seg);
  }
  if (parts.length === 0 || parts[0] === ".git") return null;
  return parts.join("/");
}

/**
 * Unique, normalized overlay paths sorted by their UTF-8 bytes (code point order, as git and
 * `LC_ALL=C sort` do); `.git` internals and escapes dropped.
 */
export function mergeOverlayPaths(...lists: readonly (readonly string[])[]): string[] {
  const set = new Set<string>();
  for (const list of lists) {
    for (const p of list) {
      const n = normalizeOverlayPath(p);
      if (n !== null) set.add(n);
    }
  }
  return [...set].sort(compareBytewise);
}
