/**
 * ariel-mcp through the SDK's own client over stdio, against real repositories: every tool's
 * success path, refusals as tool errors with ariel's code, schema errors, a path escape, a
 * server killed in the middle of create_task followed by reconcile, and stdin closed with calls
 * in flight, each answered before the server exits (docs/mcp.md).
 */
import { spawn } from "node:child_process";
import { existsSync, mkdirSync, readdirSync, readFileSync, symlinkSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StdioClientTransport } from "@modelcontextprotocol/sdk/client/stdio.js";
import { afterEach, describe, expect, it } from "vitest";
import { arielIn, cliCommand, cliEnv, records } from "./helpers/cli.ts";
import { GIT_TEST_ENV, git, initRepo, removeDir, tempDir } from "./helpers/git.ts";
import { cleanUp, until } from "./runs_helpers.ts";
import { HAVE_BWRAP } from "./sandbox_helpers.ts";

const dirs: string[] = [];
const clients: Client[] = [];
afterEach(async () => {
  for (const c of clients.splice(0)) await c.close().catch(() => {});
  cleanUp();
  for (const d of dirs.splice(0)) removeDir(d);
});

/** A workspace of two repositories, api and web. */
function ws(): string {
  const root = tempDir("ariel-mcp-");
  dirs.push(root);
  initRepo(join(root, "api"), { "README.md": "api\n" });
  initRepo(join(root, "web"), { "README.md": "web\n" });
  return root;
}

interface Started {
  client: Client;
  stderr: () => string;
  pid: () => number | null;
}

async function connect(
  root: string,
  extra: string[] = [],
  env: Record<string, string> = {},
): Promise<Started> {
  const [exe, ...pre] = cliCommand("mcp");
  const transport = new StdioClientTransport({
    command: exe as string,
    args: [...pre, "-C", root, ...extra],
    env: cliEnv(env),
    stderr: "pipe",
  });
  let err = "";
  transport.stderr?.on("data", (b: Buffer) => {
    err += b.toString("utf8");
  });
  const client = new Client({ name: "ariel-test", version: "1.0.0" });
  await client.connect(transport);
  clients.push(client);
  return { client, stderr: () => err, pid: () => transport.pid };
}

type Answer = {
  isError?: boolean;
  content: { type: string; text: string }[];
  structuredContent: {
    records: Record<string, unknown>[];
    exit: number;
    truncated: boolean;
    error?: Record<string, unknown>;
  };
};

async function call(c: Client, name: string, args: Record<string, unknown>): Promise<Answer> {
  return (await c.callTool({ name, arguments: args })) as unknown as Answer;
}

const TOOL_NAMES = [
  "list_sources",
  "create_task",
  "task_status",
  "task_diff",
  "remove_task",
  "start_run",
  "list_runs",
  "run_output",
  "run_screen",
  "send_input",
  "wait_run",
  "kill_run",
];

