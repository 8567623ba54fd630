/**
 * What the k8s backend's tests share: a small API server on 127.0.0.1 (each test file routes its
 * requests), a kubeconfig naming it with a token, a k8s run recorded in a temp workspace, and a
 * Job plan. The test files' own fake clusters differ (what they hold, what they answer); only
 * the set-up around them is here.
 */
import { existsSync, mkdirSync, readFileSync } from "node:fs";
import { createServer, type IncomingMessage, type Server, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";
import type { JobPlan } from "../../../../k8s/job.ts";
import { runPaths } from "../../../../runs/paths.ts";
import type { RunRecord } from "../../../../runs/record.ts";
import { writeFile } from "../../../_fixture.ts";
import { runFields } from "../../../runs/_fixture.ts";
import { createRun } from "../../../runs/store.ts";

/** A Kubernetes object as the fake APIs hold it. */
export type Obj = Record<string, unknown> & { metadata: Record<string, unknown> };

/** Answer `status` with `body` as JSON. */
export function sendJson(res: ServerResponse, status: number, body: unknown): void {
  res.writeHead(status, { "content-type": "application/json" });
  res.end(JSON.stringify(body));
}

/** The API servers a test file listens with; `closeAll` (in its afterEach) ends them and their connections. */
export function apiServers() {
  const servers: Server[] = [];
  return {
    /** Serve `handler` on 127.0.0.1; its port. */
    async listen(handler: (req: IncomingMessage, res: ServerResponse) => void): Promise<number> {
      const server = createServer(handler);
      servers.push(server);
      await new Promise<void>((r) => server.listen(0, "127.0.0.1", r));
      return (server.address() as AddressInfo).port;
    },
    async closeAll(): Promise<void> {
      for (const s of servers.splice(0)) {
        s.closeAllConnections();
        await new Promise((r) => s.close(r));
      }
    },
  };
}

/** A kubeconfig at `file` whose current context is the API on `port` with the bearer `token`. */
export function writeKubeconfig(file: string, port: number, token: string): void {
  writeFile(
    file,
    [
      "current-context: c",
      `clusters: [{ name: k, cluster: { server: "http://127.0.0.1:${port}" } }]`,
      `users: [{ name: u, user: { token: "${token}" } }]`,
      "contexts: [{ name: c, context: { cluster: k, user: u } }]",
      "",
    ].join("\n"),
  );
}

/** Record run `runId` on the k8s backend in namespace `agents` (its Job `k8s`), `more` for the rest. */
export async function recordK8sRun(
  ws: { root: string; hash: string },
  runId: string,
  k8s: { job: string; uid: string; kubeconfig: string },
  more: Partial<RunRecord> = {},
): Promise<RunRecord> {
  mkdirSync(runPaths(ws.root, runId).dir, { recursive: true });
  return createRun(
    ws.root,
    runFields(ws, runId, { backend: "k8s", k8s: { namespace: "agents", ...k8s }, ...more }),
  );
}

/** Run `runId`'s history, each event an object; none when it has no history yet. */
export function historyOf(root: string, runId: string): Record<string, unknown>[] {
  const file = runPaths(root, runId).history;
  if (!existsSync(file)) return [];
  return readFileSync(file, "utf8")
    .split("\n")
    .filter(Boolean)
    .map((l) => JSON.parse(l));
}

/** The plan of run `20261202T110943Z-aaaaaa`'s Job (task t1 of source api, pushed when it ends). */
export const JOB_PLAN: JobPlan = {
  v: 1,
  facts: {
    runId: "20261202T110943Z-aaaaaa",
    name: "agent",
    workspaceHash: "0123456789abcdef",
    task: "t1",
    source: "api",
    remote: "https://git.example.com/acme/api.git",
    base: "0f1e2d3c4b5a69788796a5b4c3d2e1f00f1e2d3c",
    branch: "ariel/t1",
    argv: ["agent", "--go"],
    restart: { policy: "no", max: 0 },
    timeoutMs: null,
    graceMs: 0,
  },
  options: {
    namespace: "agents",
    image: "a:1",
    serviceAccount: null,
    credentialsSecret: null,
    overlay: null,
    save: { kind: "push" },
    ttlSecondsAfterFinished: 86400,
    requests: {},
    limits: {},
  },
};
