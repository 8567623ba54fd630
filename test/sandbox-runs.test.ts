// Sandboxed runs in the background (docs/sandbox.md): the monitor starts them in their
// sandbox, piped or on a terminal; attach, kill, respawn and ports work as for any run; the
// run's record keeps its sandbox; its own monitor socket starts nothing.
import { existsSync, readdirSync, readFileSync, realpathSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { afterEach, expect, it } from "vitest";
import { register, serve } from "./fleet_helpers.ts";
import { arielIn, cliCommand, REPO_ROOT, records, runAriel } from "./helpers/cli.ts";
import { git, removeDir, tempDir, writeFile } from "./helpers/git.ts";
import { cleanUp, finishedHistory, readJson, runDir, runs, spawnD, until } from "./runs_helpers.ts";
import { cleanWorlds, describeSandbox, type SandboxWorld, sandboxWorld, script } from "./sandbox_helpers.ts";
import { attachOnTerminal } from "./tty_helpers.ts";
import { legPath, taskFile } from "./worktree-fixtures.ts";

afterEach(() => {
  cleanUp();
  cleanWorlds();
});

const AGENT = join(REPO_ROOT, "test/fixtures/sandbox-agent.mjs");

/** Start one sandboxed detached run in `w` and return its `run` record. */
async function start(w: SandboxWorld, args: readonly string[], env: Record<string, string> = {}) {
  const r = await spawnD(w.root, ["--json", "--sandbox", ...args], { env: { ...w.env, ...env } });
  expect([r.code, r.stderr]).toEqual([0, ""]);
  return records(r.stdout)[0] as Record<string, unknown> & { runId: string };
}

/** Processes whose command line holds `marker` (unique per test). */
function processesWith(marker: string): number[] {
  const out: number[] = [];
  for (const pid of readdirSync("/proc").filter((p) => /^\d+$/.test(p))) {
    try {
      if (readFileSync(`/proc/${pid}/cmdline`, "utf8").replaceAll("\0", " ").includes(marker))
        out.push(Number(pid));
    } catch {}
  }
  return out;
}

describeSandbox("sandboxed runs in the background", () => {
  it("a detached run commits, stashes and branches in its worktree; its record keeps the sandbox; list marks it", async () => {
    const w = sandboxWorld();
    const sh = script(
      w,
      "work.sh",
      `set -e
echo one >> README.md && git commit -qam "inside one"
echo two >> README.md && git stash -q && git stash pop -q
git switch -qc topic && git commit -q --allow-empty -m "on topic" && git switch -q -
echo done
`,
    );
    const rec = await start(w, ["--isolate", "--keep", "--task", "t1", "--source", "api", "--", "sh", sh]);
    expect(rec.sandbox).toEqual({
      write: [legPath(w.root, "t1", "api")],
      hide: expect.arrayContaining([join(w.home, ".ssh")]),
      net: "on",
    });
    const events = await finishedHistory(w.root, rec.runId);
    const synced = events.find((e) => e.event === "sandbox.synced") as {
      repos: { moved: { ref: string }[] }[];
    };
    expect(synced.repos[0]!.moved.map((m) => m.ref)).toEqual(["refs/heads/ariel/t1", "refs/heads/topic"]);
    // The end is recorded after the sync: the commits are there when the run reads as ended.
    expect(events.map((e) => e.event).indexOf("sandbox.synced")).toBeLessThan(
      events.map((e) => e.event).indexOf("run.finished"),
    );
    expect(git(w.api, "log", "--format=%s", "ariel/t1", "-1")).toBe("inside one");
    expect(git(w.api, "log", "--format=%s", "topic", "-1")).toBe("on topic");
    expect(git(legPath(w.root, "t1", "api"), "status", "--porcelain")).toBe("M README.md");
    const listed = (await runs(w.root, ["list", "--all"], { env: w.env })).stdout.trim().split("\t");
    expect(listed.slice(-3)).toEqual([`sh ${sh}`, "t1:api", "net"]);
    const shown = (await runs(w.root, ["show", rec.runId], { env: w.env })).stdout.split("\n");
    expect(shown.filter((l) => /^(where|sandbox) /.test(l))).toEqual([
      `where    t1:api (${legPath(w.root, "t1", "api")})`,
      expect.stringMatching(new RegExp(`^sandbox  network on; writes ${legPath(w.root, "t1", "api")}(, |;)`)),
    ]);
    expect(readJson(join(runDir(w.root, rec.runId), "run.json")).sandbox.net).toBe("on");
  });

  it("a --tty agent asks, is answered through attach, commits inside; the commit is on its branch", async () => {
    const w = sandboxWorld();
    const rec = await start(w, [
      "--tty",
      "--isolate",
      "--task",
      "t1",
      "--source",
      "api",
      "--name",
      "agent",
      "--keep",
      "--",
      process.execPath,
      AGENT,
    ]);
    const c = attachOnTerminal(w.root, ["agent"], w.env);
    await until(() => c.io.out.includes("Do you want to proceed?"), 15_000);
    c.p.write("1\r");
    await until(() => c.io.out.includes("committed answer 1"), 15_000);
    c.p.write("exit\r");
    expect(await c.done).toBe(0);
    await finishedHistory(w.root, rec.runId);
    expect(git(w.api, "log", "--format=%s", "ariel/t1", "-1")).toBe("answer 1");
  });

  it("kill reaches the whole tree: a child that ignores TERM and forks grandchildren (one in a session of its own) is gone", async () => {
    const w = sandboxWorld();
    const marker = `${3000 + (process.pid % 900)}.${Date.now() % 100000}`;
    const sh = script(
      w,
      "stubborn.sh",
      `trap '' TERM INT
setsid sh -c "trap '' TERM; sleep ${marker}1" &
sh -c "trap '' TERM; sleep ${marker}2" &
sleep ${marker}3
`,
    );
    const rec = await start(w, ["--name", "stubborn", "--source", "api", "--", "sh", sh]);
    // the three sleeps and the two shells around the grandchildren
    await until(() => processesWith(`sleep ${marker}`).length === 5);
    // Live and sandboxed: the fleet's status counts it.
    const status = await runAriel("fleet", ["status", "--workspace", w.root, "--json"], { env: w.env });
    const mine = (records(status.stdout)[0]!.workspaces as { root: string; sandboxed: number }[]).find(
      (x) => x.root === w.root,
    );
    expect(mine?.sandboxed).toBe(1);
    const k = await runs(w.root, ["kill", "stubborn", "--grace", "1s"], { env: w.env });
    expect(k.code).toBe(0);
    await until(() => processesWith(`sleep ${marker}`).length === 0, 10_000);
    const events = await finishedHistory(w.root, rec.runId);
    expect(events.at(-1)).toMatchObject({ event: "run.finished", state: "killed" });
  });

  it("its own monitor socket answers ping and refuses to start, attach or feed a run", async () => {
    const w = sandboxWorld();
    const js = script(
      w,
      "ask.js",
      `const s = require("net").connect(process.env.ARIEL_WORKSPACE_ROOT + "/.ariel/monitor.sock");
let got = "";
let done = false;
// five replies, printed once: they may come in more than one chunk
s.on("data", (d) => { got += d; if (!done && got.split("\\n").length > 5) { done = true; process.stdout.write(got); s.end(); } });
for (const op of ["ping", "start", "create", "input", "attach"]) s.write(JSON.stringify({ v: 1, op, runs: [], runId: "x", data: "" }) + "\\n");
`,
    );
    const rec = await start(w, ["--name", "asker", "--source", "api", "--", process.execPath, js]);
    await finishedHistory(w.root, rec.runId);
    const replies = readFileSync(join(runDir(w.root, rec.runId), "stdout"), "utf8")
      .trim()
      .split("\n")
      .map((l) => JSON.parse(l) as Record<string, unknown>);
    expect(replies.map((r) => [r.ok, r.code ?? null])).toEqual([
      [true, null],
      [false, "ERR_SANDBOXED"],
      [false, "ERR_SANDBOXED"],
      [false, "ERR_SANDBOXED"],
      [false, "ERR_SANDBOXED"],
    ]);
  });

  it("ariel's own commands inside refuse with ERR_SANDBOXED (3), not an internal error, and start nothing", async () => {
    const w = sandboxWorld();
    const [node, bin] = cliCommand("spawn");
    const sh = script(
      w,
      "nested.sh",
      `"$1" "$2" --detach -C "${w.root}" --source web -- touch "${w.web}/from-inside"; echo "rc=$?"
`,
    );
    // node and the bin on the command line: files a command names stay visible (a clone under /tmp).
    const rec = await start(w, ["--name", "nest", "--source", "api", "--", "sh", sh, node!, bin!]);
    await finishedHistory(w.root, rec.runId);
    const dir = runDir(w.root, rec.runId);
    expect(readFileSync(join(dir, "stdout"), "utf8")).toBe("rc=3\n");
    expect(
      readFileSync(join(dir, "stderr"), "utf8")
        .split("\n")
        .find((l) => l.includes("error:")),
    ).toMatch(/^ariel-spawn: error: not from inside a sandboxed run: .* \[ERR_SANDBOXED\]$/);
    expect(existsSync(join(w.web, "from-inside"))).toBe(false);
    expect(
      records((await runs(w.root, ["list", "--all", "--json"], { env: w.env })).stdout).map((r) => r.name),
    ).toEqual(["nest"]);
  });

  it("an agent's reports reach the monitor from inside: its settings read-only, its own secret, the run waits in Claude's words", async () => {
    const w = sandboxWorld();
    const claude = join(REPO_ROOT, "test/fixtures/agents/claude");
    const rec = await start(w, ["--tty", "--isolate", "--source", "api", "--name", "c1", "--", claude]);
    expect(readJson(join(runDir(w.root, rec.runId), "run.json")).reports).toEqual({
      agent: "claude",
      via: "claude-hooks",
    });
    const list = async () =>
      (records((await runs(w.root, ["list", "--json"], { env: w.env })).stdout)[0] ?? {}) as Record<
        string,
        // biome-ignore lint/suspicious/noExplicitAny: a parsed record, checked below
        any
      >;
    const reaches = async (ok: (r: Awaited<ReturnType<typeof list>>) => boolean) => {
      const end = Date.now() + 15_000;
      for (let r = await list(); ; r = await list()) {
        if (ok(r) || Date.now() > end) return r;
        await new Promise((done) => setTimeout(done, 50));
      }
    };
    expect((await reaches((r) => r.reported?.session === "fake-session-1")).reported?.session).toBe(
      "fake-session-1",
    );
    await runs(w.root, ["send", "c1", "ask", "--enter"], { env: w.env });
    const r = await reaches((r) => r.attention?.reason === "Claude needs your permission to use Bash");
    expect([r.activity, r.attention.by, r.reported.lastTool.name]).toEqual(["waiting", "agent", "Bash"]);
    await runs(w.root, ["kill", "c1"], { env: w.env });
  });

  it("respawn starts the same sandbox; a sandboxed server binds its leased port, reachable from outside", async () => {
    const w = sandboxWorld();
    const state = tempDir("ariel-sbx-state-");
    const base = 42000 + (process.pid % 400) * 10;
    writeFile(
      join(w.root, "ariel.config.json"),
      JSON.stringify({ ports: ["web"], portRange: [base, base + 9] }),
    );
    const js = script(
      w,
      "serve.js",
      `require("http").createServer((q, s) => s.end("hello from " + process.env.PORT)).listen(Number(process.env.PORT), "127.0.0.1");`,
    );
    const env = { ARIEL_STATE_HOME: state };
    const rec = await start(
      w,
      ["--isolate", "--task", "t1", "--source", "api", "--name", "srv", "--", process.execPath, js],
      env,
    );
    const port = (taskFile(w.root, "t1") as { ports?: { web: number } }).ports!.web;
    let body = "";
    await until(() => {
      void fetch(`http://127.0.0.1:${port}`)
        .then((r) => r.text())
        .then((t) => {
          body = t;
        })
        .catch(() => {});
      return body !== "";
    }, 10_000);
    expect(body).toBe(`hello from ${port}`);
    const re = await runs(w.root, ["respawn", "srv", "--json"], { env: { ...w.env, ...env } });
    expect(re.code).toBe(0);
    const again = records(re.stdout)[0] as Record<string, unknown>;
    expect(again.sandbox).toEqual(rec.sandbox);
    expect(again.respawnOf).toBe(rec.runId);
    await runs(w.root, ["kill", "srv"], { env: { ...w.env, ...env } });
  });

  it("the fleet's API refuses a request from inside a sandbox, and answers the same request from outside", async () => {
    const w = sandboxWorld();
    const state = tempDir("ariel-sbx-fleet-");
    const hash = await register(state, w.root);
    const server = await serve(["--workspace", w.root], { ARIEL_STATE_HOME: state, ...w.env });
    try {
      const url = `${server.url}api/workspaces/${hash}/runs`;
      const js = script(
        w,
        "fleet.js",
        `fetch(${JSON.stringify(url)}, { method: "POST", headers: { "content-type": "application/json" }, body: JSON.stringify({ argv: ["true"], source: "api" }) })
  .then(async (r) => console.log(r.status, (await r.json()).code));`,
      );
      const rec = await start(w, ["--name", "asker", "--source", "api", "--", process.execPath, js]);
      await finishedHistory(w.root, rec.runId);
      expect(readFileSync(join(runDir(w.root, rec.runId), "stdout"), "utf8")).toBe("403 ERR_FORBIDDEN\n");
      const outside = await fetch(`${server.url}api/workspaces/${hash}/runs`);
      expect(outside.status).toBe(200);
      expect(((await outside.json()) as unknown[]).length).toBe(1);
    } finally {
      await server.stop();
      removeDir(state);
    }
  });

  it("--timeout ends it and --restart starts it again in the same sandbox: every attempt's commit is on the branch", async () => {
    const w = sandboxWorld();
    // each attempt counts itself in an untracked file of the worktree, commits, and fails
    const attempt = script(
      w,
      "attempt.sh",
      `n=$(cat .n 2>/dev/null || echo 0); n=$((n+1)); echo $n > .n
git commit -q --allow-empty -m "attempt $n"; exit 1
`,
    );
    const restarted = await start(w, [
      "--restart",
      "on-failure:1",
      "--isolate",
      "--keep",
      "--task",
      "r1",
      "--source",
      "api",
      "--",
      "sh",
      attempt,
    ]);
    const events = await finishedHistory(w.root, restarted.runId);
    expect(events.at(-1)).toMatchObject({ event: "run.finished", state: "failed" });
    expect(git(w.api, "log", "--format=%s", "-2", "ariel/r1")).toBe("attempt 2\nattempt 1");
    expect(readdirSync(join(w.root, ".ariel/sandbox"))).toEqual([]);

    const slow = await start(w, [
      "--timeout",
      "1s",
      "--isolate",
      "--keep",
      "--task",
      "r2",
      "--source",
      "api",
      "--",
      "sh",
      "-c",
      'git commit -q --allow-empty -m "before the timeout"; sleep 60',
    ]);
    const w2 = await runs(w.root, ["wait", slow.runId, "--json"], { env: w.env, timeoutMs: 30_000 });
    expect(records(w2.stdout)[0]).toMatchObject({
      state: "killed",
      // the command died of the TERM; bubblewrap reports that as its exit code (128 + 15)
      exit: { code: 143, status: 143 },
    });
    expect(readJson(join(runDir(w.root, slow.runId), "exit.json"))).toMatchObject({ reason: "timeout" });
    expect(git(w.api, "log", "--format=%s", "-1", "ariel/r2")).toBe("before the timeout");
  });

  it("fan-out: one sandbox per source, each commit on its own repository's branch", async () => {
    const w = sandboxWorld();
    const r = await arielIn(
      "spawn",
      w.root,
      [
        "--json",
        "--sandbox",
        "--isolate",
        "--keep",
        "-j",
        "2",
        "--task",
        "f1",
        "--source",
        "api",
        "--source",
        "web",
        "--",
        "sh",
        "-c",
        'echo "$ARIEL_SOURCE" > mine.txt && git add mine.txt && git commit -qm "in $ARIEL_SOURCE"',
      ],
      { env: w.env },
    );
    expect(r.code).toBe(0);
    const started = records(r.stdout).filter((e) => e.event === "process.started");
    expect(started.map((e) => [e.source, (e.sandbox as { write: string[] }).write[0]])).toEqual(
      expect.arrayContaining([
        ["api", legPath(w.root, "f1-api", "api")],
        ["web", legPath(w.root, "f1-web", "web")],
      ]),
    );
    expect(new Set(started.map((e) => e.sandboxId)).size).toBe(2);
    // a task per source (f1-api, f1-web), as without a sandbox
    expect(git(w.api, "log", "--format=%s", "-1", "ariel/f1-api")).toBe("in api");
    expect(git(w.web, "log", "--format=%s", "-1", "ariel/f1-web")).toBe("in web");
    expect(git(w.api, "log", "--format=%s", "-1", "main")).toBe("second");
    expect(git(w.web, "log", "--format=%s", "-1", "main")).toBe("second");
  });

  it("--join: the joining run starts from what the live one committed so far; when both commit, the first to end moves the branch and the other's commits are kept aside, none lost", async () => {
    const w = sandboxWorld();
    const leg = legPath(w.root, "t1", "api");
    const release = join(w.root, "release");
    const first = await start(w, [
      "--isolate",
      "--keep",
      "--task",
      "t1",
      "--source",
      "api",
      "--name",
      "first",
      "--",
      "sh",
      "-c",
      `echo a > a.txt && git add a.txt && git commit -qm first-a && touch a-done
while [ ! -e ${release} ]; do sleep 0.1; done
echo b > b.txt && git add b.txt && git commit -qm first-b`,
    ]);
    await until(() => existsSync(join(leg, "a-done")), 15_000);
    const second = await arielIn(
      "spawn",
      w.root,
      [
        "--sandbox",
        "--isolate",
        "--keep",
        "--join",
        "--task",
        "t1",
        "--source",
        "api",
        "--",
        "sh",
        "-c",
        'git log --format="sees %s" -1; echo s > s.txt && git add s.txt && git commit -qm second',
      ],
      { env: w.env },
    );
    expect([second.code, second.stdout]).toEqual([0, "sees first-a\n"]);
    expect(git(w.api, "log", "--format=%s", "-2", "ariel/t1")).toBe("second\nfirst-a");
    writeFileSync(release, "");
    const events = await finishedHistory(w.root, first.runId);
    const synced = events.filter((e) => e.event === "sandbox.synced").at(-1) as {
      repos: { kept: { ref: string; as: string; why: string }[] }[];
    };
    const kept = synced.repos[0]!.kept;
    expect(kept.map((k) => [k.ref, k.why])).toEqual([["refs/heads/ariel/t1", "moved-outside"]]);
    expect(git(w.api, "log", "--format=%s", "-2", "ariel/t1")).toBe("second\nfirst-a");
    expect(git(w.api, "log", "--format=%s", "-2", kept[0]!.as)).toBe("first-b\nfirst-a");
    // Named where a person looks: ariel-runs show of the run.
    const shown = (await runs(w.root, ["show", "first"], { env: w.env })).stdout.split("\n");
    expect(shown.filter((l) => l.startsWith("kept aside"))).toEqual([
      `kept aside  refs/heads/ariel/t1 as ${kept[0]!.as} (moved-outside): git --git-dir ${realpathSync(join(w.api, ".git"))} log ${kept[0]!.as}`,
    ]);
  });

  it("lifecycle hooks and --on-exit run outside the sandbox: they write where the run cannot", async () => {
    const w = sandboxWorld();
    writeFile(
      join(w.root, "ariel.config.json"),
      `${JSON.stringify({ hooks: { "post-create": 'echo "$ARIEL_HOOK" > "$HOME/post-create-ran"' } })}\n`,
    );
    const onExit = script(w, "on-exit.sh", 'echo "$ARIEL_EXIT_CODE" > "$HOME/on-exit-ran"\n');
    const rec = await start(w, [
      "--isolate",
      "--keep",
      "--task",
      "h1",
      "--source",
      "api",
      "--on-exit",
      `sh ${onExit}`,
      "--",
      "sh",
      "-c",
      'echo x > "$HOME/from-the-run" 2>/dev/null; echo "home rc=$?"',
    ]);
    await finishedHistory(w.root, rec.runId);
    await until(() => existsSync(join(w.home, "on-exit-ran")), 10_000);
    expect(readFileSync(join(runDir(w.root, rec.runId), "stdout"), "utf8")).toBe("home rc=2\n");
    expect(existsSync(join(w.home, "from-the-run"))).toBe(false);
    expect(readFileSync(join(w.home, "post-create-ran"), "utf8")).toBe("post-create\n");
    expect(readFileSync(join(w.home, "on-exit-ran"), "utf8")).toBe("0\n");
  });
});
