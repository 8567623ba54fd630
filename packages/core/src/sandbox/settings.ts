/**
 * What a sandboxed run may write and may not read (docs/sandbox.md): the defaults as data, and
 * the settings a run starts with, from the config's `sandbox` key and the spawn flags.
 *
 * @example
 * ```ts
 * sandboxWanted({ enabled: true, write: [], hide: [], net: "on" }, {}); // true
 * expandHome("~/.ssh", "/home/u"); // "/home/u/.ssh"
 * ```
 */
import { ArielError } from "../errors.ts";
import { joinPosix } from "../paths.ts";
import type { ProtectedPath } from "../runs/attention/presets.ts";

/** `--sandbox-net`: on (the host's network, the default) or none (no interface but loopback). */
export type SandboxNet = "on" | "none";
export const SANDBOX_NETS: readonly SandboxNet[] = ["on", "none"];

/** The config file's `sandbox` key, defaults applied: `true` is `{enabled: true}`. */
export interface SandboxConfig {
  /** Every local run of the workspace is sandboxed (`--no-sandbox` opts one out). */
  enabled: boolean;
  /** Writable besides the run's own places (absolute, `~/`, or relative to the workspace root). */
  write: string[];
  /** Hidden besides {@link DEFAULT_HIDDEN}. */
  hide: string[];
  net: SandboxNet;
}

/** The config of a workspace whose file has no `sandbox` key. */
export const NO_SANDBOX_CONFIG: SandboxConfig = { enabled: false, write: [], hide: [], net: "on" };

/**
 * A sandboxed run's settings as its record keeps them (`run.json` `sandbox`): every path
 * writable inside and every path hidden, absolute and canonical, as they were when it started;
 * a respawn starts in the same sandbox.
 */
export interface RecordedSandbox {
  write: string[];
  hide: string[];
  net: SandboxNet;
}

/**
 * Credential stores and the sockets of services that act for the user, hidden inside every
 * sandbox (those that exist): directories become empty, files read as empty. Config `hide` adds
 * to them.
 */
export const DEFAULT_HIDDEN: readonly string[] = [
  "~/.ssh",
  "~/.aws",
  "~/.azure",
  "~/.config/gcloud",
  "~/.kube",
  "~/.docker",
  "~/.gnupg",
  "~/.password-store",
  "~/.local/share/keyrings",
  "~/.netrc",
  "~/.git-credentials",
  "~/.config/git/credentials",
  "~/.config/gh",
  "~/.config/hub",
  "~/.config/glab-cli",
  "~/.npmrc",
  "~/.yarnrc.yml",
  "~/.pypirc",
  "~/.gem/credentials",
  "~/.cargo/credentials",
  "~/.cargo/credentials.toml",
  "~/.terraform.d/credentials.tfrc.json",
  "~/.vault-token",
  "~/.config/op",
  // Sockets through which a process could act outside: the user's session bus, ssh and gpg
  // agents (XDG_RUNTIME_DIR), the system bus, systemd, and container engines.
  "/run/user",
  "/run/dbus",
  "/run/systemd/private",
  "/run/docker.sock",
  "/run/containerd",
  "/run/podman",
  "/run/screen",
];

/**
 * Package caches writable in every sandbox (those that exist), so installs inside work. What
 * they hold is fetched by checksum (npm, pnpm, cargo, go) or rebuilt; see docs/sandbox.md for
 * what a poisoned cache could still do.
 */
export const PACKAGE_CACHES: readonly string[] = [
  "~/.npm",
  "~/.cache/pip",
  "~/.cache/uv",
  "~/.cache/yarn",
  "~/.cache/pnpm",
  "~/.local/share/pnpm/store",
  "~/.cache/go-build",
  "~/go/pkg/mod",
  "~/.cargo/registry",
  "~/.cargo/git",
  "~/.m2/repository",
  "~/.gradle/caches",
  "~/.bun/install/cache",
  "~/.cache/deno",
];

/**
 * Read-only inside whatever writable path holds them, in every sandbox: files a shell or git
 * reads at start (code that would run later outside), and npx's store of packages it runs.
 */
export const ALWAYS_PROTECTED: readonly ProtectedPath[] = [
  { path: "~/.npm/_npx", kind: "dir" },
  ...[
    ".bashrc",
    ".bash_profile",
    ".bash_login",
    ".bash_logout",
    ".profile",
    ".zshrc",
    ".zshenv",
    ".zprofile",
    ".zlogin",
    ".gitconfig",
  ].map((f): ProtectedPath => ({ path: `~/${f}`, kind: "file", empty: "" })),
  { path: "~/.config/fish", kind: "dir" },
  { path: "~/.config/git", kind: "dir" },
];

/**
 * `~` or `~/x` against `home`; an absolute path as it is; anything else relative to `base`
 * (or null without one, as for a config value without a root).
 */
export function expandHome(path: string, home: string | null, base: string | null = null): string | null {
  if (path === "~" || path.startsWith("~/")) return home === null ? null : joinPosix(home, path.slice(2));
  if (path.startsWith("/")) return joinPosix(path);
  return base === null ? null : joinPosix(base, path);
}

/** The sandbox flags of one ariel-spawn call (or MCP call, or dashboard form). */
export interface SandboxFlags {
  sandbox?: boolean;
  noSandbox?: boolean;
  write?: readonly string[];
  net?: string;
  /** `--agent` was given without `--tty`: it means something only in a sandbox. */
  agentAlone?: boolean;
}

/**
 * Whether a run is sandboxed: `--sandbox`, else config `sandbox` unless `--no-sandbox`.
 * `--sandbox-write`/`--sandbox-net` need it on (ERR_USAGE), and `--sandbox` with `--no-sandbox`
 * contradict each other.
 */
export function sandboxWanted(config: SandboxConfig, flags: SandboxFlags): boolean {
  if (flags.sandbox && flags.noSandbox) {
    throw new ArielError("ERR_USAGE", "--sandbox and --no-sandbox exclude each other");
  }
  const on = flags.sandbox === true || (config.enabled && flags.noSandbox !== true);
  for (const [name, given] of [
    ["--sandbox-write", (flags.write?.length ?? 0) > 0],
    ["--sandbox-net", flags.net !== undefined],
    ["--agent (without --tty)", flags.agentAlone === true],
  ] as const) {
    if (given && !on) {
      throw new ArielError("ERR_USAGE", `${name} needs --sandbox`, {
        hint: 'pass --sandbox, or set "sandbox": true in ariel.config.json',
      });
    }
  }
  return on;
}

/** `--sandbox-net on|none` (default: config `net`). */
export function parseSandboxNet(value: string | undefined, fallback: SandboxNet): SandboxNet {
  if (value === undefined) return fallback;
  if ((SANDBOX_NETS as readonly string[]).includes(value)) return value as SandboxNet;
  throw new ArielError("ERR_USAGE", `--sandbox-net must be on or none, got ${JSON.stringify(value)}`);
}
