/**
 * In place: the main worktree's HEAD, index, reflog of HEAD and the state of an operation in
 * progress, brought back from the sandbox's copies (`planStateSync`). What both sides changed
 * stays real; the sandbox's version is kept under `.ariel/sandbox-kept/<run>/` and reported.
 */
import { appendFileSync, cpSync, lstatSync, mkdirSync, readdirSync, renameSync, rmSync } from "node:fs";
import { MAIN_WORKTREE_STATE } from "../../sandbox/git_shadow.ts";
import type { SandboxRepo } from "../../sandbox/manifest.ts";
import { planStateSync, reflogTail, type StateFacts, type StateStep } from "../../sandbox/state_sync.ts";
import { nodeChildProcess } from "../builtins.ts";
import { gitEnv, gitExecutable } from "../git.ts";
import { digest } from "./prepare.ts";
import { readOrNull } from "./refs.ts";

/** What an index stages (`git ls-files --stage`), for the comparison that ignores cached stats. */
function staged(common: string, index: string): string | null {
  const r = nodeChildProcess().spawnSync(gitExecutable(), [`--git-dir=${common}`, "ls-files", "--stage"], {
    env: gitEnv(process.env, { GIT_INDEX_FILE: index }),
    encoding: "utf8",
    maxBuffer: 1 << 30,
  });
  return r.status === 0 ? r.stdout : null;
}

/** Whether `path` holds only regular files and directories (the sandbox wrote it: no links). */
function onlyRegular(path: string): boolean {
  const s = lstatSync(path);
  if (s.isFile()) return true;
  if (!s.isDirectory()) return false;
  return readdirSync(path).every((n) => onlyRegular(`${path}/${n}`));
}

/** Replace `to` with `from` (a file by rename of a copy; a directory replaced whole), or remove it. */
function replace(from: string, to: string, present: boolean): void {
  if (!present) {
    rmSync(to, { recursive: true, force: true });
    return;
  }
  const tmp = `${to}.ariel-${process.pid}`;
  rmSync(tmp, { recursive: true, force: true });
  cpSync(from, tmp, { recursive: true });
  // A file is replaced at once by the rename; a directory has to go first.
  if (lstatSync(from).isDirectory()) rmSync(to, { recursive: true, force: true });
  renameSync(tmp, to);
}

/** Bring an in-place repository's main-worktree state home; returns the steps taken. */
export function mainStateHome(
  repo: SandboxRepo,
  dirs: {
    shadow: string /** `<start>-index`, `<start>-logs-HEAD`: copies made at the start. */;
    start: string;
    kept: string;
  },
): StateStep[] {
  const { common } = repo;
  const facts: StateFacts[] = MAIN_WORKTREE_STATE.map((name) => ({
    name,
    start: repo.state?.[name] ?? null,
    sandbox: digest(`${dirs.shadow}/${name}`),
    real: digest(`${common}/${name}`),
  }));
  const index = facts.find((f) => f.name === "index");
  if (index && index.sandbox !== index.start && index.sandbox !== index.real && index.real !== index.start) {
    const now = staged(common, `${common}/index`);
    index.sameStaged = now !== null && now === staged(common, `${dirs.start}-index`);
  }
  // What the sandbox left that is not plain files (a link planted where its index was) is left out.
  for (const f of facts)
    if (f.sandbox !== null && !onlyRegular(`${dirs.shadow}/${f.name}`)) f.sandbox = f.start;
  const steps = planStateSync(facts);
  for (const s of steps) {
    const from = `${dirs.shadow}/${s.name}`;
    const present = facts.find((f) => f.name === s.name)?.sandbox !== null;
    if (s.op === "apply") replace(from, `${common}/${s.name}`, present);
    else if (present) {
      mkdirSync(dirs.kept, { recursive: true });
      replace(from, `${dirs.kept}/${s.name}`, true);
    }
  }
  const tail = reflogTail(
    readOrNull(`${dirs.start}-logs-HEAD`) ?? "",
    readOrNull(`${dirs.shadow}/logs/HEAD`) ?? "",
    readOrNull(`${common}/logs/HEAD`) ?? "",
  );
  if (tail !== null) {
    mkdirSync(`${common}/logs`, { recursive: true });
    appendFileSync(`${common}/logs/HEAD`, tail);
  }
  return steps;
}
