/**
 * Agent presets: how to read an agent's screen (docs/runs.md, Attention), and what the agent
 * writes of its own state in a sandboxed run (docs/sandbox.md). Data only: patterns are
 * regular-expression sources matched (case-insensitive, multi-line) against the bottom of the
 * rendered screen; each preset is tested against recorded screens in `fixtures/`.
 */

/** Where a preset's resume words go in the argv of `ariel-runs respawn --resume`. */
export interface ResumeForm {
  /** The words that resume the agent's latest conversation in its directory. */
  args: string[];
  /** `end`: after the last argument (`claude … --continue`); `after-command`: right after argv[0] (`codex resume --last …`). */
  at: "end" | "after-command";
  /**
   * The words that resume one conversation by its session id, at the same place, with
   * {@link SESSION_WORD} standing for the id (`claude … --resume ID`, `codex resume ID …`): used
   * when the agent reported its session (docs/runs.md, What agents report).
   */
  session?: string[];
}

/**
 * A path under an agent's writable state through which code could run later, outside any
 * sandbox (settings with hooks, plugins, commands, instructions read at start): kept read-only
 * in a sandboxed run. `~/` is the home directory. An absent one is made first (`empty` for a
 * file, an empty directory for a directory), so the agent cannot create it either.
 */
export interface ProtectedPath {
  path: string;
  kind: "file" | "dir";
  /** What an absent file is made with: a value the agent reads as "nothing set". */
  empty?: string;
}

/** What an agent writes of its own state in a sandboxed run, and what of that stays read-only. */
export interface AgentState {
  /** Paths (`~/` = home) writable in a sandboxed run of this agent, those that exist. */
  write: string[];
  /** Paths under `write` kept read-only. */
  protect: ProtectedPath[];
}

/** The word of {@link ResumeForm.session} that stands for the recorded session id. */
export const SESSION_WORD = "{session}";

/**
 * How an agent reports its own state to ariel (docs/runs.md, What agents report): wired per run,
 * never into the user's or the repository's agent config.
 */
export interface ReportWiring {
  /**
   * `claude-hooks`: Claude Code hooks in a per-run settings file passed with `--settings`;
   * `codex-notify`: Codex CLI's `notify` program, set with `-c notify=[…]`; `gemini-hooks`:
   * Gemini CLI hooks in a per-run copy of the system defaults file
   * (`GEMINI_CLI_SYSTEM_DEFAULTS_PATH`).
   */
  via: ReportVia;
  /**
   * What the reports cover. `all`: every move (busy, waiting, idle), so once the agent has
   * reported, its screen is no longer read; `turn-end`: only the end of a turn (Codex), so a
   * report holds until the screen changes, and the screen decides again from there.
   */
  covers: "all" | "turn-end";
}

export type ReportVia = "claude-hooks" | "codex-notify" | "gemini-hooks";

export interface AgentPreset {
  name: string;
  /** argv[0] basenames that choose this preset when `--agent` is not given. */
  commands: string[];
  /** On screen while the agent works, even when it prints nothing for a while (a spinner's legend). */
  busy: string[];
  /** On screen when the agent asks the user something and waits for the answer. */
  waiting: string[];
  /**
   * Also read the screen with the generic rule of a program that asks (`askingPrompt`: a question
   * at the cursor, a numbered choice): for programs ariel has no patterns for.
   */
  prompt: boolean;
  /** How many lines, up to the last non-empty one, are looked at. */
  tail: number;
  /** Quiet this long (no change on screen) before a run leaves `busy`. */
  settleMs: number;
  /** Quiet this long, asking nothing, before a run reads `idle`. */
  idleMs: number;
  resume: ResumeForm | null;
  /** Its own state in a sandboxed run (docs/sandbox.md). */
  state: AgentState;
  /** How the agent reports its own state, or null: its screen alone tells. */
  reports: ReportWiring | null;
}

const file = (path: string, empty = ""): ProtectedPath => ({ path, kind: "file", empty });
const dir = (path: string): ProtectedPath => ({ path, kind: "dir" });

const BASE = { tail: 12, settleMs: 750, idleMs: 5_000, prompt: false } as const;

export const AGENT_PRESETS: readonly AgentPreset[] = [
  {
    ...BASE,
    name: "claude",
    commands: ["claude", "claude-code"],
    busy: ["esc to interrupt", "ctrl\\+c to interrupt"],
    waiting: [
      "do you want to (proceed|make this edit|create|run|allow|use)",
      "would you like to (proceed|continue)",
      "^\\s*[│|]?\\s*[❯>]?\\s*1\\.\\s+yes\\b",
      "\\(y/n\\)",
    ],
    resume: { args: ["--continue"], at: "end", session: ["--resume", SESSION_WORD] },
    state: {
      write: ["~/.claude", "~/.claude.json"],
      protect: [
        file("~/.claude/settings.json", "{}\n"),
        file("~/.claude/CLAUDE.md"),
        dir("~/.claude/hooks"),
        dir("~/.claude/plugins"),
        dir("~/.claude/commands"),
        dir("~/.claude/agents"),
        dir("~/.claude/skills"),
      ],
    },
    reports: { via: "claude-hooks", covers: "all" },
  },
  {
    ...BASE,
    name: "codex",
    commands: ["codex"],
    busy: ["esc to interrupt", "^\\s*[•◦]?\\s*working\\b"],
    waiting: [
      "allow command\\?",
      "would you like to (run|make|apply) ",
      "yes, proceed",
      "press enter to confirm",
      "\\(y\\)es",
    ],
    resume: { args: ["resume", "--last"], at: "after-command", session: ["resume", SESSION_WORD] },
    state: {
      write: ["~/.codex"],
      protect: [file("~/.codex/config.toml"), file("~/.codex/AGENTS.md"), dir("~/.codex/prompts")],
    },
    reports: { via: "codex-notify", covers: "turn-end" },
  },
  {
    ...BASE,
    name: "gemini",
    commands: ["gemini"],
    busy: ["esc to cancel"],
    waiting: [
      "allow execution\\??",
      "apply this change\\?",
      "waiting for user confirmation",
      "^\\s*[│|]?\\s*[●◯○>]?\\s*1\\.\\s+(yes|allow)",
    ],
    resume: null,
    state: {
      write: ["~/.gemini"],
      protect: [
        file("~/.gemini/settings.json", "{}\n"),
        file("~/.gemini/GEMINI.md"),
        dir("~/.gemini/commands"),
        dir("~/.gemini/extensions"),
      ],
    },
    reports: { via: "gemini-hooks", covers: "all" },
  },
  {
    ...BASE,
    name: "aider",
    commands: ["aider"],
    busy: ["[░█▒▓]+\\s+waiting for\\b", "waiting for (the )?(llm|model)"],
    waiting: ["\\(y\\)es/\\(n\\)o", "\\[yes\\]:\\s*$", "\\(d\\)on't ask again"],
    resume: { args: ["--restore-chat-history"], at: "end" },
    state: { write: ["~/.aider"], protect: [] },
    reports: null,
  },
  {
    ...BASE,
    name: "generic",
    commands: [],
    busy: [],
    waiting: [],
    prompt: true,
    resume: null,
    state: { write: [], protect: [] },
    reports: null,
  },
];

/** The preset names, for `--agent` and its error. */
export const AGENT_NAMES: readonly string[] = AGENT_PRESETS.map((p) => p.name);
