/**
 * Loading `<root>/ariel.config.json` (optional) into a {@link Config} with every default applied
 * and every path made absolute. See docs/config.md.
 *
 * @example
 * ```ts
 * const config = await loadConfig(ports.fs, ws.root);
 * config.worktreeRoot; // "/ws/.ariel/worktrees"
 * ```
 */
import * as z from "zod/mini";
import { ArielError } from "./errors.ts";
import type { K8sSettings } from "./k8s/options.ts";
import { HOOK_EVENTS } from "./lifecycle/events.ts";
import type { HookTable } from "./lifecycle/hooks.ts";
import { quoteValue } from "./names.ts";
import { joinPosix } from "./paths.ts";
import type { FsPort } from "./ports.ts";
import { NO_SANDBOX_CONFIG, type SandboxConfig, type SandboxNet } from "./sandbox/settings.ts";
import {
  configKeys,
  configSchema,
  HOOK_TIMEOUT_DEFAULT_MS,
  LEASE_TTL_DEFAULT_MS,
  PORT_RANGE_DEFAULT,
} from "./schema/config.ts";
import { formatIssue, innermostIssue } from "./schema/issues.ts";
import { defaultWorktreeRoot } from "./state_paths.ts";

/** The config file's name under the workspace root. */
export const CONFIG_FILE = "ariel.config.json";

/** The overlay every new worktree gets (docs/worktree.md, The parity overlay); config `overlay` adds to it. */
export const DEFAULT_OVERLAY: readonly string[] = [
  ".mcp.json",
  ".claude/settings.local.json",
  ".env",
  ".envrc",
];

/** The effective configuration: file values over defaults, paths absolute and normalized. */
export interface Config {
  /** The file read, or null when there is none. */
  file: string | null;
  /** Absolute directory where task worktrees are made. */
  worktreeRoot: string;
  /** Absolute approved roots; worktreeRoot must lie inside one of them (checked canonically by the worktree commands). */
  worktreeRoots: string[];
  /** Default overlay followed by the config's extra globs (deduplicated, in order). */
  overlay: string[];
  leaseTtlMs: number;
  /** The run backend of `ariel-spawn --detach` when no --backend is given. */
  backend: "local" | "k8s";
  /** The k8s backend's defaults (docs/kubernetes.md); flags override them key by key. */
  k8s: K8sSettings;
  /** Disk floor of add and spawn in bytes (0: none). */
  minFreeBytes: number;
  /** Directory names add shares from the source when the lockfiles match. */
  share: string[];
  /** How shared directories reach a leg: its own tree of hardlinks, or links into one store. */
  shareMode: "tree" | "store";
  /** Lifecycle hooks of this file (docs/lifecycle.md); empty when it sets none. */
  hooks: HookTable;
  /** The file's hookTimeoutMs, or null when it sets none (the default then applies). */
  hookTimeoutMs: number | null;
  /** Port names each task leases one port for. */
  ports: string[];
  /** The range ports are leased from, inclusive. */
  portRange: [number, number];
  /** The sandbox of local runs (docs/sandbox.md); off unless the file says so. */
  sandbox: SandboxConfig;
}

/** How long a hook may run when no config sets hookTimeoutMs. */
export { HOOK_TIMEOUT_DEFAULT_MS };

/** The configuration of a workspace without a config file. */
export function defaultConfig(root: string): Config {
  const worktreeRoot = defaultWorktreeRoot(root);
  return {
    file: null,
    worktreeRoot,
    worktreeRoots: [worktreeRoot],
    overlay: [...DEFAULT_OVERLAY],
    leaseTtlMs: LEASE_TTL_DEFAULT_MS,
    backend: "local",
    k8s: {},
    minFreeBytes: 0,
    share: [],
    shareMode: "tree",
    hooks: {},
    hookTimeoutMs: null,
    ports: [],
    portRange: [PORT_RANGE_DEFAULT[0], PORT_RANGE_DEFAULT[1]],
    sandbox: { ...NO_SANDBOX_CONFIG },
  };
}

function configError(file: string, message: string, hint?: string, context: Record<string, unknown> = {}) {
  return new ArielError("ERR_CONFIG", `${file}: ${message}`, {
    ...(hint ? { hint } : {}),
    context: { file, ...context },
  });
}

/** 1-based line and column of a character offset. */
function lineCol(text: string, offset: number): { line: number; column: number } {
  const before = text.slice(0, offset);
  const line = before.split("\n").length;
  return { line, column: offset - before.lastIndexOf("\n") };
}

/** Where JSON.parse failed, from its message (V8: "at position N" / "line L column C"). */
function syntaxLocation(text: string, e: unknown): string {
  const msg = e instanceof Error ? e.message : "";
  const lc = /line (\d+) column (\d+)/.exec(msg);
  if (lc) return `line ${lc[1]} column ${lc[2]}`;
  const pos = /position (\d+)/.exec(msg);
  if (pos) {
    const { line, column } = lineCol(text, Number(pos[1]));
    return `line ${line} column ${column}`;
  }
  if (/Unexpected end of JSON input/.test(msg)) {
    const { line, column } = lineCol(text, text.length);
    return `line ${line} column ${column} (unexpected end)`;
  }
  return "unknown position";
}

