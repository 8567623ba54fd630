/**
 * The k8s run lifecycle end to end against a fake Kubernetes API on 127.0.0.1 (bearer token,
 * kubeconfig in a temp dir): `ariel-spawn --detach --backend k8s` creates the Job and records it,
 * `ariel-runs list` follows the scripted pod phases, `wait` returns the container's exit code,
 * `logs` prints the pod log, `kill` deletes the Job with propagation Background. Neither the
 * token nor the Secret in the remote URL appears in any output or record.
 */
import { readdirSync, readFileSync } from "node:fs";
import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type CliResult, records, runAriel } from "./helpers/cli.ts";
import { git, initRepo, removeDir, tempDir, writeFile } from "./helpers/git.ts";

const TOKEN = "fake-bearer-t0ken-e2e";
const SECRET = "s3cr3t-in-remote";
const IMAGE = "ghcr.io/acme/agent:1.2";
const NS = "agents";

type Obj = Record<string, unknown> & { metadata: Record<string, unknown> & { name: string } };

/** What the fake cluster holds; the test scripts pods and Job conditions between commands. */
const cluster = {
  jobs: new Map<string, Obj>(),
  pods: new Map<string, Obj>(),
  logs: new Map<string, string>(),
  deletes: [] as { name: string; body: unknown }[],
  unauthorized: 0,
  uid: 0,
  /** The resourceVersion of the last pod change. */
  rv: 100,
  /** Open pod watches, and every watch request (run id, resourceVersion asked for). */
  watches: [] as { runId: string; res: import("node:http").ServerResponse }[],
  watchCalls: [] as { runId: string; rv: string }[],
};

let server: Server;
let root: string;
let kubeconfig: string;
const outputs: string[] = [];

function api(): Server {
  return createServer((req, res) => {
    const url = new URL(req.url ?? "/", "http://x");
    const send = (status: number, body: unknown) => {
      res.writeHead(status, { "content-type": "application/json" });
      res.end(JSON.stringify(body));
    };
    if (req.headers.authorization !== `Bearer ${TOKEN}`) {
      cluster.unauthorized++;
      return send(401, { message: "Unauthorized" });
    }
    let body = "";
    req.on("data", (c: Buffer) => {
      body += c.toString();
    });
    req.on("end", () => {
      const job = /^\/apis\/batch\/v1\/namespaces\/([^/]+)\/jobs(?:\/([^/]+))?$/.exec(url.pathname);
      if (job && req.method === "POST") {
        const j = JSON.parse(body) as Obj;
        const created = { ...j, metadata: { ...j.metadata, uid: `uid-${++cluster.uid}` }, status: {} };
        cluster.jobs.set(j.metadata.name, created);
        return send(201, created);
      }
      if (job?.[2] && req.method === "GET") {
        const j = cluster.jobs.get(job[2]);
        return j ? send(200, j) : send(404, { message: "not found" });
      }
      if (job?.[2] && req.method === "DELETE") {
        cluster.deletes.push({ name: job[2], body: JSON.parse(body) });
        const j = cluster.jobs.get(job[2]);
        if (!j) return send(404, { message: "not found" });
        cluster.jobs.delete(job[2]);
        const run = (j.metadata.labels as Record<string, string>)["ariel.dev/run"];
        for (const [name, p] of cluster.pods)
          if ((p.metadata.labels as Record<string, string>)["ariel.dev/run"] === run)
            cluster.pods.delete(name);
        return send(200, {});
      }
      const log = /^\/api\/v1\/namespaces\/[^/]+\/pods\/([^/]+)\/log$/.exec(url.pathname);
      if (log?.[1] && req.method === "GET") {
        const text = cluster.logs.get(log[1]);
        if (text === undefined) return send(400, { message: "container is waiting to start" });
        res.writeHead(200, { "content-type": "text/plain" });
        return res.end(text);
      }
      if (url.pathname === `/api/v1/namespaces/${NS}/pods` && url.searchParams.get("watch") === "1") {
        const runId = (url.searchParams.get("labelSelector") ?? "").split("=")[1] ?? "";
        const first = !cluster.watchCalls.some((c) => c.runId === runId);
        cluster.watchCalls.push({ runId, rv: url.searchParams.get("resourceVersion") ?? "" });
        res.writeHead(200, { "content-type": "application/json" });
        if (first) {
          // The first watch of a run drops mid-stream: half an event, then the connection goes.
          res.write('{"type":"MODIFIED","object":', () => setTimeout(() => res.socket?.destroy(), 50));
          return;
        }
        const w = { runId, res };
        cluster.watches.push(w);
        res.on("close", () => cluster.watches.splice(cluster.watches.indexOf(w), 1));
        return;
      }
      if (url.pathname === `/api/v1/namespaces/${NS}/pods` && req.method === "GET") {
        const [k, v] = (url.searchParams.get("labelSelector") ?? "").split("=");
        const items = [...cluster.pods.values()].filter(
          (p) => (p.metadata.labels as Record<string, string>)[k ?? ""] === v,
        );
        return send(200, { metadata: { resourceVersion: String(cluster.rv) }, items });
      }
      send(404, { message: `no route ${req.method} ${url.pathname}` });
    });
  });
}

