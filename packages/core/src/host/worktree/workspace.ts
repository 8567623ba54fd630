import { discoverSources } from "../../discovery/discover.ts";
import { ArielError } from "../../errors.ts";
import { quoteValue } from "../../names.ts";
import type { Ports } from "../../ports.ts";
import { didYouMean } from "../../suggest.ts";
import { DEFAULT_OVERLAY, isWithin, validateSourceName } from "../../worktree/_deps.ts";
import { canonicalize, commonGitDir, loadConfig, resolveContained, workspaceHash } from "./_deps.ts";
import { git } from "./git.ts";

/** A workspace opened for worktree work: canonical paths and the config that matters here. */
export interface WorktreeWorkspace {
  ports: Ports;
  /** Canonical workspace root. */
  root: string;
  hash: string;
  /** Canonical `worktreeRoot` (it may not exist yet). */
  worktreeRoot: string;
  /** Config `overlay` globs (beyond the default list). */
  overlay: string[];
  /** Lease time to live (config `leaseTtlMs`). */
  leaseTtlMs: number;
  /** Disk floor of add in bytes (config `minFreeBytes`; 0: none). */
  minFreeBytes: number;
  /** The range task ports are leased from (config `portRange`). */
  portRange: [number, number];
}

/**
 * Open a workspace: canonical root, its hash, and a worktree root that must lie inside one of the
 * approved roots (config `worktreeRoots`), after every link is resolved, else
 * ERR_NOT_APPROVED_ROOT (exit 77).
 */
export async function openWorkspace(ports: Ports, root: string): Promise<WorktreeWorkspace> {
  const canonicalRoot = await ports.fs.realpath(root);
  const config = await loadConfig(ports.fs, canonicalRoot);
  const worktreeRoot = await canonicalize(ports.fs, config.worktreeRoot);
  // An approved root is trusted as written: its parent is canonicalized, but a link at its last
  // component is not followed, so a link planted at `.ariel/worktrees` cannot carry worktrees
  // out of the workspace. The worktree root itself is followed all the way.
  const approved = await Promise.all(
    config.worktreeRoots.map(async (r) => {
      const cut = r.replace(/\/+$/, "").lastIndexOf("/");
      const parent = await canonicalize(ports.fs, r.slice(0, cut) || "/");
      return `${parent === "/" ? "" : parent}/${r.replace(/\/+$/, "").slice(cut + 1)}`;
    }),
  );
  if (!approved.some((a) => isWithin(a, worktreeRoot))) {
    throw new ArielError(
      "ERR_NOT_APPROVED_ROOT",
      `worktree root ${worktreeRoot} is not inside an approved root`,
      {
        context: { worktreeRoot, approved },
      },
    );
  }
  return {
    ports,
    root: canonicalRoot,
    hash: await workspaceHash(canonicalRoot),
    worktreeRoot,
    overlay: config.overlay.filter((p) => !DEFAULT_OVERLAY.includes(p)),
    leaseTtlMs: config.leaseTtlMs,
    minFreeBytes: config.minFreeBytes,
    portRange: config.portRange,
  };
}

/** A source of the workspace, resolved and checked. */
export interface ResolvedSource {
  name: string;
  /** Canonical path of its checkout. */
  path: string;
  /** The repository's common git dir (where the repo lock lives). */
  commonGitDir: string;
}

/**
 * The common git dir of the checkout at `path`, where its repository lock lives: read from
 * `.git` without a git process (the same rule `reconcile` uses, so both take the same lock),
 * asking git only for layouts that rule does not know.
 */
export async function repoLockDir(ports: Ports, path: string): Promise<string> {
  const dir = await commonGitDir(ports.fs, path);
  if (dir?.startsWith("/")) return dir;
  return (await git(ports, path, ["rev-parse", "--path-format=absolute", "--git-common-dir"])).trim();
}

/**
 * Check a source name before anything else: one that climbs out (`..`) or is absolute is an
 * escape (ERR_PATH_ESCAPE, exit 77); any other bad name is ERR_INVALID_NAME (65).
 */
export function checkSourceName(name: string): string {
  if (name.startsWith("/") || name.split("/").includes("..")) {
    throw new ArielError("ERR_PATH_ESCAPE", `source ${quoteValue(name)} points outside the workspace root`, {
      hint: "name a source by its path relative to the workspace root",
      context: { source: name },
    });
  }
  return validateSourceName(name);
}

/**
 * Resolve a source name to its checkout: the name must be valid (65), stay inside the root after
 * every link is resolved (77), and hold a `.git` (66).
 */
export async function resolveSource(ws: WorktreeWorkspace, name: string): Promise<ResolvedSource> {
  checkSourceName(name);
  const path = name === "." ? ws.root : await resolveContained(ws.ports.fs, ws.root, name);
  if (isWithin(ws.worktreeRoot, path) && path !== ws.root) {
    throw new ArielError("ERR_PATH_ESCAPE", `source ${quoteValue(name)} lies inside the worktree root`, {
      hint: "name a source checkout, not a task's worktree",
      context: { source: name },
    });
  }
  if (!(await ws.ports.fs.lstat(`${path}/.git`))) {
    const known = await discoverSources(ws.ports.fs, ws.root, {
      maxDepth: Math.max(1, name.split("/").length),
      nested: true,
    }).catch(() => []);
    const suggestion = didYouMean(
      name,
      known.map((s) => s.name),
    );
    throw new ArielError("ERR_SOURCE_NOT_FOUND", `no source named ${quoteValue(name)} in ${ws.root}`, {
      hint: `${suggestion ? `${suggestion} ` : ""}run ariel-discover to list the workspace's sources`,
      context: { source: name },
    });
  }
  const common = await repoLockDir(ws.ports, path);
  return { name, path, commonGitDir: common };
}
