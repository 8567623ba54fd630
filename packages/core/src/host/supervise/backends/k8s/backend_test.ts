/**
 * The k8s backend's small parts against a small API server on 127.0.0.1, with run records in a
 * temp workspace: k8sBackend's operations (each reaches its function), kill (delete with
 * propagation Background only the Job that is the run's), groupAlive by state, no input,
 * the pod watch that ends a wait (an event, the time, an abort; an API down only waits), and
 * respawn (checked first; the new run recorded, its Job posted from the old plan, or refused).
 */
import { getEventListeners } from "node:events";
import { existsSync, readFileSync, writeFileSync } from "node:fs";
import type { ServerResponse } from "node:http";
import { join } from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { arielErrorOf } from "../../../../_fixture.ts";
import { workspaceHash } from "../../../../hash.ts";
import { respawnJob } from "../../../../k8s/job.ts";
import type { RunView } from "../../../../runs/backend.ts";
import { runPaths } from "../../../../runs/paths.ts";
import type { RunRecord } from "../../../../runs/record.ts";
import type { RunState } from "../../../../runs/state.ts";
import { removeDir, tempDir } from "../../../_fixture.ts";
import { runFields } from "../../../runs/_fixture.ts";
import { readRunSync } from "../../../runs/store.ts";
import {
  apiServers,
  historyOf,
  type Obj,
  JOB_PLAN as PLAN,
  recordK8sRun,
  sendJson,
  writeKubeconfig,
} from "./_k8s_fixture.ts";
import { k8sBackend } from "./backend.ts";
import { sendK8sInput } from "./input.ts";
import { k8sGroupAlive, signalK8s } from "./kill.ts";
import { prepareK8sRespawn } from "./start.ts";
import { viewK8sRun } from "./view.ts";
import { k8sChanges } from "./watch.ts";

const TOKEN = "b4ckend-t0ken";
const RUN = "20261202T110943Z-aaaaaa";
const JOB = "ariel-20261202t110943z-aaaaaa";
const NEW = "20261202T120000Z-bbbbbb";
const NEW_JOB = "ariel-20261202t120000z-bbbbbb";

interface Cluster {
  jobs: Map<string, Obj>;
  pods: Obj[];
  log: string;
  /** DELETE answers 404 (the Job went meanwhile); POST answers this status when set. */
  deleteGone: boolean;
  refuseCreate: number | null;
  /** A created Job comes back without its uid. */
  noUid: boolean;
  /** A pod watch sends one event at once. */
  watchEvent: boolean;
  seen: { method: string; url: string; body: unknown }[];
  watchesClosed: number;
  port: number;
}

const apis = apiServers();
let root = "";
let hash = "";
let kubeconfig = "";
let api: Cluster;

function route(c: Cluster, method: string, url: URL, body: Obj | null, res: ServerResponse) {
  const job = /^\/apis\/batch\/v1\/namespaces\/agents\/jobs(?:\/([^/]+))?$/.exec(url.pathname);
  if (job && method === "POST" && body) {
    if (c.refuseCreate !== null) return sendJson(res, c.refuseCreate, { message: "Job.batch is invalid" });
    const made = { ...body, metadata: { ...body.metadata, uid: "uid-new" } };
    c.jobs.set(String(body.metadata.name), made);
    return sendJson(res, 201, c.noUid ? body : made);
  }
  if (job?.[1] && method === "GET") {
    const j = c.jobs.get(job[1]);
    return j ? sendJson(res, 200, j) : sendJson(res, 404, { message: "not found" });
  }
  if (job?.[1] && method === "DELETE") {
    if (c.deleteGone || !c.jobs.delete(job[1])) return sendJson(res, 404, { message: "not found" });
    return sendJson(res, 200, {});
  }
  if (url.pathname.endsWith("/log")) {
    res.writeHead(200, { "content-type": "text/plain" });
    return res.end(url.searchParams.get("timestamps") ? `2026-12-02T10:00:00Z ${c.log}` : c.log);
  }
  if (url.searchParams.get("watch") === "1") {
    res.writeHead(200, { "content-type": "application/json" });
    res.on("close", () => c.watchesClosed++);
    if (c.watchEvent)
      res.write(
        `${JSON.stringify({ type: "ADDED", object: { metadata: { name: "p1", resourceVersion: "8" } } })}\n`,
      );
    return;
  }
  sendJson(res, 200, { metadata: { resourceVersion: "7" }, items: c.pods });
}

