/**
 * The k8s run lifecycle end to end against a fake Kubernetes API on 127.0.0.1 (bearer token,
 * kubeconfig in a temp dir): `ariel-spawn --detach --backend k8s` creates the Job and records it,
 * `ariel-runs list` follows the scripted pod phases, `wait` returns the container's exit code,
 * `logs` prints the pod log and `logs -f` streams it (resuming a dropped stream), `kill` deletes
 * the Job with propagation Background, `respawn` deletes it and creates a new Job from the
 * recorded plan. Neither the token nor the Secret in the remote URL appears in any output or record.
 */
import { existsSync, readdirSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type CliResult, records, runAriel, startPausedAt } from "./helpers/cli.ts";
import {
  credentialLeaks,
  type FakeKube,
  fakeKube,
  IMAGE,
  k8sWorkspace,
  NS,
  type Obj,
  spawnK8sArgs,
  TOKEN,
  until,
} from "./helpers/fake_kube.ts";
import { removeDir, writeFile } from "./helpers/git.ts";

let cluster: FakeKube;
let root: string;
let kubeconfig: string;
const outputs: string[] = [];

/** Put run `runId`'s (only) pod in `phase`, with the run container's exit code once it terminated. */
function setPod(runId: string, phase: string, exitCode?: number): void {
  cluster.setPod(runId, 1, phase, exitCode === undefined ? {} : { exitCode });
}
const jobOf = (runId: string) => cluster.jobOf(runId);

/** The `event` names in run `runId`'s history, in order. */
const historyEvents = (runId: unknown) =>
  readFileSync(join(root, `.ariel/runs/${runId}.ndjson`), "utf8")
    .split("\n")
    .filter(Boolean)
    .map((l) => JSON.parse(l).event);

async function ariel(cli: "spawn" | "runs", args: string[]): Promise<CliResult> {
  const r = await runAriel(cli, args, { cwd: root, env: { KUBECONFIG: kubeconfig } });
  outputs.push(r.stdout, r.stderr);
  return r;
}

async function spawnRun(name: string, argv: string[]): Promise<Record<string, unknown>> {
  const r = await ariel("spawn", spawnK8sArgs(name, argv));
  expect([r.code, r.stderr.includes("error")]).toEqual([0, false]);
  const [rec] = records(r.stdout);
  return rec as Record<string, unknown> & { runId: string; k8s: { job: string } };
}

/** `args` without its `--namespace NS`. */
const withoutNamespace = (args: string[]) =>
  args.filter((a, i) => a !== "--namespace" && args[i - 1] !== "--namespace");

/** The run directories in the workspace now: `runDirs().made()` are those made since. */
function runDirs(): { made(): string[] } {
  const dir = join(root, ".ariel/runs");
  const list = () => (existsSync(dir) ? readdirSync(dir).filter((d) => !d.endsWith(".ndjson")) : []);
  const before = new Set(list());
  return { made: () => list().filter((d) => !before.has(d)) };
}

async function stateOf(runId: string): Promise<string> {
  const r = await ariel("runs", ["list", "--all", "--json"]);
  expect(r.code).toBe(0);
  return String(records(r.stdout).find((x) => x.runId === runId)?.state);
}

beforeAll(async () => {
  cluster = await fakeKube();
  ({ root, kubeconfig } = k8sWorkspace(cluster.port));
});

afterAll(async () => {
  await cluster.close();
  removeDir(root);
});

