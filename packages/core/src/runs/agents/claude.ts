/**
 * Claude Code's hooks, read (https://code.claude.com/docs/en/hooks): each hook's JSON input, as
 * the per-run settings file wires them (wiring.ts), to the normalized events and the activity it
 * means. The table is the mapping; the recorded inputs in fixtures/claude/ are tested against it.
 */
import { type HookPayload, hookPayload, hookSession } from "./_payload.ts";
import { notice, type ReportReader, type ReportReading, reading, to, tool, turn } from "./events.ts";

/** Notification types that mean Claude waits for the user (the others are told, not waited on). */
const WAITING_NOTICES = new Set([
  "permission_prompt",
  "idle_prompt",
  "elicitation_dialog",
  "agent_needs_input",
]);

/** SessionStart sources after which Claude sits at its prompt (not `compact`: that is mid-turn). */
const AT_PROMPT = new Set(["startup", "resume", "clear", "fork"]);

/**
 * A PermissionRequest's words: it has no message of its own, so ariel says it as Claude's own
 * `permission_prompt` notification does.
 */
export const permissionMessage = (toolName: string): string =>
  `Claude needs your permission to use ${toolName}`;

type Read = (p: HookPayload) => Omit<ReportReading, "session"> | string;

const toolName = (p: HookPayload): string | null => p.tool_name ?? null;
const needsTool = "tool_name: expected a tool name";

/** Each hook event: what it means. A string is the problem with the input. */
export const CLAUDE_HOOKS: Record<string, Read> = {
  SessionStart: (p) =>
    reading(null, [], AT_PROMPT.has(p.source ?? "") ? to("idle", "session started") : null),
  UserPromptSubmit: () => reading(null, [turn("start")], to("busy", "prompt submitted")),
  PreToolUse: (p) => {
    const name = toolName(p);
    return name === null ? needsTool : reading(null, [tool(name, "start", null)]);
  },
  PermissionRequest: (p) => {
    const name = toolName(p);
    if (name === null) return needsTool;
    const message = permissionMessage(name);
    return reading(null, [notice("permission_request", message)], to("waiting", message, true));
  },
  PostToolUse: (p) => {
    const name = toolName(p);
    return name === null ? needsTool : reading(null, [tool(name, "end", true)], to("busy", `used ${name}`));
  },
  PostToolUseFailure: (p) => {
    const name = toolName(p);
    return name === null
      ? needsTool
      : reading(null, [tool(name, "end", false)], to("busy", `${name} failed`));
  },
  Notification: (p) => {
    const kind = p.notification_type ?? "notification";
    const message = p.message ?? "";
    const waits = WAITING_NOTICES.has(kind) || p.notification_type === undefined;
    return reading(null, [notice(kind, message)], waits ? to("waiting", message || kind) : null);
  },
  Stop: () => reading(null, [turn("end")], to("idle", "turn ended")),
  StopFailure: (p) => {
    const why = typeof p.error === "string" ? p.error : "API error";
    return reading(null, [turn("end"), notice("stop_failure", why)], to("idle", `turn failed: ${why}`));
  },
  SessionEnd: (p) => reading(null, [notice("session_end", p.reason ?? "")]),
};

/** The hook events ariel wires for Claude Code (the keys of {@link CLAUDE_HOOKS}). */
export const CLAUDE_HOOK_EVENTS: readonly string[] = Object.keys(CLAUDE_HOOKS);

/** One Claude Code hook input: its reading, or why it is not one. */
export const readClaude: ReportReader = (payload) => {
  const checked = hookPayload(payload);
  if (!checked.ok) return { problem: checked.problem };
  const p = checked.value;
  const read = CLAUDE_HOOKS[p.hook_event_name];
  // An event ariel did not wire (a user's own hooks calling the reporter): nothing to say.
  if (!read) return reading(hookSession(p), []);
  const r = read(p);
  return typeof r === "string" ? { problem: r } : { ...r, session: hookSession(p) };
};
