/**
 * The user's registry of workspaces: `<state home>/workspaces/<hash>.json`, one small record per
 * workspace (`v`, `root`, `hash`, `firstSeen`), written once by the first command that makes the
 * workspace's `.ariel/`. The fleet reads it; it never deletes an entry.
 *
 * @example
 * ```ts
 * userStateHome({ ARIEL_STATE_HOME: "/s" }, "/home/me"); // "/s"
 * userStateHome({ XDG_STATE_HOME: "/x" }, "/home/me"); // "/x/ariel"
 * userStateHome({}, "/home/me"); // "/home/me/.local/state/ariel"
 * ```
 */
import { joinPosix } from "../paths.ts";

/** `$ARIEL_STATE_HOME`, else `$XDG_STATE_HOME/ariel`, else `~/.local/state/ariel`. */
export function userStateHome(env: Readonly<Record<string, string | undefined>>, home: string): string {
  const own = env.ARIEL_STATE_HOME;
  if (own) return own;
  const xdg = env.XDG_STATE_HOME;
  if (xdg) return joinPosix(xdg, "ariel");
  return joinPosix(home, ".local/state/ariel");
}

/** The registry directory under the state home. */
export function registryDir(stateHome: string): string {
  return joinPosix(stateHome, "workspaces");
}

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
