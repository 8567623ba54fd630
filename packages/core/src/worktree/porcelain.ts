/** One entry of `git worktree list --porcelain -z`. */
export interface WorktreeEntry {
  path: string;
  /** null for a bare repository or an unborn branch. */
  head: string | null;
  /** Full ref name (`refs/heads/x`) or null when detached or bare. */
  branch: string | null;
  bare: boolean;
  detached: boolean;
  /** Lock reason (`""` when locked without one); null when not locked. */
  locked: string | null;
  /** Why git would prune it (its directory is gone); null when it is fine. */
  prunable: string | null;
  /** The first entry: the main worktree, never removed. */
  main: boolean;
}

/**
 * Parse `git worktree list --porcelain -z` (git ≥ 2.36): attribute lines end in NUL and an
 * empty field ends each entry.
 *
 * @example
 * ```ts
 * parseWorktreeList("worktree /r\0HEAD abc\0branch refs/heads/main\0\0")[0]?.branch; // "refs/heads/main"
 * ```
 */
export function parseWorktreeList(stdout: string): WorktreeEntry[] {
  const out: WorktreeEntry[] = [];
  let cur: WorktreeEntry | null = null;
  for (const field of stdout.split("\0")) {
    if (field === "") {
      if (cur) out.push(cur);
      cur = null;
      continue;
    }
    const sp = field.indexOf(" ");
    const key = sp === -1 ? field : field.slice(0, sp);
    const value = sp === -1 ? null : field.slice(sp + 1);
    if (key === "worktree") {
      if (cur) out.push(cur);
      cur = {
        path: value ?? "",
        head: null,
        branch: null,
        bare: false,
        detached: false,
        locked: null,
        prunable: null,
        // Stryker disable next-line all: equivalent, every entry's main is set again from its index below.
        main: out.length === 0 && cur === null,
      };
      continue;
    }
    if (!cur) continue;
    if (key === "HEAD") cur.head = value && /^0+$/.test(value) ? null : value;
    else if (key === "branch") cur.branch = value;
    else if (key === "bare") cur.bare = true;
    else if (key === "detached") cur.detached = true;
    else if (key === "locked") cur.locked = value ?? "";
    else if (key === "prunable") cur.prunable = value ?? "";
  }
  if (cur) out.push(cur);
  out.forEach((e, i) => {
    e.main = i === 0;
  });
  return out;
}
