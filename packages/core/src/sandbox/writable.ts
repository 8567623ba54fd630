/**
 * Which paths a sandboxed run may write: its own places (each leg's worktree, or the checkout it
 * runs in), the agent's own state and the package caches that exist, and what `--sandbox-write`
 * and config `sandbox.write` add, each checked so that none reaches what the sandbox protects.
 *
 * @example
 * ```ts
 * planWritable({ home: "/h", root: "/w", places: ["/w/.ariel/worktrees/t/api"], guarded: [],
 *   wanted: [], canonical: new Map() }); // ["/w/.ariel/worktrees/t/api"]
 * ```
 */
import { ArielError } from "../errors.ts";
import { isWithin } from "../paths.ts";
import { expandHome } from "./settings.ts";

/** A path a user asked to make writable, as given, and where it was asked. */
export interface WantedPath {
  path: string;
  from: "--sandbox-write" | "config sandbox.write" | "agent" | "cache";
}

export interface WritableFacts {
  home: string | null;
  /** The workspace root (canonical). */
  root: string;
  /** The run's own places, canonical: always writable. */
  places: readonly string[];
  /**
   * What no writable path may hold or lie in (canonical): the run's repositories' git
   * directories, the workspace's state dir, the user state dir.
   */
  guarded: readonly string[];
  wanted: readonly WantedPath[];
  /** Each wanted path once expanded (`~`, relative to the root) → its canonical path, or null when it does not exist. */
  canonical: ReadonlyMap<string, string | null>;
}

/** Why a wanted path cannot be writable, or null. */
function refusal(p: string, facts: WritableFacts): string | null {
  if (p === "/") return "it is the whole filesystem";
  if (facts.home !== null && isWithin(p, facts.home)) return "it holds the home directory";
  if (isWithin(p, facts.root)) return "it holds the workspace root";
  for (const g of facts.guarded) {
    if (isWithin(g, p) || isWithin(p, g)) return `it reaches ${g}, which the sandbox protects`;
  }
  return null;
}

/**
 * The writable list of a sandboxed run: its places first, then each wanted path that exists
 * (agent state and caches that do not exist are skipped; a `--sandbox-write` or config path
 * that does not exist is ERR_NOINPUT, 66), without duplicates and without a path that another
 * already holds. A user's path that would reach what the sandbox protects (the home directory
 * or the workspace root as a whole, a git directory, ariel's state) is ERR_PATH_ESCAPE (77).
 */
export function planWritable(facts: WritableFacts): string[] {
  const out: string[] = [...facts.places];
  for (const w of facts.wanted) {
    const expanded = expandHome(w.path, facts.home, facts.root);
    const p = expanded === null ? null : (facts.canonical.get(expanded) ?? null);
    const user = w.from === "--sandbox-write" || w.from === "config sandbox.write";
    if (p === null) {
      if (!user) continue;
      throw new ArielError("ERR_NOINPUT", `${w.from} ${JSON.stringify(w.path)}: no such file or directory`, {
        hint: "make it first, or name a path that exists",
        context: { path: w.path },
      });
    }
    const why = refusal(p, facts);
    if (why !== null) {
      if (!user) continue; // an agent's state or a cache at an odd place: left read-only
      throw new ArielError(
        "ERR_PATH_ESCAPE",
        `${w.from} ${JSON.stringify(w.path)} cannot be writable: ${why}`,
        {
          hint: "name a narrower directory (docs/sandbox.md, What is writable)",
          context: { path: w.path, canonical: p },
        },
      );
    }
    out.push(p);
  }
  return minimalCover(out);
}

/** The paths without duplicates and without one another already holds, in first-seen order. */
export function minimalCover(paths: readonly string[]): string[] {
  const unique = [...new Set(paths)];
  return unique.filter((p) => !unique.some((q) => q !== p && isWithin(q, p)));
}
