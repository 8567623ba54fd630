// A two-minute tour of ariel-discover: builds a small workspace of git checkouts in a temp dir,
// then runs the built bin on it twice (a table, then --json --status) and says what it saw.
// Run with `npm run demo` (which bundles the CLIs first). `--keep` leaves the workspace behind.
import { spawnSync } from "node:child_process";
import { mkdirSync, mkdtempSync, realpathSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";

const repo = new URL("..", import.meta.url).pathname;
const bin = join(repo, "packages/cli-discover/bin/ariel-discover.mjs");
const keep = process.argv.includes("--keep");
const SECRET = "not-a-real-token-d3m0";

const gitEnv = {
  ...process.env,
  GIT_AUTHOR_NAME: "Ariel Demo",
  GIT_AUTHOR_EMAIL: "demo@example.invalid",
  GIT_COMMITTER_NAME: "Ariel Demo",
  GIT_COMMITTER_EMAIL: "demo@example.invalid",
  GIT_CONFIG_NOSYSTEM: "1",
  GIT_CONFIG_GLOBAL: "/dev/null",
  GIT_TERMINAL_PROMPT: "0",
};

function git(cwd, ...args) {
  const r = spawnSync("git", args, { cwd, env: gitEnv, encoding: "utf8" });
  if (r.error) fail(`git could not be started (${r.error.message}); the demo needs git on PATH`);
  if (r.status !== 0) fail(`git ${args.join(" ")} failed in ${cwd}:\n${r.stderr}`);
  return r.stdout.trim();
}

function fail(message) {
  process.stderr.write(`demo: ${message}\n`);
  process.exit(1);
}

function say(text) {
  process.stdout.write(`${text}\n`);
}

function repoWith(dir, files) {
  mkdirSync(dir, { recursive: true });
  git(dir, "init", "-q", "-b", "main");
  for (const [name, text] of Object.entries(files)) writeFileSync(join(dir, name), text);
  git(dir, "add", "-A");
  git(dir, "commit", "-q", "-m", "initial");
}

const ws = join(realpathSync(mkdtempSync(join(tmpdir(), "ariel-demo-"))), "workspace");
say(`# Building a demo workspace in ${ws}`);

// api: on main, one commit ahead of its upstream, origin URL with (fake) credentials in it.
const api = join(ws, "api");
repoWith(api, { "README.md": "# api\n" });
git(api, "remote", "add", "origin", `https://demo-user:${SECRET}@git.example.com/acme/api.git`);
git(api, "update-ref", "refs/remotes/origin/main", "HEAD");
git(api, "symbolic-ref", "refs/remotes/origin/HEAD", "refs/remotes/origin/main");
git(api, "branch", "-q", "--set-upstream-to=origin/main", "main");
writeFileSync(join(api, "server.js"), "// work in progress\n");
git(api, "add", "-A");
git(api, "commit", "-q", "-m", "add the server");
say("  api          checkout on main, 1 commit ahead of origin/main; origin's URL holds a token");

// web: a checkout with a linked worktree beside it on a feature branch, plus an untracked file.
const web = join(ws, "web");
repoWith(web, { "index.html": "<h1>web</h1>\n" });
git(web, "worktree", "add", "-q", "-b", "feature/login", join(ws, "web-login"));
writeFileSync(join(ws, "web-login", "login.html"), "<form></form>\n");
say("  web          checkout on main");
say("  web-login    linked worktree of web on feature/login, with an untracked file (dirty)");

// tools: detached HEAD.
const tools = join(ws, "tools");
repoWith(tools, { Makefile: "all:\n" });
git(tools, "checkout", "-q", "--detach", "HEAD");
say("  tools        checkout with a detached HEAD");

mkdirSync(join(ws, "docs"));
writeFileSync(join(ws, "docs", "index.md"), "# docs\n");
say("  docs         a plain folder: not a source, so not listed");

function run(args, capture) {
  say(`\n$ ariel-discover ${args.join(" ")}`);
  const r = spawnSync(process.execPath, [bin, ...args], {
    cwd: ws,
    encoding: "utf8",
    stdio: ["ignore", capture ? "pipe" : "inherit", "pipe"],
  });
  if (r.stderr) process.stdout.write(r.stderr);
  if (r.status !== 0) fail(`ariel-discover exited with ${r.status}`);
  if (capture) process.stdout.write(r.stdout);
  return `${r.stdout ?? ""}${r.stderr ?? ""}`;
}

run([], false);
const out = run(["--json", "--status"], true);

say("\n# What happened");
say("- Discovery read .git, HEAD and the refs from disk: no git process ran for the first command.");
say("- Without --json the first run printed a table on a terminal (tab-separated lines in a pipe).");
say("- --status ran git per source, at most 8 at once, for dirty / ahead / behind / upstream / fingerprint.");
if (out.includes(SECRET) || out.includes("demo-user"))
  fail("the token in api's origin URL leaked into the output");
say("- api's origin URL holds a token; it appears nowhere above: the fingerprint hashes the redacted URL.");
say("- Try: ariel-discover -C <dir> --json | jq -r 'select(.kind==\"worktree\") | .name'");

if (keep) say(`\nThe workspace is kept at ${ws}`);
else rmSync(join(ws, ".."), { recursive: true, force: true });
