/**
 * What ariel-spawn prints of what the host did: plans as tables or `plan` records, started runs
 * as run rows or `run` records (the helper ariel-runs prints with), and the closing lines on
 * stderr. The host returns data; the format is decided here.
 */
import { planRecord, redactText, runArg, runSummaryLine, type SpawnUnit, toYamlDocuments } from "@ariel/core";
import {
  type DetachResult,
  type IsolatedTask,
  type K8sStartResult,
  type Output,
  type PlannedDetach,
  type PlannedJob,
  printLifecyclePlan,
  type Reporter,
  renderRows,
  type SpawnResult,
  startExit,
  writeRuns,
} from "@ariel/core/host";

/** Where ariel-spawn prints: stdout (data), the reporter (messages), and whether stdout is a terminal. */
export interface RenderIo {
  out: Output;
  log: Reporter;
  tty: boolean;
}

/** A foreground run's plan: a `plan` record per unit (naming its task), or a table. */
export function printPlan(io: RenderIo, json: boolean, units: readonly SpawnUnit[]): void {
  if (json) {
    for (const u of units) io.out.record(planRecord(u, u.env.ARIEL_TASK ?? null));
    return;
  }
  const rows = units.map((u) => [
    u.source ?? u.sources.join(","),
    u.cwd,
    u.branch ?? "-",
    u.argv.map(redactText).join(" "),
  ]);
  io.out.write(renderRows(["SOURCE", "CWD", "BRANCH", "COMMAND"], rows, io.tty));
  printSandboxes(io, units);
}

/**
 * Under a plan's table: each sandboxed unit's sandbox, from the unit the run would start with
 * (what it may write, what it hides, its network; docs/sandbox.md).
 */
function printSandboxes(io: RenderIo, units: readonly SpawnUnit[]): void {
  for (const u of units) {
    const s = u.sandbox;
    if (!s) continue;
    const lines = [`sandbox of ${u.source ?? u.sources.join(",")}: network ${s.net}`];
    for (const p of s.write) lines.push(`  write ${p}`);
    for (const p of s.hide) lines.push(`  hide  ${p}`);
    io.out.write(`${lines.join("\n")}\n`);
  }
}

/** After an --isolate plan: the ports its new tasks would lease and the hooks they would run. */
export function printTasksLifecycle(io: RenderIo, json: boolean, tasks: readonly IsolatedTask[]): void {
  printLifecyclePlan(
    io,
    json,
    tasks.map((t) => ({ task: t.taskId, plan: t.lifecycle })),
  );
}

/** A dry run's generated task ids are new on every run: how to make the real run match the plan. */
export function generatedNote(taskIds: readonly string[]): string {
  if (taskIds.length === 1) {
    return `task id ${taskIds[0]} was generated for this plan; add --task ${taskIds[0]} to run (or plan) exactly this`;
  }
  return `task ids ${taskIds.join(", ")} were generated for this plan; add --task NAME to pin them (NAME-<source> each)`;
}

/**
 * The end of a foreground run that ran: its closing line on stderr (none for a quiet success),
 * and its exit status; 0 without a word once stdout's reader has gone (`| head`).
 */
export function reportRan(
  io: Pick<RenderIo, "out" | "log">,
  r: Extract<SpawnResult, { kind: "ran" }>,
): number {
  if (io.out.closed) return 0;
  const line = runSummaryLine(r.summary);
  if (line !== null) io.log.info(line);
  return r.exit;
}

/** The runs a detached dry run would start: a `plan` record each (`run.start`), or a table. */
export function printDetachPlan(io: RenderIo, json: boolean, planned: readonly PlannedDetach[]): void {
  if (json) {
    for (const p of planned) {
      io.out.record({
        ...planRecord(p.unit, p.run.task),
        action: "run.start",
        runId: p.run.runId,
        name: p.run.name,
      });
    }
    return;
  }
  const rows = planned.map(({ run: r }) => [
    r.runId,
    r.name ?? "-",
    r.source ?? "-",
    r.cwd,
    r.argv.join(" "),
  ]);
  io.out.write(renderRows(["RUN", "NAME", "SOURCE", "CWD", "COMMAND"], rows, io.tty));
  printSandboxes(
    io,
    planned.map((p) => p.unit),
  );
}

/**
 * The runs a detached start made: one `run` record or row each, then a warning per run that did
 * not start and one line naming them with the command that shows why. Returns the exit status.
 */
export function reportStarted(
  io: RenderIo,
  json: boolean,
  r: Extract<DetachResult, { kind: "started" }>,
): number {
  writeRuns(io.out, r.views, { json, tty: io.tty });
  const failed = r.results.flatMap((f) => (f.ok ? [] : [f]));
  const first = failed[0];
  if (first === undefined) return 0;
  for (const f of failed)
    io.log.warn("WARN_RUN_NOT_STARTED", `run ${f.runId} did not start: ${f.message}`, {
      runId: f.runId,
      code: f.code,
    });
  const runOf = (runId: string) => r.planned.find((p) => p.run.runId === runId)?.run;
  const sourceOf = (runId: string) => runOf(runId)?.source ?? runId;
  const what = failed.map((f) => `${sourceOf(f.runId)} (exit ${f.status})`).join(", ");
  // Just started: its name (if it has one) means it.
  const arg = runArg({ runId: first.runId, name: runOf(first.runId)?.name ?? null });
  io.log.info(
    `${failed.length} of ${r.results.length} did not start: ${what}; why: ariel-runs logs ${arg} --stream stderr`,
  );
  return startExit(r.results);
}

/** Everything ariel-spawn prints of a k8s run goes through URL redaction. */
function redacting(out: Output): { write(text: string): void } {
  return { write: (text) => out.write(redactText(text)) };
}

/** The Jobs of a k8s dry run: YAML documents (`-o yaml`), `plan` records (`--json`), or a table. */
export function printK8sPlan(
  io: RenderIo,
  format: "table" | "json" | "yaml",
  planned: readonly PlannedJob[],
) {
  const out = redacting(io.out);
  if (format === "yaml") {
    out.write(toYamlDocuments(planned.map((p) => p.job)));
    return;
  }
  if (format === "json") {
    for (const p of planned) {
      const { runId, name, source, job } = p;
      const rec = { v: 1, type: "plan", action: "k8s.job.create", runId, name, source };
      out.write(`${JSON.stringify({ ...rec, namespace: job.metadata.namespace, job })}\n`);
    }
    return;
  }
  const rows = planned.map((p) => [
    p.runId,
    p.name ?? "-",
    p.source,
    p.job.metadata.namespace,
    p.job.metadata.name,
    (p.job.metadata.annotations["ariel.dev/base"] ?? "").slice(0, 12),
  ]);
  out.write(renderRows(["RUN", "NAME", "SOURCE", "NAMESPACE", "JOB", "BASE"], rows, io.tty));
}

/**
 * The runs whose Job was created, as every run row (ariel-runs list; the Job is the record's
 * `k8s` with --json); then the error of a Job that could not be made, if one could not.
 */
export function reportK8sStarted(
  io: RenderIo,
  json: boolean,
  r: Extract<K8sStartResult, { kind: "started" }>,
) {
  writeRuns(redacting(io.out), r.views, { json, tty: io.tty });
  if (r.failure !== null) throw r.failure;
  return 0;
}
