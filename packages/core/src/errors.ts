/**
 * ariel's one error class and the exit-status table (docs/contract.md, docs/architecture.md#errors).
 *
 * Library code throws {@link ArielError}; only a CLI's top level turns it into an exit status.
 *
 * @example
 * ```ts
 * throw new ArielError("ERR_DIRTY", "worktree has uncommitted changes", {
 *   hint: "commit or stash them, or pass --snapshot",
 *   context: { source: "api" },
 * });
 * ```
 */
import { MAX_LEGS } from "./limits.ts";
import { TASK_ID_PATTERN } from "./task_id.ts";

/** Exit statuses shared by every ariel CLI. */
export const EXIT = {
  OK: 0,
  FAILED: 1,
  CHANGES_PENDING: 2,
  /** `ariel` (the terminal UI) started without a terminal: as a shell says of a misused command. */
  NOT_A_TERMINAL: 2,
  REFUSED: 3,
  USAGE: 64,
  DATAERR: 65,
  NOINPUT: 66,
  UNAVAILABLE: 69,
  SOFTWARE: 70,
  CANTCREAT: 73,
  TEMPFAIL: 75,
  NOPERM: 77,
  CONFIG: 78,
  SPAWN_FAILED: 125,
  NOT_EXECUTABLE: 126,
  NOT_FOUND: 127,
  /** `ariel-runs wait --timeout`: the runs did not end in time (like timeout(1)). */
  TIMEOUT: 124,
} as const;

export type ExitStatus = (typeof EXIT)[keyof typeof EXIT];

/**
 * Every stable error code with its exit status and default hint. Codes are part of the contract:
 * add new ones, never rename or renumber.
 */
