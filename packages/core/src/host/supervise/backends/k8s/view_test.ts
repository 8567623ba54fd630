import { join } from "node:path";
import { afterEach, beforeEach, describe, expect, it, vi } from "vitest";
import { arielErrorOf } from "../../../../_fixture.ts";
import { workspaceHash } from "../../../../hash.ts";
import type { RunRecord } from "../../../../runs/record.ts";
import { removeDir, tempDir } from "../../../_fixture.ts";
import { readRunSync } from "../../../runs/store.ts";
import { viewRun } from "../../../runs/view.ts";
import { apiServers, historyOf, type Obj, recordK8sRun, writeKubeconfig } from "./_k8s_fixture.ts";
import { KubeClient } from "./client.ts";
import { podsOf, refOf, viewK8sRun } from "./view.ts";

const TOKEN = "v1ew-t0ken";
const NOW = "2026-12-02T12:00:00.000Z";
const RUN = "20261202T110943Z-aaaaaa";
const JOB = "ariel-20261202t110943z-aaaaaa";
const SELECTOR = "labelSelector=ariel.dev%2Frun%3D20261202T110943Z-aaaaaa";

/** A fake API: Jobs by name, pods (all of them listed), every request as `METHOD url`. */
async function fakeApi() {
  const jobs = new Map<string, Obj>();
  const pods: Obj[] = [];
  const seen: string[] = [];
  const port = await apis.listen((req, res) => {
    seen.push(`${req.method} ${req.url}`);
    const send = (status: number, body: unknown) => {
      res.writeHead(status, { "content-type": "application/json" });
      res.end(JSON.stringify(body));
    };
    if (req.headers.authorization !== `Bearer ${TOKEN}`) return send(401, { message: "Unauthorized" });
    const url = new URL(req.url ?? "/", "http://x");
    const job = /^\/apis\/batch\/v1\/namespaces\/agents\/jobs\/([^/]+)$/.exec(url.pathname);
    if (job && req.method === "GET") {
      const j = jobs.get(job[1] ?? "");
      return j ? send(200, j) : send(404, { message: "not found" });
    }
    if (url.pathname === "/api/v1/namespaces/agents/pods") {
      return send(200, { metadata: { resourceVersion: "9" }, items: pods });
    }
    send(404, { message: "no route" });
  });
  return { jobs, pods, seen, port };
}

const apis = apiServers();
let root = "";
let api: Awaited<ReturnType<typeof fakeApi>>;
let kubeconfig = "";
let hash = "";

beforeEach(async () => {
  vi.useFakeTimers({ toFake: ["Date"] });
  vi.setSystemTime(new Date(NOW));
  root = tempDir("ariel-k8s-view-");
  hash = await workspaceHash(root);
  api = await fakeApi();
  kubeconfig = join(root, "kubeconfig");
  writeKubeconfig(kubeconfig, api.port, TOKEN);
});
afterEach(async () => {
  vi.useRealTimers();
  await apis.closeAll();
  removeDir(root);
});

/** Record run RUN on the k8s backend (its Job's uid `uid`), not started; `more` for the rest. */
const record = (uid: string, more: Partial<RunRecord> = {}) =>
  recordK8sRun({ root, hash }, RUN, { job: JOB, uid, kubeconfig }, { startedAt: null, ...more });

function job(uid: string, condition?: [string, string?], run = RUN): Obj {
  return {
    metadata: { name: JOB, uid, labels: { "ariel.dev/run": run } },
    status: condition
      ? {
          conditions: [
            { type: condition[0], status: "True", ...(condition[1] ? { reason: condition[1] } : {}) },
          ],
        }
      : {},
  };
}

function pod(name: string, phase: string, run: Record<string, unknown> | null = null, reason?: string): Obj {
  return {
    metadata: { name, creationTimestamp: `2026-12-02T10:0${name.at(-1)}:00Z` },
    status: { phase, ...(reason ? { reason } : {}), containerStatuses: run ? [{ name: "run", ...run }] : [] },
  };
}

const history = () => historyOf(root, RUN);

