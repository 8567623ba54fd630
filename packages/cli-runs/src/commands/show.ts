import { type AgentView, type RecordedSandbox, type RunView, redactText, taskCell } from "@ariel/core";
import {
  type ArgsDef,
  defineCommand,
  type KeptRef,
  type RunContext,
  readAgentSummary,
  readSandboxKept,
  runAttention,
  runRecordOut,
} from "@ariel/core/host";
import { COMMON_ARGS, oneRun, RUN_ARG } from "./_common.ts";

const args = { ...COMMON_ARGS, ...RUN_ARG } as const satisfies ArgsDef;

/**
 * `ariel-runs show RUN`: one run in full: its state and activity (who said so and why), and what
 * its agent reported (docs/runs.md, "What agents report"): session, turns, tool calls, last tool.
 */
export const showCommand = defineCommand({
  meta: {
    name: "show",
    description:
      "one run: its state, why it waits, and what its agent reported (session, turns, tool calls, last tool)",
    usage: "RUN [--json] [OPTIONS]",
    examples: [
      ["ariel-runs show agent-3", "why agent-3 waits, and what it did so far"],
      ["ariel-runs show --json agent-3 | jq .reported.lastTool", "the last tool it used"],
    ],
  },
  args,
  run,
});

async function run(ctx: RunContext<typeof args>): Promise<number> {
  const { ws, backend, runId } = await oneRun(ctx);
  const view = await backend.get(runId);
  const now = runAttention(ws.root, view, Date.now());
  const reported = agentOf(ws.root, view, now?.reported ?? null);
  const keptAside = view.record.sandbox ? readSandboxKept(ws.root, runId) : [];
  if (ctx.args.json) {
    ctx.out.record({
      ...runRecordOut(view),
      ...(now ? { activity: now.activity, attention: now.attention } : {}),
      reported,
      ...(view.record.sandbox ? { keptAside } : {}),
    });
    return 0;
  }
  ctx.out.write(render(view, now, reported, keptAside));
  return 0;
}

/** What the agent reported: its history's `agent.*` events folded, with the live report counts. */
function agentOf(root: string, view: RunView, live: AgentView | null): AgentView | null {
  const r = view.record.reports;
  const s = readAgentSummary(root, view.record.runId);
  if (!r && s.session === null && s.turns === 0 && s.tools === 0) return null;
  return {
    name: r?.agent ?? live?.name ?? "claude",
    via: r?.via ?? live?.via ?? "claude-hooks",
    session: s.session?.id ?? null,
    transcript: s.session?.transcript ?? null,
    turns: s.turns,
    tools: s.tools,
    toolCalls: s.toolCalls,
    lastTool: s.lastTool,
    lastNotice: s.lastNotice,
    ...(live?.reports ? { reports: live.reports } : {}),
  };
}

function render(
  view: RunView,
  now: ReturnType<typeof runAttention>,
  reported: AgentView | null,
  keptAside: readonly KeptRef[],
): string {
  const r = view.record;
  const rows: [string, string][] = [
    ["run", r.name ? `${r.runId} (${r.name})` : r.runId],
    ["state", stateLine(view, now)],
    ["command", r.argv.map(redactText).join(" ")],
    ["where", `${taskCell(r)} (${r.cwd})`],
    ["sandbox", sandboxLine(r.sandbox ?? null)],
    // What its sync could not move (WARN_SANDBOX_KEPT_REF): the run's work, to merge by hand.
    ...keptAside.map((k): [string, string] => [
      "kept aside",
      `${k.ref} as ${k.as} (${k.why}): git --git-dir ${k.common} log ${k.as}`,
    ]),
  ];
  // (a wired run always has an AgentView, with turns 0 until its agent says something)
  if (reported === null) rows.push(["agent", "does not report (its screen or output tells)"]);
  else {
    const counts = reported.reports
      ? `; reports: ${reported.reports.accepted} taken, ${reported.reports.refused} refused, ${reported.reports.malformed} not read, ${reported.reports.limited} over the rate`
      : "";
    rows.push(["agent", `${reported.name} (${reported.via})${counts}`]);
    rows.push(["session", reported.session ?? "-"]);
    rows.push(["turns", String(reported.turns)]);
    const calls = Object.entries(reported.toolCalls)
      .map(([n, c]) => `${n} ${c}`)
      .join(", ");
    rows.push(["tool calls", reported.tools === 0 ? "0" : `${reported.tools}: ${calls}`]);
    rows.push(["last tool", lastTool(reported.lastTool)]);
    if (reported.lastNotice)
      rows.push(["last notice", `${reported.lastNotice.kind}: ${reported.lastNotice.message}`]);
  }
  const width = Math.max(...rows.map(([k]) => k.length));
  return rows
    .map(([k, v]) => `${k.padEnd(width)}  ${v.replace(/[\x00-\x08\x0b-\x1f\x7f]/g, "?")}\n`)
    .join("");
}

/** A run's sandbox in one line: its network and what it may write (docs/sandbox.md); `none` without one. */
function sandboxLine(s: RecordedSandbox | null): string {
  if (s === null) return "none";
  const net = s.net === "none" ? "no network" : "network on";
  return `${net}; writes ${s.write.join(", ") || "nothing"}; hides ${s.hide.length} paths`;
}

function stateLine(view: RunView, now: ReturnType<typeof runAttention>): string {
  if (now === null) return view.exit ? `${view.state} (status ${view.exit.status})` : view.state;
  const why = now.attention.reason ? `: ${now.attention.reason}` : "";
  const since = now.attention.since ? ` since ${now.attention.since}` : "";
  return `${view.state}, ${now.activity}${since}${why} (by ${now.attention.by})`;
}

function lastTool(t: AgentView["lastTool"]): string {
  if (t === null) return "-";
  const how = t.phase === "start" ? "running" : t.ok === false ? "failed" : "done";
  return `${t.name} (${how}, ${t.ts})`;
}
