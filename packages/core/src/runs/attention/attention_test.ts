import { readdirSync, readFileSync } from "node:fs";
import { describe, expect, it } from "vitest";
import { type Activity, agentPreset, classify, presetFor, resumeArgv, screenTail } from "./classify.ts";
import { AGENT_NAMES, AGENT_PRESETS } from "./presets.ts";
import { askingPrompt, type Cursor } from "./prompt.ts";

const FIXTURES = new URL("./fixtures/", import.meta.url);
const SCREEN_STATE: Record<string, Activity> = { busy: "busy", asking: "waiting", idle: "idle" };

/** A recorded screen: its lines, padded to a 24-row terminal as the monitor would see it. */
function screen(file: string): string[] {
  const lines = readFileSync(new URL(file, FIXTURES), "utf8").replace(/\n$/, "").split("\n");
  while (lines.length < 24) lines.push("");
  return lines;
}

describe("agent presets on recorded screens", () => {
  const files = readdirSync(FIXTURES).filter((f) => f.endsWith(".txt"));

  it("has a busy, an asking and an idle screen for every preset but generic", () => {
    const named = AGENT_NAMES.filter((n) => n !== "generic");
    expect(files.sort()).toEqual(
      named.flatMap((n) => ["asking", "busy", "idle"].map((s) => `${n}_${s}.txt`)).sort(),
    );
  });

  for (const file of readdirSync(FIXTURES).filter((f) => f.endsWith(".txt"))) {
    const [agent, kind] = file.replace(/\.txt$/, "").split("_") as [string, string];
    it(`${agent} reads ${file} as ${SCREEN_STATE[kind]} once the screen is still`, () => {
      const preset = agentPreset(agent);
      const still = { lines: screen(file), quietMs: preset.idleMs + 1, previous: "busy" as Activity };
      expect(classify(preset, still).activity).toBe(SCREEN_STATE[kind]);
      // between settling and the idle time, a question is already `waiting`, a busy legend still `busy`
      const settled = { ...still, quietMs: preset.settleMs };
      const early = kind === "idle" ? "busy" : SCREEN_STATE[kind];
      expect(classify(preset, settled).activity).toBe(early);
    });

    it(`generic reads ${file} by its timing and the generic rule`, () => {
      const generic = agentPreset("generic");
      const lines = screen(file);
      // Without a cursor only a numbered choice with a selection mark asks: the three agents
      // that draw their question so read waiting; the rest idle once still.
      const menu = ["claude_asking.txt", "codex_asking.txt", "gemini_asking.txt"].includes(file);
      expect(classify(generic, { lines, quietMs: generic.idleMs, previous: "busy" })).toEqual(
        menu ? { activity: "waiting", reason: "prompt: choice" } : { activity: "idle", reason: "quiet" },
      );
    });
  }
});

describe("classify: timing", () => {
  const generic = agentPreset("generic");
  const lines = ["$ make", "building…"];

  it("is busy while the screen changes, idle after the idle time, and holds in between (no flapping)", () => {
    expect(classify(generic, { lines, quietMs: 0, previous: "idle" })).toEqual({
      activity: "busy",
      reason: "output",
    });
    expect(classify(generic, { lines, quietMs: generic.settleMs - 1, previous: "busy" }).activity).toBe(
      "busy",
    );
    expect(classify(generic, { lines, quietMs: generic.settleMs + 1, previous: "busy" }).activity).toBe(
      "busy",
    );
    expect(classify(generic, { lines, quietMs: generic.idleMs - 1, previous: "idle" }).activity).toBe("idle");
    expect(classify(generic, { lines, quietMs: generic.idleMs, previous: "busy" })).toEqual({
      activity: "idle",
      reason: "quiet",
    });
  });

  it("a spinner's legend keeps a run busy however still the rest is", () => {
    const claude = agentPreset("claude");
    const v = classify(claude, {
      lines: ["✻ Thinking… (esc to interrupt)"],
      quietMs: 60_000,
      previous: "idle",
    });
    expect(v).toEqual({ activity: "busy", reason: "pattern: esc to interrupt" });
  });

  it("looks only at the bottom of the screen: a question scrolled above the tail no longer counts", () => {
    const claude = agentPreset("claude");
    const old = ["Do you want to proceed?", ...Array.from({ length: claude.tail }, (_, i) => `line ${i}`)];
    expect(classify(claude, { lines: old, quietMs: claude.idleMs, previous: "busy" }).activity).toBe("idle");
    expect(screenTail(["a", "b ", "", ""], 1)).toBe("b");
  });
});