const GET_JOB = `GET /apis/batch/v1/namespaces/agents/jobs/${JOB}`;
const LIST = `GET /api/v1/namespaces/agents/pods?${SELECTOR}`;

const finished = (fields: Record<string, unknown>) => ({
  v: 1,
  type: "event",
  event: "run.finished",
  runId: RUN,
  ts: NOW,
  source: null,
  signal: null,
  ...fields,
});

describe("refOf and podsOf", () => {
  it("refOf: the record's Job; a k8s run without one is ERR_RECORD_CORRUPT", async () => {
    const r = await record("u1");
    expect(refOf(r)).toEqual({ namespace: "agents", job: JOB, uid: "u1", kubeconfig });
    const { k8s: _k, ...bare } = r;
    const e = await arielErrorOf(Promise.resolve().then(() => refOf(bare as RunRecord)));
    expect([e.code, e.message, e.exit]).toEqual([
      "ERR_RECORD_CORRUPT",
      `run ${RUN} is a k8s run without its Job in run.json`,
      65,
    ]);
  });

  it("podsOf lists the pods by the run's label in the Job's namespace", async () => {
    const r = await record("u1");
    api.pods.push(pod("p1", "Running"));
    const c = new KubeClient({
      server: `http://127.0.0.1:${api.port}`,
      ca: null,
      insecure: false,
      token: TOKEN,
      cert: null,
      key: null,
      namespace: null,
    });
    expect(await podsOf(c, r)).toEqual([pod("p1", "Running")]);
    expect(api.seen).toEqual([LIST]);
  });
});

describe("viewK8sRun: nothing final yet", () => {
  // Recorded end: run.json alone, no request.
  it("a run whose end is recorded is read from run.json without asking the API", async () => {
    const exit = { code: 0, signal: null, status: 0, endedAt: NOW, state: "exited" as const, reason: null };
    await record("u1", { exit, endedAt: NOW });
    const view = await viewK8sRun(root, RUN);
    expect([view, api.seen]).toEqual([viewRun(root, RUN), []]);
    expect(view.state).toBe("exited");
  });

  it.each([
    ["a Job gone", null, "lost", [GET_JOB]],
    ["a Job of that name but another uid", job("u2"), "lost", [GET_JOB]],
    ["the Job, no pod yet", job("u1"), "starting", [GET_JOB, LIST]],
  ])("%s: %s", async (_what, found, state, requests) => {
    const before = await record("u1");
    if (found) api.jobs.set(JOB, found);
    const view = await viewK8sRun(root, RUN);
    expect([view, api.seen, history()]).toEqual([{ record: before, exit: null, state }, requests, []]);
  });
});

describe("viewK8sRun: running, and pending runs", () => {
  // Its first running view records startedAt; later ones change nothing.
  it("running: startedAt recorded once", async () => {
    await record("u1");
    api.jobs.set(JOB, job("u1"));
    api.pods.push(pod("p1", "Running"));
    const first = await viewK8sRun(root, RUN);
    expect(first).toEqual({ record: readRunSync(root, RUN), exit: null, state: "running" });
    expect([first.record.startedAt, first.record.version]).toEqual([NOW, 2]);
    vi.setSystemTime(new Date("2026-12-02T13:00:00.000Z"));
    const again = await viewK8sRun(root, RUN);
    expect([again, readRunSync(root, RUN).version, history()]).toEqual([
      { record: first.record, exit: null, state: "running" },
      2,
      [],
    ]);
  });

  // Spawn stopped before recording the uid: the Job with the run's name and label is adopted.
  it("a pending run (no uid) adopts the Job that carries its run label", async () => {
    await record("");
    api.jobs.set(JOB, job("uid-7"));
    api.pods.push(pod("p1", "Pending"));
    const view = await viewK8sRun(root, RUN);
    expect([view.state, view.record.k8s, api.seen]).toEqual([
      "starting",
      { namespace: "agents", job: JOB, uid: "uid-7", kubeconfig },
      [GET_JOB, LIST],
    ]);
    expect(history().map((e) => [e.event, e.job])).toEqual([
      ["run.started", { namespace: "agents", name: JOB, uid: "uid-7" }],
    ]);
  });

  it("a pending run does not adopt a Job of another run", async () => {
    const before = await record("");
    api.jobs.set(JOB, job("uid-7", undefined, "20261202T110943Z-bbbbbb"));
    const view = await viewK8sRun(root, RUN);
    expect([view, api.seen, history()]).toEqual([
      { record: before, exit: null, state: "lost" },
      [GET_JOB],
      [],
    ]);
  });
});

