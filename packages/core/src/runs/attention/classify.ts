/**
 * A run's activity (`busy | waiting | idle`), derived from how long its screen has been still
 * and from its preset's patterns on the bottom of that screen (docs/runs.md, Attention).
 * Pure: the monitor feeds it the rendered screen and the time of its last change.
 */
import { ArielError } from "../../errors.ts";
import { AGENT_NAMES, AGENT_PRESETS, type AgentPreset } from "./presets.ts";
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
 * `args` placed as the preset's resume form says, or null when it has none (`respawn --resume`).
 *
 * @example
 * ```ts
 * resumeArgv(agentPreset("claude"), ["claude", "--model", "opus"]); // ["claude", "--model", "opus", "--continue"]
 * ```
 */
export function resumeArgv(preset: AgentPreset, argv: readonly string[]): string[] | null {
  const r = preset.resume;
  if (r === null) return null;
  if (r.at === "end") {
    const has = r.args.every((a, i) => argv[argv.length - r.args.length + i] === a);
    return has ? [...argv] : [...argv, ...r.args];
  }
  const has = r.args.every((a, i) => argv[1 + i] === a);
  return has ? [...argv] : [argv[0]!, ...r.args, ...argv.slice(1)];
}
