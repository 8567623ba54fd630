import { existsSync, rmSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { commitAll, initRepo, tempDir, writeFile } from "../../../core/src/host/_fixture.ts";
import { inWorkspace, records } from "../../../core/src/host/cli/_fixture.ts";
import { command } from "../command.ts";

// `ariel-worktree hooks run` in this process: a task's lifecycle hooks run again (docs/lifecycle.md,
// docs/worktree.md "hooks run"). A config file git does not track is the user's and runs as it is;
// a committed one runs only once `trust` approved it.

const TERMINAL = { stdout: true, stderr: false, columns: 120, color: false };

/**
 * A workspace with api and web, each with an untracked ariel.config.json of `hooks`, and task t1
 * with a leg in each; `w` runs a command from `cwd` (default: the root) with `-C` the root.
 */
async function world(hooks: { api: object; web: object }) {
  const ws = tempDir("ariel-wt-hooks-");
  for (const [source, h] of Object.entries(hooks)) {
    initRepo(join(ws, source));
    writeFile(join(ws, source, "ariel.config.json"), `${JSON.stringify({ hooks: h })}\n`);
  }
  const w = inWorkspace(command, ws);
  await w(["add", "--task", "t1", "--source", "api", "--source", "web"]);
  const leg = (source: string) => join(ws, ".ariel/worktrees/t1", source);
  return { ws, w, leg };
}

describe("hooks run", () => {
  it("runs each leg's post-create hook again: a row per hook (a table on a terminal), a record with --json", async () => {
    const { w, leg } = await world({
      api: { "post-create": ["touch", "made.txt"] },
      web: { "post-create": "echo web > web.txt" },
    });
    rmSync(join(leg("api"), "made.txt"));
    const rows =
      't1\tapi\tpost-create\tworkspace\tok\t0\t["touch","made.txt"]\n' +
      "t1\tweb\tpost-create\tworkspace\tok\t0\techo web > web.txt\n";
    expect(await w(["hooks", "run", "--task", "t1"])).toEqual({ code: 0, stdout: rows, stderr: "" });
    expect(existsSync(join(leg("api"), "made.txt"))).toBe(true);
    expect(await w(["hooks", "run", "--task", "t1"], { term: TERMINAL })).toEqual({
      code: 0,
      stdout:
        "TASK  SOURCE  EVENT        ORIGIN     STATUS  EXIT  HOOK\n" +
        't1    api     post-create  workspace  ok      0     ["touch","made.txt"]\n' +
        "t1    web     post-create  workspace  ok      0     echo web > web.txt\n",
      stderr: "",
    });
    const json = await w(["hooks", "run", "--task", "t1", "--json"]);
    expect([json.code, json.stderr]).toEqual([0, ""]);
    expect(records(json.stdout)).toEqual([
      {
        v: 1,
        type: "hook",
        task: "t1",
        event: "post-create",
        source: "api",
        origin: "workspace",
        file: "<ws>/api/ariel.config.json",
        hook: '["touch","made.txt"]',
        status: "ok",
        exit: 0,
        signal: null,
        durationMs: expect.any(Number),
      },
      expect.objectContaining({ source: "web", hook: "echo web > web.txt", status: "ok" }),
    ]);
  });

  it("--source runs only the legs named", async () => {
    const { w, leg } = await world({
      api: { "post-create": ["touch", "made.txt"] },
      web: { "post-create": ["touch", "made.txt"] },
    });
    rmSync(join(leg("api"), "made.txt"));
    rmSync(join(leg("web"), "made.txt"));
    expect(await w(["hooks", "run", "--task", "t1", "--source", "web"])).toEqual({
      code: 0,
      stdout: 't1\tweb\tpost-create\tworkspace\tok\t0\t["touch","made.txt"]\n',
      stderr: "",
    });
    expect([existsSync(join(leg("api"), "made.txt")), existsSync(join(leg("web"), "made.txt"))]).toEqual([
      false,
      true,
    ]);
  });

  it("a hook that fails: 1, its error with the retry (the root named from elsewhere), then the log", async () => {
    const { ws, w } = await world({ api: { "post-create": ["sh", "-c", "exit 5"] }, web: {} });
    const fromWeb = { cwd: join(ws, "web") };
    expect(await w(["hooks", "run", "--task", "t1"], fromWeb)).toEqual({
      code: 1,
      stdout: 't1\tapi\tpost-create\tworkspace\tfailed\t5\t["sh","-c","exit 5"]\n',
      stderr:
        'ariel-worktree: error: api: post-create hook ["sh","-c","exit 5"] exited 5; the leg is kept (setup: failed) [ERR_HOOK_FAILED]\n' +
        "ariel-worktree: hint: read <ws>/.ariel/hooks/t1.log, fix the cause, then: ariel-worktree -C <ws> hooks run --task t1 --event post-create\n" +
        "ariel-worktree: 1 post-create hook(s) of task t1 failed; log: <ws>/.ariel/hooks/t1.log\n",
    });
    const json = await w(["hooks", "run", "--task", "t1", "--json"], fromWeb);
    expect(json.code).toBe(1);
    expect(records(json.stdout)).toEqual([
      expect.objectContaining({ type: "hook", status: "failed", exit: 5 }),
    ]);
    expect(records(json.stderr)).toEqual([
      expect.objectContaining({
        type: "error",
        code: "ERR_HOOK_FAILED",
        hint: "read <ws>/.ariel/hooks/t1.log, fix the cause, then: ariel-worktree -C <ws> hooks run --task t1 --event post-create",
        task: "t1",
        source: "api",
        event: "post-create",
        hookExit: 5,
        log: "<ws>/.ariel/hooks/t1.log",
      }),
    ]);
  });

  it("--event picks the event; one without a hook says so, 0", async () => {
    const { w } = await world({ api: { "pre-remove": ["true"] }, web: {} });
    expect(await w(["hooks", "run", "--task", "t1", "--event", "pre-remove"])).toEqual({
      code: 0,
      stdout: 't1\tapi\tpre-remove\tworkspace\tok\t0\t["true"]\n',
      stderr: "",
    });
    expect(await w(["hooks", "run", "--task", "t1"])).toEqual({
      code: 0,
      stdout: "",
      stderr: "ariel-worktree: task t1 has no post-create hook to run\n",
    });
  });

  it("a repository's hook not approved is skipped with a warning (no 'no hook' line); trusted, it runs", async () => {
    const { ws, w } = await world({ api: {}, web: {} });
    writeFile(join(ws, "web/ariel.config.json"), '{"hooks":{"post-restore":"true"}}\n');
    commitAll(join(ws, "web"), "config");
    const run = ["hooks", "run", "--task", "t1", "--event", "post-restore"];
    expect(await w(run)).toEqual({
      code: 0,
      stdout: "",
      stderr:
        "ariel-worktree: warning: skipped the post-restore hook of <ws>/web/ariel.config.json (the repository's, not approved): true\n" +
        "ariel-worktree: hint: review <ws>/web/ariel.config.json, then approve its hooks: ariel-worktree -C <ws> trust --source web\n",
    });
    expect((await w(["trust", "--source", "web"])).code).toBe(0);
    try {
      expect(await w(run)).toEqual({
        code: 0,
        stdout: "t1\tweb\tpost-restore\trepository\tok\t0\ttrue\n",
        stderr: "",
      });
    } finally {
      await w(["trust", "--revoke", "--source", "web"]);
    }
  });

  it.each([
    [
      ["hooks", "list", "--task", "t1"],
      'hooks: unknown action "list"',
      "run: ariel-worktree hooks run --task ID [--event EVENT]",
    ],
    [
      ["hooks", "--task", "t1"],
      "ariel-worktree hooks needs run",
      "run ariel-worktree hooks --help to see the flags",
    ],
    [
      ["hooks", "run", "--task", "t1", "--event", "bogus"],
      'unknown hook event "bogus"',
      "the events are: post-create, pre-remove, post-restore, pre-land, post-land",
    ],
  ])("%j: a usage error (64), nothing run", async (argv, error, hint) => {
    const { w } = await world({ api: { "post-create": ["false"] }, web: {} });
    expect(await w(argv)).toEqual({
      code: 64,
      stdout: "",
      stderr: `ariel-worktree: error: ${error} [ERR_USAGE]\nariel-worktree: hint: ${hint}\n`,
    });
  });
});