describe("ariel-mcp: tools", () => {
  it("lists its tools, land_task only with --allow-land", async () => {
    const root = ws();
    const plain = await connect(root);
    expect((await plain.client.listTools()).tools.map((t) => t.name)).toEqual(TOOL_NAMES);
    const landing = await connect(root, ["--allow-land"]);
    expect((await landing.client.listTools()).tools.map((t) => t.name)).toEqual([...TOOL_NAMES, "land_task"]);
    const refused = await call(plain.client, "land_task", { task: "t1" });
    expect(refused.isError).toBe(true);
    expect(refused.structuredContent.error).toMatchObject({ code: "ERR_USAGE", exit: 64 });
    expect(refused.content[0]?.text).toContain("--allow-land");
  });

  it("list_sources gives the discovery records", async () => {
    const root = ws();
    const { client } = await connect(root);
    const r = await call(client, "list_sources", {});
    expect(r.isError).toBeUndefined();
    expect(r.structuredContent.exit).toBe(0);
    expect(r.structuredContent.records.map((s) => [s.type, s.name, s.kind, s.branch])).toEqual([
      ["source", "api", "checkout", "main"],
      ["source", "web", "checkout", "main"],
    ]);
  });

  it("create_task, task_status, then remove_task: refused while dirty (ERR_DIRTY), snapshot removes", async () => {
    const root = ws();
    const { client } = await connect(root);
    const made = await call(client, "create_task", { sources: ["api"], task: "t1" });
    expect(made.isError).toBeUndefined();
    const leg = join(root, ".ariel/worktrees/t1/api");
    expect(made.structuredContent.records[0]).toMatchObject({ type: "task", taskId: "t1", state: "active" });
    expect(existsSync(join(leg, "README.md"))).toBe(true);
    expect(git(join(root, "api"), "branch", "--list", "ariel/t1")).toContain("ariel/t1");

    const status = await call(client, "task_status", { task: "t1" });
    expect(status.structuredContent.records.map((w) => [w.type, w.task, w.source, w.status, w.path])).toEqual(
      [["worktree", "t1", "api", "active", leg]],
    );

    writeFileSync(join(leg, "notes.txt"), "agent's work\n");
    const refused = await call(client, "remove_task", { task: "t1" });
    expect(refused.isError).toBe(true);
    expect(refused.structuredContent.exit).toBe(3);
    expect(refused.structuredContent.error).toMatchObject({ code: "ERR_DIRTY", exit: 3 });
    expect(String(refused.structuredContent.error?.hint)).toContain("--snapshot");
    expect(refused.content[0]?.text.split("\n")[0]).toMatch(/^ERR_DIRTY: /);
    expect(existsSync(join(leg, "notes.txt"))).toBe(true);

    const removed = await call(client, "remove_task", { task: "t1", snapshot: true });
    expect(removed.isError).toBeUndefined();
    expect(existsSync(leg)).toBe(false);
    const snap = git(join(root, "api"), "for-each-ref", "--format=%(refname)", "refs/ariel/snapshots/t1/");
    expect(snap.split("\n").filter(Boolean)).toHaveLength(1);
    expect(git(join(root, "api"), "show", `${snap.trim()}:notes.txt`)).toBe("agent's work");
  });

  it("bad arguments are ERR_INVALID_INPUT (65) and change nothing", async () => {
    const root = ws();
    const { client } = await connect(root);
    for (const args of [
      { sources: ["../etc"] },
      { sources: ["/etc"] },
      { sources: ["api"], task: "--force" },
      { sources: ["api"], extra: true },
      { sources: [] },
      {},
    ]) {
      const r = await call(client, "create_task", args);
      expect(r.isError, JSON.stringify(args)).toBe(true);
      expect(r.structuredContent.error, JSON.stringify(args)).toMatchObject({
        code: "ERR_INVALID_INPUT",
        exit: 65,
      });
    }
    expect(existsSync(join(root, ".ariel"))).toBe(false);
  });

  it("a source that leads out of the root is ERR_PATH_ESCAPE (77)", async () => {
    const root = ws();
    const outside = tempDir("ariel-mcp-outside-");
    dirs.push(outside);
    initRepo(join(outside, "evil"));
    symlinkSync(join(outside, "evil"), join(root, "evil"));
    const { client } = await connect(root);
    const r = await call(client, "create_task", { sources: ["evil"], task: "t2" });
    expect(r.isError).toBe(true);
    expect(r.structuredContent.error).toMatchObject({ code: "ERR_PATH_ESCAPE", exit: 77 });
    expect(git(join(outside, "evil"), "worktree", "list", "--porcelain").match(/^worktree /gm)).toHaveLength(
      1,
    );
  });

  it("start_run, list_runs, run_output, wait_run: a detached isolated run and its output", async () => {
    const root = ws();
    const { client } = await connect(root);
    const started = await call(client, "start_run", {
      sources: ["api"],
      task: "r1",
      name: "hello",
      command: ["sh", "-c", "echo one; echo two; exit 3"],
    });
    expect(started.isError, started.content[0]?.text).toBeUndefined();
    const run = started.structuredContent.records.find((r) => r.type === "run");
    expect(run).toMatchObject({ type: "run", name: "hello", source: "api", task: "r1" });
    const waited = await call(client, "wait_run", { runs: ["hello"], timeoutSeconds: 60 });
    expect(waited.isError).toBeUndefined();
    expect(waited.structuredContent.exit).toBe(3);
    const out = await call(client, "run_output", { run: "hello" });
    expect(out.structuredContent.records.filter((r) => r.type === "output").map((r) => r.data)).toEqual([
      "one\n",
      "two\n",
    ]);
    const second = out.structuredContent.records.filter((r) => r.type === "output")[1] as { seq: number };
    const from = await call(client, "run_output", { run: "hello", from: second.seq });
    expect(from.structuredContent.records.filter((r) => r.type === "output").map((r) => r.data)).toEqual([
      "two\n",
    ]);
    const listed = await call(client, "list_runs", { all: true });
    expect(listed.structuredContent.records.map((r) => [r.name, r.state])).toEqual([["hello", "failed"]]);
  });

  it("start_run with span: one run over both sources' worktrees of one task, its cwd the task's directory", async () => {
    const root = ws();
    const { client } = await connect(root);
    const started = await call(client, "start_run", {
      sources: ["api", "web"],
      task: "sp",
      name: "both",
      span: true,
      isolate: false,
      command: ["sh", "-c", "for d in api web; do git -C $d commit -q --allow-empty -m in-$d; done"],
    });
    expect(started.isError, started.content[0]?.text).toBeUndefined();
    const runsStarted = started.structuredContent.records.filter((r) => r.type === "run");
    expect(runsStarted.map((r) => [r.name, r.source, r.task, r.cwd])).toEqual([
      ["both", null, "sp", join(root, ".ariel/worktrees/sp")],
    ]);
    expect(
      (await call(client, "wait_run", { runs: ["both"], timeoutSeconds: 60 })).structuredContent.exit,
    ).toBe(0);
    for (const s of ["api", "web"])
      expect(git(join(root, s), "log", "--format=%s", "-1", "ariel/sp")).toBe(`in-${s}`);
  });

  it.skipIf(!HAVE_BWRAP && !process.env.CI)(
    "start_run with sandbox: the run's record keeps it; inside, the source checkout is read-only and its commit comes home",
    async () => {
      const root = ws();
      const { client } = await connect(root, [], GIT_TEST_ENV);
      const started = await call(client, "start_run", {
        sources: ["api"],
        task: "s1",
        name: "boxed",
        sandbox: true,
        sandbox_net: "none",
        command: [
          "sh",
          "-c",
          `git commit -q --allow-empty -m inside; echo x > ${root}/api/evil || echo refused`,
        ],
      });
      expect(started.isError, started.content[0]?.text).toBeUndefined();
      const run = started.structuredContent.records.find((r) => r.type === "run");
      expect(run).toMatchObject({ sandbox: { net: "none" } });
      expect((run!.sandbox as { write: string[] }).write[0]).toBe(join(root, ".ariel/worktrees/s1/api"));
      expect(
        (await call(client, "wait_run", { runs: ["boxed"], timeoutSeconds: 60 })).structuredContent.exit,
      ).toBe(0);
      const out = await call(client, "run_output", { run: "boxed" });
      const lines = out.structuredContent.records.filter((r) => r.type === "output").map((r) => r.data);
      expect(lines.sort()).toEqual([
        "refused\n",
        `sh: 1: cannot create ${root}/api/evil: Read-only file system\n`,
      ]);
      expect(existsSync(join(root, "api/evil"))).toBe(false);
      expect(git(join(root, "api"), "log", "--format=%s", "-1", "ariel/s1")).toBe("inside");
    },
  );

  it("kill_run stops a live run; wait_run's bound is a tool error and the run goes on", async () => {
    const root = ws();
    const { client } = await connect(root);
    const started = await call(client, "start_run", {
      sources: ["web"],
      isolate: false,
      name: "sleeper",
      command: ["sleep", "300"],
    });
    expect(started.isError, started.content[0]?.text).toBeUndefined();
    const timedOut = await call(client, "wait_run", { runs: ["sleeper"], timeoutSeconds: 1 });
    expect(timedOut.isError).toBe(true);
    expect(timedOut.structuredContent.error).toMatchObject({ code: "ERR_WAIT_TIMEOUT" });
    const live = await call(client, "list_runs", {});
    expect(live.structuredContent.records.map((r) => [r.name, r.state])).toEqual([["sleeper", "running"]]);
    // state takes a live run's activity too: nothing waits for a person; the sleeper is busy or idle.
    const waiting = await call(client, "list_runs", { state: ["waiting"] });
    expect([waiting.isError, waiting.structuredContent.records.filter((r) => r.type === "run")]).toEqual([
      undefined,
      [],
    ]);
    const quiet = await call(client, "list_runs", { state: ["busy", "idle"] });
    expect(quiet.structuredContent.records.map((r) => r.name)).toEqual(["sleeper"]);
    const killed = await call(client, "kill_run", { run: "sleeper", grace: "1s" });
    expect(killed.isError).toBeUndefined();
    const after = await call(client, "list_runs", { all: true, state: ["killed"] });
    expect(after.structuredContent.records.map((r) => [r.name, r.state])).toEqual([["sleeper", "killed"]]);
  });

  it("send_input types into a tty run and run_screen shows it", async () => {
    const root = ws();
    const { client } = await connect(root);
    const started = await call(client, "start_run", {
      sources: ["api"],
      isolate: false,
      tty: true,
      name: "echoer",
      command: ["cat"],
    });
    expect(started.isError, started.content[0]?.text).toBeUndefined();
    const sent = await call(client, "send_input", { run: "echoer", text: "-hello mcp", enter: true });
    expect(sent.isError, sent.content[0]?.text).toBeUndefined();
    let screen: Answer | undefined;
    for (let i = 0; i < 100; i++) {
      screen = await call(client, "run_screen", { run: "echoer" });
      if (JSON.stringify(screen.structuredContent.records).includes("-hello mcp")) break;
      await new Promise((r) => setTimeout(r, 100));
    }
    expect(JSON.stringify(screen?.structuredContent.records)).toContain("-hello mcp");
    expect(screen?.structuredContent.records[0]).toMatchObject({ type: "screen" });
    await call(client, "kill_run", { run: "echoer", grace: "1s" });
  });

  it("unknown runs and tasks are tool errors with the CLI's code", async () => {
    const root = ws();
    const { client } = await connect(root);
    const r = await call(client, "kill_run", { run: "nope" });
    expect(r.structuredContent.error).toMatchObject({ code: "ERR_RUN_NOT_FOUND", exit: 66 });
    const t = await call(client, "remove_task", { task: "nope" });
    expect(t.structuredContent.error).toMatchObject({ code: "ERR_TASK_NOT_FOUND", exit: 66 });
  });
});

