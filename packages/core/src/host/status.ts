/**
 * `ariel-discover --status`: what git says about each source (dirty, ahead/behind its upstream,
 * fingerprint), run with a bounded number of git processes at once. Only these calls run git;
 * discovery itself never does.
 *
 * @example
 * ```ts
 * const results = await sourcesStatus(nodeGit, sources.map((s) => s.path));
 * // [{ ok: true, status: { dirty: false, ahead: 0, behind: 2, upstream: "origin/main", fingerprint: "…" } }]
 * ```
 */
import { createLimiter } from "../discovery/limit.ts";
import { ArielError, isArielError } from "../errors.ts";
import { childMessage, sourceFingerprint } from "../fingerprint.ts";
import type { GitPort, GitResult } from "../ports.ts";

/** The --status fields of a source record. */
export interface SourceStatus {
  /** Modified, staged or untracked files (`git status --porcelain=v1 --untracked-files=normal`). */
  dirty: boolean;
  /** Commits on HEAD not on the upstream; null without an upstream. */
  ahead: number | null;
  /** Commits on the upstream not on HEAD; null without an upstream. */
  behind: number | null;
  /** The upstream's short name (`origin/main`); null when the branch has none. */
  upstream: string | null;
  /** {@link sourceFingerprint} of the checkout. */
  fingerprint: string;
}

export type StatusResult = { ok: true; status: SourceStatus } | { ok: false; error: ArielError };

/** Default number of git processes --status runs at once. */
export const STATUS_CONCURRENCY = 8;

function failed(path: string, args: readonly string[], r: GitResult): ArielError {
  const why = childMessage(r.stderr, `exit ${r.code}`);
  return new ArielError("ERR_GIT", `git ${args[0]} failed in ${path}: ${why}`, {
    context: { path, gitExit: r.code },
  });
}

/** The status of the checkout at `path`. Throws ERR_GIT (redacted) when git fails on it. */
export async function sourceStatus(git: GitPort, path: string): Promise<SourceStatus> {
  const statusArgs = ["status", "--porcelain=v1", "-z", "--untracked-files=normal"];
  const upstreamArgs = ["rev-parse", "--abbrev-ref", "--symbolic-full-name", "@{u}"];
  const [st, up, fingerprint] = await Promise.all([
    git.run(statusArgs, { cwd: path }),
    git.run(upstreamArgs, { cwd: path }),
    sourceFingerprint(git, path),
  ]);
  if (st.code !== 0) throw failed(path, statusArgs, st);
  const upstream = up.code === 0 && up.stdout.trim() !== "" ? up.stdout.trim() : null;
  let ahead: number | null = null;
  let behind: number | null = null;
  if (upstream !== null) {
    const counts = await git.run(["rev-list", "--left-right", "--count", "@{u}...HEAD"], { cwd: path });
    const m = /^(\d+)\s+(\d+)\s*$/.exec(counts.stdout);
    // An unborn HEAD with an upstream configured cannot be counted: leave both null.
    if (counts.code === 0 && m) {
      behind = Number(m[1]);
      ahead = Number(m[2]);
    }
  }
  return { dirty: st.stdout.length > 0, ahead, behind, upstream, fingerprint };
}

/** A GitPort that runs at most `n` git processes at once. */
export function limitGit(git: GitPort, n: number): GitPort {
  const limit = createLimiter(n);
  return { run: (args, options) => limit(() => git.run(args, options)) };
}

/**
 * The status of every path, in order, with at most `concurrency` git processes at once. A source
 * git fails on gives `{ ok: false }`; a missing git (ERR_GIT_MISSING, exit 69) rejects the whole.
 */
export async function sourcesStatus(
  git: GitPort,
  paths: readonly string[],
  concurrency = STATUS_CONCURRENCY,
): Promise<StatusResult[]> {
  const limited = limitGit(git, concurrency);
  return Promise.all(
    paths.map(async (path): Promise<StatusResult> => {
      try {
        return { ok: true, status: await sourceStatus(limited, path) };
      } catch (e) {
        if (isArielError(e) && e.code === "ERR_GIT") return { ok: false, error: e };
        throw e;
      }
    }),
  );
}
