import { join } from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { arielErrorOf } from "../../../../_fixture.ts";
import { workspaceHash } from "../../../../hash.ts";
import type { RunRecord } from "../../../../runs/record.ts";
import { removeDir, tempDir } from "../../../_fixture.ts";
import { readRunSync } from "../../../runs/store.ts";
import { apiServers, type Obj, recordK8sRun, sendJson, writeKubeconfig } from "./_k8s_fixture.ts";
import { followK8sOutput, readK8sOutput } from "./output.ts";

const TOKEN = "0utput-t0ken";
const RUN = "20261202T110943Z-aaaaaa";
const JOB = "ariel-20261202t110943z-aaaaaa";

/** The fake cluster's state, and what it was asked (`METHOD url`). */
interface Cluster {
  job: Obj | null;
  pods: Obj[];
  /** Each pod's log: its text (lines `<ts> <text>`), or an HTTP status to answer. */
  logs: Map<string, string | number>;
  /** What a pod watch does: sends one event after changing the Job's state to this condition. */
  onWatch: string | null;
  seen: string[];
  port: number;
}

const apis = apiServers();
let root = "";
let kubeconfig = "";
let api: Cluster;

/** The log as the API gives it: with timestamps or without. */
function logText(text: string, timestamps: boolean): string {
  return timestamps ? text : text.replace(/^\S+ /gm, "");
}

async function fakeApi(): Promise<Cluster> {
  const c: Cluster = { job: null, pods: [], logs: new Map(), onWatch: null, seen: [], port: 0 };
  c.port = await apis.listen((req, res) => {
    c.seen.push(`${req.method} ${req.url}`);
    if (req.headers.authorization !== `Bearer ${TOKEN}`)
      return sendJson(res, 401, { message: "Unauthorized" });
    const url = new URL(req.url ?? "/", "http://x");
    if (url.pathname === `/apis/batch/v1/namespaces/agents/jobs/${JOB}`) {
      return c.job ? sendJson(res, 200, c.job) : sendJson(res, 404, { message: "not found" });
    }
    const log = /\/pods\/([^/]+)\/log$/.exec(url.pathname);
    if (log) {
      const l = c.logs.get(log[1] ?? "");
      if (l === undefined || typeof l === "number") return sendJson(res, l ?? 404, { message: `log ${l}` });
      res.writeHead(200, { "content-type": "text/plain" });
      const since = url.searchParams.get("sinceTime");
      const text =
        since === null
          ? l
          : l
              .split(/(?<=\n)/)
              .filter((x) => x.slice(0, 19) >= since.slice(0, 19))
              .join("");
      return res.end(logText(text, url.searchParams.get("timestamps") === "true"));
    }
    if (url.searchParams.get("watch") === "1") {
      res.writeHead(200, { "content-type": "application/json" });
      if (c.onWatch !== null && c.job) {
        c.job.status = { conditions: [{ type: c.onWatch, status: "True" }] };
        res.write(
          `${JSON.stringify({ type: "MODIFIED", object: { metadata: { name: "p1", resourceVersion: "8" } } })}\n`,
        );
      }
      return;
    }
    sendJson(res, 200, { metadata: { resourceVersion: "7" }, items: c.pods });
  });
  return c;
}

beforeEach(async () => {
  root = tempDir("ariel-k8s-output-");
  api = await fakeApi();
  kubeconfig = join(root, "kubeconfig");
  writeKubeconfig(kubeconfig, api.port, TOKEN);
});
afterEach(async () => {
  await apis.closeAll();
  removeDir(root);
});

const record = async (more: Partial<RunRecord> = {}) =>
  recordK8sRun({ root, hash: await workspaceHash(root) }, RUN, { job: JOB, uid: "u1", kubeconfig }, more);

const pod = (name: string, phase: string, created: string, exitCode?: number): Obj => ({
  metadata: { name, creationTimestamp: created },
  status: {
    phase,
    containerStatuses: exitCode === undefined ? [] : [{ name: "run", state: { terminated: { exitCode } } }],
  },
});
const runningJob = (): Obj => ({ metadata: { name: JOB, uid: "u1" }, status: {} });

const LIST = `GET /api/v1/namespaces/agents/pods?labelSelector=ariel.dev%2Frun%3D${RUN}`;
const GET_JOB = `GET /apis/batch/v1/namespaces/agents/jobs/${JOB}`;
const LOG = (p: string, q = "") => `GET /api/v1/namespaces/agents/pods/${p}/log?container=run${q}`;
const FOLLOW = "&follow=true&timestamps=true";

/** Resolves with `p`'s value, or "still waiting" after `ms` (a bound, not a timing assert). */
function within<T>(p: Promise<T>, ms = 3000): Promise<T | "still waiting"> {
  let timer: ReturnType<typeof setTimeout> | undefined;
  const bound = new Promise<"still waiting">((r) => {
    timer = setTimeout(() => r("still waiting"), ms);
  });
  return Promise.race([p, bound]).finally(() => clearTimeout(timer));
}

const read = async (...args: Parameters<typeof readK8sOutput>) => {
  const r = await readK8sOutput(...args);
  return { start: r.start, text: Buffer.from(r.bytes).toString(), size: r.size };
};

