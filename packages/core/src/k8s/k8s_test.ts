import { Job } from "kubernetes-models/batch/v1/Job";
import { describe, expect, it } from "vitest";
import { parseAllDocuments, parse as parseYaml } from "yaml";
import { isArielError } from "../errors.ts";
import { SPAWN_ENV_NAMES } from "../spawn/plan.ts";
import { type JobFacts, type K8sOptions, parseJobPlan, planJob, respawnJob } from "./job.ts";
import { jobName, labelValue } from "./names.ts";
import { resolveK8sOptions } from "./options.ts";
import { jobRunState, type PodLike, podExit } from "./state.ts";
import { toYaml, toYamlDocuments } from "./yaml.ts";

function facts(over: Partial<JobFacts> = {}): JobFacts {
  return {
    runId: "20261202T163008Z-c97vsg",
    name: null,
    workspaceHash: "0123456789abcdef",
    task: "fix-login-k3x9q2",
    source: "api",
    remote: "https://git.example.com/acme/api.git",
    base: "0f1e2d3c4b5a69788796a5b4c3d2e1f00f1e2d3c",
    branch: "ariel/fix-login-k3x9q2",
    argv: ["claude", "-p", "fix the login bug"],
    restart: { policy: "no", max: 0 },
    timeoutMs: null,
    graceMs: 10_000,
    ...over,
  };
}

function options(over: Partial<K8sOptions> = {}): K8sOptions {
  return { ...resolveK8sOptions({ image: "ghcr.io/acme/agent:1.2" }, {}), ...over };
}

/** Validate against the Kubernetes OpenAPI schema (offline); throws with the failing path. */
function validateJob(manifest: unknown): void {
  new Job(manifest as ConstructorParameters<typeof Job>[0]).validate();
}

const GOLDEN: [string, JobFacts, K8sOptions][] = [
  ["minimal", facts(), options()],
  [
    "restart-timeout-resources",
    facts({ name: "fix@api", restart: { policy: "on-failure", max: 3 }, timeoutMs: 8 * 3600_000 + 1 }),
    options({
      namespace: "agents",
      serviceAccount: "ariel-runner",
      credentialsSecret: "git-creds",
      ttlSecondsAfterFinished: 3600,
      requests: { cpu: "500m", memory: "1Gi" },
      limits: { cpu: "2", memory: "4Gi" },
    }),
  ],
  [
    "overlay-configmap-bundle",
    facts({ source: "services/web", argv: ["npm", "test", "--", "--grep", "a: b"] }),
    options({
      overlay: { kind: "ConfigMap", name: "web-overlay" },
      save: { kind: "bundle", claim: "ariel-out" },
    }),
  ],
  [
    "overlay-secret",
    facts(),
    options({ overlay: { kind: "Secret", name: "api-env" }, credentialsSecret: "ssh" }),
  ],
];

describe("planJob goldens", () => {
  it.each(GOLDEN)("%s: matches its golden, parses back, and is a valid batch/v1 Job", async (name, f, o) => {
    const job = planJob(f, o);
    const text = toYaml(job);
    await expect(text).toMatchFileSnapshot(`./testdata/${name}.yaml`);
    expect(parseYaml(text)).toEqual(JSON.parse(JSON.stringify(job)));
    validateJob(parseYaml(text));
  });

  it("the validator can fail: a Job with a string backoffLimit is refused", () => {
    const job = JSON.parse(JSON.stringify(planJob(facts(), options())));
    job.spec.backoffLimit = "3";
    expect(() => validateJob(job)).toThrow(/backoffLimit/);
  });
});

describe("planJob fields", () => {
  it.each([
    ["--restart no", { policy: "no", max: 5 }, null, 0, undefined],
    ["--restart on-failure:2", { policy: "on-failure", max: 2 }, null, 2, undefined],
    ["--timeout 30s", { policy: "no", max: 0 }, 30_000, 0, 30],
    ["--timeout 1500ms rounds up", { policy: "no", max: 0 }, 1500, 0, 2],
  ] as const)("%s", (_, restart, timeoutMs, backoff, deadline) => {
    const job = planJob(facts({ restart, timeoutMs }), options());
    expect(job.spec.backoffLimit).toBe(backoff);
    expect(job.spec.activeDeadlineSeconds).toBe(deadline);
  });

  it("labels, job name and the ARIEL_* environment", () => {
    const job = planJob(facts(), options());
    expect(job.metadata.name).toBe("ariel-20261202t163008z-c97vsg");
    expect(job.metadata.labels).toEqual({
      "app.kubernetes.io/managed-by": "ariel",
      "ariel.dev/workspace": "0123456789abcdef",
      "ariel.dev/task": "fix-login-k3x9q2",
      "ariel.dev/run": "20261202T163008Z-c97vsg",
    });
    const run = (job.spec.template as { spec: { containers: { env: { name: string }[] }[] } }).spec
      .containers[0];
    // HOME first, then every variable ariel-spawn manages (pinned in spawn/plan_test.ts), then the save flag.
    expect(run?.env.map((e) => e.name)).toEqual(["HOME", ...SPAWN_ENV_NAMES, "ARIEL_K8S_SAVE"]);
  });

  it("credentials appear only as a Secret reference", () => {
    const text = JSON.stringify(planJob(facts(), options({ credentialsSecret: "git-creds" })));
    expect(text).toContain('"secretName":"git-creds"');
    expect(text).not.toContain("secretKeyRef");
  });
});

