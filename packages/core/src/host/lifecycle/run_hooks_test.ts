/**
 * The hook runner over a task's legs on real repositories: which config files speak for a leg
 * and in which order, the environment a hook gets, whose timeout bounds it, the log and the
 * progress it gives, what a failure stops (the leg's later hooks; a guard: the later legs), and
 * what is skipped with a warning (a repository's hooks not approved or changed since, a source's
 * invalid config, `--no-hooks`).
 */
import { existsSync, readFileSync, rmSync } from "node:fs";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { hooksDigest } from "../../lifecycle/hooks.ts";
import type { Ports } from "../../ports.ts";
import type { TaskRecord } from "../../schema/task.ts";
import { commitAll, GIT_TEST_ENV, removeDir, tempDir, writeFile } from "../_fixture.ts";
import { hostPorts } from "../ports.ts";
import type { ProgressStep } from "../progress.ts";
import { makeRoot } from "../worktree/_fixture.ts";
import { addTask } from "../worktree/add.ts";
import { openWorkspace } from "../worktree/workspace.ts";
import { type HookResult, hookEnv, hookFailureLine, runHooks, untrustedWarning } from "./run_hooks.ts";
import { approveHooks } from "./trust_store.ts";

let root: string;
let home: string;
afterEach(() => {
  removeDir(root);
  removeDir(home);
});

/** A workspace of api and web, the config files given (path under the root → JSON), task t1. */
async function setUp(configs: Record<string, unknown>, commit: string[] = []) {
  root = makeRoot(["api", "web"]);
  home = tempDir("ariel-hooks-home-");
  for (const [at, config] of Object.entries(configs)) {
    writeFile(join(root, at, "ariel.config.json"), `${JSON.stringify(config)}\n`);
  }
  for (const s of commit) commitAll(join(root, s), "config");
  const ports: Ports = hostPorts({
    env: { PATH: process.env.PATH, ...GIT_TEST_ENV, ARIEL_STATE_HOME: home, ARIEL_OWNER: "tester" },
  });
  // The add runs no hook itself: each test runs them.
  const { record } = await addTask(ports, { root, taskId: "t1", sources: ["api", "web"], noHooks: true });
  const { hash } = await openWorkspace(ports, root);
  return { ports, record, hash };
}

const wt = (s: string) => join(root, ".ariel/worktrees/t1", s);
const conf = (at: string) => join(root, at, "ariel.config.json");
const logOf = () => readFileSync(join(root, ".ariel/hooks/t1.log"), "utf8");
/** What each result says, without its duration. */
const said = (rs: HookResult[]) => rs.map(({ durationMs: _, ...r }) => r);
const ok = (source: string, file: string, hook: string, origin = "workspace") => ({
  event: "post-create",
  source,
  origin,
  file,
  hook,
  status: "ok",
  exit: 0,
  signal: null,
});

