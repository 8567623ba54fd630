/**
 * Making a sandbox's git shadows before it starts (docs/sandbox.md, decision 0110): for each
 * repository the run works in, a private common dir under `<root>/.ariel/sandbox/<runId>/<n>`
 * with a copy of the refs, an empty object store whose alternate is the real one, the composed
 * hooks, and (in place) copies of the main worktree's state; then the manifest the sync reads.
 * A second call for the same run (a restart) finds the manifest and reuses what it made.
 */
import {
  copyFileSync,
  cpSync,
  existsSync,
  linkSync,
  lstatSync,
  mkdirSync,
  readdirSync,
  readFileSync,
  writeFileSync,
} from "node:fs";
import { isPerWorktree } from "../../discovery/refs.ts";
import { contentDigest } from "../../sandbox/digest.ts";
import {
  CHAINED_HOOK,
  FROZEN_REFS_FILE,
  frozenRefs,
  MAIN_WORKTREE_STATE,
  REAL_OBJECTS,
  REFERENCE_TRANSACTION_HOOK,
  type RepoFacts,
} from "../../sandbox/git_shadow.ts";
import type { SandboxLeg } from "../../sandbox/legs.ts";
import type { SandboxManifest, SandboxRepo } from "../../sandbox/manifest.ts";
import { refLines, sandboxPaths } from "../../sandbox/paths.ts";
import { processStartTime } from "../proc.ts";
import { bootId } from "../runs/identity.ts";
import { headBranch, type LegGit, legGit, repoFacts } from "./git_facts.ts";
import { readOrNull, readRefs, replaceFile } from "./refs.ts";
import { syncTaskSandboxes } from "./sync.ts";

export type { SandboxLeg };

/** A sandbox ready to start: its repositories' facts (for the mounts) and its manifest. */
export interface PreparedSandbox {
  repos: RepoFacts[];
  legs: LegGit[];
  manifest: SandboxManifest;
}

/** The legs grouped by repository (common dir), in first-seen order. */
function byRepository(legs: readonly LegGit[]): LegGit[][] {
  const groups = new Map<string, LegGit[]>();
  for (const l of legs) groups.set(l.common, [...(groups.get(l.common) ?? []), l]);
  return [...groups.values()];
}

/**
 * A digest of a file, or of a directory's files by relative path, to tell whether it changed
 * (`contentDigest`: not a security hash, and needs none: a sandbox that forged one only keeps
 * its own change from going home); null when absent.
 */
export function digest(path: string): string | null {
  let st: ReturnType<typeof lstatSync>;
  try {
    st = lstatSync(path);
  } catch {
    return null;
  }
  if (!st.isDirectory()) return contentDigest([readFileSync(path)]);
  const parts: Uint8Array[] = [];
  const enc = new TextEncoder();
  const walk = (p: string, rel: string) => {
    const s = lstatSync(p);
    if (s.isDirectory()) {
      for (const name of readdirSync(p).sort()) walk(`${p}/${name}`, `${rel}/${name}`);
    } else parts.push(enc.encode(`${rel}\0`), s.isSymbolicLink() ? enc.encode("link") : readFileSync(p));
  };
  walk(path, "");
  return `d${contentDigest(parts)}`;
}

/**
 * Prepare the sandbox of run `runId` over `legs` (or find it prepared): shadows, start refs,
 * manifest. `owner` is this process (the one that starts the sandbox).
 */
export async function prepareSandbox(input: {
  root: string;
  runId: string;
  task: string | null;
  legs: readonly SandboxLeg[];
  env: Readonly<Record<string, string | undefined>>;
}): Promise<PreparedSandbox> {
  const paths = sandboxPaths(input.root, input.runId);
  const gitLegs = input.legs.map((l) => legGit(l.path));
  const groups = byRepository(gitLegs);
  for (const l of gitLegs)
    if (!l.main && !existsSync(`${l.gitdir}/config.worktree`))
      writeFileSync(`${l.gitdir}/config.worktree`, "");
  const repos = groups.map((g, i) => repoFacts(g, paths.shadow(i + 1), input.env));
  const old = readOrNull(paths.manifest);
  if (old !== null) return { repos, legs: gitLegs, manifest: JSON.parse(old) as SandboxManifest };
  // A run joining a task (--join) starts from what the task's live sandboxes committed so far:
  // their work home first, so its shadow's refs agree with the worktrees' index and files.
  if (input.task !== null) await syncTaskSandboxes(input.root, input.task);
  mkdirSync(paths.dir, { recursive: true, mode: 0o700 });
  const manifestRepos = groups.map((g, i) => shadowRepo(paths, i + 1, g, repos[i]!, input.legs));
  const manifest: SandboxManifest = {
    v: 1,
    type: "sandbox",
    runId: input.runId,
    root: input.root,
    task: input.task,
    createdAt: new Date().toISOString(),
    owner: { pid: process.pid, startTime: processStartTime(process.pid), bootId: bootId() },
    child: null,
    repos: manifestRepos,
  };
  replaceFile(paths.manifest, `${JSON.stringify(manifest)}\n`);
  return { repos, legs: gitLegs, manifest };
}

/** The branches a repository's legs may move: each task leg's branch, or the one checked out in place. */
function ownBranches(group: readonly LegGit[], legs: readonly SandboxLeg[]): string[] {
  const own = new Set<string>();
  for (const l of group) {
    const branch = legs.find((x) => x.path === l.path)?.branch ?? null;
    const ref = branch !== null ? `refs/heads/${branch}` : headBranch(l.gitdir);
    if (ref !== null) own.add(ref);
  }
  return [...own];
}

