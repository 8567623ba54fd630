/**
 * The schema of `<root>/ariel.config.json` (docs/config.md). Strict: an unknown key is an error,
 * so a typo never silently does nothing. Defaults are applied by `loadConfig`, because two of
 * them depend on the root.
 *
 * @example
 * ```json
 * {"worktreeRoot": ".ariel/worktrees", "overlay": [".env.local", "config/*.local.json"], "leaseTtlMs": 60000}
 * ```
 */
import * as z from "zod/mini";
import { lazy, lazyField } from "./lazy.ts";

/** Lease TTL bounds in milliseconds (30 s default, 300 s hard: docs/architecture.md, Leases). */
export const LEASE_TTL_MIN_MS = 1000;
export const LEASE_TTL_MAX_MS = 300_000;
export const LEASE_TTL_DEFAULT_MS = 30_000;

/** Hook timeout bounds in milliseconds (10 min default: docs/lifecycle.md). */
export const HOOK_TIMEOUT_MIN_MS = 100;
export const HOOK_TIMEOUT_MAX_MS = 86_400_000;
export const HOOK_TIMEOUT_DEFAULT_MS = 600_000;

/** The port range tasks lease from when config `portRange` is absent. */
export const PORT_RANGE_DEFAULT: readonly [number, number] = [20000, 29999];

/** A port name: letters, digits and `_`, starting with a letter (it becomes `ARIEL_PORT_<NAME>`). */
export const PORT_NAME_PATTERN = /^[A-Za-z][A-Za-z0-9_]{0,31}$/;

/** A non-empty string without NUL, at most 4096 characters. */
function nonEmptyString() {
  return z.string().check(z.minLength(1), z.maxLength(4096), z.regex(/^[^\0]*$/));
}
type NonEmpty = ReturnType<typeof nonEmptyString>;

/** Where worktrees go, what is copied into them, and the lease TTL. */
function worktreeKeys(nonEmpty: NonEmpty) {
  return {
    worktreeRoot: z
      .optional(nonEmpty)
      .check(
        z.describe(
          "Where task worktrees are made: absolute, or relative to the workspace root. Default .ariel/worktrees. Must lie inside one of worktreeRoots.",
        ),
      ),
    worktreeRoots: z
      .optional(z.array(nonEmpty).check(z.minLength(1)))
      .check(
        z.describe(
          "Approved roots for worktrees (absolute, or relative to the workspace root). Default [<root>/.ariel/worktrees].",
        ),
      ),
    overlay: z
      .optional(z.array(nonEmpty))
      .check(
        z.describe(
          "Extra glob patterns of local files copied from a source into each new worktree, added to the default overlay list.",
        ),
      ),
    leaseTtlMs: z
      .optional(z.int().check(z.minimum(LEASE_TTL_MIN_MS), z.maximum(LEASE_TTL_MAX_MS)))
      .check(z.describe("Lease time-to-live in milliseconds, 1000..300000. Default 30000.")),
  };
}

/** Where detached runs go: the backend and the k8s defaults. */
function backendKeys(nonEmpty: NonEmpty) {
  return {
    backend: z
      .optional(z.enum(["local", "k8s"]))
      .check(z.describe("Where ariel-spawn --detach runs: local (default) or k8s (docs/kubernetes.md).")),
    k8s: z
      .optional(
        z.strictObject({
          namespace: z.optional(nonEmpty),
          image: z.optional(nonEmpty),
          serviceAccount: z.optional(nonEmpty),
          gitSecret: z.optional(nonEmpty),
          overlayFrom: z.optional(nonEmpty),
          bundleClaim: z.optional(nonEmpty),
          ttl: z.optional(nonEmpty),
          requests: z.optional(nonEmpty),
          limits: z.optional(nonEmpty),
          kubeconfig: z.optional(nonEmpty),
        }),
      )
      .check(
        z.describe(
          "Defaults of the k8s backend, each the value of the flag of the same name (docs/kubernetes.md): namespace, image, serviceAccount, gitSecret, overlayFrom, bundleClaim, ttl, requests, limits, kubeconfig.",
        ),
      ),
  };
}

/** Directories shared into new worktrees, and how. */
function shareKeys() {
  return {
    share: z
      .optional(
        z.array(
          z.string().check(
            z.regex(/^[A-Za-z0-9._-]+$/),
            z.refine((s) => s !== "." && s !== ".."),
          ),
        ),
      )
      .check(
        z.describe(
          "Directory names (at the top of a checkout, e.g. node_modules) that add gives a new worktree from its source as hardlinks when the lockfiles match. Default []; --share adds to it.",
        ),
      ),
    shareMode: z
      .optional(z.enum(["tree", "store"]))
      .check(
        z.describe(
          'How a shared directory reaches a new worktree: "tree" (default), its own directories with every file a hardlink to the source\'s; "store", one store per source and lockfiles under .ariel/share, the worktree\'s directory a set of symbolic links into it (writes inside a package directory reach every worktree using the store; docs/disk.md). --share-mode overrides it.',
        ),
      ),
  };
}

