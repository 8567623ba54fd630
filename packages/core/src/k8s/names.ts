/**
 * Kubernetes names ariel gives its objects: a Job name from a run id, label values that fit
 * Kubernetes' rules (at most 63 characters, alphanumeric at both ends), and the label and
 * annotation keys under `ariel.dev/` (docs/kubernetes.md).
 *
 * @example
 * ```ts
 * jobName("20261202T163008Z-c97vsg"); // "ariel-20261202t163008z-c97vsg"
 * ```
 */

/** The label keys every Job and its pods carry. */
export const LABELS = {
  workspace: "ariel.dev/workspace",
  task: "ariel.dev/task",
  run: "ariel.dev/run",
  managedBy: "app.kubernetes.io/managed-by",
} as const;

/** The annotation keys of a Job: the full values where a label had to be shortened, and the plan. */
export const ANNOTATIONS = {
  task: "ariel.dev/task",
  name: "ariel.dev/run-name",
  source: "ariel.dev/source",
  remote: "ariel.dev/remote",
  base: "ariel.dev/base",
  branch: "ariel.dev/branch",
} as const;

/** A DNS-1123 label (namespace, Secret, ConfigMap and claim names are checked with it or the subdomain rule). */
export const DNS_LABEL: RegExp = /^[a-z0-9]([-a-z0-9]{0,61}[a-z0-9])?$/;
/** A DNS-1123 subdomain: Secret, ConfigMap and PersistentVolumeClaim names. */
export const DNS_SUBDOMAIN: RegExp =
  /^(?=.{1,253}$)[a-z0-9]([-a-z0-9]*[a-z0-9])?(\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*$/;

/** The Job of a run: `ariel-` and the run id in lower case (30 characters, a valid DNS label). */
export function jobName(runId: string): string {
  return `ariel-${runId.toLowerCase()}`;
}

/**
 * `value` as a label value: at most 63 characters of `[A-Za-z0-9._-]`, alphanumeric at both
 * ends. Task ids and run ids already use that alphabet; a longer one is cut (the annotation keeps
 * it whole).
 *
 * @example
 * ```ts
 * labelValue("a".repeat(70)).length; // 63
 * ```
 */
export function labelValue(value: string): string {
  return value
    .replace(/[^A-Za-z0-9._-]/g, "-")
    .slice(0, 63)
    .replace(/^[^A-Za-z0-9]+|[^A-Za-z0-9]+$/g, "");
}
