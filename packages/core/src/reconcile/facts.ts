/**
 * What `reconcile` looks at, gathered by the host (core/host/worktree/reconcile.ts) and planned
 * over purely ({@link planReconcile}). Paths are canonical absolute POSIX paths.
 */

/** One entry of `git worktree list --porcelain -z` (the main worktree excluded). */
export interface WorktreeFact {
  path: string;
  head: string | null;
  /** Full ref (`refs/heads/ariel/t`) or null when detached. */
  branch: string | null;
  /** Lock reason (`""` when locked without one); null when not locked. */
  locked: string | null;
  /** Whether its directory exists. */
  exists: boolean;
  /** The admin directory `<common>/worktrees/<id>` whose `gitdir` names this worktree. */
  adminDir: string | null;
}

/** Local state of a worktree that reconcile might remove. */
export interface WorkFact {
  /** Paths holding local work (modified, staged, untracked and not an identical overlay copy). */
  changes: string[];
  /** A detached HEAD with commits no ref outside the worktree reaches (`remove`'s `unreachable`). */
  unreachableHead: boolean;
  /** `<submodule>@<commit>`: commits of a submodule whose repository goes with the worktree (as `remove` checks them). */
  submoduleCommits?: string[];
  /** Commits only the worktree's HEAD reflog holds (as `remove` checks them). */
  reflogOnly?: string[];
}

/** An `ariel/<task>` branch. */
export interface BranchFact {
  /** Short name, e.g. `ariel/fix-1`. */
  name: string;
  tip: string;
  /** Its tip is reachable from another branch, tag, remote or ariel ref: deleting it loses nothing. */
  reachableElsewhere: boolean;
}

export interface RepoFact {
  /** A checkout of the repository (where git runs). */
  sourcePath: string;
  commonGitDir: string;
  worktrees: WorktreeFact[];
  /** `refs/heads/ariel/*` branches. */
  branches: BranchFact[];
  /** Work facts by worktree path, for every worktree that is ours and not in a record. */
  work: Record<string, WorkFact>;
}

/** A task record as reconcile needs it (a subset of the task schema). */
export interface TaskRecordFact {
  taskId: string;
  state: string;
  version: number;
  legs: {
    source: string;
    sourcePath: string;
    branch: string;
    worktreePath: string;
    state: string;
    /**
     * Its snapshot ref `refs/ariel/snapshots/<task>/<leg>` as git holds it, gathered for the
     * active legs of a `cleaning` task: `commit` the ref's commit, `recorded` the commit the
     * record's snapshot artifact of that ref names (null: none). A commit the record does not
     * know is a `remove --snapshot` that died before its record write.
     */
    snapshot?: {
      ref: string;
      commit: string;
      recorded: string | null;
      /**
       * Asked only when `commit` is not `recorded` and the worktree is still there (a
       * `remove --snapshot` that died between its snapshot and `git worktree remove`, or during
       * it): true when removing the worktree now would lose nothing the snapshot does not hold.
       */
      covers?: boolean;
    };
  }[];
}

export interface TaskFact {
  taskId: string;
  /** null: no record file. */
  record: TaskRecordFact | null;
  /** Why the record could not be read (corrupt, foreign); it is then left alone. */
  problem?: string;
  /** A lease file exists (an add of this task was attempted). */
  leased: boolean;
}

/** A directory under the worktree root: `<root>/<task>` (depth 1) or `<root>/<task>/<leg>` (2). */
export interface DirFact {
  path: string;
  depth: 1 | 2;
  /** Names of the entries inside. */
  entries: string[];
}

/** A lock file of ariel's whose holder process is gone. */
export interface StaleLockFact {
  path: string;
  /** The task it belongs to (lease and record locks), or null (a repository lock). */
  task: string | null;
}

/** The ports the machine's registry leases to one task of this workspace. */
export interface PortLeaseFact {
  task: string;
  ports: number[];
}

export interface ReconcileFacts {
  worktreeRoot: string;
  /** Port leases of this workspace's tasks (docs/lifecycle.md, Ports). */
  portLeases?: PortLeaseFact[];
  staleLocks?: StaleLockFact[];
  repos: RepoFact[];
  tasks: TaskFact[];
  dirs: DirFact[];
}
