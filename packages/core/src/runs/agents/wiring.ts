/**
 * How ariel wires an agent's reports into one run, as data (docs/runs.md, "What agents report";
 * decision 0120): the argv and environment the child starts with and the files written beside
 * the run first. Nothing of the user's or the repository's agent config is ever edited: Claude
 * Code gets a settings file of the run's own (`--settings`), Codex a `-c notify=[…]` override,
 * Gemini CLI a per-run copy of the machine's system defaults with ariel's hooks added.
 *
 * @example
 * ```ts
 * planWiring("codex-notify", { argv: ["codex"], reporter: ["/usr/bin/node", "/opt/r.cjs"], runDir: "/w/.ariel/runs/r" }).argv;
 * // ["codex", "-c", 'notify=["/usr/bin/node", "/opt/r.cjs", "codex"]']
 * ```
 */
import type { AgentPreset, ReportVia } from "../attention/presets.ts";
import { CLAUDE_HOOK_EVENTS } from "./claude.ts";
import type { ReportingAgent } from "./events.ts";
import { GEMINI_HOOK_EVENTS } from "./gemini.ts";

/** The agent whose payloads each way of reporting carries. */
export const VIA_AGENT: Record<ReportVia, ReportingAgent> = {
  "claude-hooks": "claude",
  "codex-notify": "codex",
  "gemini-hooks": "gemini",
};

/** The files a wired run gets in its directory (0600, rewritten at each start of its child). */
export const WIRING_FILES = {
  claude: "claude-settings.json",
  gemini: "gemini-defaults.json",
} as const;

/** The environment variable that points Gemini CLI at its system defaults file. */
export const GEMINI_DEFAULTS_ENV = "GEMINI_CLI_SYSTEM_DEFAULTS_PATH";

/** What the wiring needs to know. */
export interface WiringInput {
  argv: readonly string[];
  /** The reporter's argv without the agent's name: the executable and its script. */
  reporter: readonly string[];
  /** The run's directory (absolute). */
  runDir: string;
  /** Gemini CLI's system defaults as they are now (read, never written): path and text (null: none). */
  geminiDefaults?: { path: string; text: string | null };
}

/** The start of a wired child: its argv, what its environment gains, the files written first. */
export interface WiringPlan {
  argv: string[];
  env: Record<string, string>;
  files: { path: string; text: string }[];
}

