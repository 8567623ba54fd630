/**
 * The backend `ariel-runs` uses (dispatch.ts), over a temp workspace holding a local run and a
 * k8s run (its Job on a small API server on 127.0.0.1): each operation goes to the run's own
 * backend by its record; the list is every run newest first by creation, a damaged record or a
 * k8s run that cannot be read is a problem, a run without its record is left out, anything that
 * is not an ArielError fails the list; what a local run lacks (follow, respawn) is false or null.
 */
import { existsSync, mkdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { arielErrorOf } from "../../../_fixture.ts";
import { workspaceHash } from "../../../hash.ts";
import { runPaths } from "../../../runs/paths.ts";
import type { RunRecord } from "../../../runs/record.ts";
import { removeDir, tempDir } from "../../_fixture.ts";
import { runFields } from "../../runs/_fixture.ts";
import { createRun, readRunSync } from "../../runs/store.ts";
import { viewRun } from "../../runs/view.ts";
import { BACKENDS, runsBackend } from "./dispatch.ts";
import { apiServers, sendJson, writeKubeconfig } from "./k8s/_k8s_fixture.ts";
import { k8sBackend } from "./k8s/backend.ts";
import { k8sChanges } from "./k8s/watch.ts";
import { localBackend } from "./local/backend.ts";

const TOKEN = "d1spatch-t0ken";
/** The local run: the newer id, created first. */
const LOCAL = "20261202T130000Z-llllll";
/** The k8s run: an older id, created later (the list sorts by creation). */
const K8S = "20261202T110000Z-kkkkkk";
const JOB = "ariel-20261202t110000z-kkkkkk";
type Obj = Record<string, unknown>;

const apis = apiServers();
let root = "";
let hash = "";
let kubeconfig = "";
let seen: string[] = [];
/** What GET of the Job answers. */
let jobAnswer: Obj | null = null;

beforeEach(async () => {
  seen = [];
  jobAnswer = { metadata: { name: JOB, uid: "u1" }, status: {} };
  const port = await apis.listen((req, res) => {
    seen.push(`${req.method} ${req.url}`);
    if (req.headers.authorization !== `Bearer ${TOKEN}`)
      return sendJson(res, 401, { message: "Unauthorized" });
    const url = new URL(req.url ?? "/", "http://x");
    if (url.pathname.endsWith(`/jobs/${JOB}`)) {
      if (req.method === "DELETE") return sendJson(res, 200, {});
      return jobAnswer ? sendJson(res, 200, jobAnswer) : sendJson(res, 404, {});
    }
    if (url.pathname.endsWith("/log")) {
      res.writeHead(200, { "content-type": "text/plain" });
      return res.end(url.searchParams.get("timestamps") ? "2026-12-02T10:00:00Z pod\n" : "pod\n");
    }
    const pod = {
      metadata: { name: "p1", creationTimestamp: "2026-12-02T10:01:00Z" },
      status: { phase: "Running" },
    };
    sendJson(res, 200, { metadata: { resourceVersion: "7" }, items: [pod] });
  });
  root = tempDir("ariel-dispatch-");
  hash = await workspaceHash(root);
  kubeconfig = join(root, "kubeconfig");
  writeKubeconfig(kubeconfig, port, TOKEN);
});
afterEach(async () => {
  await apis.closeAll();
  removeDir(root);
});

const EXIT = {
  code: 0,
  signal: null,
  status: 0,
  endedAt: "2026-12-02T11:10:00.000Z",
  state: "exited" as const,
  reason: null,
};

async function make(runId: string, more: Partial<RunRecord>): Promise<RunRecord> {
  mkdirSync(runPaths(root, runId).dir, { recursive: true });
  return createRun(root, runFields({ root, hash }, runId, more));
}

/** A local run (ended; its stdout "local\n") and a k8s run (its Job running). */
async function twoRuns(): Promise<{ local: RunRecord; k8s: RunRecord }> {
  const local = await make(LOCAL, { exit: EXIT, endedAt: EXIT.endedAt });
  writeFileSync(runPaths(root, LOCAL).stdout, "local\n");
  const k8s = await make(K8S, {
    backend: "k8s",
    createdAt: "2026-12-02T12:00:00.000Z",
    k8s: { namespace: "agents", job: JOB, uid: "u1", kubeconfig },
  });
  return { local, k8s };
}

const GET_JOB = `GET /apis/batch/v1/namespaces/agents/jobs/${JOB}`;
const LIST = `GET /api/v1/namespaces/agents/pods?labelSelector=ariel.dev%2Frun%3D${K8S}`;

describe("BACKENDS", () => {
  it("local and k8s, by the record's name", () => {
    expect(BACKENDS).toEqual({ local: localBackend, k8s: k8sBackend });
    expect([BACKENDS.local, BACKENDS.k8s]).toEqual([localBackend, k8sBackend]);
  });
});

describe("runsBackend: one run's operations go to its backend", () => {
  it("get, readOutput, groupAlive and signal", async () => {
    const { local, k8s } = await twoRuns();
    const b = runsBackend(root, hash);
    expect([b.name, await b.start([]), b.changes]).toEqual(["local", [], k8sChanges]);
    const lv = await b.get(LOCAL);
    const kv = await b.get(K8S);
    expect([lv, kv, seen]).toEqual([
      viewRun(root, LOCAL),
      { record: k8s, exit: null, state: "running" },
      [GET_JOB, LIST],
    ]);
    expect(lv.record).toEqual(local);
    const text = async (id: string) =>
      Buffer.from((await b.readOutput(id, "stdout", 0, 100)).bytes).toString();
    expect([await text(LOCAL), await text(K8S)]).toEqual(["local\n", "pod\n"]);
    expect([await b.groupAlive(lv), await b.groupAlive(kv)]).toEqual([false, true]);
    seen = [];
    expect([await b.signal(kv, "SIGTERM"), seen]).toEqual([
      "sent",
      [GET_JOB, `DELETE /apis/batch/v1/namespaces/agents/jobs/${JOB}`],
    ]);
  });

  it("sendInput of a k8s run is the k8s backend's refusal", async () => {
    await twoRuns();
    const e = await arielErrorOf(runsBackend(root, hash).sendInput(K8S, new Uint8Array([1])));
    expect([e.code, e.message]).toEqual(["ERR_REFUSED", `run ${K8S} runs on Kubernetes: it takes no input`]);
  });
});

describe("runsBackend: what a backend may lack", () => {
  // A local run has no followOutput here (false) nor prepareRespawn (null); a k8s run has both.
  it("followOutput and prepareRespawn: the backend's, or false and null", async () => {
    const { local, k8s } = await twoRuns();
    jobAnswer = {
      metadata: { name: JOB, uid: "u1" },
      status: { conditions: [{ type: "Complete", status: "True" }] },
    };
    writeFileSync(runPaths(root, K8S).job, "{}");
    const b = runsBackend(root, hash);
    const writes: [number, string][] = [];
    const write = (s: number, bytes: Uint8Array) => writes.push([s, Buffer.from(bytes).toString()]);
    expect([
      await b.followOutput?.(LOCAL, "stdout", 0, write),
      await b.followOutput?.(K8S, "stdout", 0, write),
    ]).toEqual([false, true]);
    expect(writes).toEqual([[0, "pod\n"]]);
    expect(await b.prepareRespawn?.(local)).toBe(null);
    const e = await arielErrorOf(b.prepareRespawn?.(k8s) ?? Promise.resolve());
    expect([e.code, e.message]).toEqual([
      "ERR_RECORD_CORRUPT",
      `run ${K8S}: ${runPaths(root, K8S).job} is not a Job plan`,
    ]);
  });

  it("remove deletes the run's files", async () => {
    await twoRuns();
    await runsBackend(root, hash).remove(LOCAL);
    expect([existsSync(runPaths(root, LOCAL).dir), existsSync(runPaths(root, K8S).dir)]).toEqual([
      false,
      true,
    ]);
  });
});

describe("runsBackend: list", () => {
  it("every run, newest created first; a damaged record or an unreadable k8s run is a problem", async () => {
    const { local, k8s } = await twoRuns();
    const other = await make("20261202T100000Z-bbbbbb", {
      backend: "k8s",
      k8s: { namespace: "agents", job: "ariel-x", uid: "u", kubeconfig: join(root, "absent") },
    });
    mkdirSync(runPaths(root, "20261202T090000Z-cccccc").dir, { recursive: true });
    writeFileSync(runPaths(root, "20261202T090000Z-cccccc").record, "{bad");
    mkdirSync(runPaths(root, "20261202T080000Z-dddddd").dir, { recursive: true });
    expect(await runsBackend(root, hash).list()).toEqual({
      runs: [{ record: k8s, exit: null, state: "running" }, viewRun(root, LOCAL, local)],
      problems: [
        {
          runId: other.runId,
          code: "ERR_NOINPUT",
          message: `cannot read the kubeconfig ${join(root, "absent")}`,
        },
        {
          runId: "20261202T090000Z-cccccc",
          code: "ERR_RECORD_CORRUPT",
          message: `${runPaths(root, "20261202T090000Z-cccccc").record}: not valid JSON`,
        },
      ],
    });
    expect(readRunSync(root, K8S)).toEqual(k8s);
  });

  it("an error that is not ariel's fails the list", async () => {
    await twoRuns();
    jobAnswer = {};
    await expect(runsBackend(root, hash).list()).rejects.toThrow(TypeError);
  });
});
