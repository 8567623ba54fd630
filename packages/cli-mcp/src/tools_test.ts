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
