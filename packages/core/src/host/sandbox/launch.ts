/**
 * The command line of a sandboxed run (docs/sandbox.md): the sandbox prepared (git shadows,
 * manifest), the facts of the disk gathered, and `bwrap` wrapped around the command. The mounts
 * are planned by the pure core (`planMounts`, `planGitShadow`); this file only looks at the disk.
 */
import {
  existsSync,
  lstatSync,
  mkdirSync,
  readdirSync,
  readFileSync,
  realpathSync,
  statSync,
  writeFileSync,
} from "node:fs";
import { dirname } from "node:path";
import { CONFIG_FILE, loadConfig } from "../../config.ts";
import { discoverSourcesSync } from "../../discovery/discover.ts";
import { isWithin } from "../../paths.ts";
import { AGENT_PRESETS, type ProtectedPath } from "../../runs/attention/presets.ts";
import { planGitShadow } from "../../sandbox/git_shadow.ts";
import { bwrapArgv, type Mount, planMounts } from "../../sandbox/mounts.ts";
import { sandboxPaths } from "../../sandbox/paths.ts";
import { ALWAYS_PROTECTED, expandHome, type RecordedSandbox } from "../../sandbox/settings.ts";
import { minimalCover } from "../../sandbox/writable.ts";
import { userStateDir, workspacesDir } from "../../state_home.ts";
import { stateDir } from "../../state_paths.ts";
import { syncFs, syncReadFs } from "../sync_fs.ts";
import { type PreparedSandbox, prepareSandbox, type SandboxLeg } from "./prepare.ts";
import { requireSandboxTools } from "./probe.ts";

export type { SandboxLeg };

/** What {@link sandboxLaunch} wraps: one run's command, where it runs, and its sandbox. */
export interface SandboxLaunchInput {
  root: string;
  runId: string;
  task: string | null;
  sandbox: RecordedSandbox;
  legs: readonly SandboxLeg[];
  cwd: string;
  /** The child's environment (its HOME and PATH matter). */
  env: Readonly<Record<string, string | undefined>>;
  argv: readonly string[];
  /** The restricted monitor socket to show inside as `.ariel/monitor.sock` (detached runs). */
  socket?: string | null;
  /** Files of the run's own under `.ariel/` it reads, shown read-only inside (its agent's report wiring). */
  reads?: readonly string[];
  /** Programs the command runs beside its argv (the agents' reporter): kept visible like argv's files. */
  programs?: readonly string[];
}

export interface SandboxLaunch {
  /** The whole command line: env, bwrap and its mounts, env, the command. */
  argv: string[];
  mounts: Mount[];
  prepared: PreparedSandbox;
}

/** Every protected path of every agent and of {@link ALWAYS_PROTECTED}. */
function allProtected(): ProtectedPath[] {
  return [...ALWAYS_PROTECTED, ...AGENT_PRESETS.flatMap((p) => p.state.protect)];
}

/**
 * The protected paths that lie under a writable one, canonical; an absent one is made first
 * (an empty directory, or a file with its neutral content) so the sandbox cannot create it.
 */
function protectedPaths(write: readonly string[], home: string | null): string[] {
  const out: string[] = [];
  for (const p of allProtected()) {
    const path = expandHome(p.path, home);
    if (path === null || !write.some((w) => isWithin(w, path))) continue;
    if (!existsSync(path)) {
      if (!existsSync(path.slice(0, path.lastIndexOf("/")))) continue;
      if (p.kind === "dir") mkdirSync(path);
      else writeFileSync(path, p.empty ?? "", { flag: "wx" });
    }
    const real = realpathSync.native(path);
    if (write.some((w) => isWithin(w, real))) out.push(real);
  }
  return out;
}

/**
 * The workspace's own config file, read-only when a writable place holds it (an in-place run in
 * the checkout at the workspace root): ariel reads it as the user's, hooks included.
 */
