import { readFileSync } from "node:fs";
import { AjvJsonSchemaValidator } from "@modelcontextprotocol/sdk/validation/ajv";
import { describe, expect, it } from "vitest";
import { answer, boundedText, TEXT_CAP, toolList } from "./server.ts";
import { MAX_WAIT_SECONDS, offeredTools, TOOLS } from "./tools.ts";

const tool = (name: string) => {
  const t = TOOLS.find((x) => x.name === name);
  if (!t) throw new Error(name);
  return t;
};

describe("tools: the CLI call each input makes", () => {
  it.each([
    ["list_sources", {}, "discover", ["--json"]],
    ["list_sources", { status: true }, "discover", ["--json", "--status"]],
    [
      "create_task",
      { sources: ["api", "web"], task: "t1", base: "main" },
      "worktree",
      ["add", "--json", "--source=api", "--source=web", "--task=t1", "--base=main"],
    ],
    ["task_status", {}, "worktree", ["list", "--json", "--no-bytes"]],
    [
      "task_status",
      { task: "t1", all: true },
      "worktree",
      ["list", "--json", "--no-bytes", "--task=t1", "--all"],
    ],
    ["task_diff", { task: "t1" }, "worktree", ["diff", "--json", "--task=t1"]],
    ["remove_task", { task: "t1" }, "worktree", ["remove", "--json", "--task=t1"]],
    [
      "remove_task",
      { task: "t1", snapshot: true },
      "worktree",
      ["remove", "--json", "--task=t1", "--snapshot"],
    ],
    [
      "start_run",
      { command: ["claude", "-p", "--fix"], sources: ["api"] },
      "spawn",
      ["--detach", "--json", "--source=api", "--isolate", "--", "claude", "-p", "--fix"],
    ],
    [
      "start_run",
      { command: ["make"], isolate: false, name: "build", tty: true, agent: "claude" },
      "spawn",
      ["--detach", "--json", "--name=build", "--tty", "--agent=claude", "--", "make"],
    ],
    [
      "start_run",
      { command: ["claude"], sandbox: true, sandbox_net: "none" },
      "spawn",
      ["--detach", "--json", "--isolate", "--sandbox", "--sandbox-net=none", "--", "claude"],
    ],
    [
      "start_run",
      { command: ["make"], sandbox: false },
      "spawn",
      ["--detach", "--json", "--isolate", "--no-sandbox", "--", "make"],
    ],
    [
      "list_runs",
      { all: true, state: ["running", "lost"] },
      "runs",
      ["list", "--json", "--all", "--state=running,lost"],
    ],
    ["run_output", { run: "r1", from: 42 }, "runs", ["logs", "--json", "--from=42", "r1"]],
    ["run_screen", { run: "r1" }, "runs", ["screen", "--json", "r1"]],
    [
      "send_input",
      { run: "r1", text: "yes", enter: true },
      "runs",
      ["send", "--json", "--enter", "--text=yes", "r1"],
    ],
    ["wait_run", { runs: ["a", "b"] }, "runs", ["wait", "--json", "--timeout=60s", "a", "b"]],
    ["wait_run", { runs: ["a"], timeoutSeconds: 5 }, "runs", ["wait", "--json", "--timeout=5s", "a"]],
    ["kill_run", { run: "r1", grace: "2s" }, "runs", ["kill", "--json", "--grace=2s", "r1"]],
    [
      "land_task",
      { task: "t1", into: "main", strategy: "squash", remove: true },
      "worktree",
      ["land", "--json", "--task=t1", "--into=main", "--strategy=squash", "--remove"],
    ],
    [
      "create_task",
      { sources: ["api"], branch: "feat/x", dryRun: true },
      "worktree",
      ["add", "--json", "--source=api", "--branch=feat/x", "--dry-run"],
    ],
    ["task_diff", { task: "t1", patch: true }, "worktree", ["diff", "--json", "--task=t1", "--patch"]],
    ["remove_task", { task: "t1", dryRun: true }, "worktree", ["remove", "--json", "--task=t1", "--dry-run"]],
    // span is one process over the task's worktrees: isolated even when isolate is false
    [
      "start_run",
      { command: ["x"], isolate: false, span: true, task: "t1", base: "dev", timeout: "10m" },
      "spawn",
      ["--detach", "--json", "--isolate", "--span", "--task=t1", "--base=dev", "--timeout=10m", "--", "x"],
    ],
    [
      "list_runs",
      { all: false, state: [], source: "api", task: "t1" },
      "runs",
      ["list", "--json", "--source=api", "--task=t1"],
    ],
    [
      "run_output",
      { run: "r1", tail: 5, stream: "stderr" },
      "runs",
      ["logs", "--json", "--tail=5", "--stream=stderr", "r1"],
    ],
    ["send_input", { run: "r1", text: "" }, "runs", ["send", "--json", "--text=", "r1"]],
    ["kill_run", { run: "r1", signal: "INT" }, "runs", ["kill", "--json", "--signal=INT", "r1"]],
    ["land_task", { task: "t1", dryRun: true }, "worktree", ["land", "--json", "--task=t1", "--dry-run"]],
  ] as const)("%s %j", (name, input, cli, args) => {
    expect(tool(name).argv(input as Record<string, unknown>)).toEqual({ cli, args });
  });

  it("wait_run's bound covers its wait; other tools have the default", () => {
    expect(tool("wait_run").boundMs({ runs: ["a"], timeoutSeconds: MAX_WAIT_SECONDS })).toBe(615_000);
    expect(tool("kill_run").boundMs({ run: "a" })).toBe(120_000);
  });

  it("land_task is offered only with --allow-land", () => {
    expect(offeredTools(false).some((t) => t.name === "land_task")).toBe(false);
    expect(
      offeredTools(true)
        .map((t) => t.name)
        .at(-1),
    ).toBe("land_task");
    expect(toolList(true).find((t) => t.name === "land_task")?.annotations).toEqual({
      readOnlyHint: false,
      destructiveHint: false,
      openWorldHint: false,
    });
  });
});

