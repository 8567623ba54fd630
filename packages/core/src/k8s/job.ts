/**
 * Planning a run's `batch/v1` Job (docs/kubernetes.md): pure, from the run's facts and the
 * backend's options, so `--dry-run` prints exactly what a real start would create.
 *
 * @example
 * ```ts
 * planJob(facts, options).spec.backoffLimit; // 0 for --restart no
 * ```
 */
import { ANNOTATIONS, jobName, LABELS, labelValue } from "./names.ts";
import {
  BUNDLE_DIR,
  CLONE_SCRIPT,
  CREDENTIALS_DIR,
  OVERLAY_DIR,
  RUN_SCRIPT,
  SRC_DIR,
  WORK_DIR,
} from "./scripts.ts";

/** CPU and memory quantities (`500m`, `2`, `1Gi`). */
export interface ResourceList {
  cpu?: string;
  memory?: string;
}

/** How the backend shapes every Job (flags and config `k8s.*`). */
export interface K8sOptions {
  namespace: string;
  image: string;
  serviceAccount: string | null;
  /** A Secret with `git-credentials` and/or `ssh-privatekey` (+ `known_hosts`), mounted read-only. */
  credentialsSecret: string | null;
  /** The overlay files: each key of the Secret or ConfigMap becomes a file at the top of the checkout. */
  overlay: { kind: "Secret" | "ConfigMap"; name: string } | null;
  /** Where the work goes at exit: pushed to the remote, or a bundle on a PersistentVolumeClaim. */
  save: { kind: "push" } | { kind: "bundle"; claim: string };
  ttlSecondsAfterFinished: number;
  requests: ResourceList;
  limits: ResourceList;
}

/** The facts of one planned run (the record's fields plus what git said about the source). */
export interface JobFacts {
  runId: string;
  name: string | null;
  workspaceHash: string;
  task: string;
  source: string;
  /** The remote's URL, already redacted: credentials only ever come from the Secret. */
  remote: string;
  /** The base commit's full id. */
  base: string;
  branch: string;
  argv: readonly string[];
  restart: { policy: "no" | "on-failure"; max: number };
  timeoutMs: number | null;
  graceMs: number;
}

/** A Job manifest as plain data (what the API server takes and `-o yaml` prints). */
export interface JobManifest {
  apiVersion: "batch/v1";
  kind: "Job";
  metadata: {
    name: string;
    namespace: string;
    labels: Record<string, string>;
    annotations: Record<string, string>;
  };
  spec: {
    backoffLimit: number;
    activeDeadlineSeconds?: number;
    ttlSecondsAfterFinished: number;
    /** The pod template: plain JSON, validated against the OpenAPI schema in the tests. */
    template: Record<string, unknown>;
  };
}

/** The labels of a run's Job and of its pods (selectable: `-l ariel.dev/run=<id>`). */
export function jobLabels(f: Pick<JobFacts, "workspaceHash" | "task" | "runId">): Record<string, string> {
  return {
    [LABELS.managedBy]: "ariel",
    [LABELS.workspace]: f.workspaceHash,
    [LABELS.task]: labelValue(f.task),
    [LABELS.run]: f.runId,
  };
}

function resources(o: K8sOptions): { requests?: ResourceList; limits?: ResourceList } | undefined {
  const r: { requests?: ResourceList; limits?: ResourceList } = {};
  if (Object.keys(o.requests).length > 0) r.requests = { ...o.requests };
  if (Object.keys(o.limits).length > 0) r.limits = { ...o.limits };
  return Object.keys(r).length > 0 ? r : undefined;
}

/**
 * The Job of one run. `--restart on-failure:N` → `backoffLimit: N` (`no` → 0), `--timeout` →
 * `activeDeadlineSeconds` (rounded up), `--grace` → the pod's `terminationGracePeriodSeconds`.
 */
