/**
 * `ariel-spawn --detach --backend k8s` in-process (spawn.ts): the planned Jobs of a workspace of
 * real checkouts (facts, manifests, task and branch, names, the base-not-pushed warning, the
 * kubeconfig named by flag or config), the refusals before anything is written, and the start
 * against a small API server on 127.0.0.1: each run recorded, its Job posted exactly, its uid
 * and run.started; a refused Job (the run failed, the error says so), an API that cannot be
 * reached (the run left pending), a kubeconfig that cannot be read (nothing written).
 */
import { existsSync, readFileSync } from "node:fs";
import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { arielErrorOf } from "../../../../_fixture.ts";
import { ArielError } from "../../../../errors.ts";
import { workspaceHash } from "../../../../hash.ts";
import { type JobFacts, planJob } from "../../../../k8s/job.ts";
import { resolveK8sOptions } from "../../../../k8s/options.ts";
import type { Ports } from "../../../../ports.ts";
import { runPaths } from "../../../../runs/paths.ts";
import { GIT_TEST_ENV, git, removeDir, tempDir, writeFile } from "../../../_fixture.ts";
import type { Reporter } from "../../../cli/mod.ts";
import { hostPorts } from "../../../ports.ts";
import { readRunSync } from "../../../runs/store.ts";
import { makeRoot } from "../../../worktree/_fixture.ts";
import type { DetachIo } from "../../detach.ts";
import { historyOf, writeKubeconfig } from "./_k8s_fixture.ts";
import { type K8sSpawnRequest, planK8sJobs, startK8s } from "./spawn.ts";

const TOKEN = "sp4wn-t0ken";
const T0 = Date.UTC(2026, 11, 2, 11, 9, 43);
const AT = "2026-12-02T11:09:43.000Z";
/** The run id made from the n-th draw of the counting random bytes (n ≤ 10). */
const id = (n: number) => `20261202T110943Z-${String(n - 1).repeat(6)}`;
/** --restart no, as the CLI passes it (the count goes into the plan's facts as it is). */
const RESTART = { policy: "no" as const, max: 0, count: 0 };
const SECRET_URL = "https://bot:s3cret@git.example.com/acme/api.git";

const servers: Server[] = [];
const dirs: string[] = [];
afterEach(async () => {
  for (const s of servers.splice(0)) {
    s.closeAllConnections();
    await new Promise((r) => s.close(r));
  }
  for (const d of dirs.splice(0)) removeDir(d);
});

/** A fake API: POST a Job (uid-1, uid-2, ...; the n-th create refused, or -n: answered without uid), GET it, no pods. */
async function fakeApi(refuse: number[] = []) {
  const jobs = new Map<string, Record<string, unknown>>();
  const seen: { method: string; url: string; body: unknown }[] = [];
  let creates = 0;
  const server = createServer((req, res) => {
    let text = "";
    req.on("data", (c: Buffer) => {
      text += c.toString();
    });
    req.on("end", () => {
      const body = text === "" ? null : JSON.parse(text);
      seen.push({ method: req.method ?? "", url: req.url ?? "", body });
      const send = (status: number, b: unknown) => {
        res.writeHead(status, { "content-type": "application/json" });
        res.end(JSON.stringify(b));
      };
      if (req.headers.authorization !== `Bearer ${TOKEN}`) return send(401, { message: "Unauthorized" });
      if (req.method === "POST") {
        creates++;
        if (refuse.includes(creates)) return send(422, { message: "Job.batch is invalid" });
        const made = { ...body, metadata: { ...body.metadata, uid: `uid-${creates}` }, status: {} };
        jobs.set(body.metadata.name, made);
        // A negative entry: that create is answered without the Job's uid (the Job has one).
        return send(201, refuse.includes(-creates) ? body : made);
      }
      const job = /\/jobs\/([^/]+)$/.exec(req.url ?? "");
      if (job) return jobs.has(job[1] ?? "") ? send(200, jobs.get(job[1] ?? "")) : send(404, {});
      send(200, { metadata: { resourceVersion: "1" }, items: [] });
    });
  });
  servers.push(server);
  await new Promise<void>((r) => server.listen(0, "127.0.0.1", r));
  return { seen, jobs, port: (server.address() as AddressInfo).port };
}

/** A workspace of checkouts `sources`, each with remote origin; `pushed` ones have their HEAD on origin/main. */
function workspace(sources: string[], pushed: string[]): { root: string; heads: Record<string, string> } {
  const root = makeRoot(sources);
  dirs.push(root);
  const heads: Record<string, string> = {};
  for (const s of sources) {
    const p = join(root, s);
    git(p, "remote", "add", "origin", SECRET_URL.replace("api", s));
    heads[s] = git(p, "rev-parse", "HEAD");
    if (pushed.includes(s)) git(p, "update-ref", "refs/remotes/origin/main", heads[s]);
  }
  return { root, heads };
}

