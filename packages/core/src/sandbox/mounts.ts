/**
 * The filesystem of a sandboxed run as bubblewrap mounts, and the command line that makes it
 * (docs/sandbox.md). Pure: the facts (what exists, what is a directory) come in; the mounts and
 * the argv go out, so `--dry-run` prints what a real run does.
 *
 * @example
 * ```ts
 * bwrapArgv({ bwrap: "/usr/bin/bwrap", env: "/usr/bin/env", mounts: [], net: "none", cwd: "/w",
 *   setenv: {} }, ["make"]);
 * // ["/usr/bin/env", "--ignore-signal=HUP,INT,QUIT,TERM", "/usr/bin/bwrap", …, "--unshare-net", …,
 * //  "--", "/usr/bin/env", "--default-signal=HUP,INT,QUIT,TERM", "make"]
 * ```
 */
import { isWithin } from "../paths.ts";
import type { RecordedSandbox, SandboxNet } from "./settings.ts";

/** One mount of the sandbox, as bubblewrap makes it. */
export type Mount =
  | { op: "ro-bind" | "bind"; src: string; dest: string; why: MountWhy }
  | { op: "tmpfs" | "remount-ro"; dest: string; why: MountWhy };

/** Why a mount is there (the dry run's plan says it; the order of equal depths follows it). */
export type MountWhy =
  | "tmp"
  | "visible"
  | "workspace-state"
  | "writable"
  | "protected"
  | "not-the-run's"
  | "git"
  | "hidden"
  | "monitor-socket"
  | "run-file";

/** Mounts at the same depth are made in this order: what comes later wins. */
const WHY_ORDER: readonly MountWhy[] = [
  "tmp",
  "visible",
  "workspace-state",
  "writable",
  "protected",
  "not-the-run's",
  "git",
  "hidden",
  "monitor-socket",
  "run-file",
];

/** What {@link planMounts} is given: the recorded settings and what is on disk now. */
export interface MountFacts {
  sandbox: RecordedSandbox;
  /** `<root>/.ariel`: hidden inside (other runs' records, leases, the real monitor socket). */
  stateDir: string;
  /** Other workspaces' state dirs (their monitors could start runs outside). */
  otherStateDirs: readonly string[];
  /** Paths under /tmp that stay readable: the workspace, home, the repositories, PATH entries. */
  keepVisible: readonly string[];
  /** Protected paths (canonical, existing) under a writable one: read-only inside. */
  protect: readonly string[];
  /** Paths under a writable one the run does not own (other sources): read-only inside. */
  foreign: readonly string[];
  /** Each hidden path that exists now, and whether it is a directory. */
  hidden: ReadonlyMap<string, "dir" | "file">;
  /** The mounts of the run's repositories (`planGitShadow`). */
  git: readonly Mount[];
  /** The restricted monitor socket to show as `<stateDir>/monitor.sock`, if any. */
  socket: string | null;
  /** The run's own files under `<stateDir>` it reads (its agent's report wiring): read-only. */
  reads: readonly string[];
  /**
   * An empty read-only regular file a hidden file is shown as. Not the host's `/dev/null`:
   * where the host's `/dev` is mounted `nodev`, a bind of its `/dev/null` cannot be opened.
   */
  emptyFile: string;
}

const depth = (p: string) => (p === "/" ? 0 : p.split("/").length - 1);

/**
 * Every mount of a sandbox after the base (`/` read-only, a new `/dev` and `/proc`), ordered
 * so that a mount on a path comes after every mount on its parents, and at equal depth by
 * {@link WHY_ORDER}: what is hidden beats what is writable, what is protected beats both of
 * the writable paths it lies in. The workspace's state dir is an empty tmpfs made read-only
 * once the run's own places under it are mounted.
 */
export function planMounts(f: MountFacts): Mount[] {
  const m: Mount[] = [{ op: "tmpfs", dest: "/tmp", why: "tmp" }];
  for (const p of f.keepVisible) if (isWithin("/tmp", p) && p !== "/tmp") m.push(ro(p, "visible"));
  for (const d of [...f.otherStateDirs, f.stateDir]) m.push({ op: "tmpfs", dest: d, why: "workspace-state" });
  for (const w of f.sandbox.write) m.push({ op: "bind", src: w, dest: w, why: "writable" });
  for (const p of f.protect) m.push(ro(p, "protected"));
  for (const p of f.foreign) m.push(ro(p, "not-the-run's"));
  m.push(...f.git);
  for (const [p, kind] of f.hidden) {
    m.push(kind === "dir" ? { op: "tmpfs", dest: p, why: "hidden" } : ro(p, "hidden", f.emptyFile));
  }
  if (f.socket !== null)
    m.push({ op: "ro-bind", src: f.socket, dest: `${f.stateDir}/monitor.sock`, why: "monitor-socket" });
  for (const p of f.reads) m.push(ro(p, "run-file"));
  const order = (x: Mount) => WHY_ORDER.indexOf(x.why);
  const sorted = m
    .map((x, i) => ({ x, i }))
    .sort((a, b) => depth(a.x.dest) - depth(b.x.dest) || order(a.x) - order(b.x) || a.i - b.i)
    .map((e) => e.x);
  sorted.push({ op: "remount-ro", dest: f.stateDir, why: "workspace-state" });
  return sorted;
}

function ro(dest: string, why: MountWhy, src = dest): Mount {
  return { op: "ro-bind", src, dest, why };
}

/** The signals the sandbox's own processes ignore (so `kill`'s TERM reaches the command, not bubblewrap). */
export const SANDBOX_SIGNALS = "HUP,INT,QUIT,TERM";

/** What {@link bwrapArgv} needs beside the mounts. */
export interface BwrapOptions {
  /** bubblewrap and env(1), as found on PATH. */
  bwrap: string;
  env: string;
  mounts: readonly Mount[];
  net: SandboxNet;
  cwd: string;
  setenv: Readonly<Record<string, string>>;
}

/**
 * The argv that runs `command` in the sandbox. bubblewrap and its init ignore HUP, INT, QUIT
 * and TERM (env(1) `--ignore-signal`), and the command gets them back (`--default-signal`):
 * so ariel's TERM to the run's process group reaches the command and its children, which may
 * end as they choose, instead of ending bubblewrap (which would kill them all at once); KILL
 * still ends everything, and `--die-with-parent` ends the sandbox with the process that started
 * it. The new session is the launcher's (setsid; a tty run's own terminal): the sandbox never
 * shares the user's terminal as its controlling terminal (no TIOCSTI into it).
 */
export function bwrapArgv(o: BwrapOptions, command: readonly string[]): string[] {
  const argv = [
    o.env,
    `--ignore-signal=${SANDBOX_SIGNALS}`,
    o.bwrap,
    "--unshare-user",
    "--unshare-pid",
    "--unshare-ipc",
    "--unshare-uts",
    "--unshare-cgroup-try",
    ...(o.net === "none" ? ["--unshare-net"] : []),
    "--disable-userns",
    "--die-with-parent",
    "--cap-drop",
    "ALL",
    "--ro-bind",
    "/",
    "/",
    "--dev",
    "/dev",
    "--proc",
    "/proc",
  ];
  for (const x of o.mounts) {
    if ("src" in x) argv.push(`--${x.op}`, x.src, x.dest);
    else argv.push(`--${x.op}`, x.dest);
  }
  for (const [k, v] of Object.entries(o.setenv)) argv.push("--setenv", k, v);
  argv.push("--chdir", o.cwd, "--", o.env, `--default-signal=${SANDBOX_SIGNALS}`, ...command);
  return argv;
}
