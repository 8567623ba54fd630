import type * as http from "node:http";
import type * as https from "node:https";
import { ArielError } from "../../../../errors.ts";
import type { JobManifest } from "../../../../k8s/job.ts";
import { nodeHttp, nodeHttps } from "../../../builtins.ts";
import { type ClusterAccess, readKubeconfig } from "./kubeconfig.ts";

/** A Kubernetes object as the API returns it (only what ariel reads is typed). */
export interface KubeObject {
  metadata: {
    name: string;
    namespace?: string;
    uid?: string;
    resourceVersion?: string;
    [k: string]: unknown;
  };
  status?: Record<string, unknown>;
  [k: string]: unknown;
}

export interface WatchEvent {
  type: "ADDED" | "MODIFIED" | "DELETED" | "BOOKMARK";
  object: KubeObject;
}

interface Reply {
  status: number;
  body: string;
}

/**
 * A minimal Kubernetes API client over node:http/https with the kubeconfig's credentials (bearer
 * token, client certificate, CA): the five operations ariel needs, nothing generated. Why not
 * @kubernetes/client-node: docs/decisions/0026-k8s-job-model.md. Errors name the operation and
 * the HTTP status, never a credential.
 */
export class KubeClient {
  readonly #access: ClusterAccess;
  readonly #url: URL;

  constructor(access: ClusterAccess) {
    this.#access = access;
    this.#url = new URL(access.server);
  }