describe("runHooks", () => {
  it("runs the workspace's hook in each leg's worktree, one leg after the other, and logs each framed", async () => {
    const hook = "echo in $ARIEL_SOURCE; pwd > where.txt";
    const { ports, record, hash } = await setUp({ ".": { hooks: { "post-create": hook } } });
    const events: ProgressStep[] = [];
    const r = await runHooks(ports, {
      root,
      hash,
      record,
      event: "post-create",
      onProgress: (e) => events.push(e),
    });
    expect(said(r.results)).toEqual([ok("api", conf("."), hook), ok("web", conf("."), hook)]);
    expect(r.failed).toEqual([]);
    expect(r.warnings).toEqual([]);
    expect([...r.legs]).toEqual([
      ["api", "ok"],
      ["web", "ok"],
    ]);
    expect(r.log).toBe(join(root, ".ariel/hooks/t1.log"));
    for (const s of ["api", "web"]) expect(readFileSync(join(wt(s), "where.txt"), "utf8")).toBe(`${wt(s)}\n`);
    expect(events.map((e) => [e.index, e.total, e.source, e.action])).toEqual([
      [1, 2, "api", "post-create hook"],
      [1, 2, "api", "post-create: in api"],
      [2, 2, "web", "post-create hook"],
      [2, 2, "web", "post-create: in web"],
    ]);
    const lines = logOf().split("\n");
    expect(lines).toHaveLength(7);
    expect(lines[0]).toMatch(
      new RegExp(`^== \\d{4}-\\d\\d-\\d\\dT[\\d:.]+Z post-create api \\(workspace: ${conf(".")}\\): echo in`),
    );
    expect(lines.slice(1, 3)).toEqual(["in api", expect.stringMatching(/^== exit 0 after \d+\.\d s$/)]);
    expect(lines[3]).toContain(" post-create web (workspace: ");
    expect(lines.slice(4)).toEqual(["in web", expect.stringMatching(/^== exit 0 after \d+\.\d s$/), ""]);
  });

  it("a hook gets ariel's environment for its leg, and no port of another task", async () => {
    const { ports, record, hash } = await setUp({ ".": { hooks: { "post-create": "env > env.txt" } } });
    const withPorts: TaskRecord = { ...record, ports: { web: 20001, api: 20002 } };
    const base = { ...ports.env, ARIEL_PORT_STALE: "1", KEPT: "yes" };
    const r = await runHooks(
      { ...ports, env: base },
      { root, hash, record: withPorts, event: "post-create" },
    );
    expect(r.failed).toEqual([]);
    const env = Object.fromEntries(
      readFileSync(join(wt("web"), "env.txt"), "utf8")
        .trim()
        .split("\n")
        .map((l) => [l.slice(0, l.indexOf("=")), l.slice(l.indexOf("=") + 1)]),
    );
    const leg = record.legs.find((l) => l.source === "web")!;
    expect(env).toMatchObject({
      KEPT: "yes",
      ARIEL_WORKSPACE_ROOT: root,
      ARIEL_WORKSPACE_HASH: hash,
      ARIEL_SOURCE: "web",
      ARIEL_SOURCE_PATH: join(root, "web"),
      ARIEL_TASK: "t1",
      ARIEL_WORKTREE: wt("web"),
      ARIEL_BRANCH: leg.branch,
      ARIEL_BASE: leg.base,
      ARIEL_HOOK: "post-create",
      ARIEL_PORT_WEB: "20001",
      ARIEL_PORT_API: "20002",
      PORT: "20001",
    });
    expect(env.ARIEL_PORT_STALE).toBeUndefined();
  });

  it("hookEnv: the task's ports replace whatever ARIEL_PORT_* the base had; PORT the first", () => {
    const record = { taskId: "t9", ports: { db: 5 } } as unknown as TaskRecord;
    const leg = { source: "s", sourcePath: "/w/s", worktreePath: "/w/t", branch: "b", base: "c" };
    const env = hookEnv(
      { ARIEL_PORT_DB: "1", ARIEL_PORT_X: "2", PORT: "3", UNSET: undefined, A: "a" },
      { root: "/w", hash: "h", record, leg: leg as TaskRecord["legs"][number], event: "pre-land" },
    );
    expect(env).toEqual({
      PORT: "5",
      A: "a",
      ARIEL_WORKSPACE_ROOT: "/w",
      ARIEL_WORKSPACE_HASH: "h",
      ARIEL_SOURCE: "s",
      ARIEL_SOURCE_PATH: "/w/s",
      ARIEL_TASK: "t9",
      ARIEL_WORKTREE: "/w/t",
      ARIEL_BRANCH: "b",
      ARIEL_BASE: "c",
      ARIEL_HOOK: "pre-land",
      ARIEL_PORT_DB: "5",
    });
  });

  it("a leg hears its source's file first, then the workspace's", async () => {
    const { ports, record, hash } = await setUp({
      api: { hooks: { "post-create": "echo own >> order.txt" } },
      ".": { hooks: { "post-create": "echo workspace >> order.txt" } },
    });
    const r = await runHooks(ports, { root, hash, record, event: "post-create" });
    expect(r.results.map((x) => [x.source, x.file])).toEqual([
      ["api", conf("api")],
      ["api", conf(".")],
      ["web", conf(".")],
    ]);
    expect(readFileSync(join(wt("api"), "order.txt"), "utf8")).toBe("own\nworkspace\n");
    expect(readFileSync(join(wt("web"), "order.txt"), "utf8")).toBe("workspace\n");
  });

  it("a source's own hookTimeoutMs bounds its file's hooks; the workspace's bounds the rest", async () => {
    const { ports, record, hash } = await setUp({
      api: { hooks: { "post-create": "sleep 1" }, hookTimeoutMs: 30_000 },
      web: { hooks: { "post-create": "sleep 30" } },
      ".": { hooks: { "post-create": "sleep 30" }, hookTimeoutMs: 200 },
    });
    const r = await runHooks(ports, { root, hash, record, event: "post-create" });
    expect(r.results.map((x) => [x.source, x.file, x.status, x.exit])).toEqual([
      ["api", conf("api"), "ok", 0],
      ["api", conf("."), "timeout", 143],
      ["web", conf("web"), "timeout", 143],
    ]);
    expect(r.failed).toHaveLength(2);
    expect(logOf()).toMatch(/== timed out \(killed, 143\) after \d+\.\d s\n/);
  });

  it("a failed hook ends its leg's hooks; the next leg still runs (post-create is no guard)", async () => {
    const { ports, record, hash } = await setUp({
      api: { hooks: { "post-create": "exit 4" } },
      ".": { hooks: { "post-create": "touch ran" } },
    });
    const r = await runHooks(ports, { root, hash, record, event: "post-create" });
    expect(said(r.failed)).toEqual([{ ...ok("api", conf("api"), "exit 4"), status: "failed", exit: 4 }]);
    expect([...r.legs]).toEqual([
      ["api", "failed"],
      ["web", "ok"],
    ]);
    expect(existsSync(join(wt("api"), "ran"))).toBe(false);
    expect(existsSync(join(wt("web"), "ran"))).toBe(true);
    expect(hookFailureLine(r.failed[0]!)).toBe('api: post-create hook "exit 4" exited 4');
    expect(logOf()).toContain("== exit 4 after ");
  });

  it("a guard that fails in one leg runs in no later leg", async () => {
    const { ports, record, hash } = await setUp({ ".": { hooks: { "pre-remove": "touch ran; exit 1" } } });
    const r = await runHooks(ports, { root, hash, record, event: "pre-remove" });
    expect(r.results.map((x) => [x.source, x.event, x.status])).toEqual([["api", "pre-remove", "failed"]]);
    expect([...r.legs]).toEqual([["api", "failed"]]);
    expect(existsSync(join(wt("web"), "ran"))).toBe(false);
  });

  it("legs: only the legs named run", async () => {
    const { ports, record, hash } = await setUp({ ".": { hooks: { "post-restore": "touch ran" } } });
    const legs = record.legs.filter((l) => l.source === "web");
    const r = await runHooks(ports, { root, hash, record, event: "post-restore", legs });
    expect([...r.legs]).toEqual([["web", "ok"]]);
    expect(existsSync(join(wt("api"), "ran"))).toBe(false);
    expect(existsSync(join(wt("web"), "ran"))).toBe(true);
  });

  it("an event no file has a hook for runs nothing and names no leg", async () => {
    const { ports, record, hash } = await setUp({ ".": { hooks: { "post-create": "touch ran" } } });
    const r = await runHooks(ports, { root, hash, record, event: "post-land" });
    expect(r).toMatchObject({ results: [], failed: [], warnings: [] });
    expect(r.legs.size).toBe(0);
    expect(existsSync(join(root, ".ariel/hooks/t1.log"))).toBe(false);
  });

  it("skip (--no-hooks): nothing runs, nothing is warned of, the legs with a hook are skipped", async () => {
    const { ports, record, hash } = await setUp(
      { api: { hooks: { "post-create": "touch ran" } }, ".": { hooks: { "pre-land": "touch ran" } } },
      ["api"],
    );
    const r = await runHooks(ports, { root, hash, record, event: "post-create", skip: true });
    expect(r).toMatchObject({ results: [], failed: [], warnings: [] });
    expect([...r.legs]).toEqual([["api", "skipped"]]);
    expect(existsSync(join(wt("api"), "ran"))).toBe(false);
  });

  it("a repository's hook runs only once approved with this content", async () => {
    const hooks = { "post-create": "touch ran" };
    const { ports, record, hash } = await setUp({ api: { hooks } }, ["api"]);
    const first = await runHooks(ports, { root, hash, record, event: "post-create" });
    expect(first.results).toEqual([]);
    expect([...first.legs]).toEqual([["api", "skipped"]]);
    const sha256 = await hooksDigest(hooks);
    expect(first.warnings).toEqual([
      {
        code: "WARN_HOOK_UNTRUSTED",
        message: `skipped the post-create hook of ${conf("api")} (the repository's, not approved): touch ran`,
        hint: `review ${conf("api")}, then approve its hooks: ariel-worktree -C ${root} trust --source api`,
        context: {
          file: conf("api"),
          event: "post-create",
          source: "api",
          hook: "touch ran",
          sha256,
          reason: "never-approved",
        },
      },
    ]);
    expect(existsSync(join(wt("api"), "ran"))).toBe(false);

    await approveHooks(ports, { file: conf("api"), sha256, hooks });
    const second = await runHooks(ports, { root, hash, record, event: "post-create" });
    expect(said(second.results)).toEqual([ok("api", conf("api"), "touch ran", "repository")]);
    expect(second.warnings).toEqual([]);
    expect(existsSync(join(wt("api"), "ran"))).toBe(true);

    rmSync(join(wt("api"), "ran"));
    writeFile(conf("api"), `${JSON.stringify({ hooks: { "post-create": "touch ran; touch more" } })}\n`);
    const third = await runHooks(ports, { root, hash, record, event: "post-create" });
    expect(third.results).toEqual([]);
    expect(third.warnings.map((w) => [w.message, w.context.reason])).toEqual([
      [
        `skipped the post-create hook of ${conf("api")} (the repository's, changed since it was approved): touch ran; touch more`,
        "changed",
      ],
    ]);
    expect(existsSync(join(wt("api"), "ran"))).toBe(false);
  });

  it("an untracked file in a repository is the user's own: it runs without approval", async () => {
    const { ports, record, hash } = await setUp({ api: { hooks: { "post-create": "touch ran" } } });
    const r = await runHooks(ports, { root, hash, record, event: "post-create" });
    expect(said(r.results)).toEqual([ok("api", conf("api"), "touch ran")]);
  });

  it("a skipped hook and a failed one in one leg: the leg stays failed", async () => {
    const { ports, record, hash } = await setUp(
      { api: { hooks: { "post-create": "touch ran" } }, ".": { hooks: { "post-create": "exit 2" } } },
      ["api"],
    );
    const r = await runHooks(ports, { root, hash, record, event: "post-create" });
    expect([...r.legs]).toEqual([
      ["api", "failed"],
      ["web", "failed"],
    ]);
    expect(r.warnings.map((w) => w.code)).toEqual(["WARN_HOOK_UNTRUSTED"]);
  });

  it("a source's invalid config is skipped with a warning; the workspace's hooks still run", async () => {
    const { ports, record, hash } = await setUp({ ".": { hooks: { "post-create": "touch ran" } } });
    writeFile(conf("api"), '{"hooks": {"post-create": 7}}\n');
    const r = await runHooks(ports, { root, hash, record, event: "post-create" });
    expect(r.warnings).toHaveLength(1);
    expect(r.warnings[0]).toMatchObject({ code: "WARN_CONFIG_INVALID", context: { file: conf("api") } });
    expect(r.warnings[0]!.message).toMatch(/; its hooks and ports are ignored$/);
    expect([...r.legs]).toEqual([
      ["api", "ok"],
      ["web", "ok"],
    ]);
  });

  it("a leg whose worktree is gone: its hook could not start (125)", async () => {
    const { ports, record, hash } = await setUp({ ".": { hooks: { "post-create": "true" } } });
    rmSync(wt("api"), { recursive: true });
    const r = await runHooks(ports, { root, hash, record, event: "post-create" });
    expect(r.failed.map((f) => [f.source, f.status, f.exit])).toEqual([["api", "not-started", 125]]);
    expect(hookFailureLine(r.failed[0]!)).toBe('api: post-create hook "true" could not start (125)');
    expect(logOf()).toContain(`the worktree ${wt("api")} is missing\n== exit 125 after 0.0 s\n`);
  });
});

