// A two-minute tour of ariel: builds a small workspace of git checkouts in a temp dir, runs the
// built ariel-discover on it twice (a table, then --json --status), then gives a task its own
// worktrees with ariel-worktree, shows a removal refused rather than losing work, and fans a
// command out with ariel-spawn --isolate.
// Run with `npm run demo` (which bundles the CLIs first). `--keep` leaves the workspace behind.
import { spawnSync } from "node:child_process";
import { mkdirSync, mkdtempSync, realpathSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";

const repo = new URL("..", import.meta.url).pathname;
const binOf = (name) => join(repo, `packages/cli-${name}/bin/ariel-${name}.mjs`);
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

function ariel(name, args, { capture = false, expect = 0 } = {}) {
  say(`\n$ ariel-${name} ${args.join(" ")}`);
  const r = spawnSync(process.execPath, [binOf(name), ...args], {
    cwd: ws,
    // The demo's own user state dir: its workspace is not added to your registry of workspaces.
    env: { ...process.env, ARIEL_STATE_HOME: join(ws, "..", "state") },
    encoding: "utf8",
    stdio: ["ignore", capture ? "pipe" : "inherit", "pipe"],
  });
  if (r.stderr) process.stdout.write(r.stderr);
  if (r.status !== expect) fail(`ariel-${name} exited with ${r.status}, expected ${expect}`);
  if (capture) process.stdout.write(r.stdout);
  if (expect !== 0) say(`(exit status ${r.status})`);
  return `${r.stdout ?? ""}${r.stderr ?? ""}`;
}
const run = (args, capture) => ariel("discover", args, { capture });

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

say("\n# A task with its own worktrees (ariel-worktree)");
say("(the workspace is a plain directory of checkouts: -C names it once, which makes its .ariel/;");
say(" every later command below it finds that and needs no -C)");
ariel("worktree", ["add", "-C", ".", "--task", "demo", "--source", "api", "--source", "web"]);
const leg = join(ws, ".ariel", "worktrees", "demo", "api");
writeFileSync(join(leg, "notes.txt"), "an agent's uncommitted work\n");
say(`(an agent writes ${join(leg, "notes.txt")} and does not commit it)`);
ariel("worktree", ["list"]);
ariel("worktree", ["remove", "--task", "demo"], { expect: 3 });
ariel("worktree", ["remove", "--task", "demo", "--snapshot"]);
say(`\n$ git -C api for-each-ref refs/ariel/snapshots\n${git(api, "for-each-ref", "refs/ariel/snapshots")}`);
say(`$ git -C api branch --list 'ariel/*'\n${git(api, "branch", "--list", "ariel/*")}`);

say("\n# A command fanned out over sources, each in its own worktree (ariel-spawn)");
ariel("spawn", [
  "--source",
  "api",
  "--source",
  "web",
  "--isolate",
  "-j",
  "2",
  "--",
  "git",
  "status",
  "--short",
  "--branch",
]);

say("\n# And then");
say("- remove refused (exit 3) while api's leg held uncommitted work; nothing was changed.");
say("- --snapshot saved that work under refs/ariel/snapshots/demo/api, then removed the worktrees;");
say("  the branch ariel/demo was kept, and `ariel-worktree restore --task demo` brings it all back.");
say("- ariel-spawn made a worktree per source, ran the command in each, removed the clean ones,");
say(`  and kept the run's history in ${join(ws, ".ariel", "runs")}.`);

if (keep) say(`\nThe workspace is kept at ${ws}`);
else rmSync(join(ws, ".."), { recursive: true, force: true });
