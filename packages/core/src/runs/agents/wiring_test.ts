import { describe, expect, it } from "vitest";
import { agentPreset } from "../attention/classify.ts";
import { planWiring, posixCommand, runReports, wiringConflict } from "./wiring.ts";

const REPORTER = ["/usr/bin/node", "/opt/ariel it's/dist/ariel-report.cjs"];
const RUN_DIR = "/w/.ariel/runs/20261202T110943Z-abc123";

describe("planWiring", () => {
  it("claude-hooks: a settings file of the run's own, passed first with --settings; every hook in the background", () => {
    const plan = planWiring("claude-hooks", {
      argv: ["claude", "--model", "opus"],
      reporter: REPORTER,
      runDir: RUN_DIR,
    });
    if ("skip" in plan) throw new Error(plan.skip);
    const path = `${RUN_DIR}/claude-settings.json`;
    expect(plan.argv).toEqual(["claude", "--settings", path, "--model", "opus"]);
    expect(plan.env).toEqual({});
    expect(plan.files.map((f) => f.path)).toEqual([path]);
    const settings = JSON.parse(plan.files[0]!.text);
    const handler = {
      type: "command",
      command: "/usr/bin/node '/opt/ariel it'\\''s/dist/ariel-report.cjs' claude",
      async: true,
      timeout: 10,
    };
    expect(Object.keys(settings.hooks)).toEqual([
      "SessionStart",
      "UserPromptSubmit",
      "PreToolUse",
      "PermissionRequest",
      "PostToolUse",
      "PostToolUseFailure",
      "Notification",
      "Stop",
      "StopFailure",
      "SessionEnd",
    ]);
    for (const groups of Object.values(settings.hooks)) expect(groups).toEqual([{ hooks: [handler] }]);
  });

  it("codex-notify: -c notify=[…] as a TOML array right after the command (before a subcommand)", () => {
    const plan = planWiring("codex-notify", {
      argv: ["codex", "resume", "abc"],
      reporter: REPORTER,
      runDir: RUN_DIR,
    });
    expect(plan).toEqual({
      argv: [
        "codex",
        "-c",
        'notify=["/usr/bin/node", "/opt/ariel it\'s/dist/ariel-report.cjs", "codex"]',
        "resume",
        "abc",
      ],
      env: {},
      files: [],
    });
  });

  it("gemini-hooks: the machine's system defaults with ariel's hooks appended, pointed at by the environment", () => {
    const existing = JSON.stringify({
      ui: { theme: "corp" },
      hooks: { BeforeTool: [{ matcher: "x", hooks: [{ type: "command", command: "audit" }] }] },
    });
    const plan = planWiring("gemini-hooks", {
      argv: ["gemini"],
      reporter: ["/usr/bin/node", "/opt/r.cjs"],
      runDir: RUN_DIR,
      geminiDefaults: { path: "/etc/gemini-cli/system-defaults.json", text: existing },
    });
    if ("skip" in plan) throw new Error(plan.skip);
    const path = `${RUN_DIR}/gemini-defaults.json`;
    expect(plan.argv).toEqual(["gemini"]);
    expect(plan.env).toEqual({ GEMINI_CLI_SYSTEM_DEFAULTS_PATH: path });
    const defaults = JSON.parse(plan.files[0]!.text);
    const ours = {
      hooks: [
        { name: "ariel-report", type: "command", command: "/usr/bin/node /opt/r.cjs gemini", timeout: 10000 },
      ],
    };
    expect(defaults.ui).toEqual({ theme: "corp" });
    expect(defaults.hooks.BeforeTool).toEqual([
      { matcher: "x", hooks: [{ type: "command", command: "audit" }] },
      ours,
    ]);
    expect(Object.keys(defaults.hooks).sort()).toEqual([
      "AfterAgent",
      "AfterTool",
      "BeforeAgent",
      "BeforeTool",
      "Notification",
      "SessionEnd",
      "SessionStart",
    ]);
    expect(defaults.hooks.SessionStart).toEqual([ours]);
  });

  it("gemini-hooks: system defaults that are not a JSON object are left alone, not wired", () => {
    for (const text of ["{ // a comment\n}", "[1]", "null", "5"]) {
      expect(
        planWiring("gemini-hooks", {
          argv: ["gemini"],
          reporter: REPORTER,
          runDir: RUN_DIR,
          geminiDefaults: { path: "/etc/d.json", text },
        }),
      ).toEqual({
        skip: "Gemini CLI's system defaults (/etc/d.json) are not a JSON object ariel can extend",
      });
    }
  });
});

