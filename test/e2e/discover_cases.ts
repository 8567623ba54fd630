/**
 * The end-to-end cases of ariel-discover, shared by the Node suite (test/discover.e2e.test.ts,
 * vitest) and the Deno suite (test/deno/discover_test.ts): each case runs the CLI as a process
 * on real repositories and states its exact stdout, stderr and exit status.
 */
import { spawn } from "node:child_process";
import { createHash } from "node:crypto";
import { existsSync, mkdirSync, symlinkSync } from "node:fs";
import { join } from "node:path";
import { VERSION } from "../../packages/core/src/version.ts";
import { type CliResult, cliCommand, type Runtime, runAriel } from "../helpers/cli.ts";
import { commitAll, git, gitRaw, initRepo, removeDir, tempDir, writeFile } from "../helpers/git.ts";
import { watchJsonLines } from "../helpers/json_lines.ts";

/** One source as the fixture knows it. */
export interface FixtureSource {
  name: string;
  path: string;
  kind: "checkout" | "worktree" | "submodule";
  gitDir: string;
  head: string | null;
  branch: string | null;
}

export interface Fixture {
  /** The workspace: api (credentials in origin, ahead 1, dirty), web (detached, token URL), wt (worktree of api), group/deep, unborn, docs (plain). */
  ws: string;
  sources: Record<"api" | "group/deep" | "unborn" | "web" | "wt", FixtureSource>;
  /** A workspace with one good source and one whose .git is a symbolic link loop. */
  bad: string;
  /** A workspace with a good source and one whose .git holds only HEAD (git itself rejects it). */
  halfRepo: string;
  /** A workspace of many sources (made by writing .git/HEAD files). */
  many: string;
  manyCount: number;
  /** A directory for PATH that holds no git (empty, or only what the deno launcher script needs). */
  noGitPath: string;
  /** Secrets that must never be printed. */
  secrets: string[];
  cleanup(): void;
}

export const API_URL = "https://user:s3cret@example.com/api.git";
export const WEB_URL = "https://ghp_T0KENVALUE@example.com/web.git?access_token=qwerty123";

function which(tool: string): string | undefined {
  for (const dir of (process.env.PATH ?? "").split(":")) {
    if (dir !== "" && existsSync(join(dir, tool))) return join(dir, tool);
  }
  return undefined;
}

/** git's own answer for HEAD's commit; null on an unborn branch. */
function headOf(dir: string): string | null {
  const r = gitRaw(dir, "rev-parse", "-q", "--verify", "HEAD");
  return r.code === 0 ? r.stdout.trim() : null;
}
const sha256 = (s: string) => createHash("sha256").update(s).digest("hex");

