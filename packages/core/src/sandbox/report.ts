/**
 * What a sync did, said: the `sandbox.synced` event's fields and the warnings a person must see
 * (a commit kept aside instead of moving a branch, objects the sandbox broke, an index both sides
 * changed). Pure, so the foreground spawn, the monitor, the worktree commands and reconcile say
 * it the same way.
 *
 * @example
 * ```ts
 * syncWarnings({ runId: "R", task: "t", finished: true, repos: [{ common: "/r/.git", objects: 1,
 *   unsound: [], state: [], refs: [{ op: "park", ref: "refs/heads/main", to: "abc", as: "refs/ariel/sandbox/R/heads/main", why: "not-the-task's" }] }] })[0]?.code;
 * // "WARN_SANDBOX_KEPT_REF"
 * ```
 */

import { shellWords } from "../shell_words.ts";
import type { RefStep } from "./ref_sync.ts";
import type { StateStep } from "./state_sync.ts";

/** What one repository's sync did. */
export interface RepoSync {
  common: string;
  objects: number;
  /** Loose objects left out: their content did not match their name. */
  unsound: string[];
  refs: RefStep[];
  state: StateStep[];
}

/** What a sync did: per repository, and whether the sandbox is gone (everything home). */
export interface SandboxSync {
  runId: string;
  task: string | null;
  repos: RepoSync[];
  /** The run had ended and its sandbox was removed. */
  finished: boolean;
}

/** A warning about a sync, in the shape `warnWithHint` prints. */
export interface SyncWarning {
  code: string;
  message: string;
  hint: string;
  context: Record<string, unknown>;
}

const WHY: Record<string, string> = {
  "moved-outside": "it moved outside while the sandbox ran",
  "not-the-task's": "the run may not move it",
  stash: "a stash entry the run left",
};

/** The fields of a `sandbox.synced` event: per repository what moved, what was kept aside, what was broken. */
export function syncEventFields(s: SandboxSync): Record<string, unknown> {
  return {
    sandbox: s.runId,
    finished: s.finished,
    repos: s.repos.map((r) => ({
      common: r.common,
      objects: r.objects,
      moved: r.refs.flatMap((x) => (x.op === "update" || x.op === "home" ? [{ ref: x.ref, to: x.to }] : [])),
      kept: r.refs.flatMap((x) => (x.op === "park" ? [{ ref: x.ref, as: x.as, why: x.why }] : [])),
      missing: r.refs.flatMap((x) => (x.op === "missing" ? [{ ref: x.ref, to: x.to }] : [])),
      ...(r.unsound.length > 0 ? { unsound: r.unsound } : {}),
      ...(r.state.length > 0 ? { state: r.state } : {}),
    })),
  };
}

/** The warnings of a sync: each ref kept aside, each ref not moved for missing objects, each state conflict. */
export function syncWarnings(s: SandboxSync): SyncWarning[] {
  const out: SyncWarning[] = [];
  for (const r of s.repos) {
    for (const x of r.refs) {
      if (x.op === "park" && x.why !== "stash") {
        out.push({
          code: "WARN_SANDBOX_KEPT_REF",
          message: `the sandbox's ${x.ref} is kept as ${x.as} (${WHY[x.why]}); ${x.ref} itself did not move`,
          hint: `${shellWords(["git", "-C", r.common, "log", x.as])} shows it; merge or delete it yourself`,
          context: { ref: x.ref, as: x.as, why: x.why, common: r.common },
        });
      }
      if (x.op === "missing") {
        out.push({
          code: "WARN_SANDBOX_BROKEN_REF",
          message: `the sandbox's ${x.ref} names objects it removed or broke; ${x.ref} did not move`,
          hint: "the run's worktree still holds its files; commit them again outside the sandbox",
          context: { ref: x.ref, to: x.to, common: r.common },
        });
      }
    }
    for (const st of r.state) {
      if (st.op !== "conflict") continue;
      out.push({
        code: "WARN_SANDBOX_STATE_KEPT",
        message: `${st.name} of ${r.common} changed both inside the sandbox and outside; the real one stays`,
        hint: `the sandbox's ${st.name} is kept under .ariel/sandbox-kept/${s.runId}/`,
        context: { name: st.name, common: r.common },
      });
    }
  }
  return out;
}