describe("the published tools", () => {
  it("tools/list with --allow-land is docs/schema/mcp-tools.json (npm run schema writes it)", () => {
    const stored = JSON.parse(
      readFileSync(new URL("../../../docs/schema/mcp-tools.json", import.meta.url), "utf8"),
    );
    expect(toolList(true)).toEqual(stored.tools);
  });

  it.each([
    ["task", "create_task", { sources: ["api"], task: "fix-1.b_2" }, true],
    ["task", "create_task", { sources: ["api"], task: "-rf" }, false],
    ["task", "create_task", { sources: ["api"], task: "../x" }, false],
    ["task", "create_task", { sources: ["api"], task: "a".repeat(129) }, false],
    ["source", "create_task", { sources: ["."] }, true],
    ["source", "create_task", { sources: ["svc/api"] }, true],
    ["source", "create_task", { sources: ["../outside"] }, false],
    ["source", "create_task", { sources: ["/etc"] }, false],
    ["source", "create_task", { sources: ["a//b"] }, false],
    ["an unknown field", "create_task", { sources: ["api"], force: true }, false],
    ["a required field", "create_task", {}, false],
    ["run", "run_screen", { run: "--all" }, false],
    ["ref", "create_task", { sources: ["api"], base: "origin/main@{1}" }, true],
    ["ref", "create_task", { sources: ["api"], base: "-x" }, false],
    ["duration", "kill_run", { run: "r1", grace: "1h" }, true],
    ["duration", "kill_run", { run: "r1", grace: "soon" }, false],
    ["signal", "kill_run", { run: "r1", signal: "SIGKILL" }, true],
    ["signal", "kill_run", { run: "r1", signal: "kill" }, false],
    ["state", "list_runs", { state: ["crashed", "waiting"] }, true],
    ["state", "list_runs", { state: ["zombie"] }, false],
    ["wait", "wait_run", { runs: ["a"], timeoutSeconds: MAX_WAIT_SECONDS + 1 }, false],
  ] as const)("the schema of %s: %s %j valid=%s", (_, name, input, valid) => {
    const check = new AjvJsonSchemaValidator().getValidator(tool(name).inputSchema);
    expect(check(input).valid).toBe(valid);
  });
});

