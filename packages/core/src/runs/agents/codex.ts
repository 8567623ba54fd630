/**
 * Codex CLI's `notify` program, read (https://github.com/openai/codex/blob/main/docs/config.md#notify):
 * the JSON argument Codex appends to the program's argv after every turn. It reports only the end
 * of a turn (`agent-turn-complete`), so the run's screen still tells when Codex works or asks
 * (its preset's reports cover `turn-end`).
 */
import { codexPayload } from "./_payload.ts";
import { type ReportReader, reading, to, turn } from "./events.ts";

/** One `notify` argument: its reading, or why it is not one. */
export const readCodex: ReportReader = (payload) => {
  const checked = codexPayload(payload);
  if (!checked.ok) return { problem: checked.problem };
  const p = checked.value;
  const id = p["thread-id"];
  const session = id === undefined ? null : { id, transcript: null };
  // Codex documents one type so far; another one is news, not a problem.
  if (p.type !== "agent-turn-complete") return reading(session, []);
  return reading(session, [turn("end")], to("idle", "turn complete"));
};