describe("classify: why", () => {
  const claude = agentPreset("claude");
  it.each<[string, string[], number, Activity, { activity: Activity; reason: string }]>([
    [
      "a question once the screen settled",
      ["Do you want to proceed?"],
      claude.settleMs,
      "busy",
      {
        activity: "waiting",
        reason: "pattern: do you want to (proceed|make this edit|create|run|allow|use)",
      },
    ],
    [
      "still busy between settling and the idle time",
      ["done"],
      claude.settleMs,
      "busy",
      { activity: "busy", reason: "output" },
    ],
    [
      "still idle between settling and the idle time",
      ["done"],
      claude.settleMs,
      "idle",
      { activity: "idle", reason: "quiet" },
    ],
    [
      "still waiting between settling and the idle time",
      ["done"],
      claude.settleMs,
      "waiting",
      { activity: "waiting", reason: "quiet" },
    ],
  ])("%s", (_name, lines, quietMs, previous, want) => {
    expect(classify(claude, { lines, quietMs, previous })).toEqual(want);
  });

  it.each([
    [["a", "b"], 2, "a\nb"],
    [["a", "  ", ""], 5, "a"],
    [["a  ", "b\t", " "], 1, "b"],
    [["", " "], 3, ""],
  ])("screenTail(%j, %i) = %j", (lines, tail, want) => {
    expect(screenTail(lines, tail)).toBe(want);
  });
});