async function fakeApi(): Promise<Cluster> {
  const c: Cluster = {
    jobs: new Map(),
    pods: [],
    log: "",
    deleteGone: false,
    refuseCreate: null,
    noUid: false,
    watchEvent: false,
    seen: [],
    watchesClosed: 0,
    port: 0,
  };
  c.port = await apis.listen((req, res) => {
    let text = "";
    req.on("data", (b: Buffer) => {
      text += b.toString();
    });
    req.on("end", () => {
      const body = text === "" ? null : (JSON.parse(text) as Obj);
      c.seen.push({ method: req.method ?? "", url: req.url ?? "", body });
      if (req.headers.authorization !== `Bearer ${TOKEN}`)
        return sendJson(res, 401, { message: "Unauthorized" });
      route(c, req.method ?? "", new URL(req.url ?? "/", "http://x"), body, res);
    });
  });
  return c;
}

beforeEach(async () => {
  root = tempDir("ariel-k8s-backend-");
  hash = await workspaceHash(root);
  api = await fakeApi();
  kubeconfig = join(root, "kubeconfig");
  writeKubeconfig(kubeconfig, api.port, TOKEN);
});
afterEach(async () => {
  await apis.closeAll();
  removeDir(root);
});

const record = (more: Partial<RunRecord> = {}) =>
  recordK8sRun({ root, hash }, RUN, { job: JOB, uid: "u1", kubeconfig }, more);

const jobObj = (uid: string): Obj => ({
  metadata: { name: JOB, uid, labels: { "ariel.dev/run": RUN } },
  status: {},
});
const runningPod: Obj = {
  metadata: { name: "p1", creationTimestamp: "2026-12-02T10:01:00Z" },
  status: { phase: "Running" },
};
const view = (rec: RunRecord, state: RunState = "running"): RunView => ({ record: rec, exit: null, state });

/** Resolves with `p`'s value, or "still waiting" after `ms` (a bound, not a timing assert). */
function within<T>(p: Promise<T>, ms = 3000): Promise<T | "still waiting"> {
  let timer: ReturnType<typeof setTimeout> | undefined;
  const bound = new Promise<"still waiting">((r) => {
    timer = setTimeout(() => r("still waiting"), ms);
  });
  return Promise.race([p, bound]).finally(() => clearTimeout(timer));
}

const DELETE = {
  method: "DELETE",
  url: `/apis/batch/v1/namespaces/agents/jobs/${JOB}`,
  body: { kind: "DeleteOptions", apiVersion: "v1", propagationPolicy: "Background" },
};
const GET_JOB = { method: "GET", url: `/apis/batch/v1/namespaces/agents/jobs/${JOB}`, body: null };
const LIST = {
  method: "GET",
  url: `/api/v1/namespaces/agents/pods?labelSelector=ariel.dev%2Frun%3D${RUN}`,
  body: null,
};

describe("k8sBackend", () => {
  it("each operation reaches the k8s run's function", async () => {
    const rec = await record();
    api.jobs.set(JOB, jobObj("u1"));
    api.pods.push(runningPod);
    api.log = "hi\n";
    const b = k8sBackend(root);
    const got = await b.get(RUN, rec);
    expect(got).toEqual({ record: rec, exit: null, state: "running" });
    const out = await b.readOutput(RUN, "stdout", 1, 10);
    expect([out.start, Buffer.from(out.bytes).toString(), out.size]).toEqual([1, "i\n", 3]);
    expect([await b.groupAlive(got), b.changes]).toEqual([true, k8sChanges]);
    const e = await arielErrorOf(b.sendInput(RUN, new Uint8Array([1])));
    expect([e.code, e.message, e.exit]).toEqual([
      "ERR_REFUSED",
      `run ${RUN} runs on Kubernetes: it takes no input`,
      3,
    ]);
    const writes: [number, string][] = [];
    const ac = new AbortController();
    const followed = b.followOutput?.(
      RUN,
      "stdout",
      0,
      (s, bytes) => {
        writes.push([s, Buffer.from(bytes).toString()]);
        ac.abort();
      },
      ac.signal,
    );
    expect([await within(followed ?? Promise.resolve(false)), writes]).toEqual([true, [[0, "hi\n"]]]);
    writeFileSync(runPaths(root, RUN).job, JSON.stringify(PLAN));
    expect(typeof (await b.prepareRespawn?.(rec))).toBe("function");
    expect(await b.signal(got, "SIGTERM")).toBe("sent");
    expect(api.seen.at(-1)).toEqual(DELETE);
  });
});

