/**
 * A run's activity (`busy | waiting | idle`), derived from how long its screen has been still
 * and from its preset's patterns on the bottom of that screen (docs/runs.md, Attention).
 * Pure: the monitor feeds it the rendered screen and the time of its last change.
 */
import { ArielError } from "../../errors.ts";
import { SESSION_ID_PATTERN } from "../agents/events.ts";
import { AGENT_NAMES, AGENT_PRESETS, type AgentPreset, type ResumeForm, SESSION_WORD } from "./presets.ts";
import { askingPrompt, type Cursor } from "./prompt.ts";

export type Activity = "busy" | "waiting" | "idle";

export const ACTIVITIES: readonly Activity[] = ["busy", "waiting", "idle"];

export interface Verdict {
  activity: Activity;
  /** Why, for the `run.attention` event: `output`, `quiet`, or `pattern: SOURCE`. */
  reason: string;
}

/** A preset by name; ERR_USAGE (64) naming the known ones otherwise. */
export function agentPreset(name: string): AgentPreset {
  const p = AGENT_PRESETS.find((x) => x.name === name);
  if (p) return p;
  throw new ArielError("ERR_USAGE", `--agent: no preset ${JSON.stringify(name)}`, {
    hint: `one of ${AGENT_NAMES.join(", ")}`,
  });
}

/**
 * The preset of a run: `agent` when given, else the one whose commands hold argv[0]'s basename,
 * else `generic` (timing, and the generic rule of a program that asks).
 *
 * @example
 * ```ts
 * presetFor(null, ["/usr/local/bin/claude", "--model", "x"]).name; // "claude"
 * presetFor(null, ["bash"]).name; // "generic"
 * ```
 */
export function presetFor(agent: string | null | undefined, argv: readonly string[]): AgentPreset {
  if (agent) return agentPreset(agent);
  const base = (argv[0] ?? "").split("/").pop() ?? "";
  return AGENT_PRESETS.find((p) => p.commands.includes(base)) ?? agentPreset("generic");
}

/** The lines a preset looks at: up to `tail` lines ending with the last non-empty one. */
export function screenTail(lines: readonly string[], tail: number): string {
  let end = lines.length;
  while (end > 0 && lines[end - 1]!.trim() === "") end--;
  return lines
    .slice(Math.max(0, end - tail), end)
    .map((l) => l.trimEnd())
    .join("\n");
}

const compiled = new Map<string, RegExp>();
function firstMatch(patterns: readonly string[], text: string): string | null {
  for (const p of patterns) {
    let re = compiled.get(p);
    if (!re) {
      re = new RegExp(p, "imu");
      compiled.set(p, re);
    }
    if (re.test(text)) return p;
  }
  return null;
}

/**
 * The activity a run shows now. `quietMs`: since its screen last changed; `cursor`: where the
 * terminal's cursor is (the generic rule of a program that asks, `askingPrompt`, reads it);
 * `previous`: what it read before (kept between `settleMs` and `idleMs` when no pattern decides, so a pause in a
 * spinner's output does not flap).
 *
 * @example
 * ```ts
 * classify(agentPreset("generic"), { lines: ["$ "], quietMs: 100, previous: "idle" }).activity; // "busy"
 * ```
 */
export function classify(
  preset: AgentPreset,
  now: { lines: readonly string[]; quietMs: number; previous: Activity; cursor?: Cursor },
): Verdict {
  const text = screenTail(now.lines, preset.tail);
  const busy = firstMatch(preset.busy, text);
  if (busy !== null) return { activity: "busy", reason: `pattern: ${busy}` };
  if (now.quietMs < preset.settleMs) return { activity: "busy", reason: "output" };
  const asking = firstMatch(preset.waiting, text);
  if (asking !== null) return { activity: "waiting", reason: `pattern: ${asking}` };
  const prompt = preset.prompt ? askingPrompt(now.lines, now.cursor) : null;
  if (prompt !== null) return { activity: "waiting", reason: `prompt: ${prompt}` };
  if (now.quietMs >= preset.idleMs) return { activity: "idle", reason: "quiet" };
  return { activity: now.previous, reason: now.previous === "busy" ? "output" : "quiet" };
}

/**
 * The argv of `respawn --resume`: `argv` with the preset's resume form, or null when it has none.
 * With `session` (the id the agent reported, docs/runs.md "What agents report") and a preset
 * that resumes by id, that one conversation (`claude … --resume ID`, `codex resume ID …`);
 * else the latest one in the directory (`--continue`, `resume --last`). A resume form already in
 * its place (from an earlier `--resume`) is replaced, so it is never there twice.
 *
 * @example
 * ```ts
 * resumeArgv(agentPreset("claude"), ["claude", "--model", "opus"]); // ["claude", "--model", "opus", "--continue"]
 * resumeArgv(agentPreset("codex"), ["codex", "resume", "--last"], "7f9f"); // ["codex", "resume", "7f9f"]
 * ```
 */
export function resumeArgv(
  preset: AgentPreset,
  argv: readonly string[],
  session: string | null = null,
): string[] | null {
  const r = preset.resume;
  if (r === null) return null;
  const byId = session !== null && r.session !== undefined && SESSION_ID_PATTERN.test(session);
  const words = byId ? r.session!.map((w) => (w === SESSION_WORD ? session : w)) : r.args;
  const rest = withoutResume(r, argv);
  return r.at === "end" ? [...rest, ...words] : [rest[0]!, ...words, ...rest.slice(1)];
}

/**
 * `argv` without a resume form of `r` in its place: the latest form, the session form with any
 * session word (an id or a name: a word that is no option), or the session form's words alone,
 * the agent's own picker (`codex resume`, `codex resume --full-auto`, `claude … --resume`).
 */
function withoutResume(r: ResumeForm, argv: readonly string[]): string[] {
  const session = r.session ? [r.session, r.session.filter((w) => w !== SESSION_WORD)] : [];
  for (const form of [r.args, ...session]) {
    const at = r.at === "end" ? argv.length - form.length : 1;
    if (at < 1) continue;
    const here = argv.slice(at, at + form.length);
    const same = form.every((w, i) => (w === SESSION_WORD ? isSessionWord(here[i]) : here[i] === w));
    if (same) return [...argv.slice(0, at), ...argv.slice(at + form.length)];
  }
  return [...argv];
}

/** A word in the id's place of a session form: anything but an option. */
function isSessionWord(word: string | undefined): boolean {
  return word !== undefined && !word.startsWith("-");
}