describe("respawnJob and the recorded plan", () => {
  it("is the plan's Job under the new run id, nothing else changed", () => {
    const plan = {
      v: 1 as const,
      facts: facts({ name: "agent" }),
      options: options({ namespace: "agents" }),
    };
    const again = respawnJob(plan, "20261203T090000Z-zzzzzz");
    const expected = JSON.parse(
      JSON.stringify(planJob(plan.facts, plan.options))
        .replaceAll("20261202T163008Z-c97vsg", "20261203T090000Z-zzzzzz")
        .replaceAll("20261202t163008z-c97vsg", "20261203t090000z-zzzzzz"),
    );
    expect(again).toEqual(expected);
    expect(again.metadata.name).toBe("ariel-20261203t090000z-zzzzzz");
    validateJob(again);
  });

  it.each([
    ["a plan", { v: 1, facts: facts(), options: options() }, true],
    ["another version", { v: 2, facts: facts(), options: options() }, false],
    ["no facts", { v: 1, options: options() }, false],
    ["a fact of the wrong type", { v: 1, facts: { ...facts(), base: 7 }, options: options() }, false],
    ["no image", { v: 1, facts: facts(), options: { ...options(), image: undefined } }, false],
    ["no argv", { v: 1, facts: { ...facts(), argv: "x" }, options: options() }, false],
    ["null", null, false],
    ["a string", "plan", false],
  ])("parseJobPlan: %s", (_name, value, ok) => {
    expect(parseJobPlan(JSON.parse(JSON.stringify(value))) !== null).toBe(ok);
  });
});

describe("names", () => {
  it.each([
    ["a".repeat(70), "a".repeat(63)],
    ["fix-", "fix"],
    [`${"b".repeat(62)}-c`, "b".repeat(62)],
    ["x.y_z", "x.y_z"],
  ])("labelValue(%j) = %j", (input, want) => expect(labelValue(input)).toBe(want));

  it("jobName", () => expect(jobName("20261202T163008Z-c97vsg")).toBe("ariel-20261202t163008z-c97vsg"));
});

describe("resolveK8sOptions", () => {
  it("flags win over config, key by key", () => {
    const o = resolveK8sOptions(
      { image: "a:1", namespace: "x" },
      { namespace: "y", ttl: "1h", requests: "cpu=1" },
    );
    expect([o.image, o.namespace, o.ttlSecondsAfterFinished, o.requests]).toEqual([
      "a:1",
      "x",
      3600,
      { cpu: "1" },
    ]);
  });

  it.each([
    ["no image", {}, {}, "ERR_USAGE", "--backend k8s needs --image IMG (or config k8s.image)"],
    [
      "bad namespace flag",
      { image: "a", namespace: "Bad_NS" },
      {},
      "ERR_USAGE",
      '--namespace: "Bad_NS" is not a valid Kubernetes name',
    ],
    [
      "bad namespace config",
      { image: "a" },
      { namespace: "-x" },
      "ERR_CONFIG",
      'config k8s.namespace: "-x" is not a valid Kubernetes name',
    ],
    [
      "bad overlay",
      { image: "a", overlayFrom: "pvc/x" },
      {},
      "ERR_USAGE",
      '--overlay-from: "pvc/x" is not secret/NAME or configmap/NAME',
    ],
    [
      "bad requests",
      { image: "a", requests: "gpu=1" },
      {},
      "ERR_USAGE",
      '--requests: "gpu=1" is not a list like cpu=500m,memory=1Gi',
    ],
    [
      "bad quantity",
      { image: "a", limits: "memory=lots" },
      {},
      "ERR_USAGE",
      '--limits: "memory=lots" is not a list like cpu=500m,memory=1Gi',
    ],
    [
      "bad ttl",
      { image: "a", ttl: "soon" },
      {},
      "ERR_USAGE",
      '--ttl: "soon" is not a duration such as 1h or 7d',
    ],
  ] as const)("%s", (_, flags, config, code, message) => {
    try {
      resolveK8sOptions(flags, config);
      expect.unreachable();
    } catch (e) {
      expect(isArielError(e) && [e.code, e.message]).toEqual([code, message]);
    }
  });
});