describe("viewK8sRun: a final state seen for the first time", () => {
  it.each([
    [
      "Complete, exit 0",
      job("u1", ["Complete"]),
      [pod("p1", "Succeeded", { state: { terminated: { exitCode: 0 } } })],
      { code: 0, status: 0, state: "exited", reason: null },
      { state: "exited", status: 0, code: 0, restarts: 0 },
    ],
    [
      "Failed, exit 3 after two restarts",
      job("u1", ["Failed", "BackoffLimitExceeded"]),
      [pod("p1", "Failed", { restartCount: 2, state: { terminated: { exitCode: 3 } } })],
      { code: 3, status: 3, state: "failed", reason: null },
      { state: "failed", status: 3, code: 3, restarts: 2 },
    ],
    [
      "Failed, evicted",
      job("u1", ["Failed"]),
      [pod("p1", "Failed", null, "Evicted")],
      { code: null, status: 137, state: "failed", reason: "Evicted" },
      { state: "failed", status: 137, code: null, reason: "Evicted", restarts: 0 },
    ],
    [
      "DeadlineExceeded (--timeout)",
      job("u1", ["Failed", "DeadlineExceeded"]),
      [],
      { code: null, status: 137, state: "killed", reason: null },
      { state: "killed", status: 137, code: null, restarts: 0 },
    ],
  ])("%s", async (_what, found, pods, exit, event) => {
    await record("u1");
    api.jobs.set(JOB, found);
    api.pods.push(...pods);
    const view = await viewK8sRun(root, RUN);
    const rec = readRunSync(root, RUN);
    expect([view, api.seen]).toEqual([viewRun(root, RUN), [GET_JOB, LIST]]);
    expect([rec.startedAt, rec.endedAt, rec.exit, view.state]).toEqual([
      NOW,
      NOW,
      { ...exit, signal: null, endedAt: NOW },
      exit.state,
    ]);
    expect(history()).toEqual([finished(event)]);
  });
});

describe("viewK8sRun: an end seen by a kill or by another view", () => {
  // Killed: the Job deleted after ariel-runs kill; the reason is the kill's; startedAt kept.
  it("a killed run whose Job is gone: killed, 137, the kill's reason", async () => {
    const kill = { requestedAt: NOW, signal: "SIGTERM", reason: "respawn" as const };
    await record("u1", { kill, startedAt: "2026-12-02T11:00:00.000Z" });
    const view = await viewK8sRun(root, RUN);
    const rec = readRunSync(root, RUN);
    expect([view.state, rec.startedAt, rec.endedAt, rec.exit, api.seen]).toEqual([
      "killed",
      "2026-12-02T11:00:00.000Z",
      NOW,
      { code: null, signal: null, status: 137, endedAt: NOW, state: "killed", reason: "respawn" },
      [GET_JOB],
    ]);
    expect(history()).toEqual([
      finished({ state: "killed", status: 137, code: null, reason: "respawn", restarts: 0 }),
    ]);
  });

  // A reader that read the record before another one recorded the end: nothing written twice.
  it("an end recorded meanwhile by another view is kept, with one run.finished", async () => {
    const stale = await record("u1");
    api.jobs.set(JOB, job("u1", ["Complete"]));
    await viewK8sRun(root, RUN);
    vi.setSystemTime(new Date("2026-12-02T13:00:00.000Z"));
    const view = await viewK8sRun(root, RUN, stale);
    expect([view, api.seen.length, readRunSync(root, RUN).endedAt]).toEqual([viewRun(root, RUN), 4, NOW]);
    expect(history()).toEqual([finished({ state: "exited", status: 1, code: null, restarts: 0 })]);
  });
});
