/**
 * Bringing home the state of a main worktree a sandboxed run worked in in place (docs/sandbox.md,
 * In place): its HEAD, index and the state of an operation in progress live in the common dir,
 * so the sandbox works on copies, and the sync puts each one back with the same compare rule as
 * refs: only over a real one nothing else changed since the start.
 *
 * @example
 * ```ts
 * planStateSync([{ name: "HEAD", start: "a", sandbox: "b", real: "a" }]); // [{ op: "apply", name: "HEAD" }]
 * reflogTail("x\n", "x\ny\n", "x\n"); // "y\n"
 * ```
 */

/** One piece of a main worktree's state (a file or a directory), by digest; null when absent. */
export interface StateFacts {
  name: string;
  start: string | null;
  sandbox: string | null;
  real: string | null;
  /** For the index: the real one stages what it did at the start (only its cached file stats changed). */
  sameStaged?: boolean;
}

export type StateStep =
  /** Put the sandbox's version in place of the real one (or remove the real one when the sandbox removed it). */
  | { op: "apply"; name: string }
  /** Both changed: the real one stays, the sandbox's is kept aside and reported. */
  | { op: "conflict"; name: string };

/** The steps for a main worktree's state: what the sandbox changed goes home over an unchanged real one. */
export function planStateSync(facts: readonly StateFacts[]): StateStep[] {
  const steps: StateStep[] = [];
  for (const f of facts) {
    if (f.sandbox === f.start || f.sandbox === f.real) continue;
    const unchanged = f.real === f.start || f.sameStaged === true;
    steps.push({ op: unchanged ? "apply" : "conflict", name: f.name });
  }
  return steps;
}

/**
 * What to append to the real reflog of HEAD: the lines the sandbox added after `start`, unless
 * the real one has them already. Reflogs only grow, so both begin with `start`; when one does
 * not (rewritten meanwhile), nothing is appended.
 */
export function reflogTail(start: string, sandbox: string, real: string): string | null {
  if (!sandbox.startsWith(start) || !real.startsWith(start)) return null;
  const tail = sandbox.slice(start.length);
  if (tail === "" || real.endsWith(tail)) return null;
  // The sandbox wrote it: only lines a reflog holds (old and new value, who, when, why).
  const lines = tail.endsWith("\n") ? tail.slice(0, -1).split("\n") : [""];
  return lines.every((l) => REFLOG_LINE.test(l)) ? tail : null;
}

/** One reflog line: `<old> <new> <name> <<email>> <time> <zone>\t<message>`. */
const REFLOG_LINE =
  /^[0-9a-f]{40}([0-9a-f]{24})? [0-9a-f]{40}([0-9a-f]{24})? [^\n]* \d+ [+-]\d{4}(\t[^\n]*)?$/;
