import { existsSync, readFileSync, renameSync, statSync, unlinkSync, writeFileSync } from "node:fs";
import { ArielError } from "../errors.ts";
import { childMessage } from "../fingerprint.ts";
import type { GitPort, GitResult, GitRunOptions } from "../ports.ts";
import { userStateDir } from "../state_home.ts";
import { nodeChildProcess } from "./builtins.ts";

/** Oldest git ariel supports: `git worktree list --porcelain -z` arrived in 2.36. */
export const MIN_GIT_VERSION = [2, 36, 0] as const;

/** Variables that would redirect git away from the repository we name with cwd. */
const STRIPPED_ENV = [
  "GIT_DIR",
  "GIT_WORK_TREE",
  "GIT_INDEX_FILE",
  "GIT_COMMON_DIR",
  "GIT_OBJECT_DIRECTORY",
  "GIT_ALTERNATE_OBJECT_DIRECTORIES",
  "GIT_NAMESPACE",
  "GIT_CEILING_DIRECTORIES",
  "GIT_PREFIX",
];

/** The environment git runs with: no prompts, C locale, no repository redirection. */
export function gitEnv(base: NodeJS.ProcessEnv, extra: Record<string, string> = {}): NodeJS.ProcessEnv {
  const env: NodeJS.ProcessEnv = { ...base };
  for (const k of STRIPPED_ENV) delete env[k];
  env.GIT_TERMINAL_PROMPT = "0";
  env.GIT_OPTIONAL_LOCKS = "0";
  env.LC_ALL = "C";
  env.LANGUAGE = "C";
  return { ...env, ...extra };
}

/** The git executable: `ARIEL_GIT` when set (tests use it), else `git` on PATH. */
export function gitExecutable(env: NodeJS.ProcessEnv = process.env): string {
  return env.ARIEL_GIT || "git";
}

/** Whether `path` is a directory now (following links). */
function isDirectory(path: string): boolean {
  return statSync(path, { throwIfNoEntry: false })?.isDirectory() === true;
}

/**
 * Run git once, without a shell. Resolves with the exit code and output; rejects with
 * ERR_GIT_MISSING (exit 69) when git cannot be started.
 */
export async function runGit(args: readonly string[], options: GitRunOptions): Promise<GitResult> {
  // Loaded on first use: a CLI that runs no git (ariel-discover without --status) starts sooner.
  // Through require (nodeChildProcess), not import(): in a CommonJS bundle an import() of a
  // builtin starts the ES-module loader.
  const { spawn } = nodeChildProcess();
  return new Promise((resolve, reject) => {
    const exe = gitExecutable();
    // Without input git's stdin is /dev/null: no pipe and no stream object to set up per call.
    const input = options.input;
    const child = spawn(exe, args, {
      cwd: options.cwd,
      env: gitEnv(process.env, options.env),
      stdio: [input === undefined ? "ignore" : "pipe", "pipe", "pipe"],
      shell: false,
    });
    const out: Buffer[] = [];
    const err: Buffer[] = [];
    child.stdout?.on("data", (b: Buffer) => out.push(b));
    child.stderr?.on("data", (b: Buffer) => err.push(b));
    child.on("error", (e: NodeJS.ErrnoException) => {
      // A working directory that is not there also fails the spawn with ENOENT: answered as
      // `git -C DIR` answers (128), not as git missing (69, "install git").
      if (e.code === "ENOENT" && !isDirectory(options.cwd)) {
        resolve({
          code: 128,
          stdout: "",
          stderr: `fatal: cannot change to '${options.cwd}': No such file or directory\n`,
        });
      } else if (e.code === "ENOENT" || e.code === "EACCES") {
        reject(
          new ArielError("ERR_GIT_MISSING", `git not found (${exe})`, {
            context: { git: exe },
          }),
        );
      } else reject(e);
    });
    child.stdin?.on("error", () => {});
    child.on("close", (code, signal) => {
      resolve({
        code: code ?? (signal ? 128 : 1),
        stdout: Buffer.concat(out).toString("utf8"),
        stderr: Buffer.concat(err).toString("utf8"),
      });
    });
    if (input !== undefined) child.stdin?.end(input);
  });
}

/** Parse `git version 2.39.5` (and vendor suffixes) into [major, minor, patch]. */
export function parseGitVersion(text: string): [number, number, number] | null {
  const m = /git version (\d+)\.(\d+)(?:\.(\d+))?/.exec(text);
  if (!m) return null;
  return [Number(m[1]), Number(m[2]), Number(m[3] ?? 0)];
}

