/**
 * The records of ariel-fleet (docs/fleet.md): the FleetSnapshot (`fleet`, `status --json` and
 * `GET /api/fleet`), a workspace's view (`workspace`), a run's view (`run`), a normalized fleet
 * event (`event`, of `events --json` and both SSE streams), `serve --json`'s `server` record, and
 * the API's small replies (`health`, `ready`, `ok`). Errors are the CLI's `error` record.
 * Consumers ignore fields they do not know.
 *
 * @example
 * ```ts
 * checkRecord(fleetRunSchema(), await (await fetch(url)).json(), "GET /api/runs/…");
 * ```
 */
import * as z from "zod/mini";
import { FLEET_EVENT_NAMES } from "../fleet/events.ts";
import { WORKSPACE_HASH_PATTERN } from "../hash.ts";
import { AGENT_EVENT_NAMES } from "../runs/agents/events.ts";
import { RUN_STATES } from "../runs/state.ts";
import { agentEventVariants, attentionFields } from "./agent_event.ts";
import { lazy, lazyField } from "./lazy.ts";

/** The scalars the fleet's records share (one instance each). */
function scalars() {
  const iso = z.string().check(z.regex(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d(\.\d+)?Z$/));
  const hash = z.string().check(z.regex(WORKSPACE_HASH_PATTERN));
  const runId = z.string().check(z.regex(/^\d{8}T\d{6}Z-[0-9a-z]{6}$/));
  const count = z.int().check(z.minimum(0));
  const runState = z.enum(RUN_STATES);
  const byRunState = z.looseObject(
    Object.fromEntries(RUN_STATES.map((s) => [s, count])) as Record<
      (typeof RUN_STATES)[number],
      typeof count
    >,
  );
  return { iso, hash, runId, count, runState, byRunState };
}
type Scalars = ReturnType<typeof scalars>;

/** `workspace` and the `fleet` snapshot that lists them. */
function snapshotSchemas({ iso, hash, count, byRunState }: Scalars) {
  const fleetWorkspaceSchema = z.looseObject({
    v: z.literal(1),
    type: z.literal("workspace"),
    /** The canonical workspace root. */
    root: z.string(),
    hash,
    /** Where the fleet knows it from: the user's registry, or a --workspace flag. */
    origin: z.enum(["registry", "flag"]),
    health: z.enum(["ok", "degraded", "gone", "unreadable"]),
    /** Discovery's count of its sources. */
    sources: count,
    /** Task records by state (`unknown`: a state this version does not know). */
    tasks: z.looseObject({ active: count, cleaning: count, closed: count, unknown: count }),
    /** Runs by state. */
    runs: byRunState,
    /** Ended runs whose kept worktree is still on disk (`ariel-runs list` names each with its next command). */
    kept: z.optional(count),
    /** Live runs in a sandbox (docs/sandbox.md). */
    sandboxed: z.optional(count),
    /** Task records that could not be read. */
    problems: count,
    /** History lines that are not fleet events. */
    skipped: count,
  });

  const fleetSnapshotSchema = z.looseObject({
    v: z.literal(1),
    type: z.literal("fleet"),
    host: z.string(),
    generatedAt: iso,
    workspaces: z.array(fleetWorkspaceSchema),
  });
  return { fleetWorkspaceSchema, fleetSnapshotSchema };
}

/** A run's view (`run`). */
function runSchema({ iso, hash, runId, count, runState }: Scalars) {
  return z.looseObject({
    v: z.literal(1),
    type: z.literal("run"),
    runId,
    workspace: z.looseObject({ root: z.string(), hash }),
    /** `foreground` (an ariel-spawn in a terminal) or `detached` (ariel-spawn --detach). */
    kind: z.enum(["foreground", "detached"]),
    name: z.nullable(z.string()),
    /** The runs one ariel-spawn call started share it (a foreground run's is its own id). */
    group: z.optional(z.nullable(runId)),
    state: runState,
    sources: z.array(z.string()),
    /** The task it works in (an isolated run's), else null. */
    task: z.optional(z.nullable(z.string())),
    /** The branch it works on (an isolated run's leg), else null. */
    branch: z.optional(z.nullable(z.string())),
    /** An isolated run: every leg it works in (each leg of the task for --span), with its worktree and branch. */
    legs: z.optional(
      z.array(z.looseObject({ source: z.string(), worktree: z.string(), branch: z.string() })),
    ),
    /** The command, credentials in URLs redacted. */
    argv: z.array(z.string()),
    startedAt: z.nullable(iso),
    endedAt: z.nullable(iso),
    /** The exit status once final. */
    status: z.nullable(z.int()),
    respawnOf: z.nullable(runId),
    /** The last history line (seq) of the run. */
    lastSeq: count,
    /**
     * The last non-blank line of its output (read from the output's tail): escape sequences and
     * control characters removed, credentials redacted, at most 200 characters; null before any.
     */
    lastLine: z.optional(z.nullable(z.string().check(z.maxLength(200)))),
    /** A live detached run's activity (docs/runs.md, Attention). */
    activity: z.optional(z.enum(["busy", "waiting", "idle"])),
    /** With `activity`: who said so, why (the agent's words when it reported), since when. */
    attention: z.optional(
      z.looseObject({
        by: z.enum(["agent", "screen", "timing"]),
        reason: z.nullable(z.string()),
        since: z.nullable(iso),
      }),
    ),
    /** A live run whose agent reports (docs/runs.md, "What agents report"). */
    reported: z.optional(agentViewSchema(iso)),
    /** A tty run's terminal size. */
    tty: z.optional(z.looseObject({ cols: z.int(), rows: z.int() })),
    /** A sandboxed run's sandbox: what it may write, what it cannot read, its network (docs/sandbox.md). */
    sandbox: z.optional(
      z.looseObject({ write: z.array(z.string()), hide: z.array(z.string()), net: z.enum(["on", "none"]) }),
    ),
    /** The worktree a detached isolated run kept (still on disk), and the command that deals with it. */
    kept: z.optional(
      z.nullable(
        z.object({
          task: z.string(),
          source: z.string(),
          /** A run over several legs (--span): every leg it kept. */
          sources: z.optional(z.array(z.string())),
          reason: z.string(),
          next: z.string(),
        }),
      ),
    ),
  });
}

