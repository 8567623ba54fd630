// ariel-spawn end to end under Deno (from source): shared mode, exit pass-through, stdin
// targets, dry-run, history. Run: node_modules/.bin/deno test -A test/deno/spawn_test.ts
import assert from "node:assert/strict";
import { existsSync, readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { arielIn, records } from "../helpers/cli.ts";
import { gitRaw, removeDir } from "../helpers/git.ts";
import { sources, workspace } from "../spawn_helpers.ts";

// Deno's global, declared for tsc (which checks this file with Node's types); Deno itself runs it.
declare const Deno: { test(name: string, fn: () => Promise<void>): void };

const NODE = "node";
const REPORT = [
  NODE,
  "-e",
  "const e={};for(const[k,v]of Object.entries(process.env))if(k.startsWith('ARIEL_'))e[k]=v;" +
    "console.log(JSON.stringify({cwd:process.cwd(),env:e}))",
];

const spawnIn = (root: string, args: string[], input?: string) =>
  arielIn("spawn", root, args, { runtime: "deno", ...(input !== undefined ? { input } : {}) });

Deno.test("spawn (deno): runs in each source with its cwd and environment", async () => {
  const root = workspace(["api", "web"]);
  try {
    const r = await spawnIn(root, ["--source", "api", "--source", "web", "--json", "--", ...REPORT]);
    assert.equal(r.stderr, "");
    assert.equal(r.code, 0);
    const events = records(r.stdout);
    const outputs = events.filter((e) => e.event === "output");
    const got = outputs.map((e) => [e.source, JSON.parse(e.line as string)]);
    got.sort();
    assert.equal(got.length, 2);
    for (const [source, child] of got) {
      assert.equal(child.cwd, join(root, source as string));
      assert.equal(child.env.ARIEL_SOURCE, source);
      assert.equal(child.env.ARIEL_WORKSPACE_ROOT, root);
      assert.equal(child.env.ARIEL_RUN_ID, events[0]?.runId);
      assert.equal(child.env.ARIEL_TASK, undefined);
    }
    assert.deepEqual(events.at(-1)?.summary, { targets: 2, succeeded: 2, failed: 0, skipped: 0, exit: 0 });
    const dir = join(root, ".ariel/runs");
    const files = readdirSync(dir);
    assert.equal(files.length, 1);
    assert.equal(readFileSync(join(dir, files[0] as string), "utf8"), r.stdout);
  } finally {
    removeDir(root);
  }
});

Deno.test("spawn (deno): passes a single child's exit status through", async () => {
  const root = workspace(["api"]);
  try {
    const cases: [string[], number][] = [
      [[NODE, "-e", "process.exit(3)"], 3],
      [[NODE, "-e", "process.kill(process.pid,'SIGKILL')"], 137],
      [["ariel-no-such-command-xyz"], 127],
    ];
    for (const [argv, code] of cases) {
      const r = await spawnIn(root, ["--source", "api", "--", ...argv]);
      assert.equal(r.code, code, `${argv.join(" ")}: ${r.stderr}`);
    }
  } finally {
    removeDir(root);
  }
});

Deno.test("spawn (deno): stdin targets, and a malformed line starts nothing", async () => {
  const root = workspace(["api", "web"]);
  try {
    const ok = await spawnIn(root, ["--source", "-", "--json", "--", ...REPORT], "web\n./api\n");
    assert.equal(ok.code, 0);
    const started = records(ok.stdout).filter((e) => e.event === "process.started");
    assert.deepEqual(
      started.map((e) => e.source),
      ["web", "api"],
    );
    removeDir(join(root, ".ariel"));
    const bad = await spawnIn(root, ["--source", "-", "--", ...REPORT], "api\n{broken\n");
    assert.equal(bad.code, 65);
    assert.equal(bad.stdout, "");
    assert.match(bad.stderr, /stdin line 2: /);
    assert.equal(existsSync(join(root, ".ariel")), false);
  } finally {
    removeDir(root);
  }
});

Deno.test("spawn (deno): --dry-run prints plans, creates nothing, and --detailed-exitcode gives 2", async () => {
  const root = workspace(["api"]);
  try {
    const r = await spawnIn(root, ["--source", "api", "-n", "--json", "--detailed-exitcode", "--", "make"]);
    assert.equal(r.code, 2);
    assert.deepEqual(records(r.stdout), [
      {
        v: 1,
        type: "plan",
        action: "spawn.run",
        source: "api",
        cwd: join(root, "api"),
        worktree: null,
        branch: null,
        overlay: [],
        argv: ["make"],
        env: ["ARIEL_WORKSPACE_ROOT", "ARIEL_WORKSPACE_HASH", "ARIEL_SOURCE", "ARIEL_RUN_ID"],
      },
    ]);
    assert.equal(existsSync(join(root, ".ariel")), false);
  } finally {
    removeDir(root);
  }
});

Deno.test("spawn (deno): --isolate removes the clean worktree and keeps the dirty one, branches kept", async () => {
  const root = workspace(["api", "web"]);
  try {
    const r = await spawnIn(root, [
      ...sources(["api", "web"]),
      "--isolate",
      "--task",
      "d1",
      "--json",
      "--",
      NODE,
      "-e",
      "if(process.env.ARIEL_SOURCE==='web')require('fs').writeFileSync('work.txt','x');console.log(process.cwd())",
    ]);
    assert.equal(r.code, 0, r.stderr);
    const events = records(r.stdout);
    const wt = (s: string) => join(root, ".ariel/worktrees/d1", s);
    assert.deepEqual(
      events.filter((e) => e.event === "output").map((e) => e.line),
      [wt("api"), wt("web")],
    );
    assert.deepEqual(
      events
        .filter((e) => e.event === "worktree.removed" || e.event === "worktree.kept")
        .map((e) => [e.event, e.source, e.reason ?? null]),
      [
        ["worktree.removed", "api", null],
        ["worktree.kept", "web", "dirty"],
      ],
    );
    assert.equal(existsSync(wt("api")), false);
    assert.equal(existsSync(join(wt("web"), "work.txt")), true);
    for (const s of ["api", "web"]) {
      assert.equal(gitRaw(join(root, s), "rev-parse", "--verify", "--quiet", "refs/heads/ariel/d1").code, 0);
    }
  } finally {
    removeDir(root);
  }
});
