import { readFileSync } from "node:fs";
import { homedir } from "node:os";
import { dirname, isAbsolute, join } from "node:path";
import { ArielError } from "../../../../errors.ts";

/** What the API client needs from a kubeconfig's current context. */
export interface ClusterAccess {
  server: string;
  /** PEM bytes of the cluster's CA, when given. */
  ca: string | null;
  insecure: boolean;
  token: string | null;
  cert: string | null;
  key: string | null;
  /** The context's namespace, or null. */
  namespace: string | null;
}

type Named<T> = { name: string } & T;
interface KubeconfigFile {
  "current-context"?: string;
  clusters?: Named<{ cluster?: Record<string, unknown> }>[];
  users?: Named<{ user?: Record<string, unknown> }>[];
  contexts?: Named<{ context?: { cluster?: string; user?: string; namespace?: string } }>[];
}

function configError(file: string, message: string): ArielError {
  return new ArielError("ERR_CONFIG", `${file}: ${message}`, {
    hint: "check the kubeconfig (--kubeconfig, config k8s.kubeconfig, KUBECONFIG or ~/.kube/config)",
  });
}

function fileOrData(o: Record<string, unknown>, key: string, file: string): string | null {
  const data = o[`${key}-data`];
  if (typeof data === "string") return Buffer.from(data, "base64").toString("utf8");
  const given = o[key];
  if (typeof given !== "string") return null;
  // As kubectl reads it: a relative path is the kubeconfig's own directory's, not the cwd's.
  const path = isAbsolute(given) ? given : join(dirname(file), given);
  try {
    return readFileSync(path, "utf8");
  } catch {
    throw configError(file, `cannot read ${key} ${path}`);
  }
}

/** The kubeconfig to read: the flag, else config, else the first of $KUBECONFIG, else ~/.kube/config. */
export function kubeconfigPath(
  given: string | undefined,
  env: Readonly<Record<string, string | undefined>>,
): string {
  if (given !== undefined) return given;
  const first = env.KUBECONFIG?.split(":").find((p) => p !== "");
  return first ?? `${env.HOME ?? homedir()}/.kube/config`;
}

/**
 * The current context's server and credentials (bearer token, client certificate, CA). Exec and
 * auth-provider plugins are not supported (ERR_CONFIG): ariel never runs a program to get a token.
 * Secret values stay in memory; errors name keys and paths, never values.
 */
export async function readKubeconfig(file: string): Promise<ClusterAccess> {
  let text: string;
  try {
    text = readFileSync(file, "utf8");
  } catch {
    throw new ArielError("ERR_NOINPUT", `cannot read the kubeconfig ${file}`, {
      hint: "pass --kubeconfig FILE or set KUBECONFIG",
    });
  }
  const { parse } = await import("yaml");
  let kc: KubeconfigFile;
  try {
    kc = parse(text) as KubeconfigFile;
  } catch {
    throw configError(file, "not valid YAML");
  }
  // An empty file (or a list, a string) is no kubeconfig; a list's entries that are no mapping are skipped.
  if (kc === null || typeof kc !== "object" || Array.isArray(kc)) throw configError(file, "not a kubeconfig");
  const entries = <T>(v: T[] | undefined): T[] =>
    Array.isArray(v) ? v.filter((e) => e !== null && typeof e === "object") : [];
  const ctxName = kc["current-context"];
  const ctx = entries(kc.contexts).find((c) => c.name === ctxName)?.context;
  if (!ctx) throw configError(file, `no context ${JSON.stringify(ctxName ?? "")}`);
  const cluster = entries(kc.clusters).find((c) => c.name === ctx.cluster)?.cluster;
  if (!cluster || typeof cluster.server !== "string")
    throw configError(file, `cluster of context ${ctxName} has no server`);
  const user = entries(kc.users).find((u) => u.name === ctx.user)?.user ?? {};
  if (user.exec !== undefined || user["auth-provider"] !== undefined) {
    throw configError(
      file,
      `user ${ctx.user} needs an exec or auth-provider plugin, which ariel does not run`,
    );
  }
  return {
    server: cluster.server.replace(/\/+$/, ""),
    ca: fileOrData(cluster, "certificate-authority", file),
    insecure: cluster["insecure-skip-tls-verify"] === true,
    token:
      typeof user.token === "string" ? user.token : (fileOrData(user, "tokenFile", file)?.trim() ?? null),
    cert: fileOrData(user, "client-certificate", file),
    key: fileOrData(user, "client-key", file),
    namespace: ctx.namespace ?? null,
  };
}
