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
import { lazy } from "./lazy.ts";

/** Lease TTL bounds in milliseconds (30 s default, 300 s hard: docs/architecture.md, Leases). */
export const LEASE_TTL_MIN_MS = 1000;
export const LEASE_TTL_MAX_MS = 300_000;
export const LEASE_TTL_DEFAULT_MS = 30_000;

// Built on first use, not when the module loads: building them costs a CLI start ~0.1× of
// `node -e 0`, and most runs validate nothing.
function build() {
  const nonEmpty = z.string().check(z.minLength(1), z.maxLength(4096), z.regex(/^[^\0]*$/));

  const configSchema = z
    .strictObject({
      $schema: z.optional(z.string()).check(z.describe("Editor hint; ignored by ariel.")),
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

export const configSchema = (): ReturnType<typeof build>["configSchema"] => built().configSchema;

export type ConfigFile = z.infer<ReturnType<typeof configSchema>>;

/** The keys a config file may hold (for hints). */
export function configKeys(): readonly string[] {
  return Object.keys(configSchema().def.shape);
}