/** Make repository `n`'s shadow and return its manifest entry. */
function shadowRepo(
  paths: ReturnType<typeof sandboxPaths>,
  n: number,
  group: readonly LegGit[],
  facts: RepoFacts,
  legs: readonly SandboxLeg[],
): SandboxRepo {
  const common = facts.common;
  const shadow = paths.shadow(n);
  const own = ownBranches(group, legs);
  const symbolic = new Map<string, string>();
  const start = readRefs(common, ["refs/stash"], symbolic);
  mkdirSync(`${shadow}/objects/info`, { recursive: true });
  writeFileSync(`${shadow}/objects/info/alternates`, alternates(common));
  for (const name of ["HEAD", "shallow"]) copyIfThere(`${common}/${name}`, `${shadow}/${name}`);
  copyRefs(shadow, start, symbolic, facts.main);
  if (existsSync(`${common}/rr-cache`)) mkdirSync(`${shadow}/rr-cache`);
  for (const a of facts.admins) mkdirSync(`${shadow}/worktrees/${a.name}`, { recursive: true });
  composeHooks(facts, `${shadow}/hooks`, start.keys(), own);
  writeFileSync(paths.startRefs(n), refLines(start));
  const entry: SandboxRepo = {
    n,
    common,
    main: facts.main,
    own,
    worktrees: group.map((l) => l.path),
  };
  if (facts.main) entry.state = copyMainState(common, shadow, paths.startState(n));
  return entry;
}

/**
 * The refs into the shadow as one `packed-refs` file (a file per ref would cost a create and an
 * unlink each), except what git keeps loose: symbolic refs, and in place the main worktree's
 * own refs (bisect, worktree, rewritten).
 */
function copyRefs(
  shadow: string,
  refs: ReadonlyMap<string, string>,
  symbolic: ReadonlyMap<string, string>,
  main: boolean,
): void {
  const packed = new Map<string, string>();
  const loose = new Map<string, string>(symbolic);
  for (const [ref, oid] of refs) {
    if (main && isPerWorktree(ref)) loose.set(ref, oid);
    else packed.set(ref, oid);
  }
  mkdirSync(`${shadow}/refs`, { recursive: true });
  writeFileSync(`${shadow}/packed-refs`, `# pack-refs with: sorted \n${refLines(packed)}`);
  for (const [ref, value] of loose) {
    mkdirSync(`${shadow}/${ref.slice(0, ref.lastIndexOf("/"))}`, { recursive: true });
    writeFileSync(`${shadow}/${ref}`, `${value}\n`);
  }
}

/** The shadow's alternates: the real store as mounted inside, then the real store's own alternates. */
function alternates(common: string): string {
  const own = readOrNull(`${common}/objects/info/alternates`) ?? "";
  const theirs = own
    .split("\n")
    .map((l) => l.trim())
    .filter((l) => l !== "" && !l.startsWith("#"))
    .map((l) => (l.startsWith("/") ? l : `${common}/objects/${l}`));
  return [`${common}/${REAL_OBJECTS}`, ...theirs].map((l) => `${l}\n`).join("");
}

function copyIfThere(from: string, to: string): void {
  let st: ReturnType<typeof lstatSync>;
  try {
    st = lstatSync(from);
  } catch {
    return;
  }
  mkdirSync(to.slice(0, to.lastIndexOf("/")), { recursive: true });
  // A file by one copy (cpSync's walk costs a spawn's start-up more than the copy); a directory whole.
  if (st.isFile()) copyFileSync(from, to);
  else cpSync(from, to, { recursive: true, verbatimSymlinks: true });
}

/**
 * The hooks the sandbox's git runs: the repository's own (not the samples), its own
 * reference-transaction hook renamed to be called by ariel's, ariel's, and the frozen refs.
 */
function composeHooks(facts: RepoFacts, dir: string, start: Iterable<string>, own: readonly string[]): void {
  const from = facts.hooksPath ?? `${facts.common}/hooks`;
  mkdirSync(dir, { recursive: true });
  if (existsSync(from)) {
    for (const name of readdirSync(from)) {
      if (name.endsWith(".sample")) continue;
      const to = name === "reference-transaction" ? CHAINED_HOOK : name;
      cpSync(`${from}/${name}`, `${dir}/${to}`, { recursive: true, verbatimSymlinks: true });
    }
  }
  const frozen = [...start].filter((r) => !(facts.main && isPerWorktree(r)));
  writeFileSync(`${dir}/${FROZEN_REFS_FILE}`, frozenRefs(frozen, own));
  writeFileSync(`${dir}/reference-transaction`, REFERENCE_TRANSACTION_HOOK, { mode: 0o755 });
}

/**
 * In place: the main worktree's state copied into the shadow, its digests at the start, and the
 * index and HEAD reflog kept as they were (`<start>-index`, `<start>-logs-HEAD`: the sync
 * compares the real ones with them).
 */
function copyMainState(common: string, shadow: string, start: string): Record<string, string | null> {
  const state: Record<string, string | null> = {};
  for (const name of MAIN_WORKTREE_STATE) {
    if (name === "HEAD") {
      state.HEAD = digest(`${common}/HEAD`);
      continue;
    }
    state[name] = digest(`${common}/${name}`);
    copyIfThere(`${common}/${name}`, `${shadow}/${name}`);
  }
  // git replaces the index by a rename: the link keeps the copy's bytes as they are now.
  if (existsSync(`${shadow}/index`)) linkSync(`${shadow}/index`, `${start}-index`);
  const log = `${common}/logs/HEAD`;
  if (existsSync(log)) {
    copyIfThere(log, `${shadow}/logs/HEAD`);
    copyIfThere(log, `${start}-logs-HEAD`);
  }
  return state;
}