/** Build every workspace the cases use (about a second of git). */
export function makeFixture(manyCount = 1500): Fixture {
  const tmp = tempDir("ariel-discover-e2e-");
  const ws = join(tmp, "ws");
  mkdirSync(ws);

  const api = join(ws, "api");
  const base = initRepo(api, { "README.md": "api\n" });
  git(api, "remote", "add", "origin", API_URL);
  git(api, "update-ref", "refs/remotes/origin/main", base);
  git(api, "symbolic-ref", "refs/remotes/origin/HEAD", "refs/remotes/origin/main");
  git(api, "config", "branch.main.remote", "origin");
  git(api, "config", "branch.main.merge", "refs/heads/main");
  writeFile(join(api, "CHANGELOG.md"), "one\n");
  commitAll(api, "ahead by one");
  writeFile(join(api, "untracked.txt"), "dirty\n");

  const wt = join(ws, "wt");
  git(api, "worktree", "add", "-q", "-b", "feature", wt);

  const web = join(ws, "web");
  initRepo(web, { "index.html": "<p>web</p>\n" });
  git(web, "remote", "add", "origin", WEB_URL);
  git(web, "checkout", "-q", "--detach", "HEAD");

  const deep = join(ws, "group", "deep");
  initRepo(deep, { "x.txt": "deep\n" });
  git(deep, "pack-refs", "--all");

  const unborn = join(ws, "unborn");
  mkdirSync(unborn);
  git(unborn, "init", "-q", "-b", "trunk");

  writeFile(join(ws, "docs", "README.md"), "plain directory, not a source\n");

  const bad = join(tmp, "bad");
  initRepo(join(bad, "good"));
  mkdirSync(join(bad, "loop"));
  symlinkSync(".git", join(bad, "loop", ".git")); // stat fails with ELOOP, even for root

  const halfRepo = join(tmp, "half");
  initRepo(join(halfRepo, "good"));
  writeFile(join(halfRepo, "husk", ".git", "HEAD"), "ref: refs/heads/main\n");

  const many = join(tmp, "many");
  const sha = "0123456789abcdef0123456789abcdef01234567";
  for (let i = 0; i < manyCount; i++) {
    writeFile(join(many, `repo-${String(i).padStart(5, "0")}`, ".git", "HEAD"), `${sha}\n`);
  }

  // PATH without git: empty for Node; under Deno, node_modules/.bin/deno is a shell script that
  // needs node, dirname, sed and uname from PATH, so only those are linked in.
  const noGitPath = join(tmp, "no-git-path");
  mkdirSync(noGitPath);
  if ("Deno" in globalThis) {
    for (const tool of ["node", "dirname", "sed", "uname"]) {
      const found = which(tool);
      if (found) symlinkSync(found, join(noGitPath, tool));
    }
  }

  const src = (
    name: string,
    path: string,
    kind: FixtureSource["kind"],
    gitDir: string,
    branch: string | null,
  ): FixtureSource => ({ name, path, kind, gitDir, head: headOf(path), branch });

  return {
    ws,
    sources: {
      api: src("api", api, "checkout", join(api, ".git"), "main"),
      "group/deep": src("group/deep", deep, "checkout", join(deep, ".git"), "main"),
      unborn: src("unborn", unborn, "checkout", join(unborn, ".git"), "trunk"),
      web: src("web", web, "checkout", join(web, ".git"), null),
      wt: src("wt", wt, "worktree", join(api, ".git", "worktrees", "wt"), "feature"),
    },
    bad,
    halfRepo,
    many,
    manyCount,
    noGitPath,
    secrets: ["s3cret", "user:", "ghp_T0KENVALUE", "qwerty123"],
    cleanup: () => removeDir(tmp),
  };
}

function json(s: FixtureSource, extra: Record<string, unknown> = {}): string {
  const { name, path, kind, gitDir, head, branch } = s;
  return `${JSON.stringify({ v: 1, type: "source", name, path, kind, gitDir, head, branch, ...extra })}\n`;
}

function tsv(s: FixtureSource): string {
  return `${[s.name, s.kind, s.branch ?? "-", s.head ?? "-", s.path].join("\t")}\n`;
}

/** What a case expects; `stdout`/`stderr` are exact unless a function is given. */
export interface Expected {
  code: number;
  stdout: string | ((out: string) => void);
  stderr: string | ((err: string) => void);
}

export interface Case {
  name: string;
  args: (fx: Fixture) => string[];
  env?: (fx: Fixture) => Record<string, string | undefined>;
  /** How to run it: plainly, or with stdout closed after the first chunk (`| head -1`). */
  mode?: "plain" | "closed-stdout";
  expect: (fx: Fixture) => Expected;
}

const order = ["api", "group/deep", "unborn", "web", "wt"] as const;
const depth1 = ["api", "unborn", "web", "wt"] as const;

function mustNotLeak(fx: Fixture, text: string): void {
  for (const s of fx.secrets)
    if (text.includes(s)) throw new Error(`secret ${JSON.stringify(s)} leaked: ${text}`);
}