function workspaceConfig(root: string, write: readonly string[]): string[] {
  const file = `${root}/${CONFIG_FILE}`;
  return existsSync(file) && write.some((w) => isWithin(w, file)) ? [file] : [];
}

/** The workspace's sources, and its worktree root, under a writable path but not the run's own. */
function foreignPaths(
  root: string,
  write: readonly string[],
  legs: readonly SandboxLeg[],
  worktreeRoot: string,
) {
  const state = stateDir(root);
  const underWritable = (p: string) => write.some((w) => isWithin(w, p) && w !== p);
  if (!write.some((w) => isWithin(root, w) && !isWithin(state, w))) return [];
  const sources = discoverSourcesSync(syncReadFs, root, { maxDepth: 2, nested: true }).map((s) => s.path);
  // The run's own: a leg, or a source holding one. A source inside a leg is another repository
  // (an in-place run in the checkout at the root does not get the ones inside it).
  const mine = (p: string) => legs.some((l) => isWithin(p, l.path));
  const out = sources.filter((s) => underWritable(s) && !mine(s));
  if (!isWithin(state, worktreeRoot) && underWritable(worktreeRoot)) out.push(worktreeRoot);
  return out;
}

/** The hidden paths that exist now, with their kind. */
function hiddenKinds(hide: readonly string[]): Map<string, "dir" | "file"> {
  const out = new Map<string, "dir" | "file">();
  for (const p of hide) {
    try {
      out.set(p, statSync(p).isDirectory() ? "dir" : "file");
    } catch {
      // gone since the run was planned: nothing to hide
    }
  }
  return out;
}

/**
 * Other workspaces' state dirs (their monitors would start runs outside the sandbox), from the
 * registry in the user state dir: each entry's `root` only, read without a schema (a damaged
 * entry hides nothing and is the fleet's to report).
 */
function otherStateDirs(root: string, env: SandboxLaunchInput["env"], cwd: string): string[] {
  const home = userStateDir(env, cwd);
  if (home === null) return [];
  const dir = workspacesDir(home);
  let names: string[];
  try {
    names = readdirSync(dir).filter((n) => n.endsWith(".json") && !n.startsWith("."));
  } catch {
    return [];
  }
  const out: string[] = [];
  for (const n of names) {
    try {
      const r = (JSON.parse(readFileSync(`${dir}/${n}`, "utf8")) as { root?: unknown }).root;
      const d = typeof r === "string" && r.startsWith("/") ? stateDir(r) : null;
      if (d !== null && d !== stateDir(root) && lstatSync(d).isDirectory()) out.push(d);
    } catch {
      // not an entry, or its workspace has no state dir: nothing to hide
    }
  }
  return out;
}

/**
 * Paths under /tmp a sandbox keeps readable (its private /tmp would hide them): the workspace,
 * the cwd, home, the repositories, PATH's directories; none another one holds already, none a
 * writable path covers.
 */
function keepVisible(input: SandboxLaunchInput, prepared: PreparedSandbox): string[] {
  const path = (input.env.PATH ?? "").split(":").filter((p) => p.startsWith("/"));
  const all = [
    input.root,
    input.cwd,
    ...(input.env.HOME ? [input.env.HOME] : []),
    ...prepared.legs.flatMap((l) => [l.path, l.common]),
    ...path,
    ...commandFiles([...input.argv, ...(input.programs ?? [])]),
  ].filter((p) => isWithin("/tmp", p) && p !== "/tmp" && existsSync(p));
  return minimalCover(all).filter((p) => !input.sandbox.write.some((w) => isWithin(w, p)));
}

/**
 * The files a command names under `/tmp` (the private `/tmp` would hide them): each argv word
 * that is an existing absolute path there, as the whole checkout it lies in (a script's
 * siblings, its fixtures, an ariel run from a clone), else itself. Read-only, like the rest.
 */
function commandFiles(words: readonly string[]): string[] {
  const out: string[] = [];
  for (const w of words) {
    if (!w.startsWith("/tmp/") || !existsSync(w)) continue;
    out.push(checkoutAround(w) ?? w);
  }
  return out;
}

