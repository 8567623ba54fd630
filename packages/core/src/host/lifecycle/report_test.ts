/**
 * How a command tells what hooks did: each warning with its hint, each failure as an error
 * record (a guard's ERR_HOOK_REFUSED with nothing changed, any other's ERR_HOOK_FAILED naming the
 * log and the retry command), and how many failed.
 */
import { describe, expect, it } from "vitest";
import type { ArielError } from "../../errors.ts";
import { reportHooks, retryHooksCommand } from "./report.ts";
import type { HookResult, RunHooksResult } from "./run_hooks.ts";

function log() {
  const warned: [string, string, Record<string, unknown>][] = [];
  const errors: ArielError[] = [];
  return {
    warned,
    errors,
    log: {
      warn: (code: string, message: string, context: Record<string, unknown> = {}) =>
        void warned.push([code, message, context]),
      error: (e: ArielError) => void errors.push(e),
    },
  };
}

const failure = (over: Partial<HookResult>): HookResult => ({
  event: "post-create",
  source: "api",
  origin: "workspace",
  file: "/ws/ariel.config.json",
  hook: "npm ci",
  status: "failed",
  exit: 1,
  signal: null,
  durationMs: 10,
  ...over,
});
const result = (failed: HookResult[], warnings: RunHooksResult["warnings"] = []): RunHooksResult => ({
  results: failed,
  failed,
  warnings,
  legs: new Map(),
  log: "/ws/.ariel/hooks/t1.log",
});

describe("reportHooks", () => {
  it("no hooks ran: nothing said, 0", () => {
    const l = log();
    expect(reportHooks(l.log, undefined, { task: "t1" })).toBe(0);
    expect(reportHooks(l.log, result([]), { task: "t1" })).toBe(0);
    expect([l.warned, l.errors]).toEqual([[], []]);
  });

  it("a warning: its code and message, its context with the hint", () => {
    const l = log();
    const w = {
      code: "WARN_HOOK_UNTRUSTED" as const,
      message: "skipped",
      hint: "approve",
      context: { file: "/f" },
    };
    reportHooks(l.log, result([], [w]), { task: "t1" });
    expect(l.warned).toEqual([["WARN_HOOK_UNTRUSTED", "skipped", { file: "/f", hint: "approve" }]]);
  });

  it("a post-create failure: ERR_HOOK_FAILED, the leg kept, the log and the retry command", () => {
    const l = log();
    expect(reportHooks(l.log, result([failure({})]), { task: "t1", root: "/ws" })).toBe(1);
    const [e] = l.errors;
    expect([e!.code, e!.exit, e!.message, e!.hint]).toEqual([
      "ERR_HOOK_FAILED",
      1,
      'api: post-create hook "npm ci" exited 1; the leg is kept (setup: failed)',
      "read /ws/.ariel/hooks/t1.log, fix the cause, then: ariel-worktree -C /ws hooks run --task t1 --event post-create",
    ]);
    expect(e!.context).toEqual({
      task: "t1",
      source: "api",
      event: "post-create",
      file: "/ws/ariel.config.json",
      status: "failed",
      hookExit: 1,
      log: "/ws/.ariel/hooks/t1.log",
    });
  });

  it.each(["pre-remove", "pre-land"] as const)(
    "a %s failure is a refusal: ERR_HOOK_REFUSED (3), nothing changed",
    (event) => {
      const l = log();
      reportHooks(l.log, result([failure({ event, status: "timeout", exit: 143 })]), { task: "t1" });
      const [e] = l.errors;
      expect([e!.code, e!.exit, e!.hint]).toEqual([
        "ERR_HOOK_REFUSED",
        3,
        "nothing was changed; read /ws/.ariel/hooks/t1.log and fix the cause, or pass --no-hooks to skip the hooks",
      ]);
      expect(e!.message).toBe(`api: ${event} hook "npm ci" timed out after 0.0 s`);
    },
  );

  it("post-land and post-restore failures are not refusals and keep nothing", () => {
    const l = log();
    const n = reportHooks(
      l.log,
      result([failure({ event: "post-land" }), failure({ event: "post-restore", source: "web" })]),
      { task: "t2" },
    );
    expect(n).toBe(2);
    expect(l.errors.map((e) => [e.code, e.message, e.hint])).toEqual([
      [
        "ERR_HOOK_FAILED",
        'api: post-land hook "npm ci" exited 1',
        "read /ws/.ariel/hooks/t1.log, fix the cause, then: ariel-worktree hooks run --task t2 --event post-land",
      ],
      [
        "ERR_HOOK_FAILED",
        'web: post-restore hook "npm ci" exited 1',
        "read /ws/.ariel/hooks/t1.log, fix the cause, then: ariel-worktree hooks run --task t2 --event post-restore",
      ],
    ]);
  });

  it("retryHooksCommand: with -C only when a root is given", () => {
    expect(retryHooksCommand("t1", "post-create")).toBe(
      "ariel-worktree hooks run --task t1 --event post-create",
    );
    expect(retryHooksCommand("t1", "pre-land", "/w")).toBe(
      "ariel-worktree -C /w hooks run --task t1 --event pre-land",
    );
    // a root the shell would split or expand is quoted: the line can be pasted as it is
    expect(retryHooksCommand("t1", "pre-land", "/home/me/my work$x")).toBe(
      "ariel-worktree -C '/home/me/my work$x' hooks run --task t1 --event pre-land",
    );
  });
});
