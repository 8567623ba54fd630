/**
 * When may a new leg get a source's dependency directory (`add --share node_modules`) without a
 * copy? Only when the lockfiles next to it are byte-identical in the source and the leg. Pure.
 */

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