describe("presetFor, resumeArgv", () => {
  it("chooses by --agent, else argv[0]'s basename, else generic", () => {
    expect(presetFor(null, ["/opt/bin/claude", "-p"]).name).toBe("claude");
    expect(presetFor(undefined, ["codex"]).name).toBe("codex");
    expect(presetFor("aider", ["python", "-m", "aider"]).name).toBe("aider");
    expect(presetFor(null, ["node", "agent.js"]).name).toBe("generic");
    let err: unknown;
    try {
      presetFor("nope", ["x"]);
    } catch (e) {
      err = e;
    }
    expect(err).toMatchObject({
      code: "ERR_USAGE",
      message: '--agent: no preset "nope"',
      hint: "one of claude, codex, gemini, aider, generic",
    });
  });

  it("puts the resume form where the agent takes it, once", () => {
    expect(resumeArgv(agentPreset("claude"), ["claude", "--model", "opus"])).toEqual([
      "claude",
      "--model",
      "opus",
      "--continue",
    ]);
    expect(resumeArgv(agentPreset("claude"), ["claude", "--continue"])).toEqual(["claude", "--continue"]);
    expect(resumeArgv(agentPreset("codex"), ["codex", "--full-auto"])).toEqual([
      "codex",
      "resume",
      "--last",
      "--full-auto",
    ]);
    expect(resumeArgv(agentPreset("codex"), ["codex", "resume", "--last"])).toEqual([
      "codex",
      "resume",
      "--last",
    ]);
    expect(resumeArgv(agentPreset("generic"), ["bash"])).toBeNull();
  });

  it.each([
    ["claude", ["claude", "--model", "opus"], "s-1", ["claude", "--model", "opus", "--resume", "s-1"]],
    ["claude", ["claude", "--continue"], "s-1", ["claude", "--resume", "s-1"]],
    ["claude", ["claude", "--resume", "s-0"], "s-1", ["claude", "--resume", "s-1"]],
    ["claude", ["claude", "--resume", "s-0"], null, ["claude", "--continue"]],
    ["codex", ["codex", "--full-auto"], "7f9f", ["codex", "resume", "7f9f", "--full-auto"]],
    [
      "codex",
      ["codex", "resume", "--last", "--full-auto"],
      "7f9f",
      ["codex", "resume", "7f9f", "--full-auto"],
    ],
    ["codex", ["codex", "resume", "0ld"], "7f9f", ["codex", "resume", "7f9f"]],
    [
      "claude",
      ["claude", "--model", "opus", "--continue"],
      null,
      ["claude", "--model", "opus", "--continue"],
    ],
    ["claude", ["claude", "-p", "--resume", "s-0"], "s-1", ["claude", "-p", "--resume", "s-1"]],
    // the agent's own picker (`codex resume`, `claude --resume`) is a resume form too
    ["codex", ["codex", "resume"], null, ["codex", "resume", "--last"]],
    ["codex", ["codex", "resume", "--full-auto"], "7f9f", ["codex", "resume", "7f9f", "--full-auto"]],
    ["claude", ["claude", "--model", "opus", "--resume"], null, ["claude", "--model", "opus", "--continue"]],
    ["claude", ["claude", "--resume"], "s-1", ["claude", "--resume", "s-1"]],
    // what stands in the id's place is the session asked for (an id or a name), replaced whole
    ["codex", ["codex", "resume", "my thread"], null, ["codex", "resume", "--last"]],
    [
      "codex",
      ["codex", "resume", "my thread", "--full-auto"],
      "7f9f",
      ["codex", "resume", "7f9f", "--full-auto"],
    ],
    ["claude", ["claude", "-p", "--resume", "my thread"], "s-1", ["claude", "-p", "--resume", "s-1"]],
    ["claude", ["claude", "--model", "opus"], null, ["claude", "--model", "opus", "--continue"]],
    // argv[0] is the command, never a resume form
    ["claude", ["--continue"], null, ["--continue", "--continue"]],
    // a reported id that could be read as a flag or split by a shell is never put into argv
    ["claude", ["claude"], "--dangerously-skip-permissions", ["claude", "--continue"]],
    ["claude", ["claude"], "a b", ["claude", "--continue"]],
    ["aider", ["aider"], "s-1", ["aider", "--restore-chat-history"]],
    ["gemini", ["gemini"], "s-1", null],
  ] as const)("%s %j resumed by session %j: %j", (agent, argv, session, want) => {
    expect(resumeArgv(agentPreset(agent), argv, session)).toEqual(want);
  });

  it("every preset's patterns compile and its timing is sane", () => {
    for (const p of AGENT_PRESETS) {
      for (const re of [...p.busy, ...p.waiting]) expect(() => new RegExp(re, "imu")).not.toThrow();
      expect(p.settleMs).toBeLessThan(p.idleMs);
    }
  });
});

/** A screen recorded with `ariel-runs screen --json` from a real program on a `--tty` run. */
interface RecordedScreen {
  recorded: string;
  command: string;
  cols: number;
  rows: number;
  cursor: Cursor;
  lines: string[];
}

const PROMPTS = new URL("./fixtures/prompts/", import.meta.url);

function recorded(file: string): RecordedScreen {
  return JSON.parse(readFileSync(new URL(file, PROMPTS), "utf8")) as RecordedScreen;
}