export const ERROR_CODES = {
  ERR_USAGE: { exit: EXIT.USAGE, hint: "run with --help to see the flags" },
  ERR_INVALID_INPUT: { exit: EXIT.DATAERR, hint: "check the input record against docs/schema" },
  ERR_INVALID_NAME: { exit: EXIT.DATAERR, hint: "use letters, digits, '.', '_' and '-' only" },
  ERR_INVALID_BRANCH: { exit: EXIT.DATAERR, hint: "use a plain branch name such as ariel/my-task" },
  ERR_INVALID_TASK_ID: {
    exit: EXIT.DATAERR,
    hint: `task ids match ${TASK_ID_PATTERN.source}, hold no "..", and do not end in "." or ".lock"`,
  },
  ERR_NOINPUT: { exit: EXIT.NOINPUT, hint: "check the path and that it exists" },
  ERR_WORKSPACE_NOT_FOUND: { exit: EXIT.NOINPUT, hint: "pass -C DIR or set ARIEL_WORKSPACE_ROOT" },
  ERR_NOT_A_WORKSPACE: {
    exit: EXIT.NOINPUT,
    hint: "name the root once with -C DIR (or ARIEL_WORKSPACE_ROOT) to make it a workspace",
  },
  ERR_SOURCE_NOT_FOUND: { exit: EXIT.NOINPUT, hint: "run ariel-discover to list the workspace's sources" },
  ERR_TASK_NOT_FOUND: {
    exit: EXIT.NOINPUT,
    hint: "run ariel-worktree list --all to see the tasks (closed ones too)",
  },
  ERR_NOT_A_TERMINAL: {
    exit: EXIT.NOT_A_TERMINAL,
    hint: "run ariel in a terminal; from a script, ariel-runs list (--json) and ariel-fleet events --follow say the same",
  },
  ERR_TTY_UNAVAILABLE: {
    exit: EXIT.UNAVAILABLE,
    hint: "run ariel-spawn --detach --tty under Node 20+ on Linux or macOS (the pseudo-terminal addon loads there)",
  },
  ERR_SANDBOXED: {
    exit: EXIT.REFUSED,
    hint: "inside a sandboxed run, ariel's state is out of reach: run this command outside the sandbox (docs/sandbox.md)",
  },
  ERR_SANDBOX_UNAVAILABLE: {
    exit: EXIT.UNAVAILABLE,
    hint: "install bubblewrap (Debian, Ubuntu: apt-get install bubblewrap) and allow user namespaces; docs/sandbox.md",
  },
  ERR_GIT_MISSING: { exit: EXIT.UNAVAILABLE, hint: "install git 2.36 or newer and make sure it is on PATH" },
  ERR_GIT_TOO_OLD: { exit: EXIT.UNAVAILABLE, hint: "upgrade git to 2.36 or newer" },
  ERR_GIT: { exit: EXIT.FAILED, hint: "see git's message above" },
  ERR_OUTPUT: { exit: EXIT.FAILED, hint: "stdout could not be written; check free space and the reader" },
  ERR_INTERNAL: {
    exit: EXIT.SOFTWARE,
    hint: "this is a bug in ariel; please report it with the stack trace",
  },
  ERR_EXISTS: { exit: EXIT.CANTCREAT, hint: "choose another path or remove what is there" },
  ERR_CANTCREAT: { exit: EXIT.CANTCREAT, hint: "check permissions and free space" },
  ERR_LOCKED: { exit: EXIT.TEMPFAIL, hint: "another ariel process holds the lock; retry shortly" },
  ERR_LEASE_HELD: {
    exit: EXIT.TEMPFAIL,
    hint: "another ariel process is working on this task; retry shortly",
  },
  ERR_TASK_IN_USE: {
    exit: EXIT.TEMPFAIL,
    hint: "another run works in this task; wait for it (ariel-runs wait RUN), or pass --join to share it",
  },
  ERR_CHECKOUT_IN_USE: {
    exit: EXIT.TEMPFAIL,
    hint: "a detached run works in this checkout; pass --isolate for a worktree of its own, or --shared to share it",
  },
  ERR_FENCED: { exit: EXIT.TEMPFAIL, hint: "a newer writer took over this task; re-read it and retry" },
  ERR_CONFLICT: { exit: EXIT.TEMPFAIL, hint: "the record changed under us; retry" },
  ERR_RECORD_CORRUPT: {
    exit: EXIT.DATAERR,
    hint: "the file is damaged or not ariel's; move it aside, then run ariel-worktree reconcile",
  },
  ERR_RECORD_TOO_LARGE: { exit: EXIT.DATAERR, hint: "records are bounded (64 KiB default, 256 KiB hard)" },
  ERR_TOO_MANY_LEGS: {
    exit: EXIT.DATAERR,
    hint: `a task spans at most ${MAX_LEGS} sources; split the work into several tasks`,
  },
  ERR_NOT_REGULAR_FILE: {
    exit: EXIT.NOPERM,
    hint: "ariel's state files are regular files, never links; move it aside (nothing was changed)",
  },
  ERR_PATH_ESCAPE: { exit: EXIT.NOPERM, hint: "paths must stay inside the workspace root" },
  ERR_NOT_APPROVED_ROOT: {
    exit: EXIT.NOPERM,
    hint: "add the directory to worktreeRoots in ariel.config.json",
  },
  ERR_UNAUTHORIZED: {
    exit: EXIT.NOPERM,
    hint: "send Authorization: Bearer <the token in the server's --token-file>",
  },
  ERR_FORBIDDEN: {
    exit: EXIT.NOPERM,
    hint: "send mutations as application/json, from the server's own origin or without an Origin",
  },
  ERR_MISDIRECTED: {
    exit: EXIT.NOPERM,
    hint: "use the address the server listens on (its Host header must match)",
  },
  ERR_TOKEN_FILE_MODE: {
    exit: EXIT.NOPERM,
    hint: "make the token file readable by its owner only: chmod 600 FILE",
  },
  ERR_UNAVAILABLE: { exit: EXIT.UNAVAILABLE, hint: "this build cannot do that; see the message" },
  ERR_CONFIG: { exit: EXIT.CONFIG, hint: "fix ariel.config.json; see docs/config.md" },
  ERR_DIRTY: { exit: EXIT.REFUSED, hint: "commit or stash the changes, pass --snapshot, or --allow dirty" },
  ERR_OVERLAY_CHANGED: {
    exit: EXIT.REFUSED,
    hint: "pass --snapshot to keep them, or --allow overlay-changed",
  },
  ERR_SKIP_WORKTREE_MODIFIED: {
    exit: EXIT.REFUSED,
    hint: "pass --snapshot to keep them, or --allow skip-worktree",
  },
  ERR_UNREACHABLE_COMMITS: {
    exit: EXIT.REFUSED,
    hint: "create a branch at HEAD, pass --snapshot, or --allow unreachable",
  },
  ERR_REFLOG_COMMITS: {
    exit: EXIT.REFUSED,
    hint: "git log -g and git for-each-ref refs/worktree refs/bisect refs/rewritten show them; --snapshot keeps them, --allow reflog drops them, or branch the ones you want",
  },
  ERR_BRANCH_MISSING: {
    exit: EXIT.REFUSED,
    hint: "recreate it (git branch NAME COMMIT; git log -g lists its commits), or --allow branch-missing",
  },
  ERR_SUBMODULE_COMMITS: {
    exit: EXIT.REFUSED,
    hint: "push them, or fetch them into the submodule's own checkout, or --allow submodule-commits",
  },
  ERR_NESTED_WORK: {
    exit: EXIT.REFUSED,
    hint: "move it out of the worktree (a submodule: commit and push there), or --allow nested-work",
  },
  ERR_FOREIGN_LOCK: { exit: EXIT.REFUSED, hint: "unlock it with git worktree unlock if it is really free" },
  ERR_NOT_OURS: { exit: EXIT.REFUSED, hint: "ariel only removes worktrees it created" },
  ERR_BRANCH_MISMATCH: {
    exit: EXIT.REFUSED,
    hint: "check out the recorded branch, or --allow branch-mismatch",
  },
  ERR_MAIN_WORKTREE: { exit: EXIT.REFUSED, hint: "a main worktree is never removed" },
  ERR_REFUSED: { exit: EXIT.REFUSED, hint: "nothing was changed" },
  ERR_REF_PROTECTED: {
    exit: EXIT.REFUSED,
    hint: "a task's record may name only its own refs (refs/ariel/snapshots/<task>/…, its legs' branches); fix or remove the record",
  },
  ERR_TASK_CONFLICT: { exit: EXIT.REFUSED, hint: "use another --task id, or remove the existing task first" },
  ERR_FINGERPRINT: {
    exit: EXIT.REFUSED,
    hint: "the source's remote or default branch changed since the task was made",
  },
  ERR_HEAD_MOVED: { exit: EXIT.REFUSED, hint: "the worktree's HEAD is not what the record says" },
  ERR_WORKTREE_MISSING: {
    exit: EXIT.REFUSED,
    hint: "bring it back with ariel-worktree restore, or run ariel-worktree reconcile",
  },
  ERR_SPAWN: { exit: EXIT.SPAWN_FAILED, hint: "the command could not be started" },
  ERR_NOT_EXECUTABLE: { exit: EXIT.NOT_EXECUTABLE, hint: "check the file's execute permission" },
  ERR_COMMAND_NOT_FOUND: { exit: EXIT.NOT_FOUND, hint: "check the command name and PATH" },
  ERR_RUN_NOT_FOUND: { exit: EXIT.NOINPUT, hint: "run ariel-runs list --all to see the runs" },
  ERR_RUN_AMBIGUOUS: { exit: EXIT.DATAERR, hint: "give more of the run id, or the full id" },
  ERR_RUN_LIVE: { exit: EXIT.REFUSED, hint: "kill it first (ariel-runs kill RUN), or pass --force" },
  ERR_MONITOR: {
    exit: EXIT.UNAVAILABLE,
    hint: "the run monitor could not be started or reached; see .ariel/monitor.log",
  },
  ERR_DETACH_UNAVAILABLE: {
    exit: EXIT.UNAVAILABLE,
    hint: "run detached runs on Linux or macOS; docs/runs.md says why",
  },
  ERR_WAIT_TIMEOUT: { exit: EXIT.TIMEOUT, hint: "the runs go on; wait again, or kill them" },
  ERR_NO_REMOTE: { exit: EXIT.REFUSED, hint: "add a remote the cluster can reach, push the base" },
  ERR_BACKEND_UNAVAILABLE: {
    exit: EXIT.UNAVAILABLE,
    hint: "plan with --dry-run -o yaml, or drop --backend k8s",
  },
  ERR_SPARSE_CHANGED: {
    exit: EXIT.REFUSED,
    hint: "set it back with git sparse-checkout set --cone PATH..., or make a new task",
  },
  ERR_SHARE_BROKEN: {
    exit: EXIT.REFUSED,
    hint: "remove that directory in the worktree (rm -rf removes its links only) and run the install there, or make a new task",
  },
  ERR_DISK_LOW: {
    exit: EXIT.TEMPFAIL,
    hint: "free space with ariel-worktree gc, or lower --min-free / config minFreeBytes",
  },
  ERR_NOT_A_CHECKOUT: {
    exit: EXIT.NOINPUT,
    hint: "--isolate needs git checkouts; name them with --source, or drop --isolate",
  },
  ERR_HOOK_FAILED: {
    exit: EXIT.FAILED,
    hint: "read the task's hook log, fix the cause, then: ariel-worktree hooks run --task TASK",
  },
  ERR_HOOK_REFUSED: {
    exit: EXIT.REFUSED,
    hint: "read the task's hook log and fix the cause, or pass --no-hooks to skip the hooks",
  },
  ERR_PORTS_EXHAUSTED: {
    exit: EXIT.TEMPFAIL,
    hint: "free ports by closing tasks (ariel-worktree ports lists the leases), or widen config portRange",
  },
  // Adopt, cd, review and land (docs/lifecycle.md).
  ERR_PATH_UNKNOWN: { exit: EXIT.FAILED, hint: "ariel-worktree list shows the tasks and their legs" },
  ERR_IN_TASK: { exit: EXIT.REFUSED, hint: "it already belongs to a task; ariel-worktree list shows which" },
  ERR_FOREIGN_REPO: {
    exit: EXIT.REFUSED,
    hint: "adopt only worktrees of the workspace's sources (ariel-discover lists them)",
  },
  ERR_TARGET_DIRTY: {
    exit: EXIT.REFUSED,
    hint: "commit or stash the changes in the target's checkout, or land --into a branch not checked out",
  },
  ERR_LAND_CONFLICT: {
    exit: EXIT.REFUSED,
    hint: "merge the target into the task's branch and resolve the conflicts there, then land again",
  },
  ERR_NOT_FAST_FORWARD: {
    exit: EXIT.REFUSED,
    hint: "land with --strategy merge, squash or rebase, or rebase the task's branch first",
  },
  ERR_LAND_PENDING: {
    exit: EXIT.REFUSED,
    hint: "an earlier land of this task did not finish; run ariel-worktree reconcile",
  },
} as const satisfies Record<string, { exit: number; hint: string }>;

