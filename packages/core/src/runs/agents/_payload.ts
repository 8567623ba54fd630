/**
 * The fields of agents' payloads that ariel reads, checked with zod (a payload is a stranger's
 * input: a field of the wrong type is a problem, never trusted). Only what the readers use is
 * checked; everything else in a payload is ignored.
 */
import * as z from "zod/mini";
import { formatIssue } from "../../schema/issues.ts";
import { lazy } from "../../schema/lazy.ts";
import { type ReportedSession, SESSION_ID_PATTERN, TOOL_NAME_PATTERN } from "./events.ts";

function build() {
  const text = z.string().check(z.maxLength(4096));
  const sessionId = z.string().check(z.regex(SESSION_ID_PATTERN));
  const toolName = z.string().check(z.regex(TOOL_NAME_PATTERN));
  /** The fields every hook of Claude Code and Gemini CLI sends (some only on some events). */
  const hook = z.looseObject({
    hook_event_name: z.string().check(z.minLength(1), z.maxLength(64)),
    session_id: z.optional(sessionId),
    transcript_path: z.optional(z.nullable(text)),
    source: z.optional(text),
    tool_name: z.optional(toolName),
    notification_type: z.optional(text),
    message: z.optional(text),
    reason: z.optional(text),
    error: z.optional(z.unknown()),
    tool_response: z.optional(z.unknown()),
  });
  /** Codex CLI's `notify` argument. */
  const codex = z.looseObject({
    type: z.string().check(z.minLength(1), z.maxLength(64)),
    "thread-id": z.optional(sessionId),
    "turn-id": z.optional(z.string()),
  });
  return { hook, codex };
}
const schemas = lazy(build);

export type HookPayload = z.infer<ReturnType<typeof build>["hook"]>;
export type CodexPayload = z.infer<ReturnType<typeof build>["codex"]>;

/** A checked payload, or the first problem as `field: what is wrong`. */
export type Checked<T> = { ok: true; value: T } | { ok: false; problem: string };

function check<T>(schema: z.ZodMiniType<T>, payload: unknown): Checked<T> {
  if (typeof payload !== "object" || payload === null || Array.isArray(payload)) {
    return { ok: false, problem: "(root): expected a JSON object" };
  }
  const r = z.safeParse(schema, payload);
  if (r.success) return { ok: true, value: r.data };
  const first = r.error.issues[0];
  return { ok: false, problem: first ? formatIssue(first) : "invalid payload" };
}

/** A Claude Code or Gemini CLI hook's input, checked. */
export const hookPayload = (payload: unknown): Checked<HookPayload> =>
  check(schemas().hook as z.ZodMiniType<HookPayload>, payload);

/** A Codex CLI `notify` argument, checked. */
export const codexPayload = (payload: unknown): Checked<CodexPayload> =>
  check(schemas().codex as z.ZodMiniType<CodexPayload>, payload);

/** The session a hook's input names, or null. */
export function hookSession(p: HookPayload): ReportedSession | null {
  if (p.session_id === undefined) return null;
  const t = p.transcript_path;
  return { id: p.session_id, transcript: typeof t === "string" && t !== "" ? t : null };
}