describe("the generic rule of a program that asks, on recorded screens", () => {
  const files = readdirSync(PROMPTS).filter((f) => f.endsWith(".json"));
  /** What each recorded screen asks (null: it asks nothing); every file is named here. */
  const ASKS: Record<string, string | null> = {
    "asking_bash_select.json": "question",
    "asking_git_add_p.json": "yes/no",
    "asking_npm_init.json": "input",
    "asking_numbered_menu.json": "choice",
    "asking_python_input.json": "question",
    "asking_rm_i.json": "question",
    "asking_ssh_keygen.json": "input",
    "asking_yes_no.json": "yes/no",
    "not_bash_prompt.json": null,
    "not_bash_typing.json": null,
    "not_cat_stdin.json": null,
    "not_fish_prompt.json": null,
    "not_ipython_like.json": null,
    "not_less.json": null,
    "not_less_end.json": null,
    "not_less_paged.json": null,
    "not_node_repl.json": null,
    "not_python_repl.json": null,
    "not_question_printed.json": null,
    "not_zsh_prompt.json": null,
  };

  it("names every recorded screen, asking_* ones asking and not_* ones not", () => {
    expect(files.sort()).toEqual(Object.keys(ASKS).sort());
    for (const [file, kind] of Object.entries(ASKS)) expect(file.startsWith("asking_")).toBe(kind !== null);
  });

  for (const file of files) {
    const want = ASKS[file] ?? null;
    it(`${file}: ${want ?? "asks nothing"}`, () => {
      const s = recorded(file);
      expect(s.lines).toHaveLength(s.rows);
      expect(askingPrompt(s.lines, s.cursor)).toBe(want);
      const generic = agentPreset("generic");
      const still = {
        lines: s.lines,
        cursor: s.cursor,
        quietMs: generic.settleMs,
        previous: "busy" as Activity,
      };
      // Still for the settle time: a question is waiting at once; nothing asked stays busy until idle.
      expect(classify(generic, still)).toEqual(
        want === null
          ? { activity: "busy", reason: "output" }
          : { activity: "waiting", reason: `prompt: ${want}` },
      );
      expect(classify(generic, { ...still, quietMs: generic.idleMs }).activity).toBe(
        want === null ? "idle" : "waiting",
      );
      // While the screen still changes, nothing is waiting yet.
      expect(classify(generic, { ...still, quietMs: 0 }).activity).toBe("busy");
    });
  }

  it("a preset with patterns of its own does not use the generic rule", () => {
    const s = recorded("asking_yes_no.json");
    const claude = agentPreset("claude");
    expect(
      classify(claude, { lines: s.lines, cursor: s.cursor, quietMs: claude.idleMs, previous: "busy" }),
    ).toEqual({
      activity: "idle",
      reason: "quiet",
    });
  });

  it.each<[string, string[], Cursor | undefined, string | null]>([
    ["the cursor elsewhere than the question's end", ["Proceed? [y/N]"], { x: 3, y: 0 }, null],
    ["an answer being typed after it", ["Proceed? [y/N] y"], { x: 16, y: 0 }, null],
    ["the question not on the last line", ["Proceed? [y/N]", "working…"], { x: 15, y: 0 }, null],
    ["no cursor known: only a menu is seen", ["Proceed? [y/N]"], undefined, null],
    [
      "yes/no in parentheses, with a fingerprint",
      ["continue connecting (yes/no/[fingerprint])?"],
      { x: 45, y: 0 },
      "yes/no",
    ],
    ["a password", ["[sudo] password for me:"], { x: 24, y: 0 }, "input"],
    ["a colon after nothing that asks", ["Building:"], { x: 10, y: 0 }, null],
    ["a debugger's prompt", ["(Pdb) why?"], { x: 10, y: 0 }, null],
    ["a numbered list with every line marked (a quote)", ["> 1. one", "> 2. two"], undefined, null],
    ["a numbered list with no mark", ["1. one", "2. two"], undefined, null],
    ["one marked option alone is no choice", ["❯ 1. one"], undefined, null],
  ])("askingPrompt: %s", (_name, lines, cursor, want) => {
    expect(askingPrompt(lines, cursor)).toBe(want);
  });
});
