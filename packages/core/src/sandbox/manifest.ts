/**
 * `<root>/.ariel/sandbox/<runId>/sandbox.json`: what a sandboxed run's sync needs to bring its
 * work home, written before the sandbox starts and removed last, once everything is home
 * (docs/sandbox.md, The sync). Read back like any record: checked, never trusted blindly.
 *
 * @example
 * ```ts
 * manifestProblem(JSON.parse(text)); // null for a manifest ariel wrote
 * ```
 */
import { RUN_ID_PATTERN } from "../spawn/run_id.ts";

/** One repository a sandboxed run works in, and its shadow (`<n>`). */
export interface SandboxRepo {
  /** Its directory under the run's sandbox dir. */
  n: number;
  /** The real common git dir. */
  common: string;
  /** The run works in the main worktree (in place): its HEAD and index are copies to bring home. */
  main: boolean;
  /** The branches the run may move (full names). */
  own: string[];
  /** The run's worktrees (or checkout) in this repository. */
  worktrees: string[];
  /** In place: the digest of each piece of the main worktree's state at the start (null: absent). */
  state?: Record<string, string | null>;
}

export interface SandboxManifest {
  v: 1;
  type: "sandbox";
  runId: string;
  root: string;
  task: string | null;
  createdAt: string;
  /** The process that prepared the sandbox and starts it (ariel-spawn, or the workspace's monitor). */
  owner: { pid: number; startTime: string | null; bootId: string | null };
  /** bubblewrap's outer process once started: its end is the sandbox's end. */
  child: { pid: number; startTime: string | null } | null;
  repos: SandboxRepo[];
}

type Check = (v: unknown) => boolean;
const abs: Check = (v) => typeof v === "string" && v.startsWith("/");
const pid: Check = (v) => Number.isInteger(v) && (v as number) >= 1;
const timeOrNull: Check = (v) => v === null || typeof v === "string";
const obj = (v: unknown): v is Record<string, unknown> =>
  typeof v === "object" && v !== null && !Array.isArray(v);
const BRANCH = /^refs\/heads\/[^\0\n ]+$/;

const REPO_CHECKS: Record<string, Check> = {
  n: (v) => Number.isInteger(v) && (v as number) >= 1 && (v as number) <= 1000,
  common: abs,
  main: (v) => typeof v === "boolean",
  own: (v) => Array.isArray(v) && v.every((b) => typeof b === "string" && BRANCH.test(b)),
  worktrees: (v) => Array.isArray(v) && v.every(abs),
  state: (v) =>
    v === undefined || (obj(v) && Object.values(v).every((d) => d === null || typeof d === "string")),
};

const CHECKS: Record<string, Check> = {
  v: (v) => v === 1,
  type: (v) => v === "sandbox",
  runId: (v) => typeof v === "string" && RUN_ID_PATTERN.test(v),
  root: abs,
  task: (v) => v === null || typeof v === "string",
  createdAt: (v) => typeof v === "string",
  owner: (v) => obj(v) && pid(v.pid) && timeOrNull(v.startTime) && timeOrNull(v.bootId),
  child: (v) => v === null || (obj(v) && pid(v.pid) && timeOrNull(v.startTime)),
  repos: (v) =>
    Array.isArray(v) && v.every((r) => obj(r) && Object.entries(REPO_CHECKS).every(([k, c]) => c(r[k]))),
};

/**
 * The first field of a parsed `sandbox.json` that is not what ariel writes, or null. Checked by
 * hand (no schema library on a spawn's path: every sandboxed run reads it).
 *
 * @example
 * ```ts
 * manifestProblem({ v: 2 }); // "v"
 * ```
 */
export function manifestProblem(x: unknown): string | null {
  if (!obj(x)) return "(root)";
  for (const [k, c] of Object.entries(CHECKS)) if (!c(x[k])) return k;
  return null;
}