/** Parse and validate config text; `file` names it in errors. Pure. */
export function parseConfig(text: string, root: string, file = joinPosix(root, CONFIG_FILE)): Config {
  let raw: unknown;
  try {
    raw = JSON.parse(text.charCodeAt(0) === 0xfeff ? text.slice(1) : text);
  } catch (e) {
    const where = syntaxLocation(text, e);
    throw configError(
      file,
      `invalid JSON at ${where}`,
      "fix the JSON syntax (no comments or trailing commas)",
      {
        where,
      },
    );
  }
  if (raw === null || typeof raw !== "object" || Array.isArray(raw)) {
    throw configError(file, "must be a JSON object");
  }
  const r = z.safeParse(configSchema(), raw);
  if (!r.success) {
    const issue = innermostIssue(r.error.issues[0]!);
    if (issue.code === "unrecognized_keys" && issue.path.length > 0) {
      const key = issue.keys[0] ?? "";
      const at = issue.path.join(".");
      const hint =
        at === "hooks" ? `the events are: ${HOOK_EVENTS.join(", ")} (see docs/lifecycle.md)` : undefined;
      throw configError(file, `${at}: unknown key ${quoteValue(key)}`, hint, { key });
    }
    if (issue.code === "unrecognized_keys") {
      const key = issue.keys[0] ?? "";
      const allowed = configKeys()
        .filter((k) => k !== "$schema")
        .join(", ");
      throw configError(
        file,
        `unknown key ${quoteValue(key)}`,
        `remove it; the keys are: ${allowed} (see docs/config.md)`,
        { key },
      );
    }
    throw configError(file, formatIssue(issue));
  }
  const c = r.data;
  const config = defaultConfig(root);
  config.file = file;
  if (c.worktreeRoot !== undefined) config.worktreeRoot = joinPosix(root, c.worktreeRoot);
  if (c.worktreeRoots !== undefined) config.worktreeRoots = c.worktreeRoots.map((p) => joinPosix(root, p));
  if (c.overlay !== undefined) config.overlay = [...new Set([...DEFAULT_OVERLAY, ...c.overlay])];
  if (c.leaseTtlMs !== undefined) config.leaseTtlMs = c.leaseTtlMs;
  if (c.backend !== undefined) config.backend = c.backend;
  if (c.k8s !== undefined) config.k8s = { ...c.k8s };
  if (c.minFreeBytes !== undefined) config.minFreeBytes = c.minFreeBytes;
  if (c.share !== undefined) config.share = [...new Set(c.share)];
  if (c.shareMode !== undefined) config.shareMode = c.shareMode;
  if (c.hooks !== undefined) config.hooks = { ...c.hooks };
  if (c.hookTimeoutMs !== undefined) config.hookTimeoutMs = c.hookTimeoutMs;
  if (c.ports !== undefined) config.ports = [...c.ports];
  if (c.portRange !== undefined) config.portRange = [c.portRange[0], c.portRange[1]];
  if (c.sandbox !== undefined) config.sandbox = sandboxConfig(c.sandbox);
  return config;
}

/** The file's `sandbox` value with its defaults: `true`/`false`, or the object (enabled unless it says not). */
function sandboxConfig(
  v: boolean | { enabled?: boolean; write?: string[]; hide?: string[]; net?: SandboxNet },
) {
  if (typeof v === "boolean") return { ...NO_SANDBOX_CONFIG, enabled: v };
  return {
    enabled: v.enabled ?? true,
    write: [...(v.write ?? [])],
    hide: [...(v.hide ?? [])],
    net: v.net ?? "on",
  };
}

/**
 * The workspace's configuration: `<root>/ariel.config.json` validated and merged over the
 * defaults, or the defaults when there is no such file. Invalid JSON, a wrong type or an unknown
 * key is ERR_CONFIG (exit 78) with a hint. Whether worktreeRoot lies inside an approved root is
 * not checked here but by the worktree commands, after resolving links (ERR_NOT_APPROVED_ROOT):
 * a command that makes no worktree must not fail over it.
 */
export async function loadConfig(fs: FsPort, root: string): Promise<Config> {
  const file = joinPosix(root, CONFIG_FILE);
  let text: string;
  try {
    text = await fs.readText(file);
  } catch (e) {
    const code = (e as { code?: string } | null)?.code;
    if (code === "ENOENT") return defaultConfig(root);
    if (code === "EISDIR") throw configError(file, "is a directory");
    if (code === "EACCES" || code === "EPERM") {
      throw configError(file, "cannot be read", "check the file's permissions");
    }
    throw e;
  }
  return parseConfig(text, root, file);
}