describe("the words of a hook's failure and of a skipped hook", () => {
  const f = (over: Partial<HookResult>): HookResult => ({
    event: "pre-land",
    source: "web",
    origin: "workspace",
    file: "/w/ariel.config.json",
    hook: '["make","check"]',
    status: "failed",
    exit: 2,
    signal: null,
    durationMs: 1234,
    ...over,
  });
  it("hookFailureLine: exited, timed out after the time it ran, could not start; an argv as its JSON, a string quoted", () => {
    expect(hookFailureLine(f({}))).toBe('web: pre-land hook ["make","check"] exited 2');
    expect(hookFailureLine(f({ status: "timeout", exit: 143 }))).toBe(
      'web: pre-land hook ["make","check"] timed out after 1.2 s',
    );
    expect(hookFailureLine(f({ status: "not-started", exit: 127 }))).toBe(
      'web: pre-land hook ["make","check"] could not start (127)',
    );
    expect(hookFailureLine(f({ hook: '[ -f x ] && echo "y"' }))).toBe(
      'web: pre-land hook "[ -f x ] && echo \\"y\\"" exited 2',
    );
    expect(hookFailureLine(f({ hook: "[1,2]" }))).toBe('web: pre-land hook "[1,2]" exited 2');
  });
  it("untrustedWarning: the workspace's own source is approved without --source; a plan says what would be", () => {
    const set = {
      origin: "repository" as const,
      file: "/w/ariel.config.json",
      hooks: { "pre-land": ["make", "check"] },
      sha256: "0".repeat(64),
      trusted: false,
      untrusted: "never-approved" as const,
      ports: [],
    };
    const w = untrustedWarning(set, "pre-land", ".", "/w", "would skip");
    expect(w.message).toBe(
      'would skip the pre-land hook of /w/ariel.config.json (the repository\'s, not approved): ["make","check"]',
    );
    expect(w.hint).toBe("review /w/ariel.config.json, then approve its hooks: ariel-worktree -C /w trust");
    expect(untrustedWarning(set, "pre-land", "web", "/my w", "would skip").hint).toBe(
      "review /w/ariel.config.json, then approve its hooks: ariel-worktree -C '/my w' trust --source web",
    );
    expect(w.context.hook).toEqual(["make", "check"]);
  });
});