describe("ariel-mcp: crashes", () => {
  it("a server killed in the middle of create_task: reconcile leaves no half-made task", async () => {
    const root = ws();
    mkdirSync(join(root, ".ariel"));
    const s = await connect(root, [], {
      ARIEL_TEST_HOOKS: "1",
      ARIEL_TEST_PAUSE_AT: "add:after-worktree",
    });
    const pending = call(s.client, "create_task", { sources: ["api"], task: "t9" }).catch((e: unknown) => e);
    await until(() => /ariel-test-paused add:after-worktree (\d+)/.test(s.stderr()), 30_000);
    const addPid = Number(/ariel-test-paused add:after-worktree (\d+)/.exec(s.stderr())?.[1]);
    // The machine goes down: the server and the CLI it ran die at once.
    process.kill(s.pid() as number, "SIGKILL");
    process.kill(addPid, "SIGKILL");
    expect(await pending).toBeInstanceOf(Error);
    expect(existsSync(join(root, ".ariel/worktrees/t9/api"))).toBe(true);

    const rec = await arielIn("worktree", root, ["reconcile", "--json"]);
    expect(rec.code, rec.stderr).toBe(0);
    expect(records(rec.stdout).length).toBeGreaterThan(0);
    expect(existsSync(join(root, ".ariel/worktrees/t9/api"))).toBe(false);
    expect(git(join(root, "api"), "worktree", "list", "--porcelain").match(/^worktree /gm)).toHaveLength(1);
    expect(git(join(root, "api"), "branch", "--list", "ariel/t9")).toBe("");
  });
});