/** Ports over `root`: a fixed clock and counting random bytes (0, 1, 2, ... for each draw). */
function portsOf(root: string, env: Record<string, string> = {}): Ports {
  let n = 0;
  const home = tempDir("ariel-k8s-spawn-home-");
  dirs.push(home);
  return hostPorts({
    env: { PATH: process.env.PATH, ...GIT_TEST_ENV, ARIEL_STATE_HOME: home, HOME: home, ...env },
    cwd: root,
    clock: { now: () => T0 },
    random: { bytes: (k: number) => new Uint8Array(k).fill(++n - 1) },
  });
}

function recorder(): { warnings: unknown[][]; io: DetachIo } {
  const warnings: unknown[][] = [];
  const log = {
    warn: (...a: unknown[]) => void warnings.push(a),
    info: () => {},
  } as unknown as Reporter;
  return { warnings, io: { log, stderrTerminal: false } };
}

function request(root: string, over: Partial<K8sSpawnRequest> = {}): K8sSpawnRequest {
  return {
    workspaceRoot: root,
    targets: [{ kind: "name", name: "api", origin: "--source" }],
    argv: ["agent", "--go"],
    dryRun: true,
    name: "fix",
    restart: RESTART,
    timeoutMs: null,
    graceMs: 5000,
    settings: { image: "ghcr.io/acme/agent:1.2", namespace: "agents" },
    ...over,
  };
}

const source = (name: string) => ({ kind: "name" as const, name, origin: "--source" });

describe("planK8sJobs", () => {
  it("one Job per source: facts, manifests and plans; a warning for a base not pushed", async () => {
    const { root, heads } = workspace(["api", "web"], ["api"]);
    const { warnings, io } = recorder();
    const got = await planK8sJobs(
      portsOf(root),
      request(root, { targets: [source("api"), source("web")] }),
      io,
    );
    const hash = await workspaceHash(root);
    const options = resolveK8sOptions({ image: "ghcr.io/acme/agent:1.2", namespace: "agents" }, {});
    const task = got.planned[0]?.plan.facts.task ?? "";
    expect([task.startsWith("fix-"), task.length, got.kubeconfig, got.ws.root]).toEqual([
      true,
      10,
      undefined,
      root,
    ]);
    const expected = ["api", "web"].map((s, i) => {
      const facts: JobFacts = {
        runId: id(i + 2),
        name: `fix@${s}`,
        workspaceHash: hash,
        task,
        source: s,
        remote: `https://git.example.com/acme/${s}.git`,
        base: heads[s] ?? "",
        branch: `ariel/${task}`,
        argv: ["agent", "--go"],
        restart: RESTART,
        timeoutMs: null,
        graceMs: 5000,
      };
      const job = planJob(facts, options);
      return {
        runId: id(i + 2),
        name: `fix@${s}`,
        source: s,
        cwd: join(root, s),
        job,
        plan: { v: 1, facts, options },
      };
    });
    expect(got.planned).toEqual(expected);
    expect(warnings).toEqual([
      [
        "WARN_BASE_NOT_PUSHED",
        `base ${heads.web?.slice(0, 12)} of "web" is on no branch of origin that this checkout knows: the pod may not find it`,
        { source: "web", base: heads.web },
      ],
    ]);
  });
});

describe("planK8sJobs: task, branch, name and kubeconfig", () => {
  // --task and --branch as given; one source keeps the name; no name: task "run-…".
  it.each([
    ["--task and --branch", { taskId: "t1", branch: "feat/x" }, "t1", "feat/x", "fix"],
    ["no name", { name: null }, "run-", "ariel/run-", null],
    ["a name with nothing to slug", { name: "!!!" }, "task-", "ariel/task-", "!!!"],
  ])("%s", async (_what, over, task, branch, name) => {
    const { root } = workspace(["api"], ["api"]);
    const { warnings, io } = recorder();
    const got = await planK8sJobs(portsOf(root), request(root, over), io);
    const facts = got.planned[0]?.plan.facts;
    expect([
      facts?.task.slice(0, task.length),
      facts?.branch.slice(0, branch.length),
      facts?.name,
      warnings,
    ]).toEqual([task, branch, name, []]);
    expect(facts?.branch).toBe("branch" in over ? branch : `ariel/${facts?.task}`);
    expect(got.planned[0]?.job.metadata.annotations["ariel.dev/task"]).toBe(facts?.task);
  });

  // The kubeconfig: the flag's, else config k8s.kubeconfig; config fills what flags leave out.
  it.each([
    ["the flag", { image: "a:1", kubeconfig: "/flag/kc" }, "/flag/kc", "a:1"],
    ["config", {}, "/config/kc", "cfg:2"],
  ])("kubeconfig from %s", async (_what, settings, kubeconfig, image) => {
    const { root } = workspace(["api"], ["api"]);
    writeFile(
      join(root, "ariel.config.json"),
      JSON.stringify({ k8s: { kubeconfig: "/config/kc", image: "cfg:2" } }),
    );
    const got = await planK8sJobs(portsOf(root), request(root, { settings }), recorder().io);
    expect([got.kubeconfig, got.planned[0]?.plan.options.image]).toEqual([kubeconfig, image]);
  });
});

