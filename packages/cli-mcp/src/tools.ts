/**
 * The MCP tools of `ariel-mcp`, as data: each names its JSON input schema, the ariel CLI call that
 * does the work (the same code path, rules and refusals a person gets), and how long it may take.
 * Nothing here runs anything; `call.ts` does.
 *
 * @example
 * ```ts
 * const t = TOOLS.find((t) => t.name === "remove_task")!;
 * t.argv({ task: "fix-a", snapshot: true });
 * // → { cli: "worktree", args: ["remove", "--json", "--task=fix-a", "--snapshot"] }
 * ```
 */

/** A JSON Schema, as plain data (what `tools/list` publishes and the server validates against). */
export type JsonSchema = Record<string, unknown>;

/** Which ariel CLI a tool calls. */
export type CliName = "discover" | "worktree" | "spawn" | "runs";

export interface CliCall {
  cli: CliName;
  args: string[];
}

export interface ToolDef {
  name: string;
  title: string;
  description: string;
  inputSchema: JsonSchema;
  /** The CLI call for a validated input. */
  argv: (input: Record<string, unknown>) => CliCall;
  /** How long the call may run before it is stopped (ms), for this input. */
  boundMs: (input: Record<string, unknown>) => number;
  /** Changes something (the MCP `destructiveHint`/`readOnlyHint` annotations follow from it). */
  mutates: boolean;
  /** A non-zero exit without an error record is the answer, not a failure (wait: the run's status). */
  exitIsAnswer?: boolean;
  /** Only offered when the server was started with --allow-land. */
  needsAllowLand?: boolean;
}

/** The default bound of a tool call, and the longest `wait_run` may wait. */
export const DEFAULT_BOUND_MS = 120_000;
export const MAX_WAIT_SECONDS = 600;
const WAIT_DEFAULT_SECONDS = 60;
/** A tool's own margin over the wait it asked the CLI for. */
const WAIT_MARGIN_MS = 15_000;

// Patterns that keep every value a value: nothing that starts with "-" (a flag), no NUL, no "..".
const TASK = { type: "string", pattern: "^[A-Za-z0-9][A-Za-z0-9._-]{0,127}$", description: "a task id" };
const SOURCE = {
  type: "string",
  pattern: "^(\\.|[A-Za-z0-9_][A-Za-z0-9._-]*(/[A-Za-z0-9_][A-Za-z0-9._-]*)*)$",
  maxLength: 1024,
  description:
    "a source's name as ariel-discover prints it ('.' for the root); never a path outside the workspace",
};
const RUN = {
  type: "string",
  pattern: "^[A-Za-z0-9][A-Za-z0-9._-]{0,127}$",
  description: "a run id, a unique prefix of one, or a run's name",
};
const REF = {
  type: "string",
  pattern: "^[A-Za-z0-9_][A-Za-z0-9._/@{}^~-]{0,254}$",
  description: "a git ref",
};
const DURATION = {
  type: "string",
  pattern: "^[0-9]+(ms|s|m|h|d)?$",
  description: "a duration: 30s, 10m, 1h",
};
const STATES = ["starting", "running", "exited", "failed", "killed", "lost", "crashed"];
/** What `state` also takes: a live run's activity (`waiting`: the runs that need a person). */
const ACTIVITIES = ["busy", "waiting", "idle"];

function object(properties: Record<string, unknown>, required: string[] = []): JsonSchema {
  return { type: "object", properties, required, additionalProperties: false };
}

const str = (v: unknown): string => String(v);
const flag = (name: string, v: unknown): string[] => (v === undefined ? [] : [`--${name}=${str(v)}`]);
const bool = (name: string, v: unknown): string[] => (v === true ? [`--${name}`] : []);
const many = (name: string, v: unknown): string[] =>
  Array.isArray(v) ? v.flatMap((x) => flag(name, x)) : [];
const fixed = (ms: number) => () => ms;