/** Lifecycle hooks and their timeout. */
function hookKeys(nonEmpty: NonEmpty) {
  // A hook: a string run by `sh -c`, or an argv array run directly.
  const hook = z.union([nonEmpty, z.array(nonEmpty).check(z.minLength(1), z.maxLength(256))]);
  return {
    hooks: z
      .optional(
        z.strictObject({
          "post-create": z.optional(hook),
          "pre-remove": z.optional(hook),
          "post-restore": z.optional(hook),
          "pre-land": z.optional(hook),
          "post-land": z.optional(hook),
        }),
      )
      .check(
        z.describe(
          "Lifecycle hooks (docs/lifecycle.md): per event, a command run in each leg's worktree, as an argv array or a string run by sh -c. A file git tracks is the repository's: its hooks run only once approved with ariel-worktree trust.",
        ),
      ),
    hookTimeoutMs: z
      .optional(z.int().check(z.minimum(HOOK_TIMEOUT_MIN_MS), z.maximum(HOOK_TIMEOUT_MAX_MS)))
      .check(
        z.describe(
          "How long one hook may run, in milliseconds (100..86400000); then its process group gets SIGTERM, and SIGKILL 5 s later. Default 600000 (10 min).",
        ),
      ),
  };
}

/** Port names and the range tasks lease from. */
function portKeys() {
  const port = z.int().check(z.minimum(1024), z.maximum(65535));
  return {
    ports: z
      .optional(
        z.array(z.string().check(z.regex(PORT_NAME_PATTERN))).check(
          z.maxLength(16),
          z.refine((names) => new Set(names.map((n) => n.toUpperCase())).size === names.length, {
            message: "port names must be unique (ignoring case)",
          }),
        ),
      )
      .check(
        z.describe(
          'Port names (e.g. ["web", "api"]): each task leases one free port per name, unique on the machine, given to its hooks and spawned commands as ARIEL_PORT_<NAME> and PORT (the first).',
        ),
      ),
    portRange: z
      .optional(
        z.tuple([port, port]).check(
          z.refine(([lo, hi]) => lo <= hi, {
            message: "the range's first port must not exceed its last",
          }),
        ),
      )
      .check(z.describe("The ports leased to tasks, [first, last] inclusive. Default [20000, 29999].")),
  };
}

/** The sandbox of the workspace's runs (docs/sandbox.md). */
function sandboxKeys(nonEmpty: NonEmpty) {
  const settings = z.strictObject({
    enabled: z
      .optional(z.boolean())
      .check(z.describe("Sandbox every local run of the workspace (default true when the object is given).")),
    write: z
      .optional(z.array(nonEmpty).check(z.maxLength(64)))
      .check(
        z.describe(
          "Paths writable inside besides the run's worktrees, its agent's state and package caches: absolute, ~/…, or relative to the workspace root.",
        ),
      ),
    hide: z
      .optional(z.array(nonEmpty).check(z.maxLength(64)))
      .check(z.describe("Paths hidden inside besides the default credential stores (absolute or ~/…).")),
    net: z
      .optional(z.enum(["on", "none"]))
      .check(z.describe("The network inside: on (default) or none (loopback only).")),
  });
  return {
    sandbox: z
      .optional(z.union([z.boolean(), settings]))
      .check(
        z.describe(
          "Run local commands in a bubblewrap sandbox (docs/sandbox.md): true, or its settings {enabled, write, hide, net}. --sandbox and --no-sandbox override it per run.",
        ),
      ),
  };
}

// Built on first use, not when the module loads: building them costs a CLI start ~0.1× of
// `node -e 0`, and most runs validate nothing.
function build() {
  const nonEmpty = nonEmptyString();
  const configSchema = z
    .strictObject({
      $schema: z.optional(z.string()).check(z.describe("Editor hint; ignored by ariel.")),
      ...worktreeKeys(nonEmpty),
      ...backendKeys(nonEmpty),
      ...shareKeys(),
      ...hookKeys(nonEmpty),
      ...portKeys(),
      ...sandboxKeys(nonEmpty),
      minFreeBytes: z
        .optional(z.int().check(z.minimum(0)))
        .check(
          z.describe(
            "Disk floor in bytes: add and spawn refuse (exit 75) when the worktree root's filesystem has less free space. Default 0 (no floor); --min-free overrides it.",
          ),
        ),
    })
    .check(
      z.meta({ title: "ariel.config.json", description: "Optional configuration of an ariel workspace." }),
    );

  /** The file as written (every key optional). */
  return { configSchema };
}
const built = lazy(build);

export const configSchema = lazyField(built, "configSchema");

export type ConfigFile = z.infer<ReturnType<typeof configSchema>>;

/** The keys a config file may hold (for hints). */
export function configKeys(): readonly string[] {
  return Object.keys(configSchema().def.shape);
}
