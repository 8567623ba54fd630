import { readdirSync, readFileSync } from "node:fs";
import { describe, expect, it } from "vitest";
import { isArielError } from "../../errors.ts";
import { type Activity, agentPreset, classify, presetFor, resumeArgv, screenTail } from "./classify.ts";
import { AGENT_NAMES, AGENT_PRESETS } from "./presets.ts";

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

    it(`generic (timing only) reads ${file} as idle once still`, () => {
      const generic = agentPreset("generic");
      const lines = screen(file);
      expect(classify(generic, { lines, quietMs: generic.idleMs, previous: "busy" })).toEqual({
        activity: "idle",
        reason: "quiet",
      });
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
    expect(isArielError(err) && err.code === "ERR_USAGE" && err.message).toBe('--agent: no preset "nope"');
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
