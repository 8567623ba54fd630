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

/** What `git status --porcelain=v2 -z --branch` says of a checkout. */
export interface StatusV2 {
  /** HEAD's commit (`# branch.oid`); null on an unborn branch (`(initial)`) or without the header. */
  head: string | null;
  /** Every changed, staged, unmerged or untracked path (a rename or copy: its new path), in git's order. */
  paths: string[];
}

/** The text after the `n`th space of `record` (the path of a v2 status entry). */
function afterFields(record: string, n: number): string {
  let at = -1;
  for (let i = 0; i < n; i++) {
    at = record.indexOf(" ", at + 1);
    if (at === -1) return "";
  }
  return record.slice(at + 1);
}

/**
 * Parse `git status --porcelain=v2 -z --branch`: NUL-terminated records; `1` (changed) and `u`
 * (unmerged) entries end in the path after 8 and 10 fields, a `2` (renamed or copied) entry after
 * 9 fields and is followed by a record holding the original path, `?` (untracked) and `!`
 * (ignored, never asked for) by the path. Paths are as git wrote them (`-z`: never quoted).
 *
 * @example
 * ```ts
 * parseStatusV2("# branch.oid abc\0# branch.head main\0? new file\0");
 * // { head: "abc", paths: ["new file"] }
 * ```
 */
export function parseStatusV2(stdout: string): StatusV2 {
  const records = stdout.split("\0");
  let head: string | null = null;
  const paths: string[] = [];
  for (let i = 0; i < records.length; i++) {
    const r = records[i] ?? "";
    const kind = r.slice(0, 2);
    if (kind === "# ") {
      if (r.startsWith("# branch.oid ")) {
        const oid = r.slice("# branch.oid ".length);
        head = oid === "(initial)" ? null : oid;
      }
    } else if (kind === "1 ") paths.push(afterFields(r, 8));
    else if (kind === "2 ") {
      paths.push(afterFields(r, 9));
      i++; // the original path
    } else if (kind === "u ") paths.push(afterFields(r, 10));
    else if (kind === "? ") paths.push(r.slice(2));
  }
  return { head, paths };
}
