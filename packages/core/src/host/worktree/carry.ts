import { ArielError } from "../../errors.ts";
import { quoteValue } from "../../names.ts";
import type { Ports } from "../../ports.ts";
import { nodeCrypto } from "../builtins.ts";
import { git, gitRaw } from "./git.ts";
import { addAll } from "./nested_git.ts";

/** A source's uncommitted work, captured as two trees (objects in the source's repository). */
export interface WorkingCopy {
  /** The commit the changes are relative to (the source's HEAD). */
  head: string;
  /** The index as it is: what is staged. */
  staged: string;
  /** The working tree as `git add -A` would stage it: tracked changes and untracked, not ignored, files. */
  worktree: string;
}

/**
 * Capture a checkout's staged, unstaged and untracked (not ignored) changes without touching
 * its index or its files: a copy of its index is used as a temporary index (GIT_INDEX_FILE), so
 * `git write-tree` gives the staged tree and, after `git add -A`, the working tree's. (`git
 * stash create` would leave untracked files out.) Null when there is nothing to carry. Unmerged
 * paths are refused (ERR_DIRTY, exit 3): resolve them first.
 *
 * @example
 * ```ts
 * const wc = await captureWorkingCopy(ports, "/w/api");
 * if (wc) await applyWorkingCopy(ports, "/w/.ariel/worktrees/t1/api", wc);
 * ```
 */
export async function captureWorkingCopy(ports: Ports, checkout: string): Promise<WorkingCopy | null> {
  const [head, indexPath, gitDir] = (
    await git(ports, checkout, [
      "rev-parse",
      "--path-format=absolute",
      "HEAD",
      "--git-path",
      "index",
      "--absolute-git-dir",
    ])
  )
    .trim()
    .split("\n");
  const tmp = `${gitDir}/ariel-carry-${nodeCrypto().randomBytes(6).toString("hex")}.index`;
  const env = { GIT_INDEX_FILE: tmp };
  try {
    if ((await ports.fs.stat(indexPath as string))?.kind === "file") {
      await ports.fs.writeAtomic(tmp, await ports.fs.readBytes(indexPath as string));
    } else {
      await git(ports, checkout, ["read-tree", head as string], { env });
    }
    const staged = await gitRaw(ports, checkout, ["write-tree"], { env });
    if (staged.code !== 0) {
      throw new ArielError(
        "ERR_DIRTY",
        `${quoteValue(checkout)} has unmerged paths; they cannot be carried`,
        {
          hint: "resolve the conflicts (git status lists them), then try again",
          context: { path: checkout },
        },
      );
    }
    // ariel's own state (a root checkout's .ariel/, worktrees included) is never carried.
    await addAll(ports, checkout, [":(top)", ":(top,exclude).ariel"], env);
    const worktree = (await git(ports, checkout, ["write-tree"], { env })).trim();
    const headTree = (await git(ports, checkout, ["rev-parse", `${head}^{tree}`])).trim();
    const stagedTree = staged.stdout.trim();
    if (stagedTree === headTree && worktree === headTree) return null;
    return { head: head as string, staged: stagedTree, worktree };
  } finally {
    await ports.fs.remove(tmp);
  }
}

/**
 * Put captured changes into a fresh worktree checked out at `wc.head`: its files become the
 * captured working tree (`git read-tree -m -u HEAD <worktree>`), then its index the captured
 * index (`git read-tree <staged>`), so staged changes are staged, unstaged ones unstaged, and
 * untracked files untracked, as in the source.
 */
export async function applyWorkingCopy(ports: Ports, worktree: string, wc: WorkingCopy): Promise<void> {
  await git(ports, worktree, ["read-tree", "-m", "-u", "HEAD", wc.worktree]);
  await git(ports, worktree, ["read-tree", wc.staged]);
  // read-tree leaves no stat data: refresh it (exit 1 only says that files differ, as they do).
  await gitRaw(ports, worktree, ["update-index", "-q", "--refresh"]);
}
