/**
 * TEMPORARY stand-ins for what the `core`, `durable` and `discover` branches own (workspace
 * root, config, leases, CAS writes, repo lock, git retry, fingerprint), so the worktree code can
 * be written and tested before those land. Each is replaced by the real one on merge; the
 * signatures here are the adapter the worktree code calls.
 * @internal
 */
import { ArielError } from "../../errors.ts";
import type { GitPort, GitResult, GitRunOptions, Ports } from "../../ports.ts";
import { isWithin } from "../../worktree/_deps.ts";

async function sha256Hex(text: string): Promise<string> {
  const d = await crypto.subtle.digest("SHA-256", new TextEncoder().encode(text));
  return [...new Uint8Array(d)].map((b) => b.toString(16).padStart(2, "0")).join("");
}

export async function workspaceHash(root: string): Promise<string> {
  return (await sha256Hex(root)).slice(0, 16);
}

export async function resolveWorkspaceRoot(ports: Ports, flag: string | undefined): Promise<string> {
  const given = flag ?? ports.env.ARIEL_WORKSPACE_ROOT;
  if (given) {
    const abs = given.startsWith("/") ? given : `${ports.cwd}/${given}`;
    try {
      return await ports.fs.realpath(abs);
    } catch {
      throw new ArielError("ERR_WORKSPACE_NOT_FOUND", `workspace root ${given} does not exist`);
    }
  }
  let dir = await ports.fs.realpath(ports.cwd);
  for (let d = dir; ; ) {
    if (await ports.fs.stat(`${d}/.ariel`)) return d;
    const up = d.replace(/\/[^/]*$/, "") || "/";
    if (up === d) break;
    d = up;
  }
  const r = await ports.git.run(["rev-parse", "--show-toplevel"], { cwd: dir });
  if (r.code === 0 && r.stdout.trim()) dir = await ports.fs.realpath(r.stdout.trim());
  return dir;
}

export async function ensureStateDir(ports: Ports, root: string): Promise<string> {
  const dir = `${root}/.ariel`;
  await ports.fs.mkdirp(`${dir}/tasks`);
  if (await ports.fs.stat(`${root}/.git`)) {
    const r = await ports.git.run(["rev-parse", "--git-path", "info/exclude"], { cwd: root });
    if (r.code === 0) {
      const p = r.stdout.trim();
      const abs = p.startsWith("/") ? p : `${root}/${p}`;
      let text = "";
      try {
        text = await ports.fs.readText(abs);
      } catch {}
      if (!text.split("\n").includes("/.ariel/")) {
        await ports.fs.mkdirp(abs.replace(/\/[^/]*$/, ""));
        await ports.fs.writeAtomic(abs, `${text}${text && !text.endsWith("\n") ? "\n" : ""}/.ariel/\n`);
      }
    }
  }
  return dir;
}

export interface WorktreeConfig {
  worktreeRoot: string;
  worktreeRoots: string[];
  overlay: string[];
  leaseTtlMs: number;
}

export async function loadConfig(ports: Ports, root: string): Promise<WorktreeConfig> {
  let raw: Record<string, unknown> = {};
  try {
    raw = JSON.parse(await ports.fs.readText(`${root}/ariel.config.json`));
  } catch (e) {
    if ((e as { code?: string }).code !== "ENOENT")
      throw new ArielError("ERR_CONFIG", `ariel.config.json: ${(e as Error).message}`);
  }
  const abs = (p: string) => (p.startsWith("/") ? p : `${root}/${p}`);
  const worktreeRoot = abs(typeof raw.worktreeRoot === "string" ? raw.worktreeRoot : ".ariel/worktrees");
  const roots = Array.isArray(raw.worktreeRoots) ? (raw.worktreeRoots as string[]).map(abs) : [];
  return {
    worktreeRoot,
    worktreeRoots: roots.length ? roots : [`${root}/.ariel/worktrees`],
    overlay: Array.isArray(raw.overlay) ? (raw.overlay as string[]) : [],
    leaseTtlMs: typeof raw.leaseTtlMs === "number" ? raw.leaseTtlMs : 30_000,
  };
}

export async function withLease<T>(
  ports: Ports,
  root: string,
  taskId: string,
  fn: (fencingToken: number) => Promise<T>,
): Promise<T> {
  void root;
  void taskId;
  return fn(ports.clock.now());
}

export async function readRecord(ports: Ports, path: string): Promise<{ text: string } | null> {
  try {
    return { text: await ports.fs.readText(path) };
  } catch (e) {
    if ((e as { code?: string }).code === "ENOENT") return null;
    throw e;
  }
}

export async function writeRecordCAS(
  ports: Ports,
  path: string,
  value: { version: number; fencingToken: number },
  expectedVersion: number | null,
): Promise<void> {
  void expectedVersion;
  await ports.fs.mkdirp(path.replace(/\/[^/]*$/, ""));
  await ports.fs.writeAtomic(path, `${JSON.stringify(value, null, 2)}\n`);
}

export async function withRepoLock<T>(ports: Ports, commonGitDir: string, fn: () => Promise<T>): Promise<T> {
  void ports;
  void commonGitDir;
  return fn();
}

const TRANSIENT = /(index\.lock|config\.lock|commondir|Unable to create '.*\.lock')/;

export async function runGitRetrying(
  git: GitPort,
  args: readonly string[],
  options: GitRunOptions,
): Promise<GitResult> {
  let r = await git.run(args, options);
  for (let i = 0; i < 4 && r.code !== 0 && TRANSIENT.test(r.stderr); i++) {
    await new Promise((res) => setTimeout(res, 50 * 2 ** i));
    r = await git.run(args, options);
  }
  return r;
}

export async function sourceFingerprint(git: GitPort, path: string): Promise<string> {
  const url = await git.run(["config", "--get", "remote.origin.url"], { cwd: path });
  const head = await git.run(["symbolic-ref", "-q", "refs/remotes/origin/HEAD"], { cwd: path });
  const redacted = url.stdout.trim().replace(/\/\/[^/@]*@/, "//");
  const def = head.stdout.trim().replace(/^refs\/remotes\/origin\//, "");
  return sha256Hex(`${redacted}\0${def}`);
}

export async function resolveContained(ports: Ports, root: string, rel: string): Promise<string> {
  const abs = rel === "." ? root : `${root}/${rel}`;
  let real: string;
  try {
    real = await ports.fs.realpath(abs);
  } catch {
    return abs;
  }
  if (!isWithin(root, real))
    throw new ArielError("ERR_PATH_ESCAPE", `${rel} resolves outside the workspace root`, {
      context: { path: rel },
    });
  return real;
}
