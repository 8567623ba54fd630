/**
 * The k8s backend's options from flags over config `k8s.*` over defaults, checked once: a bad
 * value is ERR_USAGE (a flag) or ERR_CONFIG (the file), before anything is planned.
 *
 * @example
 * ```ts
 * resolveK8sOptions({ image: "alpine/git:2.45.2" }, {}).namespace; // "default"
 * ```
 */
import { ArielError } from "../errors.ts";
import { quoteValue } from "../names.ts";
import { parseDuration } from "../runs/duration.ts";
import type { K8sOptions, ResourceList } from "./job.ts";
import { DNS_LABEL, DNS_SUBDOMAIN } from "./names.ts";

/** What a user can set, as strings (flags) or from config `k8s` (same names). */
export interface K8sSettings {
  namespace?: string;
  image?: string;
  serviceAccount?: string;
  gitSecret?: string;
  /** `secret/NAME` or `configmap/NAME`. */
  overlayFrom?: string;
  /** A PersistentVolumeClaim: save a bundle there instead of pushing. */
  bundleClaim?: string;
  /** A duration (`1h`, `7d`); default 1 day. */
  ttl?: string;
  /** `cpu=500m,memory=1Gi` */
  requests?: string;
  limits?: string;
  kubeconfig?: string;
}

export const DEFAULT_TTL_SECONDS = 86_400;
const QUANTITY = /^[0-9]+(\.[0-9]+)?(m|k|Ki|M|Mi|G|Gi|T|Ti)?$/;

function bad(where: "flag" | "config", what: string, value: string, rule: string): ArielError {
  const msg = `${where === "flag" ? `--${what}` : `config k8s.${what}`}: ${quoteValue(value)} ${rule}`;
  return where === "flag" ? new ArielError("ERR_USAGE", msg) : new ArielError("ERR_CONFIG", msg);
}

function resourceList(value: string | undefined, what: string, where: "flag" | "config"): ResourceList {
  if (value === undefined || value === "") return {};
  const out: ResourceList = {};
  for (const part of value.split(",")) {
    const [k, v, ...more] = part.split("=");
    if ((k !== "cpu" && k !== "memory") || v === undefined || more.length > 0 || !QUANTITY.test(v)) {
      throw bad(where, what, value, "is not a list like cpu=500m,memory=1Gi");
    }
    out[k] = v;
  }
  return out;
}

function dnsName(
  value: string | undefined,
  what: string,
  where: "flag" | "config",
  re: RegExp,
): string | null {
  if (value === undefined) return null;
  if (!re.test(value)) throw bad(where, what, value, "is not a valid Kubernetes name");
  return value;
}

/**
 * Flags win over config, key by key; `image` is required (there is no image every repository
 * can run in). `where` says which one a bad value came from, for the error's code.
 */
export function resolveK8sOptions(flags: K8sSettings, config: K8sSettings): K8sOptions {
  const pick = <K extends keyof K8sSettings>(k: K): [string | undefined, "flag" | "config"] =>
    flags[k] !== undefined ? [flags[k], "flag"] : [config[k], "config"];
  const [image] = pick("image");
  if (image === undefined || image === "" || /\s/.test(image)) {
    throw new ArielError("ERR_USAGE", "--backend k8s needs --image IMG (or config k8s.image)", {
      hint: "an image with sh and git (and your agent), e.g. --image ghcr.io/acme/agent:1.2",
    });
  }
  const [ns, nsWhere] = pick("namespace");
  const [sa, saWhere] = pick("serviceAccount");
  const [secret, secretWhere] = pick("gitSecret");
  const [claim, claimWhere] = pick("bundleClaim");
  const [overlayFrom, overlayWhere] = pick("overlayFrom");
  const [ttl, ttlWhere] = pick("ttl");
  let overlay: K8sOptions["overlay"] = null;
  if (overlayFrom !== undefined) {
    const m = /^(secret|configmap)\/(.+)$/.exec(overlayFrom);
    if (!m?.[2] || !DNS_SUBDOMAIN.test(m[2])) {
      throw bad(overlayWhere, "overlay-from", overlayFrom, "is not secret/NAME or configmap/NAME");
    }
    overlay = { kind: m[1] === "secret" ? "Secret" : "ConfigMap", name: m[2] };
  }
  let ttlSeconds = DEFAULT_TTL_SECONDS;
  if (ttl !== undefined) {
    try {
      ttlSeconds = Math.ceil(parseDuration(ttl, "--ttl") / 1000);
    } catch {
      throw bad(ttlWhere, "ttl", ttl, "is not a duration such as 1h or 7d");
    }
  }
  const bundle = dnsName(claim, "bundle-claim", claimWhere, DNS_SUBDOMAIN);
  const [req, reqWhere] = pick("requests");
  const [lim, limWhere] = pick("limits");
  return {
    namespace: dnsName(ns, "namespace", nsWhere, DNS_LABEL) ?? "default",
    image,
    serviceAccount: dnsName(sa, "service-account", saWhere, DNS_SUBDOMAIN),
    credentialsSecret: dnsName(secret, "git-secret", secretWhere, DNS_SUBDOMAIN),
    overlay,
    save: bundle === null ? { kind: "push" } : { kind: "bundle", claim: bundle },
    ttlSecondsAfterFinished: ttlSeconds,
    requests: resourceList(req, "requests", reqWhere),
    limits: resourceList(lim, "limits", limWhere),
  };
}
