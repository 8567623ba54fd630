/**
 * Which config files speak for a leg, and whether their hooks may run (docs/lifecycle.md). A
 * leg hears its source's `ariel.config.json` (the repository's when git tracks it) and the
 * workspace's, in that order, each file once. Whose a file is, is decided by git, not by place:
 * a file git tracks came with the repository and runs only once approved with this very content
 * (`ariel-worktree trust`); an untracked one is the user's own.
 *
 * @example
 * ```ts
 * const { sets } = await hookSetsFor(ports, "/ws", "/ws/api");
 * sets.map((s) => [s.origin, s.trusted]); // [["repository", false], ["workspace", true]]
 * ```
 */
import { CONFIG_FILE, parseConfig } from "../../config.ts";
import { isArielError } from "../../errors.ts";
import { type HookSet, hasHooks, hooksDigest } from "../../lifecycle/hooks.ts";
import { joinPosix } from "../../paths.ts";
import type { Ports } from "../../ports.ts";
import { readTrust, type TrustEntry } from "./trust_store.ts";

/** A config file that speaks for a leg: its hooks (as a {@link HookSet}) and its port names. */
export interface ConfigSet extends HookSet {
  ports: string[];
}

/** A config file that could not be used (a source's invalid one): skipped with a warning. */
export interface HookSetProblem {
  code: "WARN_CONFIG_INVALID";
  message: string;
  hint: string;
  context: Record<string, unknown>;
}

/** True when git tracks `<dir>/ariel.config.json` (in `dir`'s repository, whatever its top). */
export async function configTracked(ports: Ports, dir: string): Promise<boolean> {
  const r = await ports.git.run(["ls-files", "-z", "--", CONFIG_FILE], { cwd: dir });
  return r.code === 0 && r.stdout.length > 0;
}

/** The config file in `dir` as a {@link ConfigSet}, or null when there is none. */
export async function readConfigSet(
  ports: Ports,
  dir: string,
  trust: readonly TrustEntry[],
): Promise<ConfigSet | null> {
  const file = joinPosix(dir, CONFIG_FILE);
  let text: string;
  try {
    text = await ports.fs.readText(file);
  } catch (e) {
    if ((e as { code?: string }).code === "ENOENT") return null;
    throw e;
  }
  const config = parseConfig(text, dir, file);
  const sha256 = await hooksDigest(config.hooks);
  // Whose the file is matters only for its hooks: a file without any costs no git process.
  const origin = hasHooks(config.hooks) && (await configTracked(ports, dir)) ? "repository" : "workspace";
  const approved = trust.find((e) => e.file === file);
  const trusted = origin === "workspace" || approved?.sha256 === sha256;
  return {
    origin,
    file,
    hooks: config.hooks,
    sha256,
    ...(config.hookTimeoutMs !== null ? { timeoutMs: config.hookTimeoutMs } : {}),
    trusted,
    ...(trusted ? {} : { untrusted: approved ? "changed" : "never-approved" }),
    ports: config.ports,
  };
}

/**
 * The config sets of a leg whose source is at `sourcePath`: the source's file, then the
 * workspace root's (once when they are the same file). A source's invalid file is skipped with a
 * problem; the workspace's own was validated when the workspace was opened.
 */
export async function hookSetsFor(
  ports: Ports,
  root: string,
  sourcePath: string,
  trust?: readonly TrustEntry[],
): Promise<{ sets: ConfigSet[]; problems: HookSetProblem[] }> {
  const approvals = trust ?? (await readTrust(ports));
  const dirs = sourcePath === root ? [root] : [sourcePath, root];
  const sets: ConfigSet[] = [];
  const problems: HookSetProblem[] = [];
  for (const dir of dirs) {
    try {
      const set = await readConfigSet(ports, dir, approvals);
      if (set) sets.push(set);
    } catch (e) {
      if (!isArielError(e) || e.code !== "ERR_CONFIG" || dir === root) throw e;
      problems.push({
        code: "WARN_CONFIG_INVALID",
        message: `${e.message}; its hooks and ports are ignored`,
        hint: e.hint,
        context: { file: joinPosix(dir, CONFIG_FILE) },
      });
    }
  }
  return { sets, problems };
}
