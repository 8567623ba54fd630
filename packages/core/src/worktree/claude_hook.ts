import { ArielError } from "../errors.ts";
import { isTaskId, quoteValue, slugify } from "../names.ts";

/**
 * Claude Code's `WorktreeCreate` / `WorktreeRemove` hook events, as `ariel-worktree hook claude`
 * reads them from stdin (docs/lifecycle.md, Claude Code). Claude Code has sent three create
 * payloads — `{name}`, `{worktree_name, base_path, source_ref}` and an older `{worktree_path}` —
 * each with `session_id`, `transcript_path`, `cwd` and `hook_event_name` around them; every
 * one is accepted, unknown fields are ignored.
 */
export type ClaudeHookEvent =
  | {
      event: "create";
      /** The worktree's name, as Claude Code gave it (the task id is made from it). */
      name: string;
      /** Where to look for the repository: `base_path`, else `cwd` (null: the process's cwd). */
      dir: string | null;
      /** The ref to start from (`source_ref`), or null: the repository's HEAD. */
      base: string | null;
    }
  | { event: "remove"; worktreePath: string; dir: string | null };

/** The most a payload may weigh: Claude Code's are a few hundred bytes. */
export const CLAUDE_PAYLOAD_MAX_BYTES = 64 * 1024;

function bad(message: string): ArielError {
  return new ArielError("ERR_INVALID_INPUT", `hook claude: ${message}`, {
    hint: "pipe Claude Code's WorktreeCreate or WorktreeRemove event JSON to stdin (docs/lifecycle.md)",
  });
}

function str(o: Record<string, unknown>, key: string): string | null {
  const v = o[key];
  if (v === undefined || v === null) return null;
  if (typeof v !== "string" || v === "" || v.includes("\0")) throw bad(`${key} must be a non-empty string`);
  return v;
}

/**
 * Parse one hook event. An event other than WorktreeCreate/WorktreeRemove, a create without a
 * name, or a remove without `worktree_path` is ERR_INVALID_INPUT (65).
 *
 * @example
 * ```ts
 * parseClaudeHook('{"hook_event_name":"WorktreeCreate","name":"fix-login","cwd":"/w/api"}');
 * // { event: "create", name: "fix-login", dir: "/w/api", base: null }
 * ```
 */
export function parseClaudeHook(text: string): ClaudeHookEvent {
  if (text.length > CLAUDE_PAYLOAD_MAX_BYTES)
    throw bad(`the event is larger than ${CLAUDE_PAYLOAD_MAX_BYTES} bytes`);
  let o: unknown;
  try {
    o = JSON.parse(text);
  } catch {
    throw bad("stdin is not JSON");
  }
  if (typeof o !== "object" || o === null || Array.isArray(o)) throw bad("the event is not a JSON object");
  const p = o as Record<string, unknown>;
  const event = str(p, "hook_event_name");
  const cwd = str(p, "cwd");
  if (event === "WorktreeRemove") {
    const worktreePath = str(p, "worktree_path");
    if (worktreePath === null) throw bad("WorktreeRemove carries no worktree_path");
    return { event: "remove", worktreePath, dir: cwd };
  }
  if (event !== "WorktreeCreate") {
    throw bad(
      `unknown hook_event_name ${quoteValue(event ?? "")}; expected WorktreeCreate or WorktreeRemove`,
    );
  }
  const path = str(p, "worktree_path");
  const name =
    str(p, "name") ??
    str(p, "worktree_name") ??
    (path ? (path.replace(/\/+$/, "").split("/").pop() ?? null) : null);
  if (name === null || name === "")
    throw bad("WorktreeCreate carries no name, worktree_name or worktree_path");
  return { event: "create", name, dir: str(p, "base_path") ?? cwd, base: str(p, "source_ref") };
}

/**
 * The task id for a worktree name Claude Code gave: the name itself when it is a valid task id,
 * else its slug (`Fix Login!` → `fix-login`).
 */
export function claudeTaskId(name: string): string {
  return isTaskId(name) ? name : slugify(name);
}
