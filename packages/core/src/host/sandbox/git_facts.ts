/**
 * What a sandbox needs to know of each repository a run works in, read from the files git
 * itself reads (`.git`, `commondir`, HEAD, config) and one `git rev-parse` only when a config
 * may move the hooks directory.
 */
import { existsSync, lstatSync, readdirSync, realpathSync, statSync } from "node:fs";
import { ArielError } from "../../errors.ts";
import { dirnamePosix, joinPosix } from "../../paths.ts";
import { ADMIN_READ_ONLY, REAL_OBJECTS, type RepoFacts } from "../../sandbox/git_shadow.ts";
import { nodeChildProcess } from "../builtins.ts";
import { gitEnv, gitExecutable } from "../git.ts";
import { canonicalOrNull, readOrNull } from "./refs.ts";

/** Where one of a run's places keeps its git state. */
export interface LegGit {
  /** The place (a worktree or a checkout), canonical. */
  path: string;
  /** Its git dir: the common dir for a main worktree, `<common>/worktrees/<name>` for a linked one. */
  gitdir: string;
  common: string;
  main: boolean;
  /** The `.git` file of a linked worktree (read-only inside), else null. */
  gitFile: string | null;
}

function isDirectory(path: string): boolean {
  try {
    return statSync(path).isDirectory();
  } catch {
    return false;
  }
}

/** The git dirs of the checkout or worktree at `path` (ERR_NOT_A_CHECKOUT, 66, when it is none). */
export function legGit(path: string): LegGit {
  const dotGit = `${path}/.git`;
  let st: ReturnType<typeof lstatSync>;
  try {
    st = lstatSync(dotGit);
  } catch {
    throw new ArielError("ERR_NOT_A_CHECKOUT", `${path} is not a git checkout: a sandbox needs one`, {
      hint: "name a source with --source, or pass --isolate",
      context: { path },
    });
  }
  // A `.git` that links to a directory is one, as git takes it.
  if (st.isDirectory() || (st.isSymbolicLink() && isDirectory(dotGit))) {
    const common = realpathSync.native(dotGit);
    return { path, gitdir: common, common, main: true, gitFile: null };
  }
  const m = /^gitdir: (.+)$/m.exec(readOrNull(dotGit) ?? "");
  if (!m) throw new ArielError("ERR_NOT_A_CHECKOUT", `${dotGit} names no git dir`, { context: { path } });
  const named = joinPosix(path, m[1]!.trim());
  // A worktree whose admin dir was pruned (or a dangling link) names a git dir that is gone.
  const gitdir = canonicalOrNull(named);
  const commondir = gitdir === null ? undefined : readOrNull(`${gitdir}/commondir`)?.trim();
  const common = gitdir === null ? null : commondir ? canonicalOrNull(joinPosix(gitdir, commondir)) : gitdir;
  if (gitdir === null || common === null) {
    throw new ArielError("ERR_NOT_A_CHECKOUT", `${dotGit} names a git dir that is gone: ${named}`, {
      hint: "its files are kept; ariel-worktree reconcile --dry-run says what is wrong with it",
      context: { path, gitdir: named },
    });
  }
  return { path, gitdir, common, main: common === gitdir, gitFile: dotGit };
}

/** The branch a git dir's HEAD names (`refs/heads/x`), or null when it is detached. */
export function headBranch(gitdir: string): string | null {
  const head = readOrNull(`${gitdir}/HEAD`)?.trim() ?? "";
  return head.startsWith("ref: refs/heads/") ? head.slice(5) : null;
}

/** Config files that could set `core.hooksPath` (or include one that does). */
function configTexts(common: string, env: Readonly<Record<string, string | undefined>>): string[] {
  const home = env.HOME ?? "";
  const xdg = env.XDG_CONFIG_HOME ?? (home ? `${home}/.config` : "");
  const files = [
    `${common}/config`,
    env.GIT_CONFIG_GLOBAL ?? (home ? `${home}/.gitconfig` : ""),
    xdg ? `${xdg}/git/config` : "",
    env.GIT_CONFIG_SYSTEM ?? "/etc/gitconfig",
  ];
  return files.filter((f) => f !== "").map((f) => readOrNull(f) ?? "");
}

/**
 * The hooks directory when a config moves it (canonical, existing), else null. Read from the
 * config files' text first; git is asked only when one mentions hooksPath or an include.
 */
function hooksPathOf(leg: LegGit, env: Readonly<Record<string, string | undefined>>): string | null {
  const texts = configTexts(leg.common, env);
  const maybe =
    texts.some((t) => /hookspath|\binclude/i.test(t)) ||
    Object.keys(env).some(
      (k) => k.startsWith("GIT_CONFIG_") && k !== "GIT_CONFIG_GLOBAL" && k !== "GIT_CONFIG_SYSTEM",
    );
  if (!maybe) return null;
  const r = nodeChildProcess().spawnSync(
    gitExecutable(env as NodeJS.ProcessEnv),
    ["rev-parse", "--git-path", "hooks"],
    {
      cwd: leg.path,
      env: gitEnv(env as NodeJS.ProcessEnv),
      encoding: "utf8",
    },
  );
  const out = (r.stdout ?? "").trim();
  if (r.status !== 0 || out === "") return null;
  const abs = joinPosix(leg.path, out);
  if (abs === `${leg.common}/hooks` || !existsSync(abs)) return null;
  return realpathSync.native(abs);
}

/** A repository git may not be able to keep private (ERR_SANDBOX_UNAVAILABLE): reftable refs. */
function checkRefStorage(common: string): void {
  const config = readOrNull(`${common}/config`) ?? "";
  if (/refstorage\s*=\s*reftable/i.test(config)) {
    throw new ArielError(
      "ERR_SANDBOX_UNAVAILABLE",
      `${common} keeps its refs in a reftable: a sandbox cannot give it private refs yet`,
      { hint: "run this repository's agents without --sandbox (docs/sandbox.md)", context: { common } },
    );
  }
}

/** The facts {@link planGitShadow} plans a repository's shadow from. */
export function repoFacts(
  legs: readonly LegGit[],
  shadow: string,
  env: Readonly<Record<string, string | undefined>>,
): RepoFacts {
  const first = legs[0]!;
  const common = first.common;
  checkRefStorage(common);
  const entries = readdirSync(common, { withFileTypes: true })
    .filter((e) => e.name !== REAL_OBJECTS)
    .map((e) => ({ name: e.name, dir: e.isDirectory() }));
  const admins = legs
    .filter((l) => !l.main)
    .map((l) => {
      const files = ADMIN_READ_ONLY.filter((f) => existsSync(`${l.gitdir}/${f}`));
      return { name: l.gitdir.slice(dirnamePosix(l.gitdir).length + 1), files };
    });
  return {
    common,
    shadow,
    entries,
    admins,
    main: legs.some((l) => l.main),
    hooksPath: hooksPathOf(first, env),
  };
}