/** Words as one command line for a POSIX shell (each single-quoted): what hook runners get. */
export function posixCommand(words: readonly string[]): string {
  return words
    .map((w) => (/^[A-Za-z0-9_./:=@%+,-]+$/.test(w) ? w : `'${w.replace(/'/g, `'\\''`)}'`))
    .join(" ");
}

/**
 * Why reports cannot be wired into `argv` without overriding something the user gave, or null:
 * Claude Code takes one `--settings`, Codex one `notify`.
 *
 * @example
 * ```ts
 * wiringConflict("claude-hooks", ["claude", "--settings", "mine.json"]); // "the command gives its own --settings"
 * ```
 */
export function wiringConflict(via: ReportVia, argv: readonly string[]): string | null {
  if (via === "claude-hooks" && argv.some((a) => a === "--settings" || a.startsWith("--settings=")))
    return "the command gives its own --settings";
  if (via === "codex-notify" && argv.some((a, i) => setsNotify(a, argv[i - 1])))
    return "the command sets its own notify";
  return null;
}

function setsNotify(arg: string, before: string | undefined): boolean {
  const value =
    /^(?:-c|--config=)(.*)$/.exec(arg)?.[1] ?? (before === "-c" || before === "--config" ? arg : "");
  return /^\s*notify\s*=/.test(value);
}

/** What run.json says of a run's reports: which agent, and how it reports (absent: not wired). */
export interface RunReports {
  agent: ReportingAgent;
  via: ReportVia;
}

/**
 * Whether a run of `argv` under `preset` gets its agent's reports wired: the preset knows how,
 * the command is the agent itself (argv[0]'s basename one of the preset's commands: the wiring
 * goes into its own argv, so `--agent claude -- node x.js` only reads the screen as Claude's),
 * and nothing on the command line would be overridden ({@link wiringConflict}).
 *
 * @example
 * ```ts
 * runReports(agentPreset("claude"), ["/usr/local/bin/claude"]); // { agent: "claude", via: "claude-hooks" }
 * runReports(agentPreset("claude"), ["node", "agent.js"]); // null
 * ```
 */
export function runReports(preset: AgentPreset, argv: readonly string[]): RunReports | null {
  const via = preset.reports?.via;
  const command = (argv[0] ?? "").split("/").pop() ?? "";
  if (via === undefined || !preset.commands.includes(command) || wiringConflict(via, argv) !== null)
    return null;
  return { agent: VIA_AGENT[via], via };
}

/** The plan that wires `via` into one start of a run's child, or `{skip}` saying why it cannot. */
export function planWiring(via: ReportVia, input: WiringInput): WiringPlan | { skip: string } {
  const conflict = wiringConflict(via, input.argv);
  if (conflict !== null) return { skip: conflict };
  return WIRINGS[via](input);
}

const WIRINGS: Record<ReportVia, (input: WiringInput) => WiringPlan | { skip: string }> = {
  "claude-hooks": wireClaude,
  "codex-notify": wireCodex,
  "gemini-hooks": wireGemini,
};

/** Claude Code: every hook ariel reads, in the background (`async`: Claude never waits for it). */
function wireClaude({ argv, reporter, runDir }: WiringInput): WiringPlan {
  const command = posixCommand([...reporter, "claude"]);
  const handler = { type: "command", command, async: true, timeout: 10 };
  const hooks = Object.fromEntries(CLAUDE_HOOK_EVENTS.map((e) => [e, [{ hooks: [handler] }]]));
  const path = `${runDir}/${WIRING_FILES.claude}`;
  return {
    argv: [argv[0]!, "--settings", path, ...argv.slice(1)],
    env: {},
    files: [{ path, text: `${JSON.stringify({ hooks }, null, 2)}\n` }],
  };
}

/** Codex: `-c notify=[…]` (a TOML array), right after the command, where global options go. */
function wireCodex({ argv, reporter }: WiringInput): WiringPlan {
  const list = `[${[...reporter, "codex"].map((w) => JSON.stringify(w)).join(", ")}]`;
  return { argv: [argv[0]!, "-c", `notify=${list}`, ...argv.slice(1)], env: {}, files: [] };
}

/**
 * Gemini CLI: the machine's system defaults (lowest precedence) with ariel's hooks appended
 * (Gemini concatenates each event's hooks across its settings files), pointed at by
 * {@link GEMINI_DEFAULTS_ENV}. Defaults ariel cannot read as JSON are left alone: not wired.
 */
function wireGemini({ argv, reporter, runDir, geminiDefaults }: WiringInput): WiringPlan | { skip: string } {
  let base: Record<string, unknown> = {};
  if (geminiDefaults?.text) {
    try {
      const parsed: unknown = JSON.parse(geminiDefaults.text);
      if (typeof parsed !== "object" || parsed === null || Array.isArray(parsed)) throw new TypeError();
      base = parsed as Record<string, unknown>;
    } catch {
      return {
        skip: `Gemini CLI's system defaults (${geminiDefaults.path}) are not a JSON object ariel can extend`,
      };
    }
  }
  const command = posixCommand([...reporter, "gemini"]);
  const handler = { name: "ariel-report", type: "command", command, timeout: 10_000 };
  const had = (typeof base.hooks === "object" && base.hooks !== null ? base.hooks : {}) as Record<
    string,
    unknown
  >;
  const hooks = { ...had };
  for (const e of GEMINI_HOOK_EVENTS) {
    hooks[e] = [...(Array.isArray(had[e]) ? (had[e] as unknown[]) : []), { hooks: [handler] }];
  }
  const path = `${runDir}/${WIRING_FILES.gemini}`;
  return {
    argv: [...argv],
    env: { [GEMINI_DEFAULTS_ENV]: path },
    files: [{ path, text: `${JSON.stringify({ ...base, hooks }, null, 2)}\n` }],
  };
}