/** Put run `runId`'s pod in `phase` (with the run container's exit code once it terminated). */
function setPod(runId: string, phase: string, exitCode?: number): void {
  const name = `${jobOf(runId)}-pod1`;
  const statuses =
    exitCode === undefined ? [] : [{ name: "run", restartCount: 0, state: { terminated: { exitCode } } }];
  const pod = {
    metadata: {
      name,
      labels: { "ariel.dev/run": runId },
      creationTimestamp: "2026-12-02T10:00:00Z",
      resourceVersion: String(++cluster.rv),
    },
    status: { phase, containerStatuses: statuses },
  };
  cluster.pods.set(name, pod);
  for (const w of cluster.watches.filter((x) => x.runId === runId))
    w.res.write(`${JSON.stringify({ type: "MODIFIED", object: pod })}\n`);
}

function setJobCondition(runId: string, type: "Complete" | "Failed", reason?: string): void {
  const j = cluster.jobs.get(jobOf(runId)) as Obj;
  j.status = { conditions: [{ type, status: "True", ...(reason ? { reason } : {}) }] };
}

const jobNames = new Map<string, string>();
function jobOf(runId: string): string {
  return jobNames.get(runId) as string;
}

async function ariel(cli: "spawn" | "runs", args: string[]): Promise<CliResult> {
  const r = await runAriel(cli, args, { cwd: root, env: { KUBECONFIG: kubeconfig } });
  outputs.push(r.stdout, r.stderr);
  return r;
}

async function spawnRun(name: string, argv: string[]): Promise<Record<string, unknown>> {
  const r = await ariel("spawn", [
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
    "--",
    ...argv,
  ]);
  expect([r.code, r.stderr.includes("error")]).toEqual([0, false]);
  const [rec] = records(r.stdout);
  const run = rec as Record<string, unknown> & { runId: string; k8s: { job: string } };
  jobNames.set(run.runId, run.k8s.job);
  return run;
}

async function stateOf(runId: string): Promise<string> {
  const r = await ariel("runs", ["list", "--all", "--json"]);
  expect(r.code).toBe(0);
  return String(records(r.stdout).find((x) => x.runId === runId)?.state);
}

beforeAll(async () => {
  server = api();
  await new Promise<void>((r) => server.listen(0, "127.0.0.1", r));
  const port = (server.address() as AddressInfo).port;
  root = tempDir("ariel-k8s-runs-");
  initRepo(join(root, "api"));
  git(join(root, "api"), "remote", "add", "origin", `https://bot:${SECRET}@git.example.com/acme/api.git`);
  kubeconfig = join(root, ".kube/config");
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
});

afterAll(async () => {
  await new Promise((r) => server.close(r));
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
    cluster.logs.set(`${jobOf(run.runId)}-pod1`, "hi\n");
    expect(await stateOf(run.runId)).toBe("running");
    const waiting = ariel("runs", ["wait", run.runId]);
    await new Promise((r) => setTimeout(r, 600));
    setJobCondition(run.runId, "Complete");
    setPod(run.runId, "Succeeded", 0);
    expect((await waiting).code).toBe(0);
    // wait watched the pods: the first stream dropped mid-event and was resumed from the same
    // resourceVersion (nothing lost, nothing repeated).
    const calls = cluster.watchCalls.filter((c) => c.runId === run.runId).map((c) => c.rv);
    expect(calls.slice(0, 2)).toEqual([String(cluster.rv - 1), String(cluster.rv - 1)]);
    expect(await stateOf(run.runId)).toBe("exited");
    const logs = await ariel("runs", ["logs", run.runId]);
    expect([logs.code, logs.stdout]).toEqual([0, "hi\n"]);
  });

  it("a failed container: list says failed, wait exits with its code", async () => {
    const run = (await spawnRun("bad", ["sh", "-c", "exit 3"])) as { runId: string };
    setPod(run.runId, "Running");
    expect(await stateOf(run.runId)).toBe("running");
    setPod(run.runId, "Failed", 3);
    setJobCondition(run.runId, "Failed", "BackoffLimitExceeded");
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

  it("respawn of a k8s run is refused and changes nothing", async () => {
    const run = (await spawnRun("again", ["true"])) as { runId: string };
    const jobs = cluster.jobs.size;
    const r = await ariel("runs", ["respawn", run.runId]);
    const error = r.stderr.split("\n").find((l) => l.startsWith("ariel-runs: error:"));
    expect([r.code, r.stdout, error]).toEqual([
      69,
      "",
      `ariel-runs: error: cannot respawn ${run.runId}: respawning a k8s run is not supported yet [ERR_BACKEND_UNAVAILABLE]`,
    ]);
    expect([cluster.jobs.size, cluster.deletes.length, await stateOf(run.runId)]).toEqual([
      jobs,
      1,
      "starting",
    ]);
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

  it("a token the API refuses: exit 69, no run recorded, the token printed nowhere", async () => {
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
    expect(readdirSync(join(root, ".ariel/runs")).length).toBe(runsBefore);
    cluster.unauthorized = 0;
  });

  it("no output and no record holds the token or the Secret", () => {
    expect(cluster.unauthorized).toBe(0);
    for (const o of outputs) {
      expect(o).not.toContain(TOKEN);
      expect(o).not.toContain(SECRET);
    }
    const files = readdirSync(join(root, ".ariel"), { recursive: true, withFileTypes: true });
    expect(files.length).toBeGreaterThan(3);
    for (const f of files.filter((e) => e.isFile())) {
      const text = readFileSync(join(f.parentPath, f.name), "utf8");
      expect(text).not.toContain(TOKEN);
      expect(text).not.toContain(SECRET);
    }
  });
});
