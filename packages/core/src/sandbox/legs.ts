/**
 * The places a sandboxed run owns, from what planned it (a spawn unit) or what records it (a
 * run record): every leg's worktree and branch, or the checkout it runs in. One function for
 * both, so a run with several legs (`--span`, and a detached run's `legs` in its record) gets
 * every one of them writable.
 *
 * @example
 * ```ts
 * sandboxLegs({ worktree: "/w/.ariel/worktrees/t/api", branch: "ariel/t", cwd: "/w/.ariel/worktrees/t/api" });
 * // [{ path: "/w/.ariel/worktrees/t/api", branch: "ariel/t" }]
 * sandboxLegs({ worktree: null, branch: null, cwd: "/w/api" }); // [{ path: "/w/api", branch: null }]
 * ```
 */

/** One place of a sandboxed run: a task's worktree with its branch, or a checkout in place (branch null). */
export interface SandboxLeg {
  path: string;
  branch: string | null;
}

/** What a run's places are read from: a spawn unit or a run record. */
export interface HasLegs {
  /** Every leg of a multi-source run (`--span`). */
  legs?: readonly { worktree: string; branch: string }[] | null;
  worktree: string | null;
  branch: string | null;
  cwd: string;
}

/** The places a run owns: its legs, else its worktree, else its cwd (a checkout, in place). */
export function sandboxLegs(x: HasLegs): SandboxLeg[] {
  if (x.legs && x.legs.length > 0) return x.legs.map((l) => ({ path: l.worktree, branch: l.branch }));
  if (x.worktree !== null) return [{ path: x.worktree, branch: x.branch }];
  return [{ path: x.cwd, branch: null }];
}
