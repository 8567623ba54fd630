import { ArielError } from "../../errors.ts";
import { quoteValue } from "../../names.ts";
import type { Ports } from "../../ports.ts";
import { parseWorktreeList, type WorktreeEntry } from "../../worktree/porcelain.ts";
import { git, gitRaw } from "./_git.ts";

/** `git worktree list --porcelain -z` of the repository holding `cwd`. */
export async function listWorktrees(ports: Ports, cwd: string): Promise<WorktreeEntry[]> {
  return parseWorktreeList(await git(ports, cwd, ["worktree", "list", "--porcelain", "-z"]));
}

/** The commit a ref names in `cwd`, or null when it names none. */
export async function resolveCommit(ports: Ports, cwd: string, ref: string): Promise<string | null> {
  const r = await gitRaw(ports, cwd, ["rev-parse", "-q", "--verify", "--end-of-options", `${ref}^{commit}`]);
  return r.code === 0 ? r.stdout.trim() : null;
}

/** The base commit of a leg: `--base REF` or the source's HEAD, as a full object id. */
export async function resolveBase(
  ports: Ports,
  source: string,
  name: string,
  base?: string,
): Promise<string> {
  if (base !== undefined && (base === "" || base.startsWith("-") || base.includes("\0"))) {
    throw new ArielError("ERR_INVALID_INPUT", `invalid --base ${quoteValue(base)}`, {
      hint: "name a commit, branch or tag",
    });
  }
  const commit = await resolveCommit(ports, source, base ?? "HEAD");
  if (commit === null) {
    throw new ArielError(
      "ERR_NOINPUT",
      base === undefined
        ? `source ${name} has no commit at HEAD`
        : `base ${base} not found in source ${name}`,
      { hint: "pass --base with a commit that exists in every source", context: { source: name, base } },
    );
  }
  return commit;
}
