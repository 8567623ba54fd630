/**
 * Gemini CLI's hooks, read (https://github.com/google-gemini/gemini-cli/blob/main/docs/hooks/reference.md):
 * each hook's JSON input, as the per-run system defaults file wires them (wiring.ts), to the
 * normalized events and the activity it means.
 */
import { type HookPayload, hookPayload, hookSession } from "./_payload.ts";
import { notice, type ReportReader, type ReportReading, reading, to, tool, turn } from "./events.ts";

type Read = (p: HookPayload) => Omit<ReportReading, "session"> | string;

const needsTool = "tool_name: expected a tool name";

/** Whether an AfterTool's `tool_response` carries an error. */
function failed(response: unknown): boolean {
  if (typeof response !== "object" || response === null) return false;
  const error = (response as { error?: unknown }).error;
  return error !== undefined && error !== null && error !== false && error !== "";
}

/** Each hook event: what it means. A string is the problem with the input. */
export const GEMINI_HOOKS: Record<string, Read> = {
  SessionStart: () => reading(null, [], to("idle", "session started")),
  BeforeAgent: () => reading(null, [turn("start")], to("busy", "prompt submitted")),
  AfterAgent: () => reading(null, [turn("end")], to("idle", "turn ended")),
  BeforeTool: (p) => (p.tool_name ? reading(null, [tool(p.tool_name, "start", null)]) : needsTool),
  AfterTool: (p) => {
    if (!p.tool_name) return needsTool;
    const ok = !failed(p.tool_response);
    return reading(
      null,
      [tool(p.tool_name, "end", ok)],
      to("busy", `${ok ? "used" : "failed"} ${p.tool_name}`),
    );
  },
  Notification: (p) => {
    const kind = p.notification_type ?? "notification";
    const message = p.message ?? "";
    return reading(null, [notice(kind, message)], to("waiting", message || kind));
  },
  SessionEnd: (p) => reading(null, [notice("session_end", p.reason ?? "")]),
};

/** The hook events ariel wires for Gemini CLI (the keys of {@link GEMINI_HOOKS}). */
export const GEMINI_HOOK_EVENTS: readonly string[] = Object.keys(GEMINI_HOOKS);

/** One Gemini CLI hook input: its reading, or why it is not one. */
export const readGemini: ReportReader = (payload) => {
  const checked = hookPayload(payload);
  if (!checked.ok) return { problem: checked.problem };
  const p = checked.value;
  const read = GEMINI_HOOKS[p.hook_event_name];
  if (!read) return reading(hookSession(p), []);
  const r = read(p);
  return typeof r === "string" ? { problem: r } : { ...r, session: hookSession(p) };
};
