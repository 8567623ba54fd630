import { loadConfig } from "../../config.ts";
import { ArielError } from "../../errors.ts";
import { redactText } from "../../fingerprint.ts";
import { type JobManifest, planJob } from "../../k8s/job.ts";
import { type K8sSettings, resolveK8sOptions } from "../../k8s/options.ts";
import { toYamlDocuments } from "../../k8s/yaml.ts";
import { generateTaskId, quoteValue, slugify, validateBranchName } from "../../names.ts";
import type { Ports } from "../../ports.ts";
import { runName } from "../../runs/plan.ts";
import type { RestartPolicy } from "../../runs/restart.ts";
import { makeRunId } from "../../spawn/run_id.ts";
import type { TargetSpec } from "../../spawn/targets.ts";
import { resolveSpawnTargets, type SpawnIo } from "../spawn/run.ts";
import { renderRows } from "../table.ts";
import { sourceFacts } from "./source_facts.ts";

/** `ariel-spawn --detach --backend k8s`: what to run, where, and how the Jobs are shaped. */
export interface K8sSpawnRequest {
  workspaceRoot?: string;
  targets: readonly TargetSpec[];
  argv: readonly string[];
  /** NDJSON plan records (`--json`) or YAML documents (`-o yaml`) with --dry-run. */
  format: "table" | "json" | "yaml";
  dryRun: boolean;
  detailedExitcode: boolean;
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
  job: JobManifest;
}

/**
 * Plan one Job per target: every target must be a checkout with a remote (ERR_NO_REMOTE, 3,
 * before anything is printed); the task id is `--task` or generated, the branch `ariel/<task>`.
 */
export async function planK8sJobs(ports: Ports, req: K8sSpawnRequest, io: SpawnIo): Promise<PlannedJob[]> {
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
  return facts.map(({ target, git }) => {
    const runId = makeRunId(ports.clock, ports.random);
    const name = runName(req.name, targets.length > 1, target.name);
    const job = planJob(
      {
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
      },
      options,
    );
    return { runId, name, source: target.name, job };
  });
}

/**
 * ariel-spawn --detach --backend k8s: plan the Jobs and, with --dry-run, print them (YAML
 * documents, NDJSON plan records, or a table). Everything printed goes through URL redaction.
 * Creating the Jobs on a cluster is not available yet: ERR_BACKEND_UNAVAILABLE (69), after the
 * same checks as a dry run.
 */
export async function startK8s(ports: Ports, req: K8sSpawnRequest, io: SpawnIo): Promise<number> {
  const planned = await planK8sJobs(ports, req, io);
  if (!req.dryRun) {
    throw new ArielError(
      "ERR_BACKEND_UNAVAILABLE",
      "the k8s backend plans Jobs but cannot create them yet (docs/kubernetes.md)",
    );
  }
  if (req.format === "yaml") io.out.write(redactText(toYamlDocuments(planned.map((p) => p.job))));
  else if (req.format === "json") {
    for (const p of planned) {
      io.out.write(
        `${redactText(JSON.stringify({ v: 1, type: "plan", action: "k8s.job.create", runId: p.runId, name: p.name, source: p.source, namespace: p.job.metadata.namespace, job: p.job }))}\n`,
      );
    }
  } else {
    io.out.write(
      redactText(
        renderRows(
          ["RUN", "NAME", "SOURCE", "NAMESPACE", "JOB", "BASE"],
          planned.map((p) => [
            p.runId,
            p.name ?? "-",
            p.source,
            p.job.metadata.namespace,
            p.job.metadata.name,
            (p.job.metadata.annotations["ariel.dev/base"] ?? "").slice(0, 12),
          ]),
          io.tty,
        ),
      ),
    );
  }
  return req.detailedExitcode && planned.length > 0 ? 2 : 0;
}