describe("k8s runs against a fake API server", () => {
  it("spawn creates the Job and records it; list follows Pending → Running → Succeeded; wait is 0", async () => {
    const run = (await spawnRun("ok", ["echo", "hi"])) as Record<string, unknown> & {
      runId: string;
      k8s: Record<string, string>;
    };
    expect([run.type, run.backend, run.state, run.name, run.source]).toEqual([
      "run",
      "k8s",
      "starting",
      "ok",
      "api",
    ]);
    expect(run.k8s).toEqual({ namespace: NS, job: jobOf(run.runId), uid: "uid-1", kubeconfig });
    const stored = JSON.parse(readFileSync(join(root, `.ariel/runs/${run.runId}/run.json`), "utf8"));
    expect([stored.backend, stored.k8s]).toEqual(["k8s", run.k8s]);
    const job = cluster.jobs.get(jobOf(run.runId)) as Obj;
    expect([
      job.metadata.namespace,
      (job.metadata.labels as Record<string, string>)["ariel.dev/run"],
    ]).toEqual([NS, run.runId]);

    expect(await stateOf(run.runId)).toBe("starting");
    setPod(run.runId, "Pending");
    expect(await stateOf(run.runId)).toBe("starting");
    setPod(run.runId, "Running");
    cluster.appendLog(cluster.podName(run.runId, 1), ["hi"]);
    expect(await stateOf(run.runId)).toBe("running");
    const waiting = ariel("runs", ["wait", run.runId]);
    // Change the pod once wait watches it (its first watch drops and is resumed).
    await until(
      "wait's resumed watch",
      () => cluster.watchCalls.filter((c) => c.runId === run.runId).length >= 2,
    );
    cluster.setJobCondition(run.runId, "Complete");
    setPod(run.runId, "Succeeded", 0);
    expect((await waiting).code).toBe(0);
    // wait watched the pods: the first stream dropped mid-event and was resumed from the same
    // resourceVersion (nothing lost, nothing repeated).
    const calls = cluster.watchCalls.filter((c) => c.runId === run.runId).map((c) => c.rv);
    expect(calls.slice(0, 2)).toEqual([String(cluster.rv() - 1), String(cluster.rv() - 1)]);
    expect(await stateOf(run.runId)).toBe("exited");
    const logs = await ariel("runs", ["logs", run.runId]);
    expect([logs.code, logs.stdout]).toEqual([0, "hi\n"]);
  });

  it("a failed container: list says failed, wait exits with its code", async () => {
    const run = (await spawnRun("bad", ["sh", "-c", "exit 3"])) as { runId: string };
    setPod(run.runId, "Running");
    expect(await stateOf(run.runId)).toBe("running");
    setPod(run.runId, "Failed", 3);
    cluster.setJobCondition(run.runId, "Failed", "BackoffLimitExceeded");
    const w = await ariel("runs", ["wait", run.runId]);
    expect(w.code).toBe(3);
    expect(await stateOf(run.runId)).toBe("failed");
  });

  it("kill deletes the Job with propagation Background; the run is killed", async () => {
    const run = (await spawnRun("long", ["sleep", "1000"])) as { runId: string };
    setPod(run.runId, "Running");
    const k = await ariel("runs", ["kill", run.runId]);
    expect(k.code).toBe(0);
    expect(cluster.deletes.at(-1)).toEqual({
      name: jobOf(run.runId),
      body: { kind: "DeleteOptions", apiVersion: "v1", propagationPolicy: "Background" },
    });
    expect(cluster.jobs.has(jobOf(run.runId))).toBe(false);
    expect(await stateOf(run.runId)).toBe("killed");
    const again = await ariel("runs", ["kill", run.runId]);
    expect(again.code).toBe(0);
    expect(cluster.deletes.filter((d) => d.name === jobOf(run.runId))).toHaveLength(1);
  });

  it("kill names its run from the records: not one API request about another run", async () => {
    const target = (await spawnRun("target", ["sleep", "1000"])) as { runId: string };
    const other = (await spawnRun("bystander", ["sleep", "1000"])) as { runId: string };
    setPod(target.runId, "Running");
    setPod(other.runId, "Running");
    const from = cluster.requests.length;
    const k = await ariel("runs", ["kill", "-n", "target"]);
    expect(k.code).toBe(0);
    expect(k.stdout).toBe(`would send SIGTERM to ${target.runId} (running)\n`);
    const asked = cluster.requests.slice(from);
    expect(asked.some((r) => r.includes(jobOf(target.runId)) || r.includes(target.runId))).toBe(true);
    expect(asked.filter((r) => r.includes(jobOf(other.runId)) || r.includes(other.runId))).toEqual([]);
    expect((await ariel("runs", ["kill", target.runId])).code).toBe(0);
    expect((await ariel("runs", ["kill", other.runId])).code).toBe(0);
  });

  it("respawn deletes the live Job (Background) and creates a new one from the recorded plan", async () => {
    const run = (await spawnRun("again", ["sh", "-c", "echo again"])) as { runId: string };
    setPod(run.runId, "Running");
    const oldJob = structuredClone(cluster.jobs.get(jobOf(run.runId))) as Obj;
    const deletesBefore = cluster.deletes.length; // the fake cluster is shared by this file's tests
    const dry = await ariel("runs", ["respawn", "-n", "--json", run.runId]);
    const [plan] = records(dry.stdout);
    expect([dry.code, plan?.type, plan?.action, plan?.respawnOf, plan?.backend]).toEqual([
      0,
      "plan",
      "run.respawn",
      run.runId,
      "k8s",
    ]);
    expect([cluster.deletes.length - deletesBefore, cluster.jobs.has(jobOf(run.runId))]).toEqual([0, true]);

    const r = await ariel("runs", ["respawn", "--json", run.runId]);
    const [started] = records(r.stdout) as (Record<string, unknown> & { runId: string })[];
    expect([r.code, started?.state, started?.respawnOf, started?.name, started?.backend]).toEqual([
      0,
      "starting",
      run.runId,
      "again",
      "k8s",
    ]);
    const id = started!.runId;
    expect(cluster.deletes.at(-1)).toEqual({
      name: jobOf(run.runId),
      body: { kind: "DeleteOptions", apiVersion: "v1", propagationPolicy: "Background" },
    });
    // The new Job is the old one's plan under the new run id: nothing else differs.
    const newJob = cluster.jobs.get(jobOf(id)) as Obj;
    const renamed = JSON.parse(
      JSON.stringify(oldJob)
        .replaceAll(run.runId, id)
        .replaceAll(run.runId.toLowerCase(), id.toLowerCase())
        .replace(/"uid":"uid-\d+"/, `"uid":"${String(newJob.metadata.uid)}"`),
    );
    expect(newJob).toEqual(renamed);
    expect(started?.k8s).toEqual({ namespace: NS, job: jobOf(id), uid: newJob.metadata.uid, kubeconfig });
    expect([await stateOf(run.runId), await stateOf(id)]).toEqual(["killed", "starting"]);
    const old = JSON.parse(readFileSync(join(root, `.ariel/runs/${run.runId}/run.json`), "utf8"));
    expect([old.kill?.reason, old.exit?.state, old.exit?.status]).toEqual(["respawn", "killed", 137]);
  });

  it("a respawn whose create is refused: the old run is killed and kept; the new run is recorded failed (job-not-created)", async () => {
    const run = (await spawnRun("refused", ["true"])) as { runId: string };
    setPod(run.runId, "Running");
    const dirs = runDirs();
    cluster.refuseNextCreate(422, "Job.batch is invalid");
    const r = await ariel("runs", ["respawn", run.runId]);
    const [fresh] = dirs.made();
    expect(fresh).toBeDefined();
    const error = r.stderr.split("\n").find((l) => l.startsWith("ariel-runs: error:"));
    const hint = r.stderr.split("\n").find((l) => l.startsWith("ariel-runs: hint:"));
    expect([r.code, r.stdout, error, hint]).toEqual([
      3,
      "",
      "ariel-runs: error: Kubernetes API: create Job failed with HTTP 422: Job.batch is invalid [ERR_REFUSED]",
      `ariel-runs: hint: run ${fresh} is recorded as failed (ariel-runs list --all); no Job was created`,
    ]);
    expect(cluster.jobs.has(jobOf(fresh!))).toBe(false);
    const list = await ariel("runs", ["list", "--all", "--json"]);
    const byId = (id: string) => records(list.stdout).find((x) => x.runId === id) as Record<string, unknown>;
    const old = byId(run.runId);
    expect([list.code, old.state, (old.exit as { status?: number })?.status]).toEqual([0, "killed", 137]);
    const got = byId(fresh!);
    expect([
      got.state,
      got.respawnOf,
      (got.exit as { reason?: string }).reason,
      (got.k8s as { uid: string }).uid,
    ]).toEqual(["failed", run.runId, "job-not-created", ""]);
    expect(historyEvents(fresh)).toEqual(["run.finished"]);
  });

  it("respawn killed between the new run's record and its Job: ariel knows the new run (lost), no Job, the original killed", async () => {
    const run = (await spawnRun("respawn-crash", ["sleep", "1000"])) as { runId: string };
    setPod(run.runId, "Running");
    const dirs = runDirs();
    const jobsBefore = new Set(cluster.jobs.keys());
    const paused = await startPausedAt("runs", "k8s:respawn-after-record", ["respawn", run.runId], {
      cwd: root,
      env: { KUBECONFIG: kubeconfig },
    });
    await paused.kill();
    const [fresh] = dirs.made();
    expect(fresh).toBeDefined();
    expect([...cluster.jobs.keys()].filter((j) => !jobsBefore.has(j))).toEqual([]);
    const rec = JSON.parse(readFileSync(join(root, `.ariel/runs/${fresh}/run.json`), "utf8"));
    expect([rec.respawnOf, rec.k8s.uid, rec.k8s.job]).toEqual([run.runId, "", jobOf(fresh!)]);
    expect(await stateOf(fresh!)).toBe("lost");
    expect(await stateOf(run.runId)).toBe("killed");
  });

  it("respawn of a run without its recorded Job plan is refused (69) and changes nothing", async () => {
    const run = (await spawnRun("older", ["true"])) as { runId: string };
    setPod(run.runId, "Running");
    const plan = join(root, `.ariel/runs/${run.runId}/job.json`);
    const kept = readFileSync(plan, "utf8");
    removeDir(plan);
    const jobs = cluster.jobs.size;
    const deletes = cluster.deletes.length;
    const r = await ariel("runs", ["respawn", run.runId]);
    const error = r.stderr.split("\n").find((l) => l.startsWith("ariel-runs: error:"));
    expect([r.code, r.stdout, error]).toEqual([
      69,
      "",
      `ariel-runs: error: cannot respawn ${run.runId}: its Job plan was not recorded (the run is older than respawn on Kubernetes) [ERR_BACKEND_UNAVAILABLE]`,
    ]);
    writeFileSync(plan, "{not json");
    const bad = await ariel("runs", ["respawn", run.runId]);
    expect([bad.code, bad.stdout]).toEqual([65, ""]);
    expect([cluster.jobs.size, cluster.deletes.length, await stateOf(run.runId)]).toEqual([
      jobs,
      deletes,
      "running",
    ]);
    writeFileSync(plan, kept);
  });

  it("logs -f streams the pod log, resumes a dropped stream without lost or repeated lines, ends with the pod", async () => {
    const run = (await spawnRun("follow", ["sh", "-c", "echo"])) as { runId: string };
    const pod = cluster.podName(run.runId, 1);
    setPod(run.runId, "Running");
    cluster.appendLog(pod, ["l1", "l2"]);
    cluster.appendLog(pod, ["s1", "s2", "s3"], true); // one timestamp for three lines
    cluster.dropLogAfter(pod, 3); // l1 l2 s1, half of s2, then the connection goes
    const human = ariel("runs", ["logs", "-f", run.runId]);
    const json = ariel("runs", ["logs", "-f", "--json", run.runId]);
    await until("the resumed log stream", () => cluster.logCalls.filter((c) => c.pod === pod).length >= 3);
    cluster.appendLog(pod, ["late ü"]);
    setPod(run.runId, "Succeeded", 0);
    cluster.setJobCondition(run.runId, "Complete");
    const [h, j] = await Promise.all([human, json]);
    expect([h.code, h.stdout]).toEqual([0, "l1\nl2\ns1\ns2\ns3\nlate ü\n"]);
    const calls = cluster.logCalls.filter((c) => c.pod === pod).map((c) => c.query);
    expect(calls.slice(0, 3).sort()).toEqual([
      "?container=run&follow=true&timestamps=true",
      "?container=run&follow=true&timestamps=true",
      "?container=run&follow=true&timestamps=true&sinceTime=2026-12-02T10%3A00%3A00Z",
    ]);
    // The followed records are the finished log's, line for line, at the same sequences.
    const whole = await ariel("runs", ["logs", "--json", run.runId]);
    expect(j.code).toBe(0);
    // Then the run's end (issue 19): its final state and status.
    const followed = records(j.stdout);
    expect(followed.at(-1)).toMatchObject({ type: "end", runId: run.runId, state: "exited", status: 0 });
    expect(followed.slice(0, -1)).toEqual(records(whole.stdout));
    expect(records(whole.stdout).map((x) => [x.seq, x.data])).toEqual([
      [0, "l1\n"],
      [3, "l2\n"],
      [6, "s1\n"],
      [9, "s2\n"],
      [12, "s3\n"],
      [15, "late ü\n"],
    ]);
  });

  it("logs -f --from goes on with a retry's new pod, waiting for it to start; --stream stderr -f ends with the run", async () => {
    const s = await ariel("spawn", spawnK8sArgs("retried", ["true"], ["--restart", "on-failure:1"]));
    const runId = String(records(s.stdout)[0]?.runId);
    const [pod1, pod2] = [cluster.podName(runId, 1), cluster.podName(runId, 2)];
    cluster.setPod(runId, 1, "Running");
    cluster.appendLog(pod1, ["first try", "oops"]);
    const out = ariel("runs", ["logs", "-f", "--json", "--from", "6", runId]);
    const err = ariel("runs", ["logs", "-f", "--stream", "stderr", runId]);
    await until("pod 1's log", () => cluster.logCalls.some((c) => c.pod === pod1));
    cluster.setPod(runId, 1, "Failed", { exitCode: 1 });
    cluster.setPod(runId, 2, "Running");
    // Its container has not started: the API answers 400 until it has a log; asked again later.
    await until("pod 2's log", () => cluster.logCalls.some((c) => c.pod === pod2));
    cluster.appendLog(pod2, ["second try"]);
    await until("pod 2's log again", () => cluster.logCalls.filter((c) => c.pod === pod2).length >= 2);
    cluster.appendLog(pod2, ["done"]);
    cluster.setPod(runId, 2, "Succeeded", { exitCode: 0 });
    cluster.setJobCondition(runId, "Complete");
    const [o, e] = await Promise.all([out, err]);
    // --from 6 cuts "first try\n" after "first "; the retry's pod starts again at 0.
    expect([o.code, records(o.stdout).map((x) => [x.seq, x.data ?? x.type])]).toEqual([
      0,
      [
        [6, "try\n"],
        [10, "oops\n"],
        [0, "second try\n"],
        [11, "done\n"],
        [undefined, "end"],
      ],
    ]);
    expect([e.code, e.stdout]).toEqual([0, ""]);
  });

  it("a bad kubeconfig writes nothing and creates no Job", async () => {
    const before = cluster.jobs.size;
    const r = await runAriel(
      "spawn",
      [
        "--detach",
        "--backend",
        "k8s",
        "--image",
        IMAGE,
        "--kubeconfig",
        join(root, "nope"),
        "--source",
        "api",
        "--",
        "true",
      ],
      { cwd: root },
    );
    outputs.push(r.stdout, r.stderr);
    const error = r.stderr.split("\n").find((l) => l.startsWith("ariel-spawn: error:"));
    expect([r.code, r.stdout, error]).toEqual([
      66,
      "",
      `ariel-spawn: error: cannot read the kubeconfig ${join(root, "nope")} [ERR_NOINPUT]`,
    ]);
    expect(cluster.jobs.size).toBe(before);
  });

  // A namespace is a DNS-1123 label: no dots (a subdomain is not enough), at most 63 characters.
  it.each([
    ["a dotted name", "my.team"],
    ["64 characters", "a".repeat(64)],
  ])("--namespace with %s is a usage error (64): no run, no Job", async (_what, ns) => {
    const jobs = cluster.jobs.size;
    const made = runDirs();
    const r = await ariel("spawn", ["--namespace", ns, ...withoutNamespace(spawnK8sArgs("badns", ["true"]))]);
    expect([r.code, r.stdout, records(r.stderr)]).toEqual([
      64,
      "",
      [
        {
          v: 1,
          type: "error",
          code: "ERR_USAGE",
          message: `--namespace: "${ns}" is not a valid Kubernetes name`,
          hint: "run ariel-spawn --help to see the flags",
          exit: 64,
        },
      ],
    ]);
    expect([made.made(), cluster.jobs.size]).toEqual([[], jobs]);
  });

  it.each([
    ["a dotted name", "my.team"],
    ["64 characters", "a".repeat(64)],
  ])("config k8s.namespace with %s is a config error (78): no run, no Job", async (_what, ns) => {
    const ws = k8sWorkspace(cluster.port);
    try {
      writeFile(join(ws.root, "ariel.config.json"), JSON.stringify({ k8s: { namespace: ns } }));
      const jobs = cluster.jobs.size;
      const args = withoutNamespace(spawnK8sArgs("badns", ["true"]));
      const r = await runAriel("spawn", args, { cwd: ws.root, env: { KUBECONFIG: ws.kubeconfig } });
      outputs.push(r.stdout, r.stderr);
      expect([r.code, r.stdout, records(r.stderr)]).toEqual([
        78,
        "",
        [
          {
            v: 1,
            type: "error",
            code: "ERR_CONFIG",
            message: `config k8s.namespace: "${ns}" is not a valid Kubernetes name`,
            hint: "fix ariel.config.json; see docs/config.md",
            exit: 78,
          },
        ],
      ]);
      expect([
        existsSync(join(ws.root, ".ariel/runs")) && readdirSync(join(ws.root, ".ariel/runs")),
        cluster.jobs.size,
      ]).toEqual([false, jobs]);
    } finally {
      removeDir(ws.root);
    }
  });

  it("a Job the API refuses: the run was recorded first and ends failed (job-not-created), no Job", async () => {
    const jobs = cluster.jobs.size;
    cluster.refuseNextCreate(422, "Job.batch is invalid");
    const r = await ariel("spawn", spawnK8sArgs("refused-spawn", ["true"]));
    const error = records(r.stderr).find((x) => x.type === "error");
    expect([r.code, r.stdout, error?.code, error?.message]).toEqual([
      3,
      "",
      "ERR_REFUSED",
      "Kubernetes API: create Job failed with HTTP 422: Job.batch is invalid",
    ]);
    expect(error?.hint).toBe(
      `run ${error?.runId} is recorded as failed (ariel-runs list --all); no Job was created`,
    );
    expect(cluster.jobs.size).toBe(jobs);
    const list = await ariel("runs", ["list", "--all", "--json"]);
    const run = records(list.stdout).find((x) => x.name === "refused-spawn") as Record<string, unknown>;
    const exit = run.exit as Record<string, unknown>;
    expect([run.state, exit.status, exit.reason, (run.k8s as { uid: string }).uid]).toEqual([
      "failed",
      1,
      "job-not-created",
      "",
    ]);
    expect(historyEvents(run.runId)).toEqual(["run.finished"]);
  });

  it.each([
    // Stopped between the record and the Job: no Job exists, and the run says so (lost).
    { point: "k8s:after-record", job: false, state: "lost", started: 0 },
    // Stopped between the Job and its uid: the run finds its Job by name and label and adopts it.
    { point: "k8s:after-create", job: true, state: "running", started: 1 },
  ])("spawn killed at $point: ariel knows the run (state $state)", async ({ point, job, state, started }) => {
    const dirs = runDirs();
    const paused = await startPausedAt("spawn", point, spawnK8sArgs(`crash-${state}`, ["true"]), {
      cwd: root,
      env: { KUBECONFIG: kubeconfig },
    });
    await paused.kill();
    const [runId] = dirs.made();
    expect(runId).toBeDefined();
    expect(cluster.jobs.has(jobOf(runId!))).toBe(job);
    if (job) setPod(runId!, "Running");
    expect(await stateOf(runId!)).toBe(state);
    const rec = JSON.parse(readFileSync(join(root, `.ariel/runs/${runId}/run.json`), "utf8"));
    expect(rec.k8s.uid).toBe(job ? cluster.jobs.get(jobOf(runId!))?.metadata.uid : "");
    const history = join(root, `.ariel/runs/${runId}.ndjson`);
    const events = existsSync(history) ? readFileSync(history, "utf8").split("\n").filter(Boolean) : [];
    expect(events.filter((l) => JSON.parse(l).event === "run.started").length).toBe(started);
    if (job) {
      expect((await ariel("runs", ["kill", runId!])).code).toBe(0);
      expect(cluster.jobs.has(jobOf(runId!))).toBe(false);
    }
  });

  it("a token the API refuses: exit 69, the run recorded failed, the token printed nowhere", async () => {
    const bad = join(root, ".kube/bad");
    writeFile(bad, readFileSync(kubeconfig, "utf8").replace(TOKEN, "wrong-t0ken-xyz"));
    const runsBefore = readdirSync(join(root, ".ariel/runs")).length;
    const r = await runAriel(
      "spawn",
      [
        "--detach",
        "--backend",
        "k8s",
        "--image",
        IMAGE,
        "--namespace",
        NS,
        "--kubeconfig",
        bad,
        "--source",
        "api",
        "--",
        "true",
      ],
      { cwd: root },
    );
    const error = r.stderr.split("\n").find((l) => l.startsWith("ariel-spawn: error:"));
    expect([r.code, r.stdout, error]).toEqual([
      69,
      "",
      "ariel-spawn: error: Kubernetes API: create Job failed with HTTP 401: Unauthorized [ERR_BACKEND_UNAVAILABLE]",
    ]);
    expect(`${r.stdout}${r.stderr}`).not.toContain("wrong-t0ken-xyz");
    // Recorded before the Job, the run ends failed: ariel knows every Job it asked for.
    expect(readdirSync(join(root, ".ariel/runs")).length).toBe(runsBefore + 2); // its directory and history
  });

  it("no output and no record holds the token or the Secret", () => {
    expect(cluster.unauthorized()).toBe(1); // the wrong token's create, refused
    const { leaks, looked } = credentialLeaks(outputs, root);
    expect(leaks).toEqual([]);
    expect(looked).toBeGreaterThan(40);
  });
});