describe("jobRunState", () => {
  const cond = (type: string, reason?: string) => ({
    status: { conditions: [{ type, status: "True", reason }] },
  });
  it.each([
    ["gone, never seen ending", null, [], false, "lost"],
    ["gone after kill", null, [], true, "killed"],
    ["complete", cond("Complete"), [], false, "exited"],
    ["backoff limit", cond("Failed", "BackoffLimitExceeded"), [], false, "failed"],
    ["deadline", cond("Failed", "DeadlineExceeded"), [], false, "killed"],
    ["pending pod", { status: { active: 1 } }, [{ status: { phase: "Pending" } }], false, "starting"],
    ["running pod", { status: { active: 1 } }, [{ status: { phase: "Running" } }], false, "running"],
    ["being deleted", { metadata: { deletionTimestamp: "2026-12-02T00:00:00Z" } }, [], false, "killed"],
    [
      "evicted, retry pending",
      { status: { active: 1 } },
      [{ status: { phase: "Failed", reason: "Evicted" } }],
      false,
      "starting",
    ],
    [
      "evicted, retry running",
      { status: { active: 1 } },
      [{ status: { phase: "Failed", reason: "Evicted" } }, { status: { phase: "Running" } }],
      false,
      "running",
    ],
  ] as const)("%s", (_, job, pods, kill, want) => expect(jobRunState(job, pods, kill)).toBe(want));
});

describe("podExit", () => {
  const pod = (name: string, at: string, over: PodLike["status"]): PodLike => ({
    metadata: { name, creationTimestamp: at },
    status: over,
  });
  const ran = (code: number, restarts = 0) => ({
    phase: code === 0 ? "Succeeded" : "Failed",
    containerStatuses: [
      { name: "clone", state: { terminated: { exitCode: 0 } } },
      { name: "run", restartCount: restarts, state: { terminated: { exitCode: code } } },
    ],
  });
  it.each([
    [
      "succeeded",
      [pod("a", "2026-12-02T10:00:00Z", ran(0))],
      "exited",
      { code: 0, status: 0, reason: null, restarts: 0 },
    ],
    [
      "failed with 3",
      [pod("a", "2026-12-02T10:00:00Z", ran(3))],
      "failed",
      { code: 3, status: 3, reason: null, restarts: 0 },
    ],
    [
      "the newest pod decides; restarts summed",
      [pod("b", "2026-12-02T10:05:00Z", ran(0, 1)), pod("a", "2026-12-02T10:00:00Z", ran(2, 2))],
      "exited",
      { code: 0, status: 0, reason: null, restarts: 3 },
    ],
    [
      "evicted last",
      [
        pod("b", "2026-12-02T10:05:00Z", { phase: "Failed", reason: "Evicted" }),
        pod("a", "2026-12-02T10:00:00Z", ran(2)),
      ],
      "failed",
      { code: null, status: 137, reason: "Evicted", restarts: 0 },
    ],
    ["killed before it ran", [], "killed", { code: null, status: 137, reason: null, restarts: 0 }],
    ["no pod, failed", [], "failed", { code: null, status: 1, reason: null, restarts: 0 }],
  ] as const)("%s", (_, pods, state, want) =>
    expect(podExit(pods as readonly PodLike[], state)).toEqual(want),
  );
});

describe("toYaml", () => {
  it.each([
    [
      "reserved words and numbers-looking strings are quoted",
      { a: "true", b: "0755", c: "no", d: "1e3", e: "" },
    ],
    ["nested sequences and empty collections", { a: [[1, 2], [], {}], b: { c: [{ d: null }] } }],
    ["strings that need escapes", { a: "x: y", b: "#c", c: "tab\there", d: "line\n", e: " lead\nx" }],
    ["multi-line literal", { s: "one\n  two\n\nthree" }],
  ])("%s round-trips", (_, value) => {
    expect(parseYaml(toYaml(value))).toEqual(value);
  });

  it("documents", () => {
    const docs = parseAllDocuments(toYamlDocuments([{ a: 1 }, { b: [2] }])).map((d) => d.toJS());
    expect(docs).toEqual([{ a: 1 }, { b: [2] }]);
  });
});
