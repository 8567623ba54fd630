import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { emptyAgentSummary } from "../../runs/agents/summary.ts";
import { runPaths } from "../../runs/paths.ts";
import { readAgentSummary } from "./agent_history.ts";
import { readSandboxKept } from "./sandbox_history.ts";

const RUN = "20261202T110943Z-k3x9a2";
let root: string;
beforeEach(() => {
  root = mkdtempSync(join(tmpdir(), "ariel-agent-history-"));
});
afterEach(() => rmSync(root, { recursive: true, force: true }));

function history(...lines: (string | Record<string, unknown>)[]): void {
  const file = runPaths(root, RUN).history;
  mkdirSync(dirname(file), { recursive: true });
  writeFileSync(file, lines.map((l) => (typeof l === "string" ? l : JSON.stringify(l))).join("\n"));
}

const ev = (event: string, rest: Record<string, unknown> = {}, ts = "2026-12-02T11:00:00.000Z") => ({
  type: "event",
  event,
  ts,
  ...rest,
});

describe("readAgentSummary", () => {
  it("is the empty summary when the run has no history", () => {
    expect(readAgentSummary(root, RUN)).toEqual(emptyAgentSummary());
  });

  it("folds the session, turns, tool calls and the last notice", () => {
    history(
      ev("run.started"),
      ev("agent.session", { id: "abc123", transcript: "/t/abc.jsonl" }),
      ev("agent.turn", { phase: "start" }),
      ev("agent.tool", { name: "Bash", phase: "start" }, "2026-12-02T11:00:01.000Z"),
      ev("agent.tool", { name: "Bash", phase: "end", ok: true }, "2026-12-02T11:00:02.000Z"),
      ev("agent.tool", { name: "Edit", phase: "start" }, "2026-12-02T11:00:03.000Z"),
      ev("agent.tool", { name: "Bash", phase: "start" }, "2026-12-02T11:00:04.000Z"),
      ev("agent.tool", { name: "Bash", phase: "end", ok: false }, "2026-12-02T11:00:05.000Z"),
      ev("agent.turn", { phase: "end" }),
      ev("agent.notice", { kind: "permission", message: "may I?" }, "2026-12-02T11:00:06.000Z"),
      ev("run.finished", { code: 0 }),
    );
    expect(readAgentSummary(root, RUN)).toEqual({
      session: { id: "abc123", transcript: "/t/abc.jsonl" },
      turns: 1,
      turnStarts: 1,
      turnEnds: 1,
      tools: 3,
      toolCalls: { Bash: 2, Edit: 1 },
      lastTool: { name: "Bash", phase: "end", ok: false, ts: "2026-12-02T11:00:05.000Z" },
      lastNotice: { kind: "permission", message: "may I?", ts: "2026-12-02T11:00:06.000Z" },
    });
  });

  it("a session without a transcript, and a later session replacing it", () => {
    history(ev("agent.session", { id: "one", transcript: "/t/1" }), ev("agent.session", { id: "two" }));
    expect(readAgentSummary(root, RUN).session).toEqual({ id: "two", transcript: null });
  });

  it("a tool end without ok says ok null; only ends (Codex) count as turns", () => {
    history(
      ev("agent.tool", { name: "shell", phase: "end" }),
      ev("agent.turn", { phase: "end" }),
      ev("agent.turn", { phase: "end" }),
    );
    const s = readAgentSummary(root, RUN);
    expect(s.lastTool).toEqual({ name: "shell", phase: "end", ok: null, ts: "2026-12-02T11:00:00.000Z" });
    expect(s.tools).toBe(0);
    expect(s.toolCalls).toEqual({});
    expect([s.turns, s.turnStarts, s.turnEnds]).toEqual([2, 0, 2]);
  });

  it("a notice with missing fields reads as empty strings", () => {
    history(ev("agent.notice", { kind: 7 }));
    expect(readAgentSummary(root, RUN).lastNotice).toEqual({
      kind: "",
      message: "",
      ts: "2026-12-02T11:00:00.000Z",
    });
  });

  it("passes over records that are not agent events or have fields of the wrong type", () => {
    history(
      "{torn",
      '{"type":"event","event":"agent.turn"',
      { ...ev("agent.turn", { phase: "start" }), type: "output" },
      { type: "event", event: "agent.turn", phase: "start" }, // no ts
      { type: "event", event: "agent.turn", phase: "start", ts: 5 },
      ev("agent.other", { phase: "start" }),
      { type: "event", event: 3, ts: "x", note: '"agent.' },
      ev("agent.session", {}), // no id
      ev("agent.session", { id: 42 }),
      ev("agent.turn", { phase: "middle" }),
      ev("agent.turn", {}),
      ev("agent.tool", { phase: "start" }), // no name
      ev("agent.tool", { name: "Bash", phase: "begin" }),
      ev("agent.tool", { name: 9, phase: "start" }),
      ev("run.attention", { agent: "x", phase: "start" }),
    );
    expect(readAgentSummary(root, RUN)).toEqual(emptyAgentSummary());
  });

  it("a tool's ok is kept only when it is a boolean", () => {
    history(ev("agent.tool", { name: "Read", phase: "end", ok: "yes" }));
    expect(readAgentSummary(root, RUN).lastTool?.ok).toBeNull();
    history(ev("agent.tool", { name: "Read", phase: "end", ok: true }));
    expect(readAgentSummary(root, RUN).lastTool?.ok).toBe(true);
  });

  it("reads a torn last line as what the history holds before it", () => {
    history(ev("agent.turn", { phase: "start" }), '{"type":"event","event":"agent.turn","phase":"st');
    expect(readAgentSummary(root, RUN).turnStarts).toBe(1);
  });
});

