/**
 * The user's registry of workspaces: `<user state dir>/workspaces/<hash>.json`, one small record
 * per workspace (`v`, `root`, `hash`, `firstSeen`), written once by the first command that makes
 * the workspace's `.ariel/`. The fleet reads it; it never deletes an entry.
 *
 * @example
 * ```ts
 * parseRegistryEntry({ v: 1, root: "/w", hash: "ae89cb2b620ea8fc", firstSeen: "" }); // the entry
 * parseRegistryEntry({ v: 2 }); // "v is not 1"
 * ```
 */

export interface RegistryEntry {
  v: 1;
  root: string;
  hash: string;
  firstSeen: string;
}

/** A registry entry from its parsed JSON, or a one-line reason why it is not one. */
export function parseRegistryEntry(value: unknown): RegistryEntry | string {
  if (value === null || typeof value !== "object" || Array.isArray(value)) return "not a JSON object";
  const r = value as Record<string, unknown>;
  if (r.v !== 1) return "v is not 1";
  if (typeof r.root !== "string" || !r.root.startsWith("/")) return "root is not an absolute path";
  if (typeof r.hash !== "string" || !/^[0-9a-f]{16}$/.test(r.hash)) return "hash is not 16 hex digits";
  const firstSeen = typeof r.firstSeen === "string" ? r.firstSeen : "";
  return { v: 1, root: r.root, hash: r.hash, firstSeen };
}