export const CASES: Case[] = [
  {
    name: "--json prints one source record per line, sorted by name",
    args: (fx) => ["-C", fx.ws, "--json"],
    expect: (fx) => ({ code: 0, stdout: depth1.map((n) => json(fx.sources[n])).join(""), stderr: "" }),
  },
  {
    name: "piped without --json: tab-separated lines, '-' for null",
    args: (fx) => ["--workspace-root", fx.ws],
    expect: (fx) => ({ code: 0, stdout: depth1.map((n) => tsv(fx.sources[n])).join(""), stderr: "" }),
  },
  {
    name: "--repo-root is an alias; ARIEL_WORKSPACE_ROOT is the default",
    args: (fx) => ["--repo-root", fx.ws, "-0"],
    expect: (fx) => ({ code: 0, stdout: depth1.map((n) => `${fx.sources[n].path}\0`).join(""), stderr: "" }),
  },
  {
    name: "the root comes from ARIEL_WORKSPACE_ROOT without -C",
    args: () => ["-0"],
    env: (fx) => ({ ARIEL_WORKSPACE_ROOT: fx.ws }),
    expect: (fx) => ({ code: 0, stdout: depth1.map((n) => `${fx.sources[n].path}\0`).join(""), stderr: "" }),
  },
  {
    name: "--max-depth 2 reaches group/deep (its refs are packed)",
    args: (fx) => ["-C", fx.ws, "--json", "--max-depth", "2"],
    expect: (fx) => ({ code: 0, stdout: order.map((n) => json(fx.sources[n])).join(""), stderr: "" }),
  },
  {
    name: "--max-depth 0 looks at the root only (not a checkout here)",
    args: (fx) => ["-C", fx.ws, "--max-depth", "0"],
    expect: () => ({ code: 0, stdout: "", stderr: "" }),
  },
  {
    name: "--exclude by basename glob and by anchored path, repeatable",
    args: (fx) => ["-C", fx.ws, "--max-depth", "2", "--exclude", "w*", "--exclude", "/group/**", "--json"],
    expect: (fx) => ({
      code: 0,
      stdout: ["api", "unborn"].map((n) => json(fx.sources[n as "api"])).join(""),
      stderr: "",
    }),
  },
  {
    name: "--status --json adds dirty, ahead, behind, upstream and a fingerprint; no credential anywhere",
    args: (fx) => ["-C", fx.ws, "--status", "--json"],
    expect: (fx) => ({
      code: 0,
      stdout: [
        json(fx.sources.api, {
          dirty: true,
          ahead: 1,
          behind: 0,
          upstream: "origin/main",
          fingerprint: sha256("https://example.com/api.git\0main"),
        }),
        json(fx.sources.unborn, {
          dirty: false,
          ahead: null,
          behind: null,
          upstream: null,
          fingerprint: sha256("\0"),
        }),
        json(fx.sources.web, {
          dirty: false,
          ahead: null,
          behind: null,
          upstream: null,
          fingerprint: sha256("https://example.com/web.git\0"),
        }),
        json(fx.sources.wt, {
          dirty: false,
          ahead: null,
          behind: null,
          upstream: null,
          fingerprint: sha256("https://example.com/api.git\0main"),
        }),
      ].join(""),
      stderr: (err) => {
        if (err !== "") throw new Error(`unexpected stderr: ${err}`);
      },
    }),
  },
  {
    name: "--status piped: dirty, ahead and behind columns after the path",
    args: (fx) => ["-C", fx.ws, "--status", "--exclude", "w*", "--exclude", "unborn"],
    expect: (fx) => ({ code: 0, stdout: `${tsv(fx.sources.api).slice(0, -1)}\tdirty\t1\t0\n`, stderr: "" }),
  },
  {
    name: "--status without git on PATH: exit 69 with a hint",
    args: (fx) => ["-C", fx.ws, "--status"],
    env: (fx) => ({ PATH: fx.noGitPath, ARIEL_GIT: undefined }),
    expect: () => ({
      code: 69,
      stdout: "",
      stderr:
        "ariel-discover: error: git not found (git) [ERR_GIT_MISSING]\n" +
        "ariel-discover: hint: install git 2.36 or newer and make sure it is on PATH\n",
    }),
  },
  {
    name: "without --status git is never needed",
    args: (fx) => ["-C", fx.ws, "-0"],
    env: (fx) => ({ PATH: fx.noGitPath, ARIEL_GIT: undefined }),
    expect: (fx) => ({ code: 0, stdout: depth1.map((n) => `${fx.sources[n].path}\0`).join(""), stderr: "" }),
  },
  {
    name: "an unreadable child (.git is a link loop) is a warning; the rest is listed, exit 0",
    args: (fx) => ["-C", fx.bad],
    expect: (fx) => ({
      code: 0,
      stdout: (out) => {
        const lines = out.split("\n");
        if (lines.length !== 2 || !lines[0]?.startsWith(`good\tcheckout\tmain\t`) || lines[1] !== "")
          throw new Error(`unexpected stdout: ${out}`);
      },
      stderr: `ariel-discover: warning: cannot read ${fx.bad}/loop/.git (ELOOP); skipping ${fx.bad}/loop\n`,
    }),
  },
  {
    name: "the same warning as an NDJSON record on stderr with --json",
    args: (fx) => ["-C", fx.bad, "--json"],
    expect: (fx) => ({
      code: 0,
      stdout: (out) => {
        if (!out.startsWith('{"v":1,"type":"source","name":"good"') || out.split("\n").length !== 2)
          throw new Error(`unexpected stdout: ${out}`);
      },
      // v and type first, then code and message, then the context.
      stderr: `${JSON.stringify({
        v: 1,
        type: "warning",
        code: "WARN_UNREADABLE",
        message: `cannot read ${fx.bad}/loop/.git (ELOOP); skipping ${fx.bad}/loop`,
        path: `${fx.bad}/loop`,
      })}\n`,
    }),
  },
  {
    name: "--status: a source git rejects is printed without status, with a warning, exit 1",
    args: (fx) => ["-C", fx.halfRepo, "--status", "--json"],
    expect: (fx) => ({
      code: 1,
      stdout: (out) => {
        const lines = out.split("\n");
        if (lines.length !== 3 || !lines[0]?.includes('"name":"good"') || !lines[0].includes('"dirty":false'))
          throw new Error(`unexpected stdout: ${out}`);
        const husk = `{"v":1,"type":"source","name":"husk","path":"${fx.halfRepo}/husk","kind":"checkout","gitDir":"${fx.halfRepo}/husk/.git","head":null,"branch":"main"}`;
        if (lines[1] !== husk) throw new Error(`unexpected husk line: ${lines[1]}`);
      },
      stderr: (err) => {
        const rec = JSON.parse(err) as Record<string, unknown>;
        const want = `git status failed in ${fx.halfRepo}/husk: fatal: not a git repository`;
        if (
          rec.type !== "warning" ||
          rec.code !== "WARN_STATUS_FAILED" ||
          !String(rec.message).startsWith(want)
        )
          throw new Error(`unexpected stderr: ${err}`);
      },
    }),
  },
  {
    name: "--version prints the version",
    args: () => ["--version"],
    expect: () => ({ code: 0, stdout: `${VERSION}\n`, stderr: "" }),
  },
  {
    name: "--help goes to stdout and lists every flag",
    args: () => ["--help"],
    expect: () => ({
      code: 0,
      stdout: (out) => {
        if (!out.startsWith(`ariel-discover ${VERSION}: list the git checkouts (sources) of a workspace\n`))
          throw new Error(`unexpected help: ${out}`);
        for (const flag of [
          "--workspace-root",
          "--repo-root",
          "--json",
          "--null",
          "--max-depth",
          "--nested",
          "--exclude",
          "--follow-symlinks",
          "--status",
        ])
          if (!out.includes(flag)) throw new Error(`help does not mention ${flag}`);
      },
      stderr: "",
    }),
  },
  {
    name: "a bad flag is a usage error (64)",
    args: (fx) => ["-C", fx.ws, "--bogus"],
    expect: () => ({
      code: 64,
      stdout: "",
      stderr:
        'ariel-discover: error: unknown flag "--bogus" [ERR_USAGE]\nariel-discover: hint: run ariel-discover --help to see the flags\n',
    }),
  },
  ...["-1", "1.5", "two", ""].map(
    (n): Case => ({
      name: `--max-depth ${JSON.stringify(n)} is a usage error (64)`,
      args: (fx) => ["-C", fx.ws, `--max-depth=${n}`],
      expect: () => ({
        code: 64,
        stdout: "",
        stderr: `ariel-discover: error: --max-depth must be an integer >= 0, got ${JSON.stringify(n)} [ERR_USAGE]\nariel-discover: hint: run ariel-discover --help to see the flags\n`,
      }),
    }),
  ),
  {
    name: "a bad usage error is an NDJSON error record with --json",
    args: (fx) => ["-C", fx.ws, "--json", "--exclude", "[oops"],
    expect: () => ({
      code: 64,
      stdout: "",
      stderr: `${JSON.stringify({
        v: 1,
        type: "error",
        code: "ERR_USAGE",
        message: `--exclude: unclosed '[' in glob "[oops"`,
        hint: "run ariel-discover --help to see the flags",
        exit: 64,
      })}\n`,
    }),
  },
  {
    name: "a missing root is exit 66",
    args: (fx) => ["-C", `${fx.ws}/no-such-dir`],
    expect: (fx) => ({
      code: 66,
      stdout: "",
      stderr:
        `ariel-discover: error: workspace root "${fx.ws}/no-such-dir" does not exist [ERR_WORKSPACE_NOT_FOUND]\n` +
        "ariel-discover: hint: pass -C DIR or set ARIEL_WORKSPACE_ROOT\n",
    }),
  },
  {
    name: "| head -1: a closed stdout ends quietly with 0",
    args: (fx) => ["-C", fx.ws],
    mode: "closed-stdout",
    expect: () => ({ code: 0, stdout: () => {}, stderr: "" }),
  },
  {
    name: "| head -1 with many sources (more than a pipe buffer): still 0 and silent",
    args: (fx) => ["-C", fx.many, "--json"],
    mode: "closed-stdout",
    expect: () => ({ code: 0, stdout: () => {}, stderr: "" }),
  },
  {
    name: "many sources, all listed",
    args: (fx) => ["-C", fx.many, "-0"],
    expect: (fx) => ({
      code: 0,
      stdout: (out) => {
        const paths = out.split("\0").slice(0, -1);
        if (paths.length !== fx.manyCount)
          throw new Error(`expected ${fx.manyCount} paths, got ${paths.length}`);
        if (paths[0] !== `${fx.many}/repo-00000`) throw new Error(`first path ${paths[0]}`);
      },
      stderr: "",
    }),
  },
  {
    name: "--json and -0 together are a usage error",
    args: (fx) => ["-C", fx.ws, "--json", "-0"],
    expect: () => ({
      code: 64,
      stdout: "",
      stderr: `${JSON.stringify({
        v: 1,
        type: "error",
        code: "ERR_USAGE",
        message: "--json and -0/--null cannot be combined",
        hint: "run ariel-discover --help to see the flags",
        exit: 64,
      })}\n`,
    }),
  },
];

