/**
 * Restarts, evictions and deadlines of k8s runs through the CLIs, against the fake Kubernetes API
 * (test/helpers/fake_kube.ts): each case scripts its pods and Job condition step by step and
 * checks `ariel-runs list --json` after every step, `wait`'s exit status (its pod watch drops
 * mid-event on its first connection and resumes from the same resourceVersion; a change made while
 * it is broken is delivered once on the resumed watch), the recorded
 * exit, that the run's closing event is written once however many readers saw the end, and that
 * no token or Secret appears in any output, record or created Job.
 */
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type CliResult, records, runAriel } from "./helpers/cli.ts";
import {
  credentialLeaks,
  type FakeKube,
  fakeKube,
  k8sWorkspace,
  type PodHow,
  spawnK8sArgs,
  until,
} from "./helpers/fake_kube.ts";
import { removeDir } from "./helpers/git.ts";

let cluster: FakeKube;
let root: string;
let kubeconfig: string;
const outputs: string[] = [];

async function ariel(cli: "spawn" | "runs", args: string[]): Promise<CliResult> {
  const r = await runAriel(cli, args, { cwd: root, env: { KUBECONFIG: kubeconfig } });
  outputs.push(r.stdout, r.stderr);
  return r;
}

async function runOf(runId: string): Promise<Record<string, unknown>> {
  const r = await ariel("runs", ["list", "--all", "--json"]);
  expect(r.code).toBe(0);
  return records(r.stdout).find((x) => x.runId === runId) as Record<string, unknown>;
}

type Step =
  | { pod: number; phase: string; how?: PodHow; state: string }
  | { job: "Complete" | "Failed"; reason?: string; state: string };

interface Case {
  name: string;
  restart: string[];
  backoffLimit: number;
  steps: Step[];
  wait: number;
  exit: { state: string; status: number; code: number | null; reason: string | null };
}

const CASES: Case[] = [
  {
    name: "two failed pods retried (on-failure:2), the third fails too: failed with its code",
    restart: ["--restart", "on-failure:2"],
    backoffLimit: 2,
    steps: [
      { pod: 1, phase: "Pending", state: "starting" },
      { pod: 1, phase: "Running", state: "running" },
      { pod: 1, phase: "Failed", how: { exitCode: 3 }, state: "starting" },
      { pod: 2, phase: "Running", state: "running" },
      { pod: 2, phase: "Failed", how: { exitCode: 4 }, state: "starting" },
      { pod: 3, phase: "Running", state: "running" },
      { pod: 3, phase: "Failed", how: { exitCode: 5 }, state: "starting" },
      { job: "Failed", reason: "BackoffLimitExceeded", state: "failed" },
    ],
    wait: 5,
    exit: { state: "failed", status: 5, code: 5, reason: null },
  },
  {
    name: "a failed pod retried (on-failure:1), the retry succeeds: exited 0",
    restart: ["--restart", "on-failure:1"],
    backoffLimit: 1,
    steps: [
      { pod: 1, phase: "Running", state: "running" },
      { pod: 1, phase: "Failed", how: { exitCode: 1 }, state: "starting" },
      { pod: 2, phase: "Running", state: "running" },
      { pod: 2, phase: "Succeeded", how: { exitCode: 0 }, state: "starting" },
      { job: "Complete", state: "exited" },
    ],
    wait: 0,
    exit: { state: "exited", status: 0, code: 0, reason: null },
  },
  {
    name: "an evicted pod, no retry: failed, 137, reason Evicted",
    restart: [],
    backoffLimit: 0,
    steps: [
      { pod: 1, phase: "Running", state: "running" },
      { pod: 1, phase: "Failed", how: { reason: "Evicted" }, state: "starting" },
      { job: "Failed", reason: "BackoffLimitExceeded", state: "failed" },
    ],
    wait: 137,
    exit: { state: "failed", status: 137, code: null, reason: "Evicted" },
  },
  {
    name: "an evicted pod retried, the retry exits 0: exited",
    restart: ["--restart", "on-failure:3"],
    backoffLimit: 3,
    steps: [
      { pod: 1, phase: "Running", state: "running" },
      { pod: 1, phase: "Failed", how: { reason: "Evicted" }, state: "starting" },
      { pod: 2, phase: "Pending", state: "starting" },
      { pod: 2, phase: "Succeeded", how: { exitCode: 0 }, state: "starting" },
      { job: "Complete", state: "exited" },
    ],
    wait: 0,
    exit: { state: "exited", status: 0, code: 0, reason: null },
  },
  {
    name: "--timeout reached (DeadlineExceeded): killed, the container's 143",
    restart: ["--timeout", "1m"],
    backoffLimit: 0,
    steps: [
      { pod: 1, phase: "Running", state: "running" },
      { pod: 1, phase: "Failed", how: { exitCode: 143 }, state: "starting" },
      { job: "Failed", reason: "DeadlineExceeded", state: "killed" },
    ],
    wait: 143,
    exit: { state: "killed", status: 143, code: 143, reason: null },
  },
];