function atLeast(v: readonly number[], min: readonly number[]): boolean {
  for (let i = 0; i < min.length; i++) {
    if ((v[i] ?? 0) !== min[i]) return (v[i] ?? 0) > (min[i] ?? 0);
  }
  return true;
}

let checked: Promise<[number, number, number]> | undefined;

/**
 * What identifies the git build `exe` starts: the first executable regular file of that name on
 * PATH (or `exe` itself when it is a path), with its device, inode, size and times. Null when it
 * cannot be told without running it (not found, a relative path or PATH entry, no PATH): then
 * nothing is cached.
 */
export function gitIdentity(exe: string, env: NodeJS.ProcessEnv = process.env): string | null {
  const candidates = exe.includes("/")
    ? [exe]
    : (env.PATH ?? "").split(":").map((dir) => `${dir === "" ? "." : dir}/${exe}`);
  for (const path of candidates) {
    if (!path.startsWith("/")) return null;
    try {
      const st = statSync(path);
      if (!st.isFile() || (st.mode & 0o111) === 0) continue;
      return [path, st.dev, st.ino, st.size, st.mtimeMs, st.ctimeMs].join("\t");
    } catch {}
  }
  return null;
}

/**
 * `<user state dir>/git-version`: the identity of the git build last checked and its version,
 * so a CLI start does not run `git version` again for the same build. Only written into a state
 * dir that exists already; a missing, unreadable or stale file just means asking git.
 */
function versionCachePath(env: NodeJS.ProcessEnv = process.env): string | null {
  const dir = userStateDir(env, process.cwd());
  return dir ? `${dir}/git-version` : null;
}

function cachedVersion(identity: string, path: string): [number, number, number] | null {
  try {
    const [id, version] = readFileSync(path, "utf8").split("\n");
    if (id !== identity) return null;
    return parseGitVersion(`git version ${version}`);
  } catch {
    return null;
  }
}

function saveVersion(identity: string, path: string, v: readonly number[]): void {
  const tmp = `${path}.${process.pid}.tmp`;
  try {
    writeFileSync(tmp, `${identity}\n${v.join(".")}\n`, { flag: "wx" });
    renameSync(tmp, path);
  } catch {
    try {
      unlinkSync(tmp);
    } catch {}
  }
}

/**
 * Check once per process that git exists and is new enough; exit 69 with a hint otherwise. The
 * answer for a build already checked is read from {@link versionCachePath} (one git process less
 * per CLI start); any other build is asked with `git version`.
 */
export function ensureGit(): Promise<[number, number, number]> {
  checked ??= checkGit();
  return checked;
}

/** {@link ensureGit} without the once-per-process memo. @internal */
export function checkGit(): Promise<[number, number, number]> {
  return (async () => {
    const identity = gitIdentity(gitExecutable());
    const cache = identity === null ? null : versionCachePath();
    const known = identity !== null && cache !== null ? cachedVersion(identity, cache) : null;
    if (known && atLeast(known, MIN_GIT_VERSION)) return known;
    const r = await runGit(["version"], { cwd: process.cwd() });
    const v = parseGitVersion(r.stdout);
    if (r.code !== 0 || !v) {
      throw new ArielError("ERR_GIT_MISSING", "git did not report its version", {
        context: { stderr: childMessage(r.stderr).slice(0, 200) },
      });
    }
    if (!atLeast(v, MIN_GIT_VERSION)) {
      throw new ArielError(
        "ERR_GIT_TOO_OLD",
        `git ${v.join(".")} is too old; ariel needs ${MIN_GIT_VERSION.join(".")}`,
      );
    }
    if (identity !== null && cache !== null && existsSync(cache.slice(0, cache.lastIndexOf("/")))) {
      saveVersion(identity, cache, v);
    }
    return v;
  })();
}

/** The real git port: checks the version on first use, then runs git without a shell. */
export const nodeGit: GitPort = {
  async run(args, options) {
    await ensureGit();
    return runGit(args, options);
  },
};

/** Split NUL-terminated output (`-z`) into fields, dropping the final empty one. */
export function splitZ(stdout: string): string[] {
  const parts = stdout.split("\0");
  if (parts.length > 0 && parts[parts.length - 1] === "") parts.pop();
  return parts;
}