  #request(method: string, path: string, body?: string): http.ClientRequest {
    const a = this.#access;
    const headers: Record<string, string> = { accept: "application/json" };
    if (a.token !== null) headers.authorization = `Bearer ${a.token}`;
    if (body !== undefined) {
      headers["content-type"] = "application/json";
      headers["content-length"] = String(Buffer.byteLength(body));
    }
    const options: https.RequestOptions = {
      method,
      hostname: this.#url.hostname,
      port: this.#url.port || undefined,
      path: `${this.#url.pathname.replace(/\/$/, "")}${path}`,
      headers,
    };
    if (this.#url.protocol === "https:") {
      if (a.ca !== null) options.ca = a.ca;
      if (a.cert !== null) options.cert = a.cert;
      if (a.key !== null) options.key = a.key;
      options.rejectUnauthorized = !a.insecure;
      return nodeHttps().request(options);
    }
    return nodeHttp().request(options);
  }

  #call(method: string, path: string, body?: unknown): Promise<Reply> {
    return new Promise((resolve, reject) => {
      const text = body === undefined ? undefined : JSON.stringify(body);
      const req = this.#request(method, path, text);
      req.on("error", (e) => reject(unreachable(this.#url, e)));
      req.on("response", (res) => {
        const chunks: Buffer[] = [];
        res.on("data", (c: Buffer) => chunks.push(c));
        res.on("error", (e) => reject(unreachable(this.#url, e)));
        res.on("end", () =>
          resolve({ status: res.statusCode ?? 0, body: Buffer.concat(chunks).toString("utf8") }),
        );
      });
      req.end(text);
    });
  }

  async #json(op: string, method: string, path: string, body?: unknown): Promise<KubeObject | null> {
    const r = await this.#call(method, path, body);
    if (r.status === 404 && method !== "POST") return null;
    if (r.status < 200 || r.status >= 300) throw apiError(op, r);
    try {
      return JSON.parse(r.body) as KubeObject;
    } catch {
      // A proxy's page in front of the API, say: not the API's answer.
      throw new ArielError(
        "ERR_BACKEND_UNAVAILABLE",
        `Kubernetes API: ${op} answered HTTP ${r.status} with a body that is not JSON`,
      );
    }
  }

  /** POST the Job; its uid and resourceVersion come back in the result. */
  async createJob(job: JobManifest): Promise<KubeObject> {
    const ns = job.metadata.namespace;
    return (await this.#json(
      "create Job",
      "POST",
      `/apis/batch/v1/namespaces/${ns}/jobs`,
      job,
    )) as KubeObject;
  }

  /** The Job, or null when it is gone. */
  getJob(ns: string, name: string): Promise<KubeObject | null> {
    return this.#json("get Job", "GET", `/apis/batch/v1/namespaces/${ns}/jobs/${name}`);
  }

  /** Delete the Job and (by propagation) its pods; false when it was already gone. */
  async deleteJob(ns: string, name: string, propagation: "Background" | "Foreground"): Promise<boolean> {
    const r = await this.#json("delete Job", "DELETE", `/apis/batch/v1/namespaces/${ns}/jobs/${name}`, {
      kind: "DeleteOptions",
      apiVersion: "v1",
      propagationPolicy: propagation,
    });
    return r !== null;
  }

  /** The pods matching a label selector, and the list's resourceVersion (where a watch starts). */
  async listPods(ns: string, selector: string): Promise<{ items: KubeObject[]; resourceVersion: string }> {
    const r = (await this.#json(
      "list Pods",
      "GET",
      `/api/v1/namespaces/${ns}/pods?labelSelector=${encodeURIComponent(selector)}`,
    )) as (KubeObject & { items?: KubeObject[] }) | null;
    return { items: r?.items ?? [], resourceVersion: String(r?.metadata.resourceVersion ?? "") };
  }

  /**
   * Watch pods from `resourceVersion`, calling `onEvent` once per event. A stream that ends or
   * drops is reopened from the last resourceVersion seen (bookmarks included), so no event is lost
   * or repeated; 410 Gone (too old) relists and reports every pod as MODIFIED from the new list.
   * Ends when `signal` aborts.
   */
  async watchPods(
    ns: string,
    selector: string,
    resourceVersion: string,
    onEvent: (e: WatchEvent) => void,
    signal: AbortSignal,
  ): Promise<void> {
    let rv = resourceVersion;
    while (!signal.aborted) {
      const path = `/api/v1/namespaces/${ns}/pods?watch=1&allowWatchBookmarks=true&labelSelector=${encodeURIComponent(selector)}&resourceVersion=${encodeURIComponent(rv)}`;
      const gone = await new Promise<boolean>((resolve) => {
        const req = this.#request("GET", path);
        const stop = () => req.destroy();
        signal.addEventListener("abort", stop, { once: true });
        const done = (v: boolean) => {
          signal.removeEventListener("abort", stop);
          resolve(v);
        };
        req.on("error", () => done(false));
        req.on("response", (res) => {
          if (res.statusCode === 410) {
            res.resume();
            done(true);
            return;
          }
          let pending = "";
          let gone410 = false;
          res.setEncoding("utf8");
          res.on("data", (chunk: string) => {
            pending += chunk;
            let nl = pending.indexOf("\n");
            while (nl >= 0) {
              const line = pending.slice(0, nl);
              pending = pending.slice(nl + 1);
              nl = pending.indexOf("\n");
              if (line.trim() === "") continue;
              const e = watchLine(line);
              if (e === null) {
                // Not an event: this stream is not the API's; open it again from the last version.
                res.destroy();
                return;
              }
              if (e.type === "ERROR") {
                if (e.object.code === 410) gone410 = true;
                continue;
              }
              rv = e.object.metadata.resourceVersion ?? rv;
              if (e.type !== "BOOKMARK") onEvent(e);
            }
          });
          res.on("error", () => done(gone410));
          res.on("close", () => done(gone410));
        });
        req.end();
      });
      if (signal.aborted) return;
      if (gone) {
        const list = await this.listPods(ns, selector);
        for (const p of list.items) onEvent({ type: "MODIFIED", object: p });
        rv = list.resourceVersion;
      } else {
        await new Promise((r) => setTimeout(r, 100));
      }
    }
  }

  /**
   * A container's log, from the start (or from `sinceTime`, whole seconds); with `follow` the
   * stream stays open while the container runs and ends when it terminates; with `timestamps`
   * each line starts with its RFC3339Nano time and a space. An HTTP error (400 while the
   * container waits to start, 404 once the pod is gone) is ERR_REFUSED.
   */
  podLog(
    ns: string,
    pod: string,
    container: string,
    options: { follow?: boolean; timestamps?: boolean; sinceTime?: string | null } = {},
  ): Promise<http.IncomingMessage> {
    let q = `container=${encodeURIComponent(container)}`;
    if (options.follow) q += "&follow=true";
    if (options.timestamps) q += "&timestamps=true";
    if (options.sinceTime) q += `&sinceTime=${encodeURIComponent(options.sinceTime)}`;
    return new Promise((resolve, reject) => {
      const req = this.#request("GET", `/api/v1/namespaces/${ns}/pods/${pod}/log?${q}`);
      req.on("error", (e) => reject(unreachable(this.#url, e)));
      req.on("response", (res) => {
        if ((res.statusCode ?? 0) >= 300) {
          const chunks: Buffer[] = [];
          res.on("data", (c: Buffer) => chunks.push(c));
          res.on("end", () =>
            reject(
              apiError("read pod log", {
                status: res.statusCode ?? 0,
                body: Buffer.concat(chunks).toString(),
              }),
            ),
          );
          return;
        }
        resolve(res);
      });
      req.end();
    });
  }
}

/** The errors of a connection that failed or hung up before an answer (not an HTTP status). */
const unreachables = new WeakSet<ArielError>();

/** Whether `e` says the API server could not be reached or hung up (rather than answered). */
export function isUnreachable(e: unknown): boolean {
  return e instanceof ArielError && unreachables.has(e);
}

function unreachable(url: URL, e: Error): ArielError {
  const err = new ArielError(
    "ERR_BACKEND_UNAVAILABLE",
    `cannot reach the Kubernetes API at ${url.origin}: ${e.message}`,
    {
      hint: "check the cluster and the kubeconfig's server",
    },
  );
  unreachables.add(err);
  return err;
}

/** One line of a watch stream as an event, or null when it is none (not JSON, no object). */
function watchLine(line: string): WatchEvent | { type: "ERROR"; object: { code?: number } } | null {
  try {
    const e = JSON.parse(line) as { type?: unknown; object?: unknown } | null;
    if (typeof e?.type !== "string" || typeof e.object !== "object" || e.object === null) return null;
    if (e.type !== "ERROR" && typeof (e.object as { metadata?: unknown }).metadata !== "object") return null;
    return e as WatchEvent;
  } catch {
    return null;
  }
}

function apiError(op: string, r: Reply): ArielError {
  let reason = "";
  try {
    reason = String((JSON.parse(r.body) as { message?: string }).message ?? "");
  } catch {}
  return new ArielError(
    r.status === 401 || r.status === 403 ? "ERR_BACKEND_UNAVAILABLE" : "ERR_REFUSED",
    `Kubernetes API: ${op} failed with HTTP ${r.status}${reason ? `: ${reason}` : ""}`,
  );
}

/** One client per kubeconfig file for the life of the process (credentials stay in memory). */
const clients = new Map<string, Promise<KubeClient>>();

/** The API client for a kubeconfig file. */
export function clientFor(kubeconfig: string): Promise<KubeClient> {
  let c = clients.get(kubeconfig);
  if (c === undefined) {
    c = readKubeconfig(kubeconfig).then((a) => new KubeClient(a));
    clients.set(kubeconfig, c);
  }
  return c;
}