export function planJob(f: JobFacts, o: K8sOptions): JobManifest {
  const labels = jobLabels(f);
  const env = [
    { name: "HOME", value: `${WORK_DIR}/home` },
    { name: "ARIEL_WORKSPACE_ROOT", value: WORK_DIR },
    { name: "ARIEL_WORKSPACE_HASH", value: f.workspaceHash },
    { name: "ARIEL_SOURCE", value: f.source },
    { name: "ARIEL_TASK", value: f.task },
    { name: "ARIEL_WORKTREE", value: SRC_DIR },
    { name: "ARIEL_BRANCH", value: f.branch },
    { name: "ARIEL_RUN_ID", value: f.runId },
  ];
  const mounts = [{ name: "work", mountPath: WORK_DIR }];
  const volumes: Record<string, unknown>[] = [{ name: "work", emptyDir: {} }];
  if (o.credentialsSecret !== null) {
    mounts.push({
      name: "credentials",
      mountPath: CREDENTIALS_DIR,
      readOnly: true,
    } as (typeof mounts)[number]);
    volumes.push({ name: "credentials", secret: { secretName: o.credentialsSecret, defaultMode: 0o400 } });
  }
  const cloneMounts = [...mounts];
  if (o.overlay !== null) {
    cloneMounts.push({ name: "overlay", mountPath: OVERLAY_DIR, readOnly: true } as (typeof mounts)[number]);
    volumes.push(
      o.overlay.kind === "Secret"
        ? { name: "overlay", secret: { secretName: o.overlay.name, defaultMode: 0o400 } }
        : { name: "overlay", configMap: { name: o.overlay.name } },
    );
  }
  const runMounts = [...mounts];
  if (o.save.kind === "bundle") {
    runMounts.push({ name: "bundle", mountPath: BUNDLE_DIR });
    volumes.push({ name: "bundle", persistentVolumeClaim: { claimName: o.save.claim } });
  }
  const res = resources(o);
  return {
    apiVersion: "batch/v1",
    kind: "Job",
    metadata: {
      name: jobName(f.runId),
      namespace: o.namespace,
      labels,
      annotations: {
        [ANNOTATIONS.task]: f.task,
        ...(f.name !== null ? { [ANNOTATIONS.name]: f.name } : {}),
        [ANNOTATIONS.source]: f.source,
        [ANNOTATIONS.remote]: f.remote,
        [ANNOTATIONS.base]: f.base,
        [ANNOTATIONS.branch]: f.branch,
      },
    },
    spec: {
      backoffLimit: f.restart.policy === "no" ? 0 : f.restart.max,
      ...(f.timeoutMs !== null ? { activeDeadlineSeconds: Math.max(1, Math.ceil(f.timeoutMs / 1000)) } : {}),
      ttlSecondsAfterFinished: o.ttlSecondsAfterFinished,
      template: {
        metadata: { labels },
        spec: {
          restartPolicy: "Never",
          ...(o.serviceAccount !== null ? { serviceAccountName: o.serviceAccount } : {}),
          automountServiceAccountToken: o.serviceAccount !== null,
          terminationGracePeriodSeconds: Math.ceil(f.graceMs / 1000),
          initContainers: [
            {
              name: "clone",
              image: o.image,
              command: ["sh", "-c", CLONE_SCRIPT],
              env: [
                ...env,
                { name: "ARIEL_K8S_REMOTE", value: f.remote },
                { name: "ARIEL_K8S_BASE", value: f.base },
              ],
              volumeMounts: cloneMounts,
            },
          ],
          containers: [
            {
              name: "run",
              image: o.image,
              command: ["sh", "-c", RUN_SCRIPT, "ariel-run", ...f.argv],
              workingDir: SRC_DIR,
              env: [...env, { name: "ARIEL_K8S_SAVE", value: o.save.kind }],
              volumeMounts: runMounts,
              ...(res ? { resources: res } : {}),
            },
          ],
          volumes,
        },
      },
    },
  };
}

/**
 * What a k8s run keeps beside its `run.json` (`job.json`): the facts and options its Job was
 * planned from, so `ariel-runs respawn` plans the new Job from the same plan under a new run id.
 * Nothing in it is a secret: the remote is redacted, Secrets are named, never read.
 */
export interface JobPlan {
  v: 1;
  facts: JobFacts;
  options: K8sOptions;
}

/** The Job of a respawn: the recorded plan, under the new run's id (its name, labels, `ARIEL_RUN_ID`). */
export function respawnJob(plan: JobPlan, runId: string): JobManifest {
  return planJob({ ...plan.facts, runId }, plan.options);
}

/** A `job.json` as read back: a JobPlan, or null when it is not one (damaged, or another version). */
export function parseJobPlan(value: unknown): JobPlan | null {
  const v = value as Partial<JobPlan> | null;
  if (typeof v !== "object" || v === null || v.v !== 1) return null;
  const f = v.facts as Partial<JobFacts> | undefined;
  const o = v.options as Partial<K8sOptions> | undefined;
  const strings = (x: object | undefined, keys: readonly string[]) =>
    x !== undefined && keys.every((k) => typeof (x as Record<string, unknown>)[k] === "string");
  if (!strings(f, ["workspaceHash", "task", "source", "remote", "base", "branch"])) return null;
  if (!strings(o, ["namespace", "image"])) return null;
  if (!Array.isArray(f?.argv) || typeof f?.restart !== "object" || typeof o?.save !== "object") return null;
  return v as JobPlan;
}