export const TOOLS: readonly ToolDef[] = [
  {
    name: "list_sources",
    title: "List sources",
    description:
      "The workspace's sources: the git checkouts under its root, with name, kind, branch and head (status: dirty, ahead, behind).",
    inputSchema: object({ status: { type: "boolean", description: "also dirty/ahead/behind (runs git)" } }),
    argv: (i) => ({ cli: "discover", args: ["--json", ...bool("status", i.status)] }),
    boundMs: fixed(DEFAULT_BOUND_MS),
    mutates: false,
  },
  {
    name: "create_task",
    title: "Create a task",
    description:
      "Make a task: one locked worktree per source on branch ariel/<task> (or `branch`), from `base` or each source's HEAD. Returns the task's records (leg paths).",
    inputSchema: object(
      {
        sources: {
          type: "array",
          items: SOURCE,
          minItems: 1,
          maxItems: 64,
          description: "one leg per source",
        },
        task: TASK,
        base: REF,
        branch: REF,
        dryRun: { type: "boolean", description: "plan only, change nothing" },
      },
      ["sources"],
    ),
    argv: (i) => ({
      cli: "worktree",
      args: [
        "add",
        "--json",
        ...many("source", i.sources),
        ...flag("task", i.task),
        ...flag("base", i.base),
        ...flag("branch", i.branch),
        ...bool("dry-run", i.dryRun),
      ],
    }),
    boundMs: fixed(DEFAULT_BOUND_MS),
    mutates: true,
  },
  {
    name: "task_status",
    title: "Task status",
    description:
      "The workspace's tasks with each leg's status (active, dirty, missing, removed), branch and path; `task` for one.",
    inputSchema: object({
      task: TASK,
      all: { type: "boolean", description: "also tasks with nothing left" },
    }),
    argv: (i) => ({
      cli: "worktree",
      args: ["list", "--json", "--no-bytes", ...flag("task", i.task), ...bool("all", i.all)],
    }),
    boundMs: fixed(DEFAULT_BOUND_MS),
    mutates: false,
  },
  {
    name: "task_diff",
    title: "Task diff",
    description: "What a task changed, per leg: commits ahead of its base, files changed, uncommitted work.",
    inputSchema: object({ task: TASK, patch: { type: "boolean", description: "include the patch" } }, [
      "task",
    ]),
    argv: (i) => ({
      cli: "worktree",
      args: ["diff", "--json", ...flag("task", i.task), ...bool("patch", i.patch)],
    }),
    boundMs: fixed(DEFAULT_BOUND_MS),
    mutates: false,
  },
  {
    name: "remove_task",
    title: "Remove a task",
    description:
      "Remove a task's worktrees, keeping its branches. Refuses (a tool error with code, reason and next step) a leg with local work unless `snapshot` saves it under refs/ariel/snapshots/ first. Never forces.",
    inputSchema: object(
      {
        task: TASK,
        snapshot: { type: "boolean", description: "save local work as a snapshot commit, then remove" },
        dryRun: { type: "boolean", description: "plan only, change nothing" },
      },
      ["task"],
    ),
    argv: (i) => ({
      cli: "worktree",
      args: [
        "remove",
        "--json",
        ...flag("task", i.task),
        ...bool("snapshot", i.snapshot),
        ...bool("dry-run", i.dryRun),
      ],
    }),
    boundMs: fixed(DEFAULT_BOUND_MS),
    mutates: true,
  },
  {
    name: "start_run",
    title: "Start a run",
    description:
      "Start `command` in the background (detached, supervised), by default in its own worktree of a task (isolate: false runs in the source's checkout; span: one process over the task's worktrees of every source). Returns one run record per source (one for span).",
    inputSchema: object(
      {
        command: {
          type: "array",
          items: { type: "string", maxLength: 65536 },
          minItems: 1,
          maxItems: 1024,
          description: "the argv to run (no shell)",
        },
        sources: {
          type: "array",
          items: SOURCE,
          maxItems: 64,
          description: "where (default: the workspace root)",
        },
        isolate: { type: "boolean", default: true, description: "its own worktree of a task (default true)" },
        span: {
          type: "boolean",
          description:
            "one process over every source's worktree of one task (its cwd the task's directory holding them), instead of one per source; implies isolate",
        },
        task: TASK,
        base: REF,
        name: RUN,
        timeout: DURATION,
        tty: { type: "boolean", description: "run on a pseudo-terminal (interactive agents)" },
        agent: {
          type: "string",
          pattern: "^[a-z][a-z0-9-]{0,31}$",
          description: "the agent preset (claude, codex, …)",
        },
        sandbox: {
          type: "boolean",
          description:
            "run in a bubblewrap sandbox: it writes only its worktrees, its agent's state and /tmp, and moves only its own branches (default: the workspace's config; false runs without one even when config says so)",
        },
        sandbox_net: {
          enum: ["on", "none"],
          description: "with sandbox: the network inside (default on; none: loopback only)",
        },
      },
      ["command"],
    ),
    argv: (i) => ({
      cli: "spawn",
      args: [
        "--detach",
        "--json",
        ...many("source", i.sources),
        ...(i.isolate === false && i.span !== true ? [] : ["--isolate"]),
        ...bool("span", i.span),
        ...flag("task", i.task),
        ...flag("base", i.base),
        ...flag("name", i.name),
        ...flag("timeout", i.timeout),
        ...bool("tty", i.tty),
        ...flag("agent", i.agent),
        ...(i.sandbox === true ? ["--sandbox"] : i.sandbox === false ? ["--no-sandbox"] : []),
        ...flag("sandbox-net", i.sandbox_net),
        "--",
        ...(i.command as string[]),
      ],
    }),
    boundMs: fixed(DEFAULT_BOUND_MS),
    mutates: true,
  },
  {
    name: "list_runs",
    title: "List runs",
    description: "The workspace's runs with their state (live and lost ones; `all` for every run).",
    inputSchema: object({
      all: { type: "boolean" },
      state: {
        type: "array",
        items: { enum: [...STATES, ...ACTIVITIES] },
        maxItems: STATES.length + ACTIVITIES.length,
        description: "only runs in these states, or live runs with these activities (waiting: they need you)",
      },
      source: SOURCE,
      task: TASK,
    }),
    argv: (i) => ({
      cli: "runs",
      args: [
        "list",
        "--json",
        ...bool("all", i.all),
        ...(Array.isArray(i.state) && i.state.length > 0 ? [`--state=${i.state.join(",")}`] : []),
        ...flag("source", i.source),
        ...flag("task", i.task),
      ],
    }),
    boundMs: fixed(DEFAULT_BOUND_MS),
    mutates: false,
  },
  {
    name: "run_output",
    title: "Run output",
    description:
      "A run's output records from sequence number `from` (or its last `tail` lines), bounded; `next` is where to continue.",
    inputSchema: object(
      {
        run: RUN,
        from: {
          type: "integer",
          minimum: 0,
          description: "start at this sequence number (an output record's seq)",
        },
        tail: { type: "integer", minimum: 1, maximum: 10000, description: "start at the last N lines" },
        stream: { enum: ["stdout", "stderr"] },
      },
      ["run"],
    ),
    argv: (i) => ({
      cli: "runs",
      args: [
        "logs",
        "--json",
        ...flag("from", i.from),
        ...flag("tail", i.tail),
        ...flag("stream", i.stream),
        str(i.run),
      ],
    }),
    boundMs: fixed(DEFAULT_BOUND_MS),
    mutates: false,
  },
  {
    name: "run_screen",
    title: "Run screen",
    description: "The rendered terminal screen of a tty run, with cursor and size.",
    inputSchema: object({ run: RUN }, ["run"]),
    argv: (i) => ({ cli: "runs", args: ["screen", "--json", str(i.run)] }),
    boundMs: fixed(DEFAULT_BOUND_MS),
    mutates: false,
  },
  {
    name: "send_input",
    title: "Send input",
    description: "Type `text` into a run (a tty or --interactive run); `enter` presses Enter after it.",
    inputSchema: object(
      { run: RUN, text: { type: "string", maxLength: 65536 }, enter: { type: "boolean" } },
      ["run", "text"],
    ),
    argv: (i) => ({
      cli: "runs",
      args: ["send", "--json", ...bool("enter", i.enter), `--text=${str(i.text)}`, str(i.run)],
    }),
    boundMs: fixed(DEFAULT_BOUND_MS),
    mutates: true,
  },
  {
    name: "wait_run",
    title: "Wait for runs",
    description: `Wait until the runs ended, at most timeoutSeconds (default ${WAIT_DEFAULT_SECONDS}, at most ${MAX_WAIT_SECONDS}); a timeout is the tool error ERR_WAIT_TIMEOUT and the runs go on.`,
    inputSchema: object(
      {
        runs: { type: "array", items: RUN, minItems: 1, maxItems: 64 },
        timeoutSeconds: { type: "integer", minimum: 1, maximum: MAX_WAIT_SECONDS },
      },
      ["runs"],
    ),
    argv: (i) => ({
      cli: "runs",
      args: ["wait", "--json", `--timeout=${waitSeconds(i)}s`, ...(i.runs as string[])],
    }),
    boundMs: (i) => waitSeconds(i) * 1000 + WAIT_MARGIN_MS,
    mutates: false,
    exitIsAnswer: true,
  },
  {
    name: "kill_run",
    title: "Kill a run",
    description: "Stop a run: its whole process group, TERM then KILL after `grace`.",
    inputSchema: object(
      { run: RUN, signal: { type: "string", pattern: "^(SIG)?[A-Z0-9]{2,8}$" }, grace: DURATION },
      ["run"],
    ),
    argv: (i) => ({
      cli: "runs",
      args: ["kill", "--json", ...flag("signal", i.signal), ...flag("grace", i.grace), str(i.run)],
    }),
    boundMs: fixed(DEFAULT_BOUND_MS),
    mutates: true,
  },
  {
    name: "land_task",
    title: "Land a task",
    description:
      "Land every leg of a task into `into` (default: each leg's base branch), all legs or none; conflicts are a tool error listing the files.",
    inputSchema: object(
      {
        task: TASK,
        into: REF,
        strategy: { enum: ["ff", "merge", "squash", "rebase"] },
        remove: { type: "boolean", description: "then remove the task (branches deleted only once merged)" },
        dryRun: { type: "boolean" },
      },
      ["task"],
    ),
    argv: (i) => ({
      cli: "worktree",
      args: [
        "land",
        "--json",
        ...flag("task", i.task),
        ...flag("into", i.into),
        ...flag("strategy", i.strategy),
        ...bool("remove", i.remove),
        ...bool("dry-run", i.dryRun),
      ],
    }),
    boundMs: fixed(DEFAULT_BOUND_MS),
    mutates: true,
    needsAllowLand: true,
  },
];

function waitSeconds(i: Record<string, unknown>): number {
  return typeof i.timeoutSeconds === "number" ? i.timeoutSeconds : WAIT_DEFAULT_SECONDS;
}

/** The tools a server offers: `land_task` only with --allow-land. */
export function offeredTools(allowLand: boolean): ToolDef[] {
  return TOOLS.filter((t) => allowLand || t.needsAllowLand !== true);
}