describe("signalK8s and k8sGroupAlive", () => {
  it.each([
    ["the run's Job: deleted, propagation Background", "u1", false, "sent", [GET_JOB, DELETE]],
    ["a Job gone: nothing deleted", null, false, "gone", [GET_JOB]],
    ["a Job of that name that is not the run's: left alone", "u2", false, "gone", [GET_JOB]],
    ["the Job going as it is deleted", "u1", true, "gone", [GET_JOB, DELETE]],
  ])("%s", async (_what, uid, deleteGone, want, requests) => {
    const rec = await record();
    if (uid) api.jobs.set(JOB, jobObj(uid));
    api.deleteGone = deleteGone;
    expect([await signalK8s(view(rec)), api.seen]).toEqual([want, requests]);
  });

  it.each([
    ["starting", true],
    ["running", true],
    ["exited", false],
    ["failed", false],
    ["killed", false],
    ["lost", false],
    ["crashed", false],
  ] as const)("%s: alive %s", async (state, alive) => {
    expect(k8sGroupAlive(view(await record(), state))).toBe(alive);
  });

  it("sendK8sInput refuses", async () => {
    const e = await arielErrorOf(sendK8sInput("R1"));
    expect([e.code, e.message, e.hint]).toEqual([
      "ERR_REFUSED",
      "run R1 runs on Kubernetes: it takes no input",
      "nothing was changed",
    ]);
  });
});

describe("k8sChanges", () => {
  const WATCH = {
    method: "GET",
    url: `/api/v1/namespaces/agents/pods?watch=1&allowWatchBookmarks=true&labelSelector=ariel.dev%2Frun%3D${RUN}&resourceVersion=7`,
    body: null,
  };

  it("a pod event of a k8s run ends the wait; the watch is closed", async () => {
    const rec = await record();
    api.watchEvent = true;
    expect(await within(k8sChanges([view(rec)], 10_000).then(() => "changed"))).toBe("changed");
    for (let i = 0; i < 100 && api.watchesClosed === 0; i++) await new Promise((r) => setTimeout(r, 10));
    expect([api.seen, api.watchesClosed]).toEqual([[LIST, WATCH], 1]);
  });

  it("runs without a Job are only waited for; the signal's listener is removed", async () => {
    const rec = await record({ backend: "local" });
    const { k8s: _k, ...local } = rec;
    const ac = new AbortController();
    expect(await within(k8sChanges([view(local as RunRecord)], 50, ac.signal).then(() => "waited"))).toBe(
      "waited",
    );
    expect([api.seen, getEventListeners(ac.signal, "abort")]).toEqual([[], []]);
  });

  it("an abort ends the wait", async () => {
    const rec = await record();
    const ac = new AbortController();
    const waiting = k8sChanges([view(rec)], 10_000, ac.signal).then(() => "aborted");
    for (let i = 0; i < 200 && api.seen.length < 2; i++) await new Promise((r) => setTimeout(r, 10));
    ac.abort();
    expect([await within(waiting), api.seen]).toEqual(["aborted", [LIST, WATCH]]);
  });

  it("an API that cannot be reached: the wait is the time's", async () => {
    const rec = await record();
    await apis.closeAll();
    expect(await within(k8sChanges([view(rec)], 100).then(() => "waited"))).toBe("waited");
  });
});