describe("answers", () => {
  const base = { records: [{ v: 1, type: "x" }], messages: [], truncated: false };

  it.each([
    ["exit 0 is a result", "kill_run", { ...base, exit: 0 }, undefined],
    [
      "an error record is a tool error",
      "remove_task",
      { ...base, exit: 3, error: { code: "ERR_DIRTY", exit: 3 } },
      true,
    ],
    ["a failure without a record is a tool error", "list_sources", { ...base, exit: 1 }, true],
    ["wait's status is its answer", "wait_run", { ...base, exit: 7 }, undefined],
    [
      "wait's timeout record is a tool error",
      "wait_run",
      { ...base, exit: 124, error: { code: "ERR_WAIT_TIMEOUT" } },
      true,
    ],
    ["a stopped call is a tool error", "kill_run", { ...base, exit: 143, stopped: "timeout" as const }, true],
  ])("%s", (_, name, result, isError) => {
    expect(answer(tool(name), result).isError).toBe(isError);
  });

  it.each([
    [
      "timeout",
      {
        code: "ERR_TOOL_TIMEOUT",
        message: "kill_run ran past its bound and was stopped",
        hint: "the work may go on: check with task_status or list_runs",
        exit: 75,
      },
    ],
    [
      "cancelled",
      { code: "ERR_CANCELLED", message: "kill_run was cancelled", hint: "nothing more was done", exit: 75 },
    ],
  ] as const)("a call stopped (%s) is a tool error that says so", (stopped, error) => {
    const r = answer(tool("kill_run"), { ...base, exit: 143, stopped });
    expect(r).toEqual({
      isError: true,
      content: [{ type: "text", text: `${error.code}: ${error.message}\nhint: ${error.hint}\nexit: 75` }],
      structuredContent: { records: base.records, truncated: false, exit: 143, error },
    });
  });

  it("a failure without an error record: the last message is the error's, else the tool failed", () => {
    const messages = Array.from({ length: 25 }, (_, i) => `line ${i + 1}`);
    const r = answer(tool("list_sources"), { ...base, messages, exit: 1 });
    const last20 = messages.slice(5);
    expect(r.structuredContent).toEqual({
      records: base.records,
      truncated: false,
      exit: 1,
      messages: last20,
      error: { code: "ERR_FAILED", message: "line 25", hint: "see the records for what failed", exit: 1 },
    });
    const bare = answer(tool("list_sources"), { ...base, exit: 2 });
    expect((bare.structuredContent as { error: unknown }).error).toEqual({
      code: "ERR_FAILED",
      message: "list_sources failed",
      hint: "see the records for what failed",
      exit: 2,
    });
  });

  it("an error record without a hint has no hint line", () => {
    const r = answer(tool("remove_task"), {
      ...base,
      exit: 2,
      error: { code: "ERR_X", message: "m", exit: 2 },
    });
    expect(r.content).toEqual([{ type: "text", text: "ERR_X: m\nexit: 2" }]);
  });

  it("records that fill the text cap exactly are all shown; one more is counted, not shown", () => {
    // each line 1024 characters, newline included: 64 fill TEXT_CAP
    const rec = (i: number) => ({
      v: 1,
      seq: i,
      d: "x".repeat(1024 - 1 - JSON.stringify({ v: 1, seq: i, d: "" }).length),
    });
    const fit = Array.from({ length: TEXT_CAP / 1024 }, (_, i) => rec(i + 10));
    expect(boundedText(fit, false)).toBe(fit.map((r) => `${JSON.stringify(r)}\n`).join(""));
    const more = [...fit, rec(99), rec(98), rec(97)];
    expect(boundedText(more, false)).toBe(
      `${fit.map((r) => `${JSON.stringify(r)}\n`).join("")}… 3 more records in structuredContent\n`,
    );
  });

  it("the text keeps to its cap and says what it left out", () => {
    const big = Array.from({ length: 5000 }, (_, i) => ({
      v: 1,
      type: "output",
      seq: i,
      data: "x".repeat(40),
    }));
    const text = boundedText(big, true);
    expect(text.length).toBeLessThanOrEqual(TEXT_CAP + 200);
    expect(text).toMatch(/… \d+ more records in structuredContent\n… output cut at the cap/);
    expect(boundedText([], false)).toBe("(no records)\n");
  });
});
