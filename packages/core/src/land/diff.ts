/**
 * The pure half of `ariel-worktree diff`: git's `-z` outputs parsed into the fields of a `diff`
 * record (docs/lifecycle.md, Review).
 */

/** One commit of a leg that its base does not have. */
export interface DiffCommit {
  commit: string;
  subject: string;
}

/** One file the leg's commits changed (`added`/`deleted` are null for a binary file). */
export interface DiffFile {
  path: string;
  /** git's letter: A added, M modified, D deleted, T type changed. */
  status: string;
  added: number | null;
  deleted: number | null;
}

/**
 * Commits from `git log -z --format=%H%x00%s`: NUL between hash and subject, NUL between commits.
 *
 * @example
 * ```ts
 * parseCommits("aaa\0fix it\0bbb\0start\0"); // [{commit:"aaa",subject:"fix it"},{commit:"bbb",subject:"start"}]
 * ```
 */
export function parseCommits(stdout: string): DiffCommit[] {
  const f = stdout.split("\0");
  const out: DiffCommit[] = [];
  for (let i = 0; i + 1 < f.length; i += 2) {
    const commit = (f[i] ?? "").replace(/^\n/, "");
    if (commit !== "") out.push({ commit, subject: f[i + 1] ?? "" });
  }
  return out;
}

/**
 * Files from `git diff --no-renames -z --numstat` and `--name-status` of the same range.
 *
 * @example
 * ```ts
 * parseFiles("3\t1\ta.txt\0-\t-\tbin\0", "M\0a.txt\0A\0bin\0");
 * // [{path:"a.txt",status:"M",added:3,deleted:1},{path:"bin",status:"A",added:null,deleted:null}]
 * ```
 */
export function parseFiles(numstat: string, nameStatus: string): DiffFile[] {
  const status = new Map<string, string>();
  const ns = nameStatus.split("\0");
  for (let i = 0; i + 1 < ns.length; i += 2) status.set(ns[i + 1] ?? "", ns[i] ?? "");
  const out: DiffFile[] = [];
  for (const line of numstat.split("\0")) {
    const m = /^(-|\d+)\t(-|\d+)\t(.*)$/s.exec(line);
    if (!m) continue;
    const path = m[3] ?? "";
    out.push({
      path,
      status: status.get(path) ?? "M",
      added: m[1] === "-" ? null : Number(m[1]),
      deleted: m[2] === "-" ? null : Number(m[2]),
    });
  }
  return out;
}
