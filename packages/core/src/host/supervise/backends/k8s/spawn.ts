import { resolve } from "node:path";
import { loadConfig } from "../../../../config.ts";
import { ArielError } from "../../../../errors.ts";
import { type JobFacts, type JobManifest, type JobPlan, planJob } from "../../../../k8s/job.ts";
import { ANNOTATIONS } from "../../../../k8s/names.ts";
import { type K8sSettings, resolveK8sOptions } from "../../../../k8s/options.ts";
import { generateTaskId, quoteValue, slugify, validateBranchName } from "../../../../names.ts";
import type { Ports } from "../../../../ports.ts";
import type { RunView } from "../../../../runs/backend.ts";
import { runName } from "../../../../runs/plan.ts";
import type { RestartPolicy } from "../../../../runs/restart.ts";
import { makeRunId } from "../../../../spawn/run_id.ts";
import type { TargetSpec } from "../../../../spawn/targets.ts";
import { ensureStateDir, type Workspace } from "../../../../workspace.ts";
import { resolveSpawnTargets } from "../../../spawn/run.ts";
import { testPause } from "../../../test-hooks.ts";
import type { DetachIo } from "../../detach.ts";
import { clientFor, isUnreachable } from "./client.ts";
import { kubeconfigPath } from "./kubeconfig.ts";
import { jobNotCreatedError, k8sJobCreated, k8sJobRefused, recordPendingK8sRun } from "./record.ts";
import { sourceFacts } from "./source_facts.ts";
import { viewK8sRun } from "./view.ts";

/** `ariel-spawn --detach --backend k8s`: what to run, where, and how the Jobs are shaped. */
export interface K8sSpawnRequest {
  workspaceRoot?: string;
  targets: readonly TargetSpec[];
  argv: readonly string[];
  dryRun: boolean;
  taskId?: string;
  base?: string;
  branch?: string;
  name: string | null;
  restart: RestartPolicy;
  timeoutMs: number | null;
  graceMs: number;
  /** The k8s flags; config `k8s.*` fills what they leave out. */
  settings: K8sSettings;
}

/** One planned Job: the run it belongs to and its manifest. */
export interface PlannedJob {
  runId: string;
  name: string | null;
  source: string;
  /** The source's checkout on this machine (the run record's `cwd`). */
  cwd: string;
  job: JobManifest;
  /** What the Job was planned from (kept as `job.json`: a respawn plans from it again). */
  plan: JobPlan;
}

/**
 * Plan one Job per target: every target must be a checkout with a remote (ERR_NO_REMOTE, 3,
 * before anything is printed); the task id is `--task` or generated, the branch `ariel/<task>`.
 */
export async function planK8sJobs(
  ports: Ports,
  req: K8sSpawnRequest,
  io: DetachIo,
): Promise<{ ws: Workspace; planned: PlannedJob[]; kubeconfig: string | undefined }> {
  const { ws, targets } = await resolveSpawnTargets(ports, req, io);
  for (const t of targets) {
    if (!t.checkout) {
      throw new ArielError("ERR_NOT_A_CHECKOUT", `workspace root ${t.path} is not a git checkout`, {
        hint: "--backend k8s clones a source's remote; name sources with --source",
        context: { source: t.name, path: t.path },
      });
    }
  }
  const config = await loadConfig(ports.fs, ws.root);
  const options = resolveK8sOptions(req.settings, config.k8s);
  const task = req.taskId ?? generateTaskId(slugify(req.name ?? "run") || "run", ports.random);
  const branch = validateBranchName(req.branch ?? `ariel/${task}`);
  const facts = [];
  for (const t of targets) facts.push({ target: t, git: await sourceFacts(ports.git, t, req.base) });
  for (const f of facts) {
    if (!f.git.basePushed) {
      io.log.warn(
        "WARN_BASE_NOT_PUSHED",
        `base ${f.git.base.slice(0, 12)} of ${quoteValue(f.target.name)} is on no branch of ${f.git.remoteName} that this checkout knows: the pod may not find it`,
        { source: f.target.name, base: f.git.base },
      );
    }
  }
  const planned = facts.map(({ target, git }): PlannedJob => {
    const runId = makeRunId(ports.clock, ports.random);
    const name = runName(req.name, targets.length > 1, target.name);
    const facts: JobFacts = {
      runId,
      name,
      workspaceHash: ws.hash,
      task,
      source: target.name,
      remote: git.remote,
      base: git.base,
      branch,
      argv: req.argv,
      restart: req.restart,
      timeoutMs: req.timeoutMs,
      graceMs: req.graceMs,
    };
    const job = planJob(facts, options);
    return { runId, name, source: target.name, cwd: target.path, job, plan: { v: 1, facts, options } };
  });
  return { ws, planned, kubeconfig: req.settings.kubeconfig ?? config.k8s?.kubeconfig };
}