export type ErrorCode = keyof typeof ERROR_CODES;

/** Options for {@link ArielError}. */
export interface ArielErrorOptions {
  /** One line telling the user what to do next; defaults to the code's hint. */
  hint?: string;
  /** Extra fields for the structured error record (must be JSON-safe, never credentials). */
  context?: Record<string, unknown>;
  /** Overrides the code's exit status (spawn's 128+N, for instance). */
  exit?: number;
  cause?: unknown;
}

/** The one error class of ariel: a stable code, a one-line message, a hint and an exit status. */
export class ArielError extends Error {
  readonly code: ErrorCode;
  readonly hint: string;
  readonly exit: number;
  readonly context: Record<string, unknown>;

  constructor(code: ErrorCode, message: string, options: ArielErrorOptions = {}) {
    super(message, options.cause === undefined ? undefined : { cause: options.cause });
    this.name = "ArielError";
    this.code = code;
    this.hint = options.hint ?? ERROR_CODES[code].hint;
    this.exit = options.exit ?? ERROR_CODES[code].exit;
    this.context = options.context ?? {};
  }

  /**
   * The structured error record (docs/contract.md): `v` and `type` first, then `code`,
   * `message`, `hint`, `exit`, then the context (whose keys never overwrite those).
   */
  toRecord(): ErrorRecord {
    const rec: ErrorRecord = {
      v: 1,
      type: "error",
      code: this.code,
      message: this.message,
      hint: this.hint,
      exit: this.exit,
    };
    for (const [k, v] of Object.entries(this.context)) if (!(k in rec)) rec[k] = v;
    return rec;
  }
}

/** `{"v":1,"type":"error",...}` as written to stderr with --json. */
export interface ErrorRecord {
  v: 1;
  type: "error";
  code: string;
  message: string;
  hint: string;
  exit: number;
  [key: string]: unknown;
}

/** True for an {@link ArielError} (also across bundle copies, by shape). */
export function isArielError(e: unknown): e is ArielError {
  return e instanceof ArielError || (e instanceof Error && e.name === "ArielError" && "code" in e);
}

/** Any thrown value as an ArielError; unknown errors become ERR_INTERNAL (exit 70). */
export function toArielError(e: unknown): ArielError {
  if (isArielError(e)) return e;
  const message = e instanceof Error ? e.message : String(e);
  return new ArielError("ERR_INTERNAL", `internal error: ${message.split("\n")[0]}`, { cause: e });
}