/** Run the CLI and close our end of its stdout after the first chunk, like `| head -1`. */
export function runClosingStdout(
  args: readonly string[],
  runtime: Runtime,
  env: Record<string, string> = {},
): Promise<CliResult> {
  const [exe, ...pre] = cliCommand("discover", runtime);
  return new Promise((resolve, reject) => {
    const child = spawn(exe as string, [...pre, ...args], {
      env: { ...(process.env as Record<string, string>), NO_COLOR: "1", ...env },
      stdio: ["ignore", "pipe", "pipe"],
    });
    watchJsonLines(child, "ariel-discover", args);
    let first = "";
    const err: Buffer[] = [];
    child.stdout.once("data", (b: Buffer) => {
      first = b.toString("utf8");
      child.stdout.destroy();
    });
    child.stderr.on("data", (b: Buffer) => err.push(b));
    child.on("error", reject);
    child.on("close", (code, signal) =>
      resolve({ code, signal, stdout: first, stderr: Buffer.concat(err).toString("utf8") }),
    );
  });
}

/** Run one case and throw an Error that names what differs. */
export async function runCase(c: Case, fx: Fixture, runtime: Runtime): Promise<void> {
  const args = c.args(fx);
  const env = c.env?.(fx) ?? {};
  const r =
    c.mode === "closed-stdout"
      ? await runClosingStdout(args, runtime, env as Record<string, string>)
      : await runAriel("discover", args, { env, runtime });
  const want = c.expect(fx);
  const where = `${c.name} (${runtime}: ariel-discover ${args.join(" ")})`;
  mustNotLeak(fx, r.stdout + r.stderr);
  if (typeof want.stdout === "function") want.stdout(r.stdout);
  else if (r.stdout !== want.stdout)
    throw new Error(`${where}: stdout\n--- got\n${r.stdout}\n--- want\n${want.stdout}`);
  if (typeof want.stderr === "function") want.stderr(r.stderr);
  else if (r.stderr !== want.stderr)
    throw new Error(`${where}: stderr\n--- got\n${r.stderr}\n--- want\n${want.stderr}`);
  if (r.code !== want.code)
    throw new Error(`${where}: exit ${r.code} (signal ${r.signal}), want ${want.code}\n${r.stderr}`);
}
