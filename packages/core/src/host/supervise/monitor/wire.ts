/**
 * One start of a run's child as its monitor makes it (docs/runs.md, "What agents report"): its
 * attention (a tty run's, a wired run's), and for a run whose record says its agent reports, the
 * wiring applied: the files of the plan written in the run's directory (0600), the argv it
 * gives, and the environment with where to report and a fresh secret. Every start gets a new
 * secret, so a report made with an earlier one (a restart, a respawn's old run) is refused.
 */
import { readFileSync, writeFileSync } from "node:fs";
import { GEMINI_DEFAULTS_ENV, planWiring, type WiringInput } from "../../../runs/agents/wiring.ts";
import { agentPreset } from "../../../runs/attention/classify.ts";
import { runPaths } from "../../../runs/paths.ts";
import type { PlannedRun } from "../../../runs/plan.ts";
import type { RunRecord } from "../../../runs/record.ts";
import { runNotify } from "../notify.ts";
import { REPORT_ENV } from "../protocol.ts";
import { reporterCommand } from "../reporter_command.ts";
import { RunAttention } from "../run_attention.ts";
import { type Active, emit, log, type Monitor } from "./context.ts";
import { newReportState } from "./report.ts";

/** What one start of a child is launched with. */
export interface ChildStart {
  argv: string[];
  env: Record<string, string>;
  /** The files of the wiring it reads (a sandbox shows them read-only inside). */
  files: string[];
}

/**
 * The argv and environment of this start of `rec`'s child; sets `a.attention` and `a.report`.
 * A wiring that cannot be made (a file not written, Gemini's defaults unreadable) is said in
 * monitor.log and the run starts unwired: its screen tells, as before reports existed.
 */
export function startOf(m: Monitor, a: Active, rec: PlannedRun): ChildStart {
  const env = { ...a.env };
  for (const k of Object.values(REPORT_ENV)) delete env[k];
  a.report = null;
  a.attention = null;
  const wired = rec.reports ? wire(m, a, rec, env) : null;
  if (wired === null && rec.tty) a.attention = attentionOf(m, a, rec, null);
  return wired ?? { argv: [...rec.argv], env, files: [] };
}

function wire(m: Monitor, a: Active, rec: PlannedRun, env: Record<string, string>): ChildStart | null {
  const reports = rec.reports!;
  let plan: ReturnType<typeof planWiring>;
  try {
    // Inside the try: Gemini's defaults that cannot be read (EACCES, a directory) leave the run unwired too.
    const input: WiringInput = {
      argv: rec.argv,
      reporter: reporterCommand(),
      runDir: runPaths(m.root, rec.runId).dir,
      ...(reports.via === "gemini-hooks" ? { geminiDefaults: geminiDefaults(env) } : {}),
    };
    plan = planWiring(reports.via, input);
    if ("skip" in plan) throw new Error(plan.skip);
    for (const f of plan.files) writeFileSync(f.path, f.text, { mode: 0o600 });
  } catch (e) {
    log(`run ${rec.runId}: ${reports.agent}'s reports not wired: ${(e as Error).message}`);
    return null;
  }
  const attention = attentionOf(m, a, rec, reports);
  const { state, token } = newReportState(reports.agent, rec.source, attention);
  a.attention = attention;
  a.report = state;
  const own = { [REPORT_ENV.socket]: m.socket, [REPORT_ENV.run]: rec.runId, [REPORT_ENV.token]: token };
  return { argv: plan.argv, env: { ...env, ...plan.env, ...own }, files: plan.files.map((f) => f.path) };
}

/** Gemini CLI's system defaults as they are (read, never written): the path the child would use. */
function geminiDefaults(env: Record<string, string>): { path: string; text: string | null } {
  const path =
    env[GEMINI_DEFAULTS_ENV] ??
    (process.platform === "darwin"
      ? "/Library/Application Support/GeminiCli/system-defaults.json"
      : "/etc/gemini-cli/system-defaults.json");
  try {
    return { path, text: readFileSync(path, "utf8") };
  } catch (e) {
    if ((e as NodeJS.ErrnoException).code === "ENOENT") return { path, text: null };
    throw e;
  }
}

/** The run's attention, whose moves are `run.attention` events (and `--notify` on `waiting`). */
function attentionOf(m: Monitor, a: Active, rec: PlannedRun, reports: PlannedRun["reports"]): RunAttention {
  const covers = reports ? (agentPreset(reports.agent).reports?.covers ?? null) : null;
  const att = new RunAttention(
    m.root,
    rec.runId,
    covers,
    reports ? { name: reports.agent, via: reports.via } : null,
  );
  att.onMove((from, to, reason, by) => {
    const told = emit(m, rec.runId, "run.attention", rec.source, { from, to, reason, by });
    // A move a report made as the child ended is in the history before `run.finished`.
    a.moves = a.moves.then(() => told);
    void told.then(() =>
      to === "waiting" && rec.notify
        ? runNotify(m.root, rec as RunRecord, a.env, { event: "waiting" })
        : undefined,
    );
  });
  return att;
}