beforeAll(async () => {
  cluster = await fakeKube();
  ({ root, kubeconfig } = k8sWorkspace(cluster.port));
});

afterAll(async () => {
  await cluster.close();
  removeDir(root);
});

describe("k8s restarts, evictions and deadlines through the CLIs", () => {
  it.each(CASES)("$name", async (c) => {
    const s = await ariel("spawn", [...spawnK8sArgs("life", ["sh", "-c", "exit 3"], c.restart)]);
    expect(s.code).toBe(0);
    const runId = String(records(s.stdout)[0]?.runId);
    const job = cluster.jobs.get(cluster.jobOf(runId)) as unknown as { spec: { backoffLimit: number } };
    expect(job.spec.backoffLimit).toBe(c.backoffLimit);
    const waiting = ariel("runs", ["wait", runId]);
    await until("wait's first watch", () => cluster.watchCalls.some((x) => x.runId === runId));
    for (const step of c.steps) {
      if ("pod" in step) cluster.setPod(runId, step.pod, step.phase, step.how);
      else cluster.setJobCondition(runId, step.job, step.reason);
      expect([step, (await runOf(runId)).state]).toEqual([step, step.state]);
    }
    const w = await waiting;
    expect(w.code).toBe(c.wait);
    const run = await runOf(runId);
    const exit = run.exit as Record<string, unknown>;
    expect([run.state, exit.state, exit.status, exit.code, exit.reason]).toEqual([
      c.exit.state,
      c.exit.state,
      c.exit.status,
      c.exit.code,
      c.exit.reason,
    ]);
    // wait's first watch dropped mid-event; the next one asked from the same resourceVersion.
    const calls = cluster.watchCalls.filter((x) => x.runId === runId).map((x) => x.rv);
    expect(calls.length).toBeGreaterThanOrEqual(2);
    expect(calls[1]).toBe(calls[0]);
    // list, wait and list again all saw the end; it was recorded once, closed once.
    const history = readFileSync(join(root, `.ariel/runs/${runId}.ndjson`), "utf8")
      .trim()
      .split("\n")
      .map((l) => JSON.parse(l) as Record<string, unknown>);
    expect(history.map((e) => e.event)).toEqual(["run.started", "run.finished"]);
    expect([history[1]?.state, history[1]?.status]).toEqual([c.exit.state, c.exit.status]);
  });

  it("a pod change while wait's watch is broken comes on the resumed watch: once, nothing lost", async () => {
    const s = await ariel("spawn", spawnK8sArgs("gap", ["true"]));
    const runId = String(records(s.stdout)[0]?.runId);
    cluster.setPod(runId, 1, "Running");
    cluster.stallFirstWatch(true);
    try {
      const waiting = ariel("runs", ["wait", runId]);
      await until("wait's first watch", () => cluster.watchCalls.some((c) => c.runId === runId));
      // The change happens while the only watch is broken: no connection delivers it now.
      cluster.setPod(runId, 1, "Succeeded", { exitCode: 0 });
      cluster.setJobCondition(runId, "Complete");
      const end = cluster.rv();
      expect(cluster.delivered.filter((d) => d.runId === runId)).toEqual([]);
      cluster.dropStalled();
      expect((await waiting).code).toBe(0);
      const calls = cluster.watchCalls.filter((c) => c.runId === runId);
      // The resumed watch asked from the same resourceVersion and got the change exactly once.
      expect(calls[1]?.rv).toBe(calls[0]?.rv);
      expect(cluster.delivered.filter((d) => d.runId === runId).map((d) => d.rv)).toEqual([end]);
    } finally {
      cluster.stallFirstWatch(false);
    }
  });

  it("no output, record or created Job holds the token or the remote's secret", () => {
    expect(cluster.unauthorized()).toBe(0);
    const { leaks, looked } = credentialLeaks([...outputs, JSON.stringify([...cluster.jobs.values()])], root);
    expect(leaks).toEqual([]);
    expect(looked).toBeGreaterThan(40);
  });
});