/** The new run of a respawn of RUN, as planned. */
const planned = () => runFields({ root, hash }, NEW, { backend: "k8s", respawnOf: RUN, startedAt: null });
const events = () => historyOf(root, NEW).map((e) => e.event);
const NEXT = { ...PLAN, facts: { ...PLAN.facts, runId: NEW } };

async function old(): Promise<RunRecord> {
  const rec = await record();
  writeFileSync(runPaths(root, RUN).job, JSON.stringify(PLAN));
  return rec;
}

describe("prepareK8sRespawn", () => {
  it("the new run is recorded, its Job posted from the old plan under the new id, its uid recorded", async () => {
    const start = await prepareK8sRespawn(root, await old());
    expect(api.seen).toEqual([]);
    await start(planned());
    const rec = readRunSync(root, NEW);
    expect([
      rec.k8s,
      rec.respawnOf,
      JSON.parse(readFileSync(runPaths(root, NEW).job, "utf8")),
      events(),
    ]).toEqual([
      { namespace: "agents", job: NEW_JOB, uid: "uid-new", kubeconfig },
      RUN,
      NEXT,
      ["run.started"],
    ]);
    expect(api.seen).toEqual([
      { method: "POST", url: "/apis/batch/v1/namespaces/agents/jobs", body: respawnJob(PLAN, NEW) },
    ]);
  });

  // An answer without a uid leaves the run pending: its view adopts the Job by name and label,
  // and run.started is recorded then, once.
  it("a created Job answered without its uid: pending until its view adopts it, run.started once", async () => {
    const start = await prepareK8sRespawn(root, await old());
    api.noUid = true;
    await start(planned());
    const rec = readRunSync(root, NEW);
    expect([rec.k8s?.uid, rec.exit, events()]).toEqual(["", null, []]);
    await viewK8sRun(root, NEW);
    await viewK8sRun(root, NEW);
    expect([readRunSync(root, NEW).k8s?.uid, events()]).toEqual(["uid-new", ["run.started"]]);
  });
});

describe("prepareK8sRespawn: a Job not made", () => {
  it("a Job the API refuses: the new run ends failed and the error says so", async () => {
    const start = await prepareK8sRespawn(root, await old());
    api.refuseCreate = 422;
    const e = await arielErrorOf(start(planned()));
    const rec = readRunSync(root, NEW);
    expect([e.code, e.message, e.hint, e.context]).toEqual([
      "ERR_REFUSED",
      "Kubernetes API: create Job failed with HTTP 422: Job.batch is invalid",
      `run ${NEW} is recorded as failed (ariel-runs list --all); no Job was created`,
      { runId: NEW },
    ]);
    expect([rec.exit?.state, rec.exit?.reason, rec.k8s?.uid, events()]).toEqual([
      "failed",
      "job-not-created",
      "",
      ["run.finished"],
    ]);
  });

  it("an API that cannot be reached: the error as it is, the new run left pending", async () => {
    const start = await prepareK8sRespawn(root, await old());
    await apis.closeAll();
    const e = await arielErrorOf(start(planned()));
    const rec = readRunSync(root, NEW);
    expect([e.code, e.hint, rec.exit, rec.k8s?.uid, events()]).toEqual([
      "ERR_BACKEND_UNAVAILABLE",
      "check the cluster and the kubeconfig's server",
      null,
      "",
      [],
    ]);
  });

  it.each([
    ["no job.json", false, "ERR_BACKEND_UNAVAILABLE"],
    ["a kubeconfig that cannot be read", true, "ERR_NOINPUT"],
  ])("refused before anything: %s", async (_what, plan, code) => {
    const rec = await record({
      k8s: { namespace: "agents", job: JOB, uid: "u1", kubeconfig: join(root, "absent") },
    });
    if (plan) writeFileSync(runPaths(root, RUN).job, JSON.stringify(PLAN));
    const e = await arielErrorOf(prepareK8sRespawn(root, rec));
    expect([e.code, api.seen, existsSync(runPaths(root, NEW).dir)]).toEqual([code, [], false]);
  });
});