describe("ariel-mcp: end of input", () => {
  it("stdin closed with calls in flight: every call is answered, by id, before the server exits 0", async () => {
    const root = ws();
    const release = join(root, "release");
    const rpc = [
      {
        id: 1,
        method: "initialize",
        params: { protocolVersion: "2025-06-18", capabilities: {}, clientInfo: { name: "t", version: "1" } },
      },
      { method: "notifications/initialized" },
      { id: 2, method: "tools/call", params: { name: "list_sources", arguments: {} } },
      {
        id: 3,
        method: "tools/call",
        params: { name: "create_task", arguments: { sources: ["api"], task: "t1" } },
      },
      {
        id: 4,
        method: "tools/call",
        params: { name: "create_task", arguments: { sources: ["web"], task: "t2" } },
      },
      { id: 5, method: "tools/call", params: { name: "remove_task", arguments: { task: "nope" } } },
    ];
    const [exe, ...pre] = cliCommand("mcp");
    // Each create_task's `ariel-worktree add` waits at a hook point until `release` exists: those
    // two calls are surely under way when stdin closes.
    const server = spawn(exe as string, [...pre, "-C", root], {
      env: cliEnv({
        ARIEL_TEST_HOOKS: "1",
        ARIEL_TEST_PAUSE_AT: "add:after-worktree",
        ARIEL_TEST_RELEASE_FILE: release,
      }),
      stdio: ["pipe", "pipe", "pipe"],
    });
    let out = "";
    let err = "";
    server.stdout.on("data", (b: Buffer) => {
      out += b.toString("utf8");
    });
    server.stderr.on("data", (b: Buffer) => {
      err += b.toString("utf8");
    });
    const end = new Promise<[number | null, string | null]>((resolve) =>
      server.once("close", (code, signal) => resolve([code, signal])),
    );
    let ended = false;
    void end.then(() => {
      ended = true;
    });
    const answered = () =>
      out
        .split("\n")
        .filter(Boolean)
        .map((l) => JSON.parse(l) as { id?: number; result?: Partial<Answer> })
        .filter((m) => m.id !== undefined)
        .sort((a, b) => (a.id as number) - (b.id as number));
    try {
      server.stdin.write(rpc.map((m) => `${JSON.stringify({ jsonrpc: "2.0", ...m })}\n`).join(""));
      await until(() => err.split("ariel-test-paused add:after-worktree ").length - 1 === 2, 30_000);
      server.stdin.end();
      await until(() => answered().length === 3, 30_000);
      expect([ended, answered().map((m) => m.id)]).toEqual([false, [1, 2, 5]]);
      writeFileSync(release, "");
      expect(await end).toEqual([0, null]);
    } finally {
      writeFileSync(release, "");
      if (!ended) server.kill("SIGKILL");
    }
    const replies = answered();
    expect(replies.map((m) => m.id)).toEqual([1, 2, 3, 4, 5]);
    expect(replies.map((m) => [m.result?.isError, m.result?.structuredContent?.exit])).toEqual([
      [undefined, undefined],
      [undefined, 0],
      [undefined, 0],
      [undefined, 0],
      [true, 66],
    ]);
    expect(replies.slice(2, 4).map((m) => m.result?.structuredContent?.records[0]?.taskId)).toEqual([
      "t1",
      "t2",
    ]);
    expect(existsSync(join(root, ".ariel/worktrees/t1/api/README.md"))).toBe(true);
    expect(existsSync(join(root, ".ariel/worktrees/t2/web/README.md"))).toBe(true);
  });
});