describe("readSandboxKept", () => {
  const synced = (repos: unknown) => ({ type: "event", event: "sandbox.synced", ts: "t", repos });

  it("is empty without a history or without syncs", () => {
    expect(readSandboxKept(root, RUN)).toEqual([]);
    history(ev("run.started"), ev("run.finished"));
    expect(readSandboxKept(root, RUN)).toEqual([]);
  });

  it("names every ref a sync kept aside, from every sync and repository, in order", () => {
    history(
      synced([
        {
          common: "/w/a/.git",
          kept: [
            { ref: "refs/heads/main", as: "refs/ariel/kept/r1/main", why: "moved" },
            { ref: "refs/stash", as: "refs/ariel/kept/r1/stash", why: "stash" },
          ],
        },
        { common: "/w/b/.git", kept: [] },
        { common: "/w/c/.git" },
      ]),
      ev("run.finished"),
      synced([
        { common: "/w/b/.git", kept: [{ ref: "refs/heads/x", as: "refs/ariel/kept/r1/x", why: "refused" }] },
      ]),
    );
    expect(readSandboxKept(root, RUN)).toEqual([
      { ref: "refs/heads/main", as: "refs/ariel/kept/r1/main", why: "moved", common: "/w/a/.git" },
      { ref: "refs/heads/x", as: "refs/ariel/kept/r1/x", why: "refused", common: "/w/b/.git" },
    ]);
  });

  it("passes over torn lines, records without repos and entries with fields of the wrong type", () => {
    history(
      '{"type":"event","event":"sandbox.synced","repos":[',
      { type: "event", event: "sandbox.synced", ts: "t" },
      synced([
        { common: 5, kept: [{ ref: "refs/heads/a", as: "k/a", why: "moved" }] },
        {
          common: "/w/a/.git",
          kept: [
            { ref: 1, as: "k/b", why: "moved" },
            { ref: "refs/heads/c", as: null, why: "moved" },
            { ref: "refs/heads/d", as: "k/d" },
            { ref: "refs/heads/e", as: "k/e", why: "moved" },
          ],
        },
      ]),
    );
    expect(readSandboxKept(root, RUN)).toEqual([
      { ref: "refs/heads/e", as: "k/e", why: "moved", common: "/w/a/.git" },
    ]);
  });
});
