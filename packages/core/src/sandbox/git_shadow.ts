/**
 * git inside a sandbox (docs/sandbox.md, decision 0110): each repository the run works in gets
 * a private common git dir (its "shadow"), mounted over the real one inside the sandbox. The
 * shadow holds a copy of the refs (so git moves refs freely there), an empty object store whose
 * alternate is the real one mounted read-only (new objects go to the shadow; nothing real can be
 * deleted), the real config, info and other files read-only, hooks composed by ariel (the
 * repository's own, plus a `reference-transaction` hook that refuses to move refs the task does
 * not own), and the task's real worktree admin dir (HEAD, index, rebase state stay live) with
 * its `gitdir`, `commondir`, `locked` and `config.worktree` read-only. What the sandbox
 * committed is brought home by `planRefSync` and the host's sync.
 *
 * @example
 * ```ts
 * planGitShadow({ common: "/r/.git", shadow: "/w/.ariel/sandbox/R/1/git", entries: [],
 *   admins: [], main: false, hooksPath: null }).mounts[0];
 * // { op: "bind", src: "/w/.ariel/sandbox/R/1/git", dest: "/r/.git", why: "git" }
 * ```
 */
import { isPerWorktree } from "../discovery/refs.ts";
import type { Mount } from "./mounts.ts";

/** Where the real object store shows inside the shadow (the alternate the shadow's store names). */
export const REAL_OBJECTS = "ariel-real-objects";

/** The frozen-refs list the sandbox's reference-transaction hook reads (in the composed hooks dir). */
export const FROZEN_REFS_FILE = "ariel-frozen-refs";

/** The repository's own reference-transaction hook, kept beside ariel's, which calls it. */
export const CHAINED_HOOK = "reference-transaction.repo";

/**
 * The main worktree's own state in its common dir: copied into the shadow when the run works in
 * place, and brought back by the sync (`planStateSync`).
 */
export const MAIN_WORKTREE_STATE: readonly string[] = [
  "HEAD",
  "index",
  "ORIG_HEAD",
  "FETCH_HEAD",
  "MERGE_HEAD",
  "MERGE_MSG",
  "MERGE_MODE",
  "MERGE_RR",
  "MERGE_AUTOSTASH",
  "AUTO_MERGE",
  "CHERRY_PICK_HEAD",
  "REVERT_HEAD",
  "COMMIT_EDITMSG",
  "BISECT_LOG",
  "BISECT_START",
  "BISECT_TERMS",
  "BISECT_EXPECTED_REV",
  "BISECT_ANCESTORS_OK",
  "BISECT_NAMES",
  "rebase-merge",
  "rebase-apply",
  "sequencer",
];

/** Top-level entries of a common dir the shadow makes its own (copied or made empty), never mounted from the real one. */
const SHADOW_OWN = new Set([
  "objects",
  "refs",
  "packed-refs",
  "logs",
  "worktrees",
  "HEAD",
  "shallow",
  "rr-cache",
]);

/**
 * Top-level files of a common dir git does not need to work in a linked worktree, or that only
 * say something about the main one: left out of the shadow (the sandbox may make its own there,
 * which stay private). Every other file is mounted read-only, and so is every directory.
 */
const NOT_NEEDED = new Set([
  "description",
  "gc.pid",
  "gc.log",
  "branches",
  "gitk.cache",
  ...MAIN_WORKTREE_STATE,
]);

/** The admin files of a linked worktree the sandbox may not change (where it is, what it shares, its lock, its config). */
export const ADMIN_READ_ONLY: readonly string[] = ["gitdir", "commondir", "locked", "config.worktree"];

/** What {@link planGitShadow} knows of one repository. */
export interface RepoFacts {
  /** The real common git dir (canonical). */
  common: string;
  /** The private dir that stands for it inside the sandbox. */
  shadow: string;
  /** The top-level entries of the real common dir. */
  entries: readonly { name: string; dir: boolean }[];
  /** The run's linked worktrees in this repository: admin dir names under `worktrees/`, and which of {@link ADMIN_READ_ONLY} exist. */
  admins: readonly { name: string; files: readonly string[] }[];
  /** The run works in the main worktree itself (in place): its state is copied, not mounted. */
  main: boolean;
  /** The hooks directory when `core.hooksPath` moves it (canonical, existing), else null. */
  hooksPath: string | null;
}