describe("planK8sJobs: refusals", () => {
  it("the workspace root that is not a checkout: ERR_NOT_A_CHECKOUT", async () => {
    const { root } = workspace(["api"], ["api"]);
    const e = await arielErrorOf(planK8sJobs(portsOf(root), request(root, { targets: [] }), recorder().io));
    expect([e.code, e.message, e.hint, e.exit, e.context]).toEqual([
      "ERR_NOT_A_CHECKOUT",
      `workspace root ${root} is not a git checkout`,
      "--backend k8s clones a source's remote; name sources with --source",
      66,
      { source: ".", path: root },
    ]);
  });
});

/** A kubeconfig for the fake API at `port` in `root` (relative name `kc`). */
function kubeconfigIn(root: string, port: number): string {
  const f = join(root, "kc");
  writeKubeconfig(f, port, TOKEN);
  return f;
}

const events = (root: string, runId: string) => historyOf(root, runId).map((e) => e.event);

/** The record of run `runId` (task t1, named fix) started by startK8s with Job `job`, uid-1. */
function startedRecord(root: string, hash: string, runId: string, job: string, kubeconfig: string) {
  return {
    v: 1,
    type: "run",
    runId,
    name: "fix",
    group: id(2),
    backend: "k8s",
    workspace: { root, hash },
    source: "api",
    cwd: join(root, "api"),
    task: "t1",
    worktree: null,
    branch: "ariel/t1",
    argv: ["agent", "--go"],
    createdAt: AT,
    startedAt: null,
    endedAt: null,
    monitor: null,
    child: null,
    restart: { policy: "no", max: 0, count: 0 },
    respawnOf: null,
    exit: null,
    timeoutMs: null,
    graceMs: 5000,
    onExit: null,
    interactive: false,
    isolate: null,
    kill: null,
    worktreeOutcome: null,
    k8s: { namespace: "agents", job, uid: "uid-1", kubeconfig },
  };
}

describe("startK8s", () => {
  it("a dry run only plans: no request, nothing written", async () => {
    const { root } = workspace(["api"], ["api"]);
    const api = await fakeApi();
    kubeconfigIn(root, api.port);
    const r = await startK8s(
      portsOf(root),
      request(root, { settings: { image: "a:1", kubeconfig: "kc" } }),
      recorder().io,
    );
    expect([r.kind, api.seen, existsSync(join(root, ".ariel/runs"))]).toEqual(["plan", [], false]);
  });

  it("records each run, posts its Job, records the uid: the views of the runs started", async () => {
    const { root } = workspace(["api"], ["api"]);
    const api = await fakeApi();
    const kc = kubeconfigIn(root, api.port);
    const ports = portsOf(root);
    const req = request(root, {
      dryRun: false,
      taskId: "t1",
      settings: { image: "a:1", namespace: "agents", kubeconfig: "kc" },
    });
    const { planned } = await planK8sJobs(portsOf(root), req, recorder().io);
    const r = await startK8s(ports, req, recorder().io);
    const runId = id(1);
    const rec = readRunSync(root, runId);
    expect(r).toEqual({
      kind: "started",
      views: [{ record: rec, exit: null, state: "starting" }],
      failure: null,
    });
    const job = planned[0]?.job;
    expect(api.seen).toEqual([
      { method: "POST", url: "/apis/batch/v1/namespaces/agents/jobs", body: job },
      { method: "GET", url: `/apis/batch/v1/namespaces/agents/jobs/${job?.metadata.name}`, body: null },
      {
        method: "GET",
        url: `/api/v1/namespaces/agents/pods?labelSelector=ariel.dev%2Frun%3D${runId}`,
        body: null,
      },
    ]);
    const { version: _v, fencingToken: _t, ...fields } = rec;
    expect(fields).toEqual(
      startedRecord(root, await workspaceHash(root), runId, String(job?.metadata.name), kc),
    );
    expect([events(root, runId), JSON.parse(readFileSync(runPaths(root, runId).job, "utf8"))]).toEqual([
      ["run.started"],
      planned[0]?.plan,
    ]);
  });
});

