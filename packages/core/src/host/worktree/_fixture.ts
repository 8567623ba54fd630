/**
 * Set-up for the unit tests beside the worktree host code: a workspace of real repositories in a
 * temp dir, the host ports with a fault-injecting filesystem, and pictures of git's and the
 * disk's state to assert "nothing changed" or exactly what did. Test-only.
 * @internal
 */
import { existsSync, readdirSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import type { Ports } from "../../ports.ts";
import { type Fault, type FaultyFs, faultyFs } from "../../testing/faulty_fs.ts";
import { GIT_TEST_ENV, git, initRepo, tempDir, writeFile } from "../_fixture.ts";
import { nodeFs } from "../fs.ts";
import { hostPorts } from "../ports.ts";

export { git };

/** A workspace root holding a repository per source, each with a README and an overlay `.env`. */
export function makeRoot(sources: readonly string[] = ["api", "web"]): string {
  const root = tempDir("ariel-hostwt-");
  for (const s of sources) {
    initRepo(join(root, s), { "README.md": `# ${s}\n`, ".gitignore": ".env\n" });
    writeFile(join(root, s, ".env"), `SECRET=${s}\n`);
  }
  return root;
}

/** Host ports whose filesystem plants `faults` over the real one. */
export function faultyPorts(faults: Fault[] = []): Ports & { fs: FaultyFs } {
  const fs = faultyFs(nodeFs, faults);
  return { ...hostPorts({ env: { ...process.env, ...GIT_TEST_ENV, ARIEL_OWNER: "tester" } }), fs };
}

/** {@link faultyPorts} that record the arguments of every git process they start, in `calls`. */
export function recordingPorts(faults: Fault[] = []): Ports & { fs: FaultyFs; calls: string[][] } {
  const ports = faultyPorts(faults);
  const calls: string[][] = [];
  return {
    ...ports,
    calls,
    git: {
      run: (args, options) => {
        calls.push([...args]);
        return ports.git.run(args, options);
      },
    },
  };
}

/** What git says of a repository: worktrees (with locks) and every ref. */
export function gitPicture(repo: string): { worktrees: string; refs: string } {
  return {
    worktrees: git(repo, "worktree", "list", "--porcelain"),
    refs: git(repo, "for-each-ref", "--format=%(refname) %(objectname)"),
  };
}

/** Names under `dir`, sorted ([] when absent). */
export function names(dir: string): string[] {
  return existsSync(dir) ? readdirSync(dir).sort() : [];
}

/**
 * Another process takes the task over: the lease file gets the next token and a new owner (what
 * a successor's acquire writes once our lease has expired).
 */
export function stealLease(root: string, task: string): number {
  const path = join(root, ".ariel/leases", `${task}.json`);
  const lease = JSON.parse(readFileSync(path, "utf8"));
  const token = lease.token + 1;
  writeFileSync(
    path,
    `${JSON.stringify({ ...lease, token, owner: "successor", expiresAt: new Date(Date.now() + 60_000).toISOString() })}\n`,
  );
  return token;
}
