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