describe("ariel-mcp: bounds, progress, cancellation", () => {
  it("a long tool call reports progress, and a cancelled one stops its CLI process", async () => {
    const root = ws();
    const { client } = await connect(root);
    const started = await call(client, "start_run", {
      sources: ["api"],
      isolate: false,
      name: "long",
      command: ["sleep", "300"],
    });
    expect(started.isError, started.content[0]?.text).toBeUndefined();
    const ac = new AbortController();
    const messages: string[] = [];
    const pending = client
      .callTool({ name: "wait_run", arguments: { runs: ["long"], timeoutSeconds: 300 } }, undefined, {
        signal: ac.signal,
        onprogress: (p) => {
          messages.push(String(p.message));
          ac.abort();
        },
        timeout: 120_000,
      })
      .catch((e: unknown) => e);
    expect(await pending).toBeInstanceOf(Error);
    expect(messages[0]).toMatch(/^wait_run: \d+s$/);
    // The `ariel-runs wait` it ran is gone (TERM to its process group), the run itself goes on.
    await until(() => waiters("--timeout=300s").length === 0, 15_000);
    const live = await call(client, "list_runs", {});
    expect(live.structuredContent.records.map((r) => [r.name, r.state])).toEqual([["long", "running"]]);
    await call(client, "kill_run", { run: "long", grace: "1s" });
  });

  it("run_output is capped: truncated, and the text says so", async () => {
    const root = ws();
    const { client } = await connect(root);
    await call(client, "start_run", {
      sources: ["api"],
      isolate: false,
      name: "loud",
      command: ["sh", "-c", "yes 0123456789abcdefghijklmnopqrstuvwxyz | head -c 3000000"],
    });
    await call(client, "wait_run", { runs: ["loud"] });
    const out = await call(client, "run_output", { run: "loud" });
    expect(out.isError).toBeUndefined();
    expect(out.structuredContent.truncated).toBe(true);
    const bytes = JSON.stringify(out.structuredContent.records).length;
    expect(bytes).toBeLessThanOrEqual(1 << 20);
    expect(bytes).toBeGreaterThan(1 << 19);
    expect(out.content[0]?.text.length).toBeLessThanOrEqual((64 << 10) + 200);
    expect(out.content[0]?.text).toContain("… output cut at the cap");
  });
});

