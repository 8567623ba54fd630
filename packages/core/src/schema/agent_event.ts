/**
 * What agents report, as events (docs/runs.md, "What agents report"; runs/agents/events.ts):
 * `agent.session`, `agent.turn`, `agent.tool`, `agent.notice`, one shape for every agent that
 * reports. The same fields in the run's history (`event` records) and in the fleet stream
 * (`fleet-event`, with `workspace` and `seq`): the schemas of both take them from here.
 *
 * @example
 * ```json
 * {"v":1,"type":"event","event":"agent.tool","runId":"20261202T110943Z-k3x9a2","ts":"2026-12-02T11:09:44.120Z","source":"api","agent":"claude","name":"Bash","phase":"end","ok":true}
 * ```
 */
import * as z from "zod/mini";
import { REPORTING_AGENTS, SESSION_ID_PATTERN, TOOL_NAME_PATTERN } from "../runs/agents/events.ts";
import { lazy } from "./lazy.ts";

/** The fields of each agent event, after the record's fixed ones (one home for all three schemas). */
export function agentEventFields() {
  const agent = { agent: z.enum(REPORTING_AGENTS) };
  const phase = z.enum(["start", "end"]);
  return {
    "agent.session": {
      ...agent,
      /** The agent's session (Claude Code's `session_id`, Codex's `thread-id`): what `respawn --resume` resumes. */
      id: z.string().check(z.regex(SESSION_ID_PATTERN)),
      /** The agent's transcript file, when it says where it is. */
      transcript: z.nullable(z.string()),
    },
    "agent.turn": { ...agent, phase },
    "agent.tool": {
      ...agent,
      name: z.string().check(z.regex(TOOL_NAME_PATTERN)),
      phase,
      /** At the end: whether the tool succeeded; null at the start. */
      ok: z.nullable(z.boolean()),
    },
    "agent.notice": {
      ...agent,
      /** The agent's own kind (`permission_prompt`, `idle_prompt`, `permission_request`, `stop_failure`, `session_end`, `ToolPermission`, …). */
      kind: z.string().check(z.maxLength(64)),
      /** Its words, one line, at most 300 characters. */
      message: z.string().check(z.maxLength(300)),
    },
  } as const;
}

/** `run.attention`'s fields: a move of a run's activity, and who said so. */
export function attentionFields() {
  const activity = z.enum(["busy", "waiting", "idle"]);
  return {
    from: activity,
    to: activity,
    reason: z.string(),
    /**
     * Who said so: `agent` (it reported) or `screen` (read off its screen); absent in events written
     * before reports existed. Not `source`: that is the run's source, as in every event.
     */
    by: z.optional(z.enum(["agent", "screen"])),
  };
}

/** The four agent events as zod variants after a record's fixed fields `base` (history, fleet stream). */
export function agentEventVariants<B extends z.core.$ZodLooseShape>(base: B) {
  const f = agentEventFields();
  return [
    z.looseObject({ ...base, event: z.literal("agent.session"), ...f["agent.session"] }),
    z.looseObject({ ...base, event: z.literal("agent.turn"), ...f["agent.turn"] }),
    z.looseObject({ ...base, event: z.literal("agent.tool"), ...f["agent.tool"] }),
    z.looseObject({ ...base, event: z.literal("agent.notice"), ...f["agent.notice"] }),
  ] as const;
}

function build() {
  const base = {
    v: z.literal(1),
    type: z.literal("event"),
    runId: z.string().check(z.regex(/^\d{8}T\d{6}Z-[0-9a-z]{6}$/)),
    ts: z.string().check(z.regex(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d(\.\d+)?Z$/)),
    /** The run's source (history); the workspace's hash and the event's seq (fleet stream). */
    source: z.optional(z.nullable(z.string())),
    workspace: z.optional(z.string()),
    seq: z.optional(z.int().check(z.minimum(0))),
  };
  return z.discriminatedUnion("event", [...agentEventVariants(base)]);
}

/** The schema of one agent event, in a run's history or the fleet stream (docs/schema/agent-event.schema.json). */
export const agentEventSchema: () => ReturnType<typeof build> = lazy(build);
