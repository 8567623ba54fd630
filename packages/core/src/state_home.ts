/**
 * The user state dir: where ariel keeps what belongs to the user rather than to one workspace
 * (the registry of workspaces, and the history of runs whose root was only the cwd).
 *
 * `$ARIEL_STATE_HOME`, else `$XDG_STATE_HOME/ariel`, else `~/.local/state/ariel`.
 *
 * @example
 * ```ts
 * userStateDir({ HOME: "/home/me" }, "/tmp");                       // "/home/me/.local/state/ariel"
 * userStateDir({ XDG_STATE_HOME: "/xdg", HOME: "/home/me" }, "/");  // "/xdg/ariel"
 * userStateDir({ ARIEL_STATE_HOME: "st" }, "/work");                // "/work/st"
 * ```
 */
import { joinPosix } from "./paths.ts";

/** The environment variable that names the user state dir outright. */
export const STATE_HOME_ENV = "ARIEL_STATE_HOME";

/**
 * The user state dir, or null when none can be named (no `ARIEL_STATE_HOME`, no absolute
 * `XDG_STATE_HOME`, no `HOME`). A relative `ARIEL_STATE_HOME` is taken from `cwd`; a relative
 * `XDG_STATE_HOME` is ignored, as the XDG base directory specification says.
 */
export function userStateDir(env: Readonly<Record<string, string | undefined>>, cwd: string): string | null {
  const own = env[STATE_HOME_ENV];
  if (own) return joinPosix(cwd, own);
  const xdg = env.XDG_STATE_HOME;
  if (xdg?.startsWith("/")) return joinPosix(xdg, "ariel");
  const home = env.HOME;
  if (home?.startsWith("/")) return joinPosix(home, ".local/state/ariel");
  return null;
}

/** `<user state dir>/workspaces`: one `<hash>.json` per workspace ariel made `.ariel/` in. */
export function workspacesDir(stateHome: string): string {
  return joinPosix(stateHome, "workspaces");
}

/** `<user state dir>/trust.json`: the repository hooks the user approved, by file and digest. */
export function trustStorePath(stateHome: string): string {
  return joinPosix(stateHome, "trust.json");
}

/** `<user state dir>/ports.json`: the machine's port leases, every task of every workspace. */
export function portRegistryPath(stateHome: string): string {
  return joinPosix(stateHome, "ports.json");
}
