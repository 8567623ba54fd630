/**
 * A fake Kubernetes API server on 127.0.0.1 for the e2e tests of `--backend k8s`: a bearer token,
 * create/get/delete Job (propagation recorded), list and watch Pods (a watch replays the events
 * after the resourceVersion it asks for, as the real API does; the first watch of each run drops
 * mid-event, by itself or when the test says), and the pod log: whole, or streamed with `follow=true` (`timestamps=true`,
 * `sinceTime` in whole seconds, as the real API), ending when the `run` container terminates and
 * able to drop a stream mid-way. The tests script pods (phases, restarts, evictions) and Job
 * conditions between commands. Also: a workspace with a source whose remote URL holds a secret,
 * and a kubeconfig pointing at the server.
 */
import { readdirSync, readFileSync } from "node:fs";
import { createServer, type Server, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";
import { join } from "node:path";
import { git, initRepo, tempDir, writeFile } from "./git.ts";

export const TOKEN = "fake-bearer-t0ken-e2e";
/** The password in the source's remote URL: printed nowhere, recorded nowhere. */
export const SECRET = "s3cr3t-in-remote";
export const IMAGE = "ghcr.io/acme/agent:1.2";
export const NS = "agents";

export type Obj = Record<string, unknown> & { metadata: Record<string, unknown> & { name: string } };

interface LogLine {
  /** RFC3339Nano, as the kubelet writes it (trailing zeros dropped). */
  ts: string;
  text: string;
}

interface LogFollower {
  pod: string;
  res: ServerResponse;
  /** Lines written to this connection. */
  sent: number;
  timestamps: boolean;
}

export interface FakeKube {
  server: Server;
  port: number;
  jobs: Map<string, Obj>;
  pods: Map<string, Obj>;
  deletes: { name: string; body: unknown }[];
  /** Every request: method, path and query (`GET /apis/batch/v1/namespaces/…`). */
  requests: string[];
  /** Requests without the right token (must stay 0). */
  unauthorized: () => number;
  /** The resourceVersion of the last pod change. */
  rv: () => number;
  /** Every pod watch request: run id and the resourceVersion asked for. */
  watchCalls: { runId: string; rv: string }[];
  /** Every pod event a watch connection delivered: run id, its resourceVersion, the connection's number. */
  delivered: { runId: string; rv: number; watch: number }[];
  /** From now on a run's first watch stays broken (half an event, nothing more) until {@link dropStalled}. */
  stallFirstWatch(on: boolean): void;
  /** Cut the stalled first watches. */
  dropStalled(): void;
  /** Every log request: pod, and its query (follow, timestamps, sinceTime). */
  logCalls: { pod: string; query: string }[];
  /** The next follow connection of `pod` is cut after it sent `lines` lines (once). */
  dropLogAfter(pod: string, lines: number): void;
  /** Append lines to a pod's `run` container log, 250 ms apart; `sameTime` gives them one timestamp. */
  appendLog(pod: string, lines: readonly string[], sameTime?: boolean): void;
  /** A pod of run `runId` (index 1, 2, ... for retries) in `phase`; the run container's state. */
  setPod(runId: string, index: number, phase: string, how?: PodHow): Obj;
  setJobCondition(runId: string, type: "Complete" | "Failed", reason?: string): void;
  podName(runId: string, index: number): string;
  /** The Job name a run id was created with (spawn records it). */
  jobOf(runId: string): string;
  /** Make a failed create: the next POST of a Job is refused with this status. */
  refuseNextCreate(status: number, message: string): void;
  close(): Promise<void>;
}

export interface PodHow {
  exitCode?: number;
  restartCount?: number;
  /** `Evicted`: the pod failed without a terminated container. */
  reason?: string;
}

/** Start the fake API server on an ephemeral port of 127.0.0.1. */
export async function fakeKube(): Promise<FakeKube> {
  const jobs = new Map<string, Obj>();
  const pods = new Map<string, Obj>();
  const logs = new Map<string, LogLine[]>();
  const deletes: { name: string; body: unknown }[] = [];
  const watches: { runId: string; res: ServerResponse; n: number }[] = [];
  const watchCalls: { runId: string; rv: string }[] = [];
  const delivered: { runId: string; rv: number; watch: number }[] = [];
  const events: { runId: string; rv: number; pod: Obj }[] = [];
  const stalled: ServerResponse[] = [];
  let stall = false;
  const logCalls: { pod: string; query: string }[] = [];
  const followers: LogFollower[] = [];
  const drops = new Map<string, number>();
  let refuse: { status: number; message: string } | null = null;
  let unauthorized = 0;
  let uid = 0;
  let rv = 100;
  /** Each pod's log clock: 10:00:00 plus this many milliseconds. */
  const clocks = new Map<string, number>();

  const runOf = (o: Obj) => (o.metadata.labels as Record<string, string>)["ariel.dev/run"];
  const terminated = (pod: string) => {
    const p = pods.get(pod);
    const statuses = ((p?.status as Record<string, unknown> | undefined)?.containerStatuses ?? []) as {
      state?: { terminated?: unknown };
    }[];
    const phase = (p?.status as { phase?: string } | undefined)?.phase;
    return statuses.some((c) => c.state?.terminated) || phase === "Failed" || phase === "Succeeded";
  };
  const line = (l: LogLine, timestamps: boolean) => `${timestamps ? `${l.ts} ` : ""}${l.text}\n`;

  /** Write what a follower has not had yet; cut or end it as scripted. */
  function pump(f: LogFollower): void {
    const all = logs.get(f.pod) ?? [];
    while (f.sent < all.length) {
      f.res.write(line(all[f.sent]!, f.timestamps));
      f.sent++;
      const drop = drops.get(f.pod);
      if (drop !== undefined && f.sent >= drop) {
        drops.delete(f.pod);
        // Half a line more, then the connection goes (no end of the chunked body).
        const next = all[f.sent];
        const cut = next ? line(next, f.timestamps).slice(0, 12) : "";
        f.res.write(cut, () => setTimeout(() => f.res.socket?.destroy(), 50));
        f.sent = Number.POSITIVE_INFINITY; // nothing more on this connection
        return;
      }
    }
    if (f.sent === all.length && terminated(f.pod)) f.res.end();
  }

  const requests: string[] = [];
  const server = createServer((req, res) => {
    const url = new URL(req.url ?? "/", "http://x");
    requests.push(`${req.method} ${url.pathname}${url.search}`);
    const send = (status: number, body: unknown) => {
      res.writeHead(status, { "content-type": "application/json" });
      res.end(JSON.stringify(body));
    };
    if (req.headers.authorization !== `Bearer ${TOKEN}`) {
      unauthorized++;
      return send(401, { message: "Unauthorized" });
    }
    let body = "";
    req.on("data", (c: Buffer) => {
      body += c.toString();
    });
    req.on("end", () => {
      const job = /^\/apis\/batch\/v1\/namespaces\/([^/]+)\/jobs(?:\/([^/]+))?$/.exec(url.pathname);
      if (job && req.method === "POST") {
        if (refuse) {
          const r = refuse;
          refuse = null;
          return send(r.status, { message: r.message });
        }
        const j = JSON.parse(body) as Obj;
        if (jobs.has(j.metadata.name)) return send(409, { message: "already exists" });
        const created = { ...j, metadata: { ...j.metadata, uid: `uid-${++uid}` }, status: {} };
        jobs.set(j.metadata.name, created);
        return send(201, created);
      }
      if (job?.[2] && req.method === "GET") {
        const j = jobs.get(job[2]);
        return j ? send(200, j) : send(404, { message: "not found" });
      }
      if (job?.[2] && req.method === "DELETE") {
        deletes.push({ name: job[2], body: JSON.parse(body) });
        const j = jobs.get(job[2]);
        if (!j) return send(404, { message: "not found" });
        jobs.delete(job[2]);
        for (const [name, p] of pods) if (runOf(p) === runOf(j)) pods.delete(name);
        for (const f of followers.filter((x) => !pods.has(x.pod))) f.res.end();
        return send(200, {});
      }
      const log = /^\/api\/v1\/namespaces\/[^/]+\/pods\/([^/]+)\/log$/.exec(url.pathname);
      if (log?.[1] && req.method === "GET") {
        const pod = log[1];
        logCalls.push({ pod, query: url.search });
        if (!pods.has(pod)) return send(404, { message: `pods "${pod}" not found` });
        const all = logs.get(pod);
        if (all === undefined) return send(400, { message: "container is waiting to start" });
        const timestamps = url.searchParams.get("timestamps") === "true";
        const since = url.searchParams.get("sinceTime");
        const from = since === null ? 0 : all.findIndex((l) => l.ts.slice(0, 19) >= since.slice(0, 19));
        res.writeHead(200, { "content-type": "text/plain" });
        if (url.searchParams.get("follow") !== "true") {
          return res.end(all.map((l) => line(l, timestamps)).join(""));
        }
        const f: LogFollower = { pod, res, sent: from < 0 ? all.length : from, timestamps };
        followers.push(f);
        res.on("close", () => followers.splice(followers.indexOf(f), 1));
        return pump(f);
      }
      if (url.pathname === `/api/v1/namespaces/${NS}/pods` && url.searchParams.get("watch") === "1") {
        const runId = (url.searchParams.get("labelSelector") ?? "").split("=")[1] ?? "";
        const first = !watchCalls.some((c) => c.runId === runId);
        watchCalls.push({ runId, rv: url.searchParams.get("resourceVersion") ?? "" });
        res.writeHead(200, { "content-type": "application/json" });
        if (first) {
          // The first watch of a run drops mid-stream: half an event, then the connection goes.
          if (stall) {
            res.write('{"type":"MODIFIED","object":');
            stalled.push(res);
            return;
          }
          res.write('{"type":"MODIFIED","object":', () => setTimeout(() => res.socket?.destroy(), 50));
          return;
        }
        const w = { runId, res, n: watchCalls.length };
        const since = Number(url.searchParams.get("resourceVersion") ?? "0");
        for (const e of events.filter((x) => x.runId === runId && x.rv > since)) send1(w, e.rv, e.pod);
        watches.push(w);
        res.on("close", () => watches.splice(watches.indexOf(w), 1));
        return;
      }
      if (url.pathname === `/api/v1/namespaces/${NS}/pods` && req.method === "GET") {
        const [k, v] = (url.searchParams.get("labelSelector") ?? "").split("=");
        const items = [...pods.values()].filter(
          (p) => (p.metadata.labels as Record<string, string>)[k ?? ""] === v,
        );
        return send(200, { metadata: { resourceVersion: String(rv) }, items });
      }
      send(404, { message: `no route ${req.method} ${url.pathname}` });
    });
  });
  function send1(w: { runId: string; res: ServerResponse; n: number }, at: number, pod: Obj): void {
    delivered.push({ runId: w.runId, rv: at, watch: w.n });
    w.res.write(`${JSON.stringify({ type: "MODIFIED", object: pod })}\n`);
  }
  await new Promise<void>((r) => server.listen(0, "127.0.0.1", r));
  const port = (server.address() as AddressInfo).port;

  const jobNameOf = (runId: string) => `ariel-${runId.toLowerCase()}`;
  const podName = (runId: string, index: number) => `${jobNameOf(runId)}-pod${index}`;
  return {
    server,
    port,
    jobs,
    pods,
    deletes,
    requests,
    unauthorized: () => unauthorized,
    rv: () => rv,
    watchCalls,
    delivered,
    stallFirstWatch(on) {
      stall = on;
    },
    dropStalled() {
      for (const r of stalled.splice(0)) r.socket?.destroy();
    },
    logCalls,
    podName,
    jobOf: jobNameOf,
    dropLogAfter(pod, lines) {
      drops.set(pod, lines);
    },
    appendLog(pod, lines, sameTime = false) {
      const all = logs.get(pod) ?? [];
      logs.set(pod, all);
      let clockMs = clocks.get(pod) ?? 0;
      for (const [i, text] of lines.entries()) {
        if (!sameTime || i === 0) clockMs += 250;
        const ms = clockMs % 1000;
        const base = new Date(Date.UTC(2026, 11, 2, 10, 0, 0) + clockMs - ms).toISOString().slice(0, 19);
        // RFC3339Nano as the kubelet prints it: nanoseconds without trailing zeros.
        const frac =
          ms === 0
            ? ""
            : `.${String(ms * 1_000_000)
                .padStart(9, "0")
                .replace(/0+$/, "")}`;
        all.push({ ts: `${base}${frac}Z`, text });
      }
      clocks.set(pod, clockMs);
      for (const f of followers.filter((x) => x.pod === pod)) pump(f);
    },
    setPod(runId, index, phase, how = {}) {
      const name = podName(runId, index);
      const terminatedState =
        how.exitCode === undefined ? {} : { state: { terminated: { exitCode: how.exitCode } } };
      const pod: Obj = {
        metadata: {
          name,
          labels: { "ariel.dev/run": runId },
          creationTimestamp: `2026-12-02T10:0${index}:00Z`,
          resourceVersion: String(++rv),
        },
        status: {
          phase,
          ...(how.reason ? { reason: how.reason } : {}),
          containerStatuses:
            how.exitCode === undefined && how.restartCount === undefined
              ? []
              : [{ name: "run", restartCount: how.restartCount ?? 0, ...terminatedState }],
        },
      };
      pods.set(name, pod);
      events.push({ runId, rv, pod });
      for (const w of watches.filter((x) => x.runId === runId)) send1(w, rv, pod);
      for (const f of followers.filter((x) => x.pod === name)) pump(f);
      return pod;
    },
    setJobCondition(runId, type, reason) {
      const j = jobs.get(jobNameOf(runId)) as Obj;
      j.status = { conditions: [{ type, status: "True", ...(reason ? { reason } : {}) }] };
    },
    refuseNextCreate(status, message) {
      refuse = { status, message };
    },
    close: () =>
      new Promise<void>((r) => {
        for (const f of followers) f.res.destroy();
        for (const w of watches) w.res.destroy();
        for (const r of stalled) r.destroy();
        server.close(() => r());
      }),
  };
}

/**
 * A workspace with one source `api` whose remote URL holds {@link SECRET}, and a kubeconfig
 * (bearer {@link TOKEN}) for the fake server at `port`.
 */
export function k8sWorkspace(port: number): { root: string; kubeconfig: string } {
  const root = tempDir("ariel-k8s-");
  initRepo(join(root, "api"));
  git(join(root, "api"), "remote", "add", "origin", `https://bot:${SECRET}@git.example.com/acme/api.git`);
  const kubeconfig = join(root, ".kube/config");
  writeFile(
    kubeconfig,
    [
      "apiVersion: v1",
      "kind: Config",
      "current-context: fake",
      `clusters: [{ name: fake, cluster: { server: "http://127.0.0.1:${port}" } }]`,
      `users: [{ name: bot, user: { token: "${TOKEN}" } }]`,
      "contexts: [{ name: fake, context: { cluster: fake, user: bot, namespace: agents } }]",
      "",
    ].join("\n"),
  );
  return { root, kubeconfig };
}

/** The arguments of `ariel-spawn` that start one k8s run of source `api`. */
export function spawnK8sArgs(name: string, argv: readonly string[], extra: readonly string[] = []): string[] {
  return [
    "--detach",
    "--backend",
    "k8s",
    "--image",
    IMAGE,
    "--namespace",
    NS,
    "--name",
    name,
    "--json",
    "--source",
    "api",
    ...extra,
    "--",
    ...argv,
  ];
}

/**
 * The texts that hold neither the kubeconfig's token nor the remote's secret: each of `texts`
 * and every file under `<root>/.ariel`; returns the offenders (empty when all is well) and how
 * many texts were looked at.
 */
export function credentialLeaks(texts: readonly string[], root: string): { leaks: string[]; looked: number } {
  const all: [string, string][] = texts.map((t, i) => [`output ${i}`, t]);
  for (const f of readdirSync(join(root, ".ariel"), { recursive: true, withFileTypes: true })) {
    if (f.isFile()) all.push([join(f.parentPath, f.name), readFileSync(join(f.parentPath, f.name), "utf8")]);
  }
  const leaks = all.filter(([, t]) => t.includes(TOKEN) || t.includes(SECRET)).map(([name]) => name);
  return { leaks, looked: all.length };
}

/** Resolve once `ok()` holds (looking every 20 ms); throw after `ms`, naming `what`. */
export async function until(what: string, ok: () => boolean, ms = 15_000): Promise<void> {
  for (const deadline = Date.now() + ms; !ok(); ) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 20));
  }
}