/**
 * What {@link startK8s} did: the Jobs it planned (a dry run stops there), or the views of the
 * runs whose Job it created and, when a Job could not be made, that error (the runs created
 * before it are real: `ariel-runs` shows and controls them, so the caller prints them first).
 */
export type K8sStartResult =
  | { kind: "plan"; planned: PlannedJob[] }
  | { kind: "started"; views: RunView[]; failure: unknown };

/**
 * ariel-spawn --detach --backend k8s: plan the Jobs and, with --dry-run, return them. Without
 * --dry-run: read the kubeconfig (before anything is written), create each Job, record it in
 * `run.json` (backend `k8s`, the Job's namespace, name and uid) and return the runs' views. The
 * caller prints them, through URL redaction.
 */
export async function startK8s(ports: Ports, req: K8sSpawnRequest, io: DetachIo): Promise<K8sStartResult> {
  const { ws, planned, kubeconfig } = await planK8sJobs(ports, req, io);
  if (req.dryRun) return { kind: "plan", planned };
  return createJobs(ports, req, ws, planned, kubeconfig);
}

/**
 * Create the planned Jobs one by one, each after its `run.json` (state `starting`, no uid yet);
 * a created Job's uid and `run.started` event follow. A Job the API refuses ends its run
 * `failed` (reason `job-not-created`) and the command with that error, after the runs already
 * created (returned with it).
 */
async function createJobs(
  ports: Ports,
  req: K8sSpawnRequest,
  ws: Workspace,
  planned: readonly PlannedJob[],
  given: string | undefined,
): Promise<K8sStartResult> {
  const file = resolve(ports.cwd, kubeconfigPath(given, ports.env));
  const client = await clientFor(file); // reads the kubeconfig: a bad one writes nothing
  await ensureStateDir(ports, ws.root);
  const createdAt = new Date(ports.clock.now()).toISOString();
  const group = makeRunId(ports.clock, ports.random);
  const started: string[] = [];
  let failure: unknown = null;
  for (const p of planned) {
    const annotations = p.job.metadata.annotations;
    // The record first: a crash before the Job's uid is recorded leaves a run that finds its Job
    // (or shows lost), never a Job that ariel does not know about.
    await recordPendingK8sRun(
      ws.root,
      {
        v: 1,
        type: "run",
        runId: p.runId,
        name: p.name,
        group,
        backend: "k8s",
        workspace: { root: ws.root, hash: ws.hash },
        source: p.source,
        cwd: p.cwd,
        task: annotations[ANNOTATIONS.task] ?? req.taskId ?? null,
        worktree: null,
        branch: annotations[ANNOTATIONS.branch] ?? null,
        argv: [...req.argv],
        createdAt,
        startedAt: null,
        endedAt: null,
        monitor: null,
        child: null,
        restart: { policy: req.restart.policy, max: req.restart.max, count: 0 },
        respawnOf: null,
        exit: null,
        timeoutMs: req.timeoutMs,
        graceMs: req.graceMs,
        onExit: null,
        interactive: false,
        isolate: null,
        kill: null,
        worktreeOutcome: null,
        k8s: { namespace: p.job.metadata.namespace, job: p.job.metadata.name, uid: "", kubeconfig: file },
      },
      p.plan,
    );
    await testPause("k8s:after-record");
    let uid: string;
    try {
      uid = String((await client.createJob(p.job)).metadata.uid ?? "");
    } catch (e) {
      // An answer (refused, invalid, forbidden): no Job was made, the run failed. No answer (the
      // API unreachable mid-request): the Job may exist, and the run's view will tell.
      failure = e;
      if (!isUnreachable(e)) {
        await k8sJobRefused(ws.root, p.runId, ports.clock.now());
        failure = jobNotCreatedError(e, p.runId);
      }
      break;
    }
    await testPause("k8s:after-create");
    await k8sJobCreated(ws.root, p.runId, uid, ports.clock.now());
    started.push(p.runId);
  }
  const views = [];
  for (const id of started) views.push(await viewK8sRun(ws.root, id));
  return { kind: "started", views, failure };
}