describe("ariel-mcp: the fan-out recipe (docs/mcp.md)", () => {
  it("three isolated sub-agents, wait, review, land every task with --allow-land", async () => {
    const root = tempDir("ariel-mcp-recipe-");
    dirs.push(root);
    for (const n of ["api", "web", "docs"]) initRepo(join(root, n), { "README.md": `${n}\n` });
    const { client } = await connect(root, ["--allow-land"]);
    const sources = await call(client, "list_sources", {});
    expect(sources.structuredContent.records.map((s) => s.name)).toEqual(["api", "docs", "web"]);
    // A sub-agent: writes its part and commits it on its task's branch, in its own worktree.
    const agent = (part: string) => [
      "sh",
      "-c",
      `echo ${part} > ${part}.txt && git add ${part}.txt && git -c user.name=agent -c user.email=agent@example.invalid commit -qm "${part}"`,
    ];
    for (const n of ["api", "web", "docs"]) {
      const r = await call(client, "start_run", {
        sources: [n],
        task: `auth-${n}`,
        name: `auth-${n}`,
        command: agent(`auth-${n}`),
      });
      expect(r.isError, r.content[0]?.text).toBeUndefined();
    }
    const waited = await call(client, "wait_run", {
      runs: ["auth-api", "auth-web", "auth-docs"],
      timeoutSeconds: 120,
    });
    expect(waited.isError, waited.content[0]?.text).toBeUndefined();
    expect(waited.structuredContent.exit).toBe(0);
    for (const n of ["api", "web", "docs"]) {
      const diff = await call(client, "task_diff", { task: `auth-${n}` });
      expect(diff.isError, diff.content[0]?.text).toBeUndefined();
      expect(JSON.stringify(diff.structuredContent.records)).toContain(`auth-${n}.txt`);
      const landed = await call(client, "land_task", { task: `auth-${n}`, strategy: "squash", remove: true });
      expect(landed.isError, landed.content[0]?.text).toBeUndefined();
      expect(git(join(root, n), "show", `main:auth-${n}.txt`)).toBe(`auth-${n}`);
      expect(existsSync(join(root, `.ariel/worktrees/auth-${n}`))).toBe(false);
    }
    // Each repository got only its own sub-agent's work.
    expect(git(join(root, "api"), "ls-tree", "--name-only", "main")).toBe("README.md\nauth-api.txt");
  });
});

/** Live processes whose command line holds `needle` (the CLIs a server ran). */
function waiters(needle: string): number[] {
  const pids: number[] = [];
  for (const d of readdirSync("/proc")) {
    if (!/^\d+$/.test(d)) continue;
    try {
      if (readFileSync(`/proc/${d}/cmdline`, "utf8").includes(needle)) pids.push(Number(d));
    } catch {}
  }
  return pids;
}