describe("readK8sOutput", () => {
  it.each([
    [0, 100, { start: 0, text: "hello world\n", size: 12 }],
    [3, 4, { start: 3, text: "lo w", size: 12 }],
    [12, 4, { start: 12, text: "", size: 12 }],
    [100, 4, { start: 12, text: "", size: 12 }],
  ])("from %i, at most %i bytes: the newest pod's log", async (from, max, want) => {
    const rec = await record();
    api.pods.push(pod("p2", "Running", "2026-12-02T10:02:00Z"), pod("p1", "Failed", "2026-12-02T10:01:00Z"));
    api.logs.set("p1", "2026-12-02T10:00:00Z old\n");
    api.logs.set("p2", "2026-12-02T10:00:00Z hello world\n");
    expect([await read(rec, "stdout", from, max), api.seen]).toEqual([want, [LIST, LOG("p2")]]);
  });

  it("stderr is empty and asks nothing (Kubernetes merges the streams)", async () => {
    const { k8s: _k, ...noJob } = await record();
    expect([await read(noJob as RunRecord, "stderr", 7, 10), api.seen]).toEqual([
      { start: 7, text: "", size: 0 },
      [],
    ]);
  });

  it.each([
    ["no pod yet", [], [LIST]],
    ["a container waiting to start (400)", [pod("p1", "Pending", "2026-12-02T10:01:00Z")], [LIST, LOG("p1")]],
  ])("%s: empty", async (_what, pods, requests) => {
    const rec = await record();
    api.pods.push(...pods);
    api.logs.set("p1", 400);
    expect([await read(rec, "stdout", 0, 10), api.seen]).toEqual([{ start: 0, text: "", size: 0 }, requests]);
  });

  it("a log the API forbids (403) fails with ERR_BACKEND_UNAVAILABLE", async () => {
    const rec = await record();
    api.pods.push(pod("p1", "Running", "2026-12-02T10:01:00Z"));
    api.logs.set("p1", 403);
    const e = await arielErrorOf(readK8sOutput(rec, "stdout", 0, 10));
    expect([e.code, e.message]).toEqual([
      "ERR_BACKEND_UNAVAILABLE",
      "Kubernetes API: read pod log failed with HTTP 403: log 403",
    ]);
  });
});

describe("followK8sOutput", () => {
  // The log to its end, then the run's end is recorded by the state read that saw it.
  it("stdout: follows the newest pod's log until the run is final, and records its end", async () => {
    const rec = await record();
    api.job = {
      metadata: { name: JOB, uid: "u1" },
      status: { conditions: [{ type: "Complete", status: "True" }] },
    };
    api.pods.push(pod("p1", "Succeeded", "2026-12-02T10:01:00Z", 0));
    api.logs.set("p1", "2026-12-02T10:00:00.5Z one\n2026-12-02T10:00:01Z two\n");
    const writes: [number, string][] = [];
    const got = await within(
      followK8sOutput(root, rec, "stdout", 2, (seq, b) => writes.push([seq, Buffer.from(b).toString()])),
    );
    expect([got, writes, readRunSync(root, RUN).exit?.state]).toEqual([
      true,
      [
        [2, "e\n"],
        [4, "two\n"],
      ],
      "exited",
    ]);
    expect(api.seen).toEqual([
      LIST,
      LOG("p1", FOLLOW),
      GET_JOB,
      LIST,
      LIST,
      LOG("p1", `${FOLLOW}&sinceTime=2026-12-02T10%3A00%3A01Z`),
    ]);
  });

  // stderr: nothing to write; the state is read, the pod watch waited on, the state read again.
  it("stderr: waits through the pod watch until the run is final, writing nothing", async () => {
    const rec = await record();
    api.job = runningJob();
    api.pods.push(pod("p1", "Running", "2026-12-02T10:01:00Z"));
    api.onWatch = "Failed";
    const writes: unknown[] = [];
    const got = await within(followK8sOutput(root, rec, "stderr", 0, (...w) => writes.push(w)));
    expect([got, writes, readRunSync(root, RUN).exit?.state]).toEqual([true, [], "failed"]);
    expect(api.seen).toEqual([
      GET_JOB,
      LIST,
      LIST,
      `GET /api/v1/namespaces/agents/pods?watch=1&allowWatchBookmarks=true&labelSelector=ariel.dev%2Frun%3D${RUN}&resourceVersion=7`,
      GET_JOB,
      LIST,
    ]);
  });
});

describe("followK8sOutput: nothing to wait for", () => {
  it("stderr of a run whose end is recorded: true at once, nothing asked", async () => {
    const exit = {
      code: 0,
      signal: null,
      status: 0,
      endedAt: "2026-12-02T11:09:45.000Z",
      state: "exited" as const,
      reason: null,
    };
    const rec = await record({ exit });
    expect([await within(followK8sOutput(root, rec, "stderr", 0, () => {})), api.seen]).toEqual([true, []]);
  });

  it.each(["stdout", "stderr"] as const)("%s with an aborted signal: true, nothing asked", async (stream) => {
    const rec = await record();
    api.job = runningJob();
    const writes: unknown[] = [];
    const got = await within(
      followK8sOutput(root, rec, stream, 0, (...w) => writes.push(w), AbortSignal.abort()),
    );
    expect([got, writes, api.seen]).toEqual([true, [], []]);
  });
});