/** A wired run's agent as readers print it (runs/attention/record.ts AgentView). */
function agentViewSchema(iso: Scalars["iso"]) {
  const count = z.int().check(z.minimum(0));
  return z.looseObject({
    name: z.enum(["claude", "codex", "gemini"]),
    via: z.enum(["claude-hooks", "codex-notify", "gemini-hooks"]),
    /** The session `respawn --resume` resumes. */
    session: z.nullable(z.string()),
    transcript: z.nullable(z.string()),
    turns: count,
    /** Tool calls started, and by tool name. */
    tools: count,
    toolCalls: z.record(z.string(), count),
    lastTool: z.nullable(
      z.looseObject({
        name: z.string(),
        phase: z.enum(["start", "end"]),
        ok: z.nullable(z.boolean()),
        ts: iso,
      }),
    ),
    lastNotice: z.nullable(z.looseObject({ kind: z.string(), message: z.string(), ts: iso })),
    /** Reports accepted and refused (no, another run's or a stale secret), malformed, over the rate. */
    reports: z.optional(z.looseObject({ accepted: count, refused: count, malformed: count, limited: count })),
  });
}

/** A normalized fleet event (`event`), one shape per event name. */
function eventSchema({ iso, hash, runId, count, runState }: Scalars) {
  const base = {
    v: z.literal(1),
    type: z.literal("event"),
    ts: iso,
    /** The workspace's hash. */
    workspace: hash,
    runId,
    /** The history line (1-based); for a detached run's output, the line's byte offset in its stream. */
    seq: count,
  };
  const own = new Set(["run.state", "output", "run.exited", "run.attention", ...AGENT_EVENT_NAMES]);
  const others = FLEET_EVENT_NAMES.filter((n) => !own.has(n));
  return z.discriminatedUnion("event", [
    z.looseObject({
      ...base,
      event: z.literal("run.state"),
      from: z.enum(["starting", "running"]),
      to: runState,
    }),
    z.looseObject({
      ...base,
      event: z.literal("output"),
      stream: z.enum(["stdout", "stderr"]),
      /** The line with its newline (none on a last line without one). */
      data: z.string(),
    }),
    z.looseObject({
      ...base,
      event: z.literal("run.exited"),
      code: z.nullable(z.int()),
      signal: z.nullable(z.string()),
      status: z.int(),
    }),
    z.looseObject({ ...base, event: z.literal("run.attention"), ...attentionFields() }),
    ...agentEventVariants(base),
    z.looseObject({ ...base, event: z.enum(others) }),
  ]);
}

/** `serve --json`'s `server` record and the API's small replies. */
function serverSchemas({ runId, count }: Scalars) {
  const fleetServerSchema = z.looseObject({
    v: z.literal(1),
    type: z.literal("server"),
    /** `http://HOST:PORT/`. */
    url: z.string().check(z.regex(/^http:\/\//)),
    host: z.string(),
    port: z.int().check(z.minimum(1), z.maximum(65535)),
    pid: z.int(),
  });

  const fleetReplySchema = z.discriminatedUnion("type", [
    /** `GET /healthz`. */
    z.looseObject({ v: z.literal(1), type: z.literal("health"), ok: z.literal(true) }),
    /** `GET /readyz`: the workspaces served and the registry entries that could not be read. */
    z.looseObject({
      v: z.literal(1),
      type: z.literal("ready"),
      ready: z.literal(true),
      workspaces: count,
      problems: count,
    }),
    /** `POST /api/runs/{id}/input`. */
    z.looseObject({ v: z.literal(1), type: z.literal("ok"), runId }),
  ]);
  return { fleetServerSchema, fleetReplySchema };
}

// Built on first use, not when the module loads (see source.ts).
function build() {
  const s = scalars();
  return {
    ...snapshotSchemas(s),
    fleetRunSchema: runSchema(s),
    fleetEventSchema: eventSchema(s),
    ...serverSchemas(s),
  };
}
const built = lazy(build);

export const fleetWorkspaceSchema = lazyField(built, "fleetWorkspaceSchema");
export const fleetSnapshotSchema = lazyField(built, "fleetSnapshotSchema");
export const fleetRunSchema = lazyField(built, "fleetRunSchema");
export const fleetEventSchema = lazyField(built, "fleetEventSchema");
export const fleetServerSchema = lazyField(built, "fleetServerSchema");
export const fleetReplySchema = lazyField(built, "fleetReplySchema");
