import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { createServer, type IncomingMessage, type Server, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { isArielError } from "../../../../errors.ts";
import { planJob } from "../../../../k8s/job.ts";
import { resolveK8sOptions } from "../../../../k8s/options.ts";
import { KubeClient, type WatchEvent } from "./client.ts";
import { kubeconfigPath, readKubeconfig } from "./kubeconfig.ts";

const TOKEN = "fake-bearer-t0ken";

/** The fake API server's script: what each request sees. */
interface Fake {
  jobs: Map<string, Record<string, unknown>>;
  deletes: { name: string; body: unknown }[];
  watchCalls: string[];
}

function pod(name: string, rv: number, phase: string) {
  return { metadata: { name, resourceVersion: String(rv) }, status: { phase } };
}

/** A fake Kubernetes API on 127.0.0.1: bearer auth, Jobs, a pod list, a watch that drops, a log. */
function fakeApi(fake: Fake): (req: IncomingMessage, res: ServerResponse) => void {
  return (req, res) => {
    const url = new URL(req.url ?? "/", "http://x");
    const send = (status: number, body: unknown) => {
      res.writeHead(status, { "content-type": "application/json" });
      res.end(JSON.stringify(body));
    };
    if (req.headers.authorization !== `Bearer ${TOKEN}`) return send(401, { message: "Unauthorized" });
    let body = "";
    req.on("data", (c: Buffer) => {
      body += c.toString();
    });
    req.on("end", () => {
      const job = /^\/apis\/batch\/v1\/namespaces\/([^/]+)\/jobs(?:\/([^/]+))?$/.exec(url.pathname);
      if (job && req.method === "POST") {
        const j = JSON.parse(body) as { metadata: { name: string } };
        if (fake.jobs.has(j.metadata.name)) return send(409, { message: "already exists" });
        const created = { ...j, metadata: { ...j.metadata, uid: "uid-1", resourceVersion: "7" } };
        fake.jobs.set(j.metadata.name, created);
        return send(201, created);
      }
      if (job?.[2] && req.method === "GET") {
        const j = fake.jobs.get(job[2]);
        return j ? send(200, j) : send(404, { message: "not found" });
      }
      if (job?.[2] && req.method === "DELETE") {
        fake.deletes.push({ name: job[2], body: JSON.parse(body) });
        return fake.jobs.delete(job[2]) ? send(200, {}) : send(404, { message: "not found" });
      }
      if (url.pathname === "/api/v1/namespaces/agents/pods" && url.searchParams.get("watch") === "1") {
        const rv = url.searchParams.get("resourceVersion") ?? "";
        fake.watchCalls.push(rv);
        res.writeHead(200, { "content-type": "application/json" });
        const events: Record<string, WatchEvent[]> = {
          // First stream: two events, then the connection drops mid-stream (half a line sent).
          "10": [
            { type: "ADDED", object: pod("p1", 11, "Pending") },
            { type: "MODIFIED", object: pod("p1", 12, "Running") },
          ],
          // Resumed from 12: a bookmark, then the end.
          "12": [
            { type: "BOOKMARK", object: pod("", 13, "") },
            { type: "MODIFIED", object: pod("p1", 14, "Failed") },
          ],
        };
        for (const e of events[rv] ?? []) res.write(`${JSON.stringify(e)}\n`);
        if (rv === "10") {
          res.write('{"type":"MODIFIED","object":', () => setTimeout(() => res.socket?.destroy(), 50));
          return;
        }
        if (rv === "14") {
          res.end(`${JSON.stringify({ type: "ERROR", object: { code: 410 } })}\n`);
          return;
        }
        res.end();
        return;
      }
      if (url.pathname === "/api/v1/namespaces/agents/pods") {
        return send(200, { metadata: { resourceVersion: "20" }, items: [pod("p2", 20, "Running")] });
      }
      if (url.pathname === "/api/v1/namespaces/agents/pods/p1/log") {
        res.writeHead(200, { "content-type": "text/plain" });
        res.end(`line 1\nline 2 ${url.search}\n`);
        return;
      }
      send(404, { message: "not found" });
    });
  };
}

let server: Server;
let dir: string;
let fake: Fake;
let kubeconfig: string;

beforeAll(async () => {
  fake = { jobs: new Map(), deletes: [], watchCalls: [] };
  server = createServer(fakeApi(fake));
  await new Promise<void>((r) => server.listen(0, "127.0.0.1", r));
  const port = (server.address() as AddressInfo).port;
  dir = mkdtempSync(join(tmpdir(), "ariel-kube-"));
  kubeconfig = join(dir, "config");
  writeFileSync(
    kubeconfig,
    [
      "apiVersion: v1",
      "kind: Config",
      "current-context: fake",
      "clusters:",
      `  - name: fake\n    cluster:\n      server: http://127.0.0.1:${port}/`,
      "users:",
      `  - name: bot\n    user:\n      token: ${TOKEN}`,
      "contexts:",
      "  - name: fake\n    context:\n      cluster: fake\n      user: bot\n      namespace: agents",
      "",
    ].join("\n"),
  );
});
afterAll(() => {
  server.close();
  rmSync(dir, { recursive: true, force: true });
});

async function client(): Promise<KubeClient> {
  return new KubeClient(await readKubeconfig(kubeconfig));
}

describe("kubeconfig", () => {
  it("reads the current context's server, token and namespace", async () => {
    const a = await readKubeconfig(kubeconfig);
    expect([a.server.startsWith("http://127.0.0.1:"), a.token, a.namespace, a.ca]).toEqual([
      true,
      TOKEN,
      "agents",
      null,
    ]);
  });

  it.each([
    ["the flag", "/f", { KUBECONFIG: "/a:/b", HOME: "/h" }, "/f"],
    ["the first of KUBECONFIG", undefined, { KUBECONFIG: ":/a:/b", HOME: "/h" }, "/a"],
    ["~/.kube/config", undefined, { HOME: "/h" }, "/h/.kube/config"],
  ])("path: %s", (_, given, env, want) => expect(kubeconfigPath(given, env)).toBe(want));

  it("refuses an exec plugin without printing anything secret", async () => {
    const f = join(dir, "exec");
    writeFileSync(
      f,
      "current-context: c\ncontexts: [{name: c, context: {cluster: k, user: u}}]\nclusters: [{name: k, cluster: {server: 'https://x'}}]\nusers: [{name: u, user: {exec: {command: aws}}}]\n",
    );
    await expect(readKubeconfig(f)).rejects.toThrow(
      `${f}: user u needs an exec or auth-provider plugin, which ariel does not run`,
    );
  });
});

describe("KubeClient against a fake API server", () => {
  const job = planJob(
    {
      runId: "20261202T163008Z-c97vsg",
      name: null,
      workspaceHash: "0123456789abcdef",
      task: "t1",
      source: "api",
      remote: "https://git.example.com/acme/api.git",
      base: "0f1e2d3c4b5a69788796a5b4c3d2e1f00f1e2d3c",
      branch: "ariel/t1",
      argv: ["true"],
      restart: { policy: "no", max: 0 },
      timeoutMs: null,
      graceMs: 10_000,
    },
    resolveK8sOptions({ image: "a:1", namespace: "agents" }, {}),
  );

  it("creates, gets and deletes a Job with propagation; a second create is refused", async () => {
    const c = await client();
    const created = await c.createJob(job);
    expect([created.metadata.name, created.metadata.uid]).toEqual(["ariel-20261202t163008z-c97vsg", "uid-1"]);
    expect((await c.getJob("agents", job.metadata.name))?.metadata.uid).toBe("uid-1");
    await expect(c.createJob(job)).rejects.toThrow(
      "Kubernetes API: create Job failed with HTTP 409: already exists",
    );
    expect(await c.deleteJob("agents", job.metadata.name, "Foreground")).toBe(true);
    expect(await c.deleteJob("agents", job.metadata.name, "Background")).toBe(false);
    expect(await c.getJob("agents", job.metadata.name)).toBe(null);
    expect(fake.deletes.map((d) => (d.body as { propagationPolicy: string }).propagationPolicy)).toEqual([
      "Foreground",
      "Background",
    ]);
  });

  it("a wrong token is refused with a coded error that does not contain the token", async () => {
    const a = await readKubeconfig(kubeconfig);
    const c = new KubeClient({ ...a, token: "wrong-s3cret" });
    try {
      await c.getJob("agents", "x");
      expect.unreachable();
    } catch (e) {
      expect(isArielError(e) && [e.code, e.message]).toEqual([
        "ERR_BACKEND_UNAVAILABLE",
        "Kubernetes API: get Job failed with HTTP 401: Unauthorized",
      ]);
      expect(String((e as Error).stack)).not.toContain("wrong-s3cret");
    }
  });

  it("a watch that drops mid-stream resumes from the last resourceVersion: no event lost or repeated; 410 relists", async () => {
    const c = await client();
    const seen: string[] = [];
    const ac = new AbortController();
    await c.watchPods(
      "agents",
      "ariel.dev/run=r",
      "10",
      (e) => {
        seen.push(`${e.type} ${e.object.metadata.name} ${e.object.metadata.resourceVersion}`);
        if (seen.length === 4) ac.abort();
      },
      ac.signal,
    );
    expect(seen).toEqual(["ADDED p1 11", "MODIFIED p1 12", "MODIFIED p1 14", "MODIFIED p2 20"]);
    expect(fake.watchCalls).toEqual(["10", "12", "14"]);
  });

  it("reads a container's log", async () => {
    const c = await client();
    const read = async (options: Parameters<typeof c.podLog>[3]) => {
      let text = "";
      for await (const chunk of await c.podLog("agents", "p1", "run", options)) text += chunk.toString();
      return text;
    };
    expect(await read({})).toBe("line 1\nline 2 ?container=run\n");
    expect(await read({ follow: true, timestamps: true, sinceTime: "2026-12-02T10:00:00Z" })).toBe(
      "line 1\nline 2 ?container=run&follow=true&timestamps=true&sinceTime=2026-12-02T10%3A00%3A00Z\n",
    );
  });
});