describe("planWiring gemini-hooks: what the defaults file starts from", () => {
  const ours = [
    {
      hooks: [
        { name: "ariel-report", type: "command", command: "/usr/bin/node /opt/r.cjs gemini", timeout: 10000 },
      ],
    },
  ];
  const events = [
    "SessionStart",
    "BeforeAgent",
    "AfterAgent",
    "BeforeTool",
    "AfterTool",
    "Notification",
    "SessionEnd",
  ];
  const only = Object.fromEntries(events.map((e) => [e, ours]));
  it.each<[string, { path: string; text: string | null } | undefined, Record<string, unknown>]>([
    ["no defaults asked for", undefined, { hooks: only }],
    ["no defaults on the machine", { path: "/etc/d.json", text: null }, { hooks: only }],
    ["an empty defaults file", { path: "/etc/d.json", text: "" }, { hooks: only }],
    [
      "defaults with hooks of other events: kept as they are",
      { path: "/etc/d.json", text: JSON.stringify({ hooks: { PreCompress: [{ hooks: [] }] } }) },
      { hooks: { PreCompress: [{ hooks: [] }], ...only } },
    ],
  ])("%s", (_name, geminiDefaults, want) => {
    const plan = planWiring("gemini-hooks", {
      argv: ["gemini", "-p", "x"],
      reporter: ["/usr/bin/node", "/opt/r.cjs"],
      runDir: RUN_DIR,
      ...(geminiDefaults ? { geminiDefaults } : {}),
    });
    expect(plan).toEqual({
      argv: ["gemini", "-p", "x"],
      env: { GEMINI_CLI_SYSTEM_DEFAULTS_PATH: `${RUN_DIR}/gemini-defaults.json` },
      files: [{ path: `${RUN_DIR}/gemini-defaults.json`, text: `${JSON.stringify(want, null, 2)}\n` }],
    });
  });
});

describe("wiringConflict", () => {
  it.each([
    ["claude-hooks", ["claude", "--settings", "mine.json"], "the command gives its own --settings"],
    ["claude-hooks", ["claude", "--settings={}"], "the command gives its own --settings"],
    ["claude-hooks", ["claude", "-p", "use --settings wisely"], null],
    ["codex-notify", ["codex", "-c", 'notify=["x"]'], "the command sets its own notify"],
    ["codex-notify", ["codex", "--config", "notify = []"], "the command sets its own notify"],
    ["codex-notify", ["codex", '-cnotify=["x"]'], "the command sets its own notify"],
    ["codex-notify", ["codex", "--config=notify=[]"], "the command sets its own notify"],
    ["codex-notify", ["codex", "-c", "model=o3", "notify=me"], null],
    ["gemini-hooks", ["gemini", "--settings", "x"], null],
    ["claude-hooks", ["claude", "-c", "notify=1"], null],
    ["codex-notify", ["codex", "say -cnotify=1"], null],
    ["codex-notify", ["codex", "-c", "model_notify=x"], null],
    ["codex-notify", ["codex", "-c", " notify=[]"], "the command sets its own notify"],
  ] as const)("%s %j: %s", (via, argv, want) => {
    expect(wiringConflict(via, argv)).toBe(want);
    if (want !== null)
      expect(planWiring(via, { argv, reporter: REPORTER, runDir: RUN_DIR })).toEqual({ skip: want });
  });
});

describe("posixCommand", () => {
  it("leaves plain words bare and single-quotes the rest, a quote as '\\''", () => {
    expect(posixCommand(["/usr/bin/node", "/a b/$x`y`", "it's", ""])).toBe(
      "/usr/bin/node '/a b/$x`y`' 'it'\\''s' ''",
    );
  });
});

describe("runReports", () => {
  it.each([
    ["claude", ["/usr/local/bin/claude", "-p", "fix"], { agent: "claude", via: "claude-hooks" }],
    ["claude", ["claude-code"], { agent: "claude", via: "claude-hooks" }],
    ["codex", ["codex", "--full-auto"], { agent: "codex", via: "codex-notify" }],
    ["gemini", ["gemini"], { agent: "gemini", via: "gemini-hooks" }],
    // --agent only says how to read the screen: the wiring goes into the agent's own argv
    ["claude", ["node", "fake-agent.mjs"], null],
    ["claude", ["claude", "--settings", "mine.json"], null],
    ["aider", ["aider"], null],
    ["generic", ["bash"], null],
  ] as const)("%s %j: %j", (preset, argv, want) => {
    expect(runReports(agentPreset(preset), argv)).toEqual(want);
  });
});
