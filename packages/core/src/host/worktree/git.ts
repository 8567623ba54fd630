import { ArielError } from "../../errors.ts";
import { childMessage } from "../../fingerprint.ts";
import type { GitResult, Ports } from "../../ports.ts";
import { runGitRetrying } from "./_deps.ts";

/** Options of {@link git}. */
export interface GitCall {
  env?: Record<string, string>;
  input?: string;
}

/** Run git in `cwd` (retrying transient lock errors); the raw result, a non-zero exit included. */
export function gitRaw(
  ports: Ports,
  cwd: string,
  args: readonly string[],
  call: GitCall = {},
): Promise<GitResult> {
  return runGitRetrying(ports.git, args, {
    cwd,
    ...(call.env ? { env: call.env } : {}),
    ...(call.input !== undefined ? { input: call.input } : {}),
  });
}

/** Run git in `cwd`; a non-zero exit becomes ERR_GIT with git's first line of stderr. */
export async function git(
  ports: Ports,
  cwd: string,
  args: readonly string[],
  call: GitCall = {},
): Promise<string> {
  const r = await gitRaw(ports, cwd, args, call);
  if (r.code !== 0) throw gitError(args, r, cwd);
  return r.stdout;
}

/**
 * ERR_GIT for a failed git call: the sub-command and git's own first line, with any credential
 * in a URL redacted (a hook or a remote may print one).
 */
export function gitError(args: readonly string[], r: GitResult, cwd: string): ArielError {
  const sub = args.find((a) => !a.startsWith("-")) ?? "git";
  const first = childMessage(r.stderr, `exit ${r.code}`);
  return new ArielError("ERR_GIT", `git ${sub} failed in ${cwd}: ${first}`, {
    context: { git: sub, cwd, status: r.code },
  });
}

/** `:(literal)` pathspecs so a path is never read as a glob or magic. */
export function literal(paths: readonly string[]): string[] {
  return paths.map((p) => `:(literal)${p}`);
}
