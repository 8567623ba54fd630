/**
 * Shared set-up for the ariel-worktree end-to-end tests: a workspace of real repositories in a
 * temp dir, a runner for the built CLI, and byte-for-byte pictures of directories and git state
 * (to show that a refused command changed nothing).
 */
import { createHash } from "node:crypto";
import { existsSync, lstatSync, readdirSync, readFileSync, readlinkSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { arielIn, type CliResult, type Runtime, records } from "./helpers/cli.ts";
import { GIT_TEST_ENV, git, initRepo, removeDir, tempDir, writeFile } from "./helpers/git.ts";

export { git, records, removeDir, writeFile };

export const TRACKED_MCP = '{"servers":{}}\n';
export const LOCAL_MCP = '{"servers":{"local":{"command":"x"}}}\n';
export const SECRET = "API_KEY=s3cr3t\n";

/**
 * A workspace `root` holding repositories `sources` (default api, web), each with a README, a
 * tracked `.mcp.json` that is modified locally, `.env` ignored and present, and a `src/` file.
 */
export function makeWorkspace(sources: readonly string[] = ["api", "web"]): string {
  const root = tempDir("ariel-wt-");
  for (const s of sources) {
    const dir = s === "." ? root : join(root, s);
    initRepo(dir, {
      "README.md": `# ${s}\n`,
      ".gitignore": ".env\n.ariel/\n",
      ".mcp.json": TRACKED_MCP,
      "src/main.txt": "main\n",
    });
    writeFile(join(dir, ".mcp.json"), LOCAL_MCP);
    writeFile(join(dir, ".env"), SECRET);
  }
  return root;
}

/** Run ariel-worktree in `root` with a fixed identity (so snapshot commits can be made). */
export function wt(
  root: string,
  args: readonly string[],
  options: { runtime?: Runtime; env?: Record<string, string>; input?: string } = {},
): Promise<CliResult> {
  return arielIn("worktree", root, args, {
    env: { ...GIT_TEST_ENV, ARIEL_OWNER: "tester", ...options.env },
    ...(options.input !== undefined ? { input: options.input } : {}),
    ...(options.runtime ? { runtime: options.runtime } : {}),
  });
}

/**
 * Every entry under `dir` (files by sha256 and mode, links by target, directories), sorted.
 * Lease files (`.ariel/leases`) are left out: taking and releasing a lease is bookkeeping, not a
 * change to anyone's work.
 */
export function picture(dir: string): Record<string, string> {
  const out: Record<string, string> = {};
  if (!existsSync(dir)) return out;
  const walk = (d: string, rel: string) => {
    for (const name of readdirSync(d).sort()) {
      const p = join(d, name);
      const r = rel ? `${rel}/${name}` : name;
      if (r === ".ariel/leases") continue;
      const st = lstatSync(p);
      if (st.isSymbolicLink()) out[r] = `link ${readlinkSync(p)}`;
      else if (st.isDirectory()) {
        out[r] = "dir";
        walk(p, r);
      } else {
        out[r] =
          `file ${(st.mode & 0o777).toString(8)} ${createHash("sha256").update(readFileSync(p)).digest("hex")}`;
      }
    }
  };
  walk(dir, "");
  return out;
}

/** Every branch with its commit (`git branch` without the checked-out markers). */
export function branches(repo: string): string {
  return git(repo, "branch", "--format=%(refname:short) %(objectname)");
}

/** What git says about a repository: worktrees, branches, every ref, and the index of `wt`. */
export function gitState(repo: string, worktree?: string): Record<string, string> {
  const state: Record<string, string> = {
    worktrees: git(repo, "worktree", "list", "--porcelain"),
    branches: branches(repo),
    refs: git(repo, "for-each-ref", "--format=%(refname) %(objectname)"),
  };
  if (worktree && existsSync(join(worktree, ".git"))) {
    state.index = git(worktree, "ls-files", "-s", "-v");
    state.head = git(worktree, "rev-parse", "HEAD");
  }
  return state;
}

/** The error records of a --json run's stderr. */
export function errors(stderr: string): Record<string, unknown>[] {
  return records(stderr).filter((r) => r.type === "error");
}

/** Read the task record file. */
export function taskFile(
  root: string,
  task: string,
): Record<string, unknown> & { legs: Record<string, unknown>[] } {
  return JSON.parse(readFileSync(join(root, ".ariel/tasks", `${task}.json`), "utf8"));
}

/** Rewrite the task record file with `change` applied (a tampered or foreign record). */
export function editTaskFile(root: string, task: string, change: (r: Record<string, unknown>) => void): void {
  const r = taskFile(root, task);
  change(r);
  writeFileSync(join(root, ".ariel/tasks", `${task}.json`), `${JSON.stringify(r, null, 2)}\n`);
}

/** `<root>/.ariel/worktrees/<task>/<leg>` */
export function legPath(root: string, task: string, leg: string): string {
  return join(root, ".ariel/worktrees", task, leg);
}
