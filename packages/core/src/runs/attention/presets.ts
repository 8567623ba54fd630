/**
 * Agent presets: how to read an agent's screen (docs/runs.md, Attention). Data only: patterns
 * are regular-expression sources matched (case-insensitive, multi-line) against the bottom of
 * the rendered screen; each preset is tested against recorded screens in `fixtures/`.
 */

/** Where a preset's resume words go in the argv of `ariel-runs respawn --resume`. */
export interface ResumeForm {
  args: string[];
  /** `end`: after the last argument (`claude … --continue`); `after-command`: right after argv[0] (`codex resume --last …`). */
  at: "end" | "after-command";
}

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
}

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
    resume: { args: ["--continue"], at: "end" },
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
    resume: { args: ["resume", "--last"], at: "after-command" },
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
  },
  {
    ...BASE,
    name: "aider",
    commands: ["aider"],
    busy: ["[░█▒▓]+\\s+waiting for\\b", "waiting for (the )?(llm|model)"],
    waiting: ["\\(y\\)es/\\(n\\)o", "\\[yes\\]:\\s*$", "\\(d\\)on't ask again"],
    resume: { args: ["--restore-chat-history"], at: "end" },
  },
  {
    ...BASE,
    name: "generic",
    commands: [],
    busy: [],
    waiting: [],
    prompt: true,
    resume: null,
  },
];

/** The preset names, for `--agent` and its error. */
export const AGENT_NAMES: readonly string[] = AGENT_PRESETS.map((p) => p.name);