export interface GitShadowPlan {
  mounts: Mount[];
  /** Top-level names of the real common dir mounted read-only inside. */
  readOnly: string[];
}

/** The mounts that put a repository's shadow in place of its common dir inside the sandbox. */
export function planGitShadow(f: RepoFacts): GitShadowPlan {
  const c = f.common;
  const mounts: Mount[] = [
    { op: "bind", src: f.shadow, dest: c, why: "git" },
    { op: "ro-bind", src: `${c}/objects`, dest: `${c}/${REAL_OBJECTS}`, why: "git" },
  ];
  const composedHere = f.hooksPath === null;
  const readOnly: string[] = [];
  for (const e of f.entries) {
    if (SHADOW_OWN.has(e.name) || NOT_NEEDED.has(e.name) || e.name.endsWith(".lock")) continue;
    if (e.name === "hooks" && composedHere) continue;
    if (e.name === REAL_OBJECTS) continue;
    readOnly.push(e.name);
    mounts.push({ op: "ro-bind", src: `${c}/${e.name}`, dest: `${c}/${e.name}`, why: "git" });
  }
  mounts.push({
    op: "ro-bind",
    src: `${f.shadow}/hooks`,
    dest: f.hooksPath ?? `${c}/hooks`,
    why: "git",
  });
  for (const a of f.admins) {
    const admin = `${c}/worktrees/${a.name}`;
    mounts.push({ op: "bind", src: admin, dest: admin, why: "git" });
    for (const file of ADMIN_READ_ONLY) {
      if (a.files.includes(file))
        mounts.push({ op: "ro-bind", src: `${admin}/${file}`, dest: `${admin}/${file}`, why: "git" });
    }
  }
  return { mounts, readOnly };
}

/**
 * The refs the sandbox may not change (what its reference-transaction hook refuses): every ref
 * that existed at the start, except the run's own branches, remote-tracking refs (a fetch moves
 * them; the sync leaves them) and per-worktree refs; sorted, one a line.
 *
 * @example
 * ```ts
 * frozenRefs(["refs/heads/main", "refs/heads/ariel/t", "refs/tags/v1"], ["refs/heads/ariel/t"]);
 * // "refs/heads/main\nrefs/tags/v1\n"
 * ```
 */
export function frozenRefs(start: Iterable<string>, own: readonly string[]): string {
  const out = [...start].filter(
    (r) => !own.includes(r) && !r.startsWith("refs/remotes/") && !isPerWorktree(r),
  );
  out.sort();
  return out.map((r) => `${r}\n`).join("");
}

/**
 * ariel's reference-transaction hook (git runs it for every ref update, in state `prepared`
 * before anything is written): refuses the whole update when it names a frozen ref (old and new
 * values cannot tell a deletion from `git pack-refs`, which the sandbox's gc does not run), then
 * hands the same input to the repository's own hook when it has one. A fixed script: it reads
 * its list from the file beside it and quotes every value it prints.
 */
export const REFERENCE_TRANSACTION_HOOK = `#!/bin/sh
# ariel sandbox (docs/sandbox.md): refs that existed when the sandbox started cannot change
# from inside it, except the task's own branches. Written by ariel; read-only in the sandbox.
here=$(dirname "$0")
input=$(cat)
if [ "$1" = prepared ]; then
  refused=$(printf '%s\\n' "$input" | cut -d ' ' -f 3 | grep -xF -f "$here/${FROZEN_REFS_FILE}")
  if [ -n "$refused" ]; then
    for ref in $refused; do
      printf 'ariel sandbox: %s belongs to no task of this run; it cannot change here (docs/sandbox.md)\\n' "$ref" >&2
    done
    exit 1
  fi
fi
if [ -x "$here/${CHAINED_HOOK}" ]; then
  printf '%s\\n' "$input" | "$here/${CHAINED_HOOK}" "$@"
  exit $?
fi
exit 0
`;