describe("startK8s: a Job not made", () => {
  // The second Job refused: the first run is real and returned; the second ends failed.
  it("a Job the API refuses: the runs before it are returned, that run ends failed, the error says so", async () => {
    const { root } = workspace(["api", "web", "zed"], ["api", "web", "zed"]);
    const api = await fakeApi([2]);
    kubeconfigIn(root, api.port);
    const req = request(root, {
      dryRun: false,
      targets: [source("api"), source("web"), source("zed")],
      settings: { image: "a:1", kubeconfig: "kc" },
    });
    const r = await startK8s(portsOf(root), req, recorder().io);
    if (r.kind !== "started") throw new Error(r.kind);
    const e = r.failure as ArielError;
    expect([
      r.views.map((v) => [v.record.runId, v.state]),
      e instanceof ArielError,
      e.code,
      e.message,
      e.hint,
      e.context,
    ]).toEqual([
      [[id(2), "starting"]],
      true,
      "ERR_REFUSED",
      "Kubernetes API: create Job failed with HTTP 422: Job.batch is invalid",
      `run ${id(3)} is recorded as failed (ariel-runs list --all); no Job was created`,
      { runId: id(3) },
    ]);
    const failed = readRunSync(root, id(3));
    const task = JSON.parse(readFileSync(runPaths(root, id(3)).job, "utf8")).facts.task;
    expect([failed.exit?.state, failed.exit?.reason, failed.k8s?.uid, events(root, id(3))]).toEqual([
      "failed",
      "job-not-created",
      "",
      ["run.finished"],
    ]);
    expect([failed.task, failed.branch, task.slice(0, 4)]).toEqual([task, `ariel/${task}`, "fix-"]);
    expect([
      api.seen.filter((s) => s.method === "POST").length,
      existsSync(runPaths(root, id(4)).dir),
    ]).toEqual([2, false]);
  });
});

describe("startK8s: an answer without a uid, no answer", () => {
  // Its view, read at the end of the start, adopts the Job by name and label: uid and run.started once.
  it("a created Job answered without its uid: adopted by its view, run.started once", async () => {
    const { root } = workspace(["api"], ["api"]);
    const api = await fakeApi([-1]);
    kubeconfigIn(root, api.port);
    const req = request(root, { dryRun: false, settings: { image: "a:1", kubeconfig: "kc" } });
    const r = await startK8s(portsOf(root), req, recorder().io);
    const rec = readRunSync(root, id(2));
    expect([r.kind, rec.k8s?.uid, rec.exit, events(root, id(2))]).toEqual([
      "started",
      "uid-1",
      null,
      ["run.started"],
    ]);
  });

  // No answer: the Job may exist; the run stays pending (its view will tell), the error as it is.
  it("an API that cannot be reached: the run is left pending, the error is the connection's", async () => {
    const { root } = workspace(["api"], ["api"]);
    const api = await fakeApi();
    kubeconfigIn(root, api.port);
    for (const s of servers.splice(0)) await new Promise((r) => s.close(r));
    const r = await startK8s(
      portsOf(root),
      request(root, { dryRun: false, settings: { image: "a:1", kubeconfig: "kc" } }),
      recorder().io,
    );
    if (r.kind !== "started") throw new Error(r.kind);
    const e = r.failure as ArielError;
    const rec = readRunSync(root, id(2));
    expect([r.views, e.code, e.message, e.hint, rec.exit, rec.k8s?.uid, events(root, id(2))]).toEqual([
      [],
      "ERR_BACKEND_UNAVAILABLE",
      `cannot reach the Kubernetes API at http://127.0.0.1:${api.port}: connect ECONNREFUSED 127.0.0.1:${api.port}`,
      "check the cluster and the kubeconfig's server",
      null,
      "",
      [],
    ]);
  });
});

describe("startK8s: the kubeconfig", () => {
  // The kubeconfig is read before anything is written; $KUBECONFIG names it without the flag.
  it("a kubeconfig that cannot be read: ERR_NOINPUT, nothing written", async () => {
    const { root } = workspace(["api"], ["api"]);
    const ports = portsOf(root, { KUBECONFIG: "absent-kc" });
    const e = await arielErrorOf(startK8s(ports, request(root, { dryRun: false }), recorder().io));
    expect([e.code, e.message, existsSync(join(root, ".ariel"))]).toEqual([
      "ERR_NOINPUT",
      `cannot read the kubeconfig ${join(root, "absent-kc")}`,
      false,
    ]);
  });
});
