import { compareBytewise } from "../discovery/compare.ts";
import { ArielError } from "../errors.ts";
import { quoteValue } from "../names.ts";
import type { RunRecord } from "./record.ts";
import { newestFirst, resolveRun } from "./resolve.ts";
import type { RunState } from "./state.ts";

/** Which runs `ariel-runs wait` waits for: every live one, one group, or RUN arguments. */
export type RunSelection =
  | { kind: "all" }
  | { kind: "group"; group: string }
  | { kind: "refs"; refs: readonly string[] };

/** What selection needs to know of each run. */
export type SelectableRun = Pick<RunRecord, "runId" | "name" | "group" | "createdAt"> & { state: RunState };

const LIVE: ReadonlySet<RunState> = new Set(["starting", "running"]);

/** Whether a RUN argument is a glob over run names (`*`, `?`). */
export function isNameGlob(ref: string): boolean {
  return /[*?]/.test(ref);
}

/**
 * A name glob as an anchored RegExp: `*` any run of characters (a `/` of a source included:
 * `agent-*` matches `agent-1@libs/api`), `?` one character, everything else literal.
 *
 * @example
 * ```ts
 * nameGlob("agent-*").test("agent-1@libs/api"); // true
 * ```
 */
export function nameGlob(glob: string): RegExp {
  const body = [...glob]
    .map((c) => (c === "*" ? ".*" : c === "?" ? "." : c.replace(/[.+^${}()|[\]\\]/g, "\\$&")))
    .join("");
  return new RegExp(`^${body}$`);
}

/**
 * The run ids a selection names, in the order given (each once): `all` → every live run
 * (starting, running); `group` → every run of the group, ended ones too (ERR_RUN_NOT_FOUND when
 * none); `refs` → each RUN as {@link resolveRun} resolves it, a glob → the newest run of each name
 * it matches, by name (ERR_RUN_NOT_FOUND when it matches none).
 *
 * @example
 * ```ts
 * selectRuns(runs, { kind: "refs", refs: ["agent-*"] }); // the newest run of each agent-… name
 * ```
 */
export function selectRuns(runs: readonly SelectableRun[], sel: RunSelection): string[] {
  if (sel.kind === "all") return runs.filter((r) => LIVE.has(r.state)).map((r) => r.runId);
  if (sel.kind === "group") {
    const ids = runs.filter((r) => r.group === sel.group).map((r) => r.runId);
    if (ids.length === 0) {
      throw new ArielError("ERR_RUN_NOT_FOUND", `no run in group ${quoteValue(sel.group)}`, {
        hint: "ariel-runs list --all shows each run's group",
        context: { group: sel.group },
      });
    }
    return ids;
  }
  const out = new Set<string>();
  for (const ref of sel.refs) for (const id of resolveRef(runs, ref)) out.add(id);
  return [...out];
}

function resolveRef(runs: readonly SelectableRun[], ref: string): string[] {
  if (!isNameGlob(ref)) return [resolveRun(runs, ref).runId];
  const re = nameGlob(ref);
  const newest = new Map<string, SelectableRun>();
  for (const r of [...runs].sort(newestFirst)) {
    if (r.name !== null && re.test(r.name) && !newest.has(r.name)) newest.set(r.name, r);
  }
  if (newest.size === 0) {
    throw new ArielError("ERR_RUN_NOT_FOUND", `no run name matches ${quoteValue(ref)}`, {
      hint: "ariel-runs list --all shows every run's name",
      context: { run: ref },
    });
  }
  return [...newest.keys()].sort(compareBytewise).map((name) => newest.get(name)!.runId);
}