/** The nearest directory above `path`, below `/tmp`, that holds a `.git`; null when none does. */
function checkoutAround(path: string): string | null {
  for (let d = dirname(path); d !== "/tmp" && d !== "/" && isWithin("/tmp", d); d = dirname(d)) {
    if (existsSync(`${d}/.git`)) return d;
  }
  return null;
}

/**
 * git's settings for the sandbox, through the environment (`GIT_CONFIG_COUNT`, after any the
 * run has): `gc` packs no refs there (packing rewrites every ref, which the sandbox's
 * reference-transaction hook refuses for the refs it may not change) and writes no
 * `info/refs` (the real `info/` is read-only inside).
 */
function gitConfigEnv(env: SandboxLaunchInput["env"]): Record<string, string> {
  const n = Number(env.GIT_CONFIG_COUNT ?? "0");
  const i = Number.isInteger(n) && n >= 0 ? n : 0;
  const pairs = [
    ["gc.packRefs", "false"],
    ["repack.updateServerInfo", "false"],
  ];
  const out: Record<string, string> = { GIT_CONFIG_COUNT: String(i + pairs.length) };
  pairs.forEach(([k, v], j) => {
    out[`GIT_CONFIG_KEY_${i + j}`] = k!;
    out[`GIT_CONFIG_VALUE_${i + j}`] = v!;
  });
  return out;
}

/**
 * Prepare the sandbox of one run and return the command line that starts it. Throws
 * ERR_SANDBOX_UNAVAILABLE (69) where no sandbox can be made; nothing is started here.
 */
export async function sandboxLaunch(input: SandboxLaunchInput): Promise<SandboxLaunch> {
  const tools = await requireSandboxTools(input.env, input.cwd);
  const prepared = await prepareSandbox(input);
  const home = input.env.HOME?.startsWith("/") ? input.env.HOME : null;
  const config = await loadConfig(syncFs, input.root).catch(() => null);
  const write = input.sandbox.write;
  const git: Mount[] = prepared.repos.flatMap((r) => planGitShadow(r).mounts);
  for (const l of prepared.legs) {
    if (l.gitFile !== null) git.push({ op: "ro-bind", src: l.gitFile, dest: l.gitFile, why: "git" });
  }
  const visible = keepVisible(input, prepared);
  const seen = (p: string) => !isWithin("/tmp", p) || visible.some((v) => isWithin(v, p));
  const mounts = planMounts({
    sandbox: input.sandbox,
    stateDir: stateDir(input.root),
    otherStateDirs: otherStateDirs(input.root, input.env, input.cwd).filter(seen),
    keepVisible: visible,
    protect: [...protectedPaths(write, home), ...workspaceConfig(input.root, write)],
    foreign: foreignPaths(input.root, write, input.legs, config?.worktreeRoot ?? stateDir(input.root)),
    hidden: hiddenKinds(input.sandbox.hide),
    git,
    socket: input.socket ?? null,
    reads: input.reads ?? [],
    emptyFile: emptyFile(input.root, input.runId),
  });
  const argv = bwrapArgv(
    {
      ...tools,
      mounts,
      net: input.sandbox.net,
      cwd: input.cwd,
      setenv: { TMPDIR: "/tmp", ARIEL_SANDBOX: "1", ...gitConfigEnv(input.env) },
    },
    input.argv,
  );
  return { argv, mounts, prepared };
}

/** The sandbox's empty read-only file (made once: a restart reuses it). */
function emptyFile(root: string, runId: string): string {
  const path = sandboxPaths(root, runId).empty;
  if (!existsSync(path)) writeFileSync(path, "", { mode: 0o444 });
  return path;
}

/** Where a run's sandbox keeps its restricted monitor socket. */
export function sandboxSocketPath(root: string, runId: string): string {
  return sandboxPaths(root, runId).socket;
}
