/**
 * Lifecycle hooks end to end (docs/lifecycle.md), real git, the built ariel-worktree: a
 * repository's committed hooks run only once trusted with their exact content; the user's own
 * (untracked) config runs as it is; a failing post-create keeps the leg (setup: failed) and
 * `hooks run` retries it; a failing pre-remove refuses the removal (3); a hanging hook is
 * killed at its timeout; --no-hooks skips them.
 */
import { createHash } from "node:crypto";
import { existsSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { checkRecord, RECORD_SCHEMAS } from "../packages/core/src/schema/mod.ts";
import { arielIn, records } from "./helpers/cli.ts";
import { commitAll, git, initRepo, removeDir, tempDir, writeFile } from "./helpers/git.ts";
import { errors, taskFile, wt } from "./worktree-fixtures.ts";

let ws: string;
let state: string;
let out: string;
const env = () => ({ ARIEL_STATE_HOME: state, OUT: out });
const run = (args: string[]) => wt(ws, args, { env: env() });

/** A hook that writes what it saw to $OUT/<task>-<event>: its cwd and the ARIEL_* and PORT variables. */
const RECORDER =
  'cd "$ARIEL_WORKTREE" && { pwd; env | grep -E "^(ARIEL_[A-Z_]+|PORT)=" | sort; } > "$OUT/$ARIEL_TASK-$ARIEL_HOOK"';

/** The sha256 trust records for a hooks object (events in their fixed order). */
function digest(hooks: Record<string, unknown>): string {
  return createHash("sha256").update(JSON.stringify(hooks)).digest("hex");
}

/** True when the process is gone or a zombie (dead, its parent's to reap: killed all the same). */
function ended(pid: number): boolean {
  try {
    process.kill(pid, 0);
  } catch {
    return true;
  }
  return /^\d+ \(.*\) Z/.test(readFileSync(`/proc/${pid}/stat`, "utf8"));
}

/** Every record valid against its published schema (docs/schema), returned as they are. */
function valid(stdout: string): Record<string, unknown>[] {
  const recs = records(stdout);
  for (const r of recs) checkRecord(RECORD_SCHEMAS[r.type as string]!, r, "stdout");
  return recs;
}

function setup(t: Record<string, unknown>): unknown[] {
  return (taskFile(ws, t.task as string).legs as Record<string, unknown>[]).map((l) => l.setup);
}

beforeEach(() => {
  ws = tempDir("ariel-hooks-");
  state = tempDir("ariel-hooks-state-");
  out = tempDir("ariel-hooks-out-");
});
afterEach(() => {
  for (const d of [ws, state, out]) removeDir(d);
});

describe("trust: a repository's hooks", () => {
  const repoHooks = { "post-create": RECORDER };
  beforeEach(() => {
    initRepo(join(ws, "api"), {
      "README.md": "api\n",
      "ariel.config.json": `${JSON.stringify({ hooks: repoHooks })}\n`,
    });
  });

  it("are skipped with a warning that shows them until trusted, then run with the leg's environment", async () => {
    const file = join(ws, "api/ariel.config.json");
    const first = await run(["add", "--source", "api", "--task", "t1"]);
    expect(first.code).toBe(0);
    expect(first.stderr).toContain(
      `ariel-worktree: warning: skipped the post-create hook of ${file} (the repository's, not approved): ${RECORDER}\n` +
        `ariel-worktree: hint: review ${file}, then approve its hooks: ariel-worktree -C ${ws} trust --source api\n`,
    );
    expect(existsSync(join(out, "t1-post-create"))).toBe(false);
    expect(setup({ task: "t1" })).toEqual(["skipped"]);

    const trusted = await run(["trust", "--source", "api", "--json"]);
    expect([trusted.code, valid(trusted.stdout)]).toEqual([
      0,
      [
        {
          v: 1,
          type: "trust",
          action: "approved",
          file,
          sha256: digest(repoHooks),
          source: "api",
          hooks: repoHooks,
        },
      ],
    ]);
    expect(trusted.stderr).toBe("");

    const second = await run(["add", "--source", "api", "--task", "t2"]);
    expect([second.code, second.stderr]).toEqual([0, "ariel-worktree: made task t2\n"]);
    const leg = join(ws, ".ariel/worktrees/t2/api");
    expect(readFileSync(join(out, "t2-post-create"), "utf8")).toBe(
      [
        leg,
        `ARIEL_BASE=${git(join(ws, "api"), "rev-parse", "HEAD")}`,
        "ARIEL_BRANCH=ariel/t2",
        "ARIEL_HOOK=post-create",
        "ARIEL_OWNER=tester",
        "ARIEL_SOURCE=api",
        `ARIEL_SOURCE_PATH=${join(ws, "api")}`,
        `ARIEL_STATE_HOME=${state}`,
        "ARIEL_TASK=t2",
        `ARIEL_WORKSPACE_HASH=${createHash("sha256").update(ws).digest("hex").slice(0, 16)}`,
        `ARIEL_WORKSPACE_ROOT=${ws}`,
        `ARIEL_WORKTREE=${leg}`,
        "",
      ].join("\n"),
    );
    expect(setup({ task: "t2" })).toEqual(["ok"]);
    // The retry of the skipped one, now that it is trusted.
    const retry = await run(["hooks", "run", "--task", "t1"]);
    expect([retry.code, retry.stdout]).toEqual([0, `t1\tapi\tpost-create\trepository\tok\t0\t${RECORDER}\n`]);
    expect(setup({ task: "t1" })).toEqual(["ok"]);
  });

  it("changed by the repository after approval, are skipped again until trusted again", async () => {
    expect((await run(["trust"])).code).toBe(0);
    const changed = { "post-create": `${RECORDER}; rm -f "$OUT/victim"` };
    writeFile(join(ws, "api/ariel.config.json"), `${JSON.stringify({ hooks: changed })}\n`);
    commitAll(join(ws, "api"), "a new hook");
    writeFile(join(out, "victim"), "precious\n");

    const add = await run(["add", "--source", "api", "--task", "t1"]);
    expect(add.code).toBe(0);
    expect(add.stderr).toContain("(the repository's, changed since it was approved)");
    expect(readFileSync(join(out, "victim"), "utf8")).toBe("precious\n");
    const list = await run(["trust", "--list", "--json"]);
    expect(valid(list.stdout).map((r) => [r.state, r.sha256])).toEqual([
      ["changed", digest({ "post-create": RECORDER })],
    ]);

    // Approved, it runs as the user: it may delete what the user may (trust is the guard).
    expect((await run(["trust", "--source", "api"])).code).toBe(0);
    const again = await run(["add", "--source", "api", "--task", "t2"]);
    expect([again.code, existsSync(join(out, "victim"))]).toEqual([0, false]);

    const revoked = await run(["trust", "--revoke", "--source", "api", "--json"]);
    expect(records(revoked.stdout).map((r) => r.action)).toEqual(["revoked"]);
    const third = await run(["add", "--source", "api", "--task", "t3"]);
    expect(third.stderr).toContain("(the repository's, not approved)");
    expect(existsSync(join(out, "t3-post-create"))).toBe(false);
  });

  it("of a single-repo workspace whose own config is committed need trust too (git decides, not the place)", async () => {
    const root = join(ws, "api");
    const add = await wt(root, ["add", "--source", ".", "--task", "t1"], { env: env() });
    expect(add.code).toBe(0);
    expect(add.stderr).toContain(
      `skipped the post-create hook of ${root}/ariel.config.json (the repository's, not approved)`,
    );
    expect(add.stderr).toContain(`then approve its hooks: ariel-worktree -C ${root} trust\n`);
  });
});

describe("the user's own hooks (an untracked workspace config)", () => {
  beforeEach(() => {
    initRepo(join(ws, "api"), { "README.md": "api\n", ".gitignore": ".ready\n" });
  });
  const config = (c: Record<string, unknown>) =>
    writeFile(join(ws, "ariel.config.json"), `${JSON.stringify(c)}\n`);

  it("post-create exit 1: the leg is kept with setup failed, the retry command is named and works", async () => {
    config({ hooks: { "post-create": 'test -f "$OUT/ready" || { echo "not ready" >&2; exit 1; }' } });
    const add = await run(["add", "--source", "api", "--task", "t1"]);
    const log = join(ws, ".ariel/hooks/t1.log");
    const retry = "ariel-worktree hooks run --task t1 --event post-create";
    expect(add.code).toBe(1);
    expect(add.stdout).toBe(`t1\tapi\tariel/t1\t${join(ws, ".ariel/worktrees/t1/api")}\n`);
    expect(add.stderr).toBe(
      `ariel-worktree: error: api: post-create hook "test -f \\"$OUT/ready\\" || { echo \\"not ready\\" >&2; exit 1; }" exited 1; the leg is kept (setup: failed) [ERR_HOOK_FAILED]\n` +
        `ariel-worktree: hint: read ${log}, fix the cause, then: ${retry}\n` +
        `ariel-worktree: made task t1, but its setup failed in api (the legs are kept); log: ${log}; retry: ${retry}\n`,
    );
    expect(existsSync(join(ws, ".ariel/worktrees/t1/api/README.md"))).toBe(true);
    expect(setup({ task: "t1" })).toEqual(["failed"]);
    expect(readFileSync(log, "utf8")).toMatch(/post-create api \(workspace: .*\nnot ready\n== exit 1 after/);

    writeFile(join(out, "ready"), "");
    const again = await run(["hooks", "run", "--task", "t1", "--json"]);
    expect(again.code).toBe(0);
    expect(records(again.stdout).map((r) => [r.type, r.source, r.event, r.origin, r.status, r.exit])).toEqual(
      [["hook", "api", "post-create", "workspace", "ok", 0]],
    );
    expect(setup({ task: "t1" })).toEqual(["ok"]);
    const list = await run(["list", "--no-bytes", "--json"]);
    expect(records(list.stdout).map((r) => r.setup)).toEqual(["ok"]);
  });

  it("shows a hook's output on the progress line on a terminal (erased at the end), never in the pipe's stdout", async () => {
    config({ hooks: { "post-create": "echo one; echo two" } });
    const tty = { ...env(), ARIEL_TEST_HOOKS: "1", ARIEL_TEST_TTY: "stderr" };
    const add = await wt(ws, ["add", "--source", "api", "--task", "t1"], { env: tty });
    const erase = "\r\x1b[K";
    expect([add.code, add.stdout]).toEqual([
      0,
      `t1\tapi\tariel/t1\t${join(ws, ".ariel/worktrees/t1/api")}\n`,
    ]);
    expect(add.stderr).toBe(
      `${erase}[1/1] api: creating worktree${erase}[1/1] api: post-create hook` +
        `${erase}[1/1] api: post-create: one${erase}[1/1] api: post-create: two${erase}ariel-worktree: made task t1\n`,
    );
    expect(readFileSync(join(ws, ".ariel/hooks/t1.log"), "utf8")).toMatch(/\none\ntwo\n== exit 0 after/);
  });

  it("a hook that hangs is killed (its whole process group) at the timeout", async () => {
    config({ hookTimeoutMs: 300, hooks: { "post-create": 'sleep 600 & echo $! > "$OUT/pid"; wait' } });
    const add = await run(["add", "--source", "api", "--task", "t1"]);
    expect(add.code).toBe(1);
    expect(add.stderr).toMatch(
      /error: api: post-create hook "sleep 600 .*" timed out after \d+\.\d s; the leg is kept/,
    );
    const pid = Number(readFileSync(join(out, "pid"), "utf8"));
    expect(ended(pid)).toBe(true);
    expect(setup({ task: "t1" })).toEqual(["failed"]);
    expect(readFileSync(join(ws, ".ariel/hooks/t1.log"), "utf8")).toMatch(
      /== timed out \(killed, 143\) after/,
    );
  });

  it.each([
    {
      name: "the source's short one bounds its hook, whatever the workspace sets",
      workspace: 60_000,
      source: 300,
      code: 1,
      outcome: /== timed out \(killed, 143\) after 0\.\d s/,
    },
    {
      name: "the source's long one lets its hook finish where the workspace's would kill it",
      workspace: 300,
      source: 60_000,
      code: 0,
      outcome: /== exit 0 after/,
    },
  ])("hookTimeoutMs of a source's own config: $name", async ({ workspace, source, code, outcome }) => {
    config({ hookTimeoutMs: workspace });
    // The source's file, untracked: the user's own, so its hooks run without trust.
    writeFile(
      join(ws, "api/ariel.config.json"),
      `${JSON.stringify({ hookTimeoutMs: source, hooks: { "post-create": "sleep 1.5" } })}\n`,
    );
    const add = await run(["add", "--source", "api", "--task", "t1"]);
    expect(add.code, add.stderr).toBe(code);
    expect(readFileSync(join(ws, ".ariel/hooks/t1.log"), "utf8")).toMatch(outcome);
  });

  it("a hook that ignores SIGTERM gets SIGKILL after the grace", async () => {
    config({
      hookTimeoutMs: 200,
      hooks: { "post-create": `trap '' TERM; echo $$ > "$OUT/pid"; while :; do sleep 1; done` },
    });
    const add = await run(["add", "--source", "api", "--task", "t1"]);
    expect(add.code).toBe(1);
    expect(add.stderr).toContain("timed out after");
    expect(ended(Number(readFileSync(join(out, "pid"), "utf8")))).toBe(true);
    expect(readFileSync(join(ws, ".ariel/hooks/t1.log"), "utf8")).toMatch(
      /== timed out \(killed, 137\) after/,
    );
  });

  it("hooks run in a leg whose worktree was deleted by hand: could not start, nothing made there", async () => {
    config({ hooks: { "post-create": "touch made" } });
    expect((await run(["add", "--source", "api", "--task", "t1"])).code).toBe(0);
    removeDir(join(ws, ".ariel/worktrees/t1/api"));
    const r = await run(["hooks", "run", "--task", "t1"]);
    expect(r.code).toBe(1);
    expect(r.stderr).toContain('error: api: post-create hook "touch made" could not start (125)');
    expect(existsSync(join(ws, ".ariel/worktrees/t1/api"))).toBe(false);
    expect(readFileSync(join(ws, ".ariel/hooks/t1.log"), "utf8")).toContain(
      `the worktree ${join(ws, ".ariel/worktrees/t1/api")} is missing\n`,
    );
  });

  it("what a hook leaves running in its process group ends with it (a hook is a step, not a server)", async () => {
    config({ hooks: { "post-create": 'sleep 600 & echo $! > "$OUT/pid"' } });
    const add = await run(["add", "--source", "api", "--task", "t1"]);
    expect([add.code, add.stderr]).toEqual([0, "ariel-worktree: made task t1\n"]);
    expect(ended(Number(readFileSync(join(out, "pid"), "utf8")))).toBe(true);
    expect(setup({ task: "t1" })).toEqual(["ok"]);
  });

  it("pre-remove exit 1 refuses the removal (3) and removes nothing; --no-hooks removes", async () => {
    config({ hooks: { "pre-remove": ["sh", "-c", "echo busy >&2; exit 1"] } });
    expect((await run(["add", "--source", "api", "--task", "t1"])).code).toBe(0);
    const before = taskFile(ws, "t1");
    const refused = await run(["remove", "--task", "t1", "--json"]);
    expect(refused.code).toBe(3);
    expect(errors(refused.stderr).map((e) => [e.code, e.message, e.exit])).toEqual([
      ["ERR_HOOK_REFUSED", 'api: pre-remove hook ["sh","-c","echo busy >&2; exit 1"] exited 1', 3],
    ]);
    expect(taskFile(ws, "t1")).toEqual(before);
    expect(existsSync(join(ws, ".ariel/worktrees/t1/api/README.md"))).toBe(true);
    expect(readFileSync(join(ws, ".ariel/hooks/t1.log"), "utf8")).toContain("busy\n== exit 1 after");

    const forced = await run(["remove", "--task", "t1", "--no-hooks"]);
    expect(forced.code).toBe(0);
    expect(existsSync(join(ws, ".ariel/worktrees/t1/api"))).toBe(false);
  });

  it("gc's removals run pre-remove: a failing one keeps the task (refused)", async () => {
    config({ hooks: { "pre-remove": "exit 7" } });
    expect((await run(["add", "--source", "api", "--task", "t1"])).code).toBe(0);
    const r = await run(["gc", "--state", "active", "--older-than", "0s", "--json"]);
    expect(existsSync(join(ws, ".ariel/worktrees/t1/api/README.md"))).toBe(true);
    expect(r.stdout).toContain('"code":"ERR_HOOK_REFUSED"');
    const quiet = await run(["gc", "--state", "active", "--older-than", "0s", "--no-hooks"]);
    expect(quiet.code).toBe(0);
    expect(existsSync(join(ws, ".ariel/worktrees/t1/api"))).toBe(false);
  });

  it("restore runs post-restore; --no-hooks on add records the leg skipped", async () => {
    config({ hooks: { "post-create": RECORDER, "post-restore": RECORDER } });
    const add = await run(["add", "--source", "api", "--task", "t1", "--no-hooks"]);
    expect(add.code).toBe(0);
    expect(existsSync(join(out, "t1-post-create"))).toBe(false);
    expect(setup({ task: "t1" })).toEqual(["skipped"]);
    expect((await run(["remove", "--task", "t1"])).code).toBe(0);
    const back = await run(["restore", "--task", "t1"]);
    expect(back.code).toBe(0);
    expect(readFileSync(join(out, "t1-post-restore"), "utf8")).toContain("ARIEL_HOOK=post-restore\n");
  });
});

describe("bad input changes nothing", () => {
  beforeEach(() => {
    initRepo(join(ws, "api"), { "README.md": "api\n" });
  });
  it.each<[string, string[], number, string]>([
    [
      "an unknown action",
      ["hooks", "start", "--task", "t1"],
      64,
      'hooks: unknown action "start" [ERR_USAGE]',
    ],
    [
      "an unknown event",
      ["hooks", "run", "--task", "t1", "--event", "post-merge"],
      64,
      'unknown hook event "post-merge" [ERR_USAGE]',
    ],
    ["an unknown task", ["hooks", "run", "--task", "nope"], 66, 'no task "nope" in'],
    [
      "--list with --revoke",
      ["trust", "--list", "--revoke"],
      64,
      "--list and --revoke exclude each other [ERR_USAGE]",
    ],
    ["trust of an unknown source", ["trust", "--source", "nope"], 66, 'no source named "nope"'],
  ])("%s", async (_name, args, code, message) => {
    const r = await run(args);
    expect(r.code).toBe(code);
    expect(r.stderr).toContain(message);
    expect(r.stdout).toBe("");
  });

  it("trust of a source whose config git does not track approves nothing", async () => {
    writeFile(join(ws, "api/ariel.config.json"), '{"hooks": {"post-create": "true"}}\n');
    const r = await run(["trust", "--source", "api"]);
    expect([r.code, r.stdout]).toEqual([0, ""]);
    expect(r.stderr).toBe(
      "ariel-worktree: api: nothing to trust (no ariel.config.json with hooks that git tracks)\n",
    );
    expect((await run(["trust", "--list", "--json"])).stdout).toBe("");
  });
});

describe("ariel-spawn --isolate makes its task through add: the same hooks", () => {
  beforeEach(() => {
    initRepo(join(ws, "api"), { "README.md": "api\n", ".gitignore": ".deps\n" });
  });
  const spawn = (args: string[]) => arielIn("spawn", ws, args, { env: env() });

  it("runs post-create before the command and pre-remove before removing the worktree", async () => {
    writeFile(
      join(ws, "ariel.config.json"),
      `${JSON.stringify({ hooks: { "post-create": "echo installed > .deps", "pre-remove": 'echo "$ARIEL_TASK" > "$OUT/pre-remove"' } })}\n`,
    );
    const r = await spawn(["--source", "api", "--isolate", "--task", "s1", "--", "cat", ".deps"]);
    expect([r.code, r.stdout]).toEqual([0, "installed\n"]);
    expect(readFileSync(join(out, "pre-remove"), "utf8")).toBe("s1\n");
    expect(existsSync(join(ws, ".ariel/worktrees/s1/api"))).toBe(false);
  });

  it("a failed post-create keeps the task and runs nothing (1); hooks run, then --task, takes it up", async () => {
    writeFile(
      join(ws, "ariel.config.json"),
      `${JSON.stringify({ hooks: { "post-create": 'test -f "$OUT/ready" && echo installed > .deps' } })}\n`,
    );
    const r = await spawn(["--source", "api", "--isolate", "--task", "s1", "--", "cat", ".deps"]);
    expect([r.code, r.stdout]).toEqual([1, ""]);
    expect(r.stderr).toContain(
      'error: api: post-create hook "test -f \\"$OUT/ready\\" && echo installed > .deps" exited 1; the task s1 is kept (setup: failed) and nothing was run [ERR_HOOK_FAILED]',
    );
    expect(r.stderr).toContain(
      `then: ariel-worktree -C ${ws} hooks run --task s1 --event post-create, and run again with --task s1`,
    );
    expect(setup({ task: "s1" })).toEqual(["failed"]);
    writeFile(join(out, "ready"), "");
    expect((await run(["hooks", "run", "--task", "s1"])).code).toBe(0);
    const again = await spawn(["--source", "api", "--isolate", "--task", "s1", "--", "cat", ".deps"]);
    expect([again.code, again.stdout]).toEqual([0, "installed\n"]);
  });
});

describe("hooks over several legs", () => {
  beforeEach(() => {
    for (const s of ["api", "web"]) initRepo(join(ws, s), { "README.md": `${s}\n` });
  });
  const config = (c: Record<string, unknown>) =>
    writeFile(join(ws, "ariel.config.json"), `${JSON.stringify(c)}\n`);
  /** Logs the leg it runs in to $OUT/seen, and fails in api. */
  const FAILS_IN_API = 'echo "$ARIEL_SOURCE" >> "$OUT/seen"; [ "$ARIEL_SOURCE" != api ]';
  const seen = () => (existsSync(join(out, "seen")) ? readFileSync(join(out, "seen"), "utf8") : "");

  it("a guard (pre-remove) that fails in one leg runs in no later leg, and nothing is removed", async () => {
    expect(
      (await run(["add", "--source", "api", "--source", "web", "--task", "t1", "--no-hooks"])).code,
    ).toBe(0);
    config({ hooks: { "pre-remove": FAILS_IN_API } });
    const r = await run(["remove", "--task", "t1", "--json"]);
    expect(r.code).toBe(3);
    expect(seen()).toBe("api\n");
    for (const s of ["api", "web"])
      expect(existsSync(join(ws, ".ariel/worktrees/t1", s, "README.md"))).toBe(true);
  });

  it("a post-create that fails in one leg still runs in the next; each leg's setup says how it went", async () => {
    config({ hooks: { "post-create": FAILS_IN_API } });
    const add = await run(["add", "--source", "api", "--source", "web", "--task", "t1"]);
    expect(add.code).toBe(1);
    expect(seen()).toBe("api\nweb\n");
    expect(setup({ task: "t1" })).toEqual(["failed", "ok"]);
  });
});
