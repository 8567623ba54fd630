/**
 * Errors that teach, end to end on the built CLIs: the exact stderr of a typo'd sub-command,
 * flag, source or --allow reason ("did you mean"), a command given without `--`, pretty-printed
 * JSON on stdin, hints with the real task id filled in; global flags before the sub-command,
 * `help [COMMAND]`, examples in every --help, `v`/`type` first in every record, padded prefixes.
 */
import { rmSync } from "node:fs";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { type CliName, runAriel } from "./helpers/cli.ts";
import { GIT_TEST_ENV } from "./helpers/git.ts";
import { makeWorkspace, removeDir, wt } from "./worktree-fixtures.ts";

let root = "";
afterEach(() => {
  if (root) removeDir(root);
  root = "";
});

function spawnIn(dir: string, args: readonly string[], input?: string) {
  return runAriel("spawn", args, { cwd: dir, env: GIT_TEST_ENV, ...(input !== undefined ? { input } : {}) });
}

describe("did you mean", () => {
  it.each<[string, CliName, string[], string]>([
    [
      "a sub-command",
      "worktree",
      ["lst"],
      'ariel-worktree: error: unknown command "lst" [ERR_USAGE]\n' +
        'ariel-worktree: hint: did you mean "list"? run ariel-worktree help to see the commands\n',
    ],
    [
      "the command of help",
      "worktree",
      ["help", "remvoe"],
      'ariel-worktree: error: unknown command "remvoe" [ERR_USAGE]\n' +
        'ariel-worktree: hint: did you mean "remove"? run ariel-worktree help to see the commands\n',
    ],
    [
      "a flag of a sub-command",
      "worktree",
      ["list", "--no-byte"],
      'ariel-worktree: error: unknown flag "--no-byte" [ERR_USAGE]\n' +
        'ariel-worktree: hint: did you mean "--no-bytes"? run ariel-worktree list --help to see the flags\n',
    ],
    [
      "a flag of ariel-spawn",
      "spawn",
      ["--isolte", "--", "true"],
      'ariel-spawn: error: unknown flag "--isolte" [ERR_USAGE]\n' +
        'ariel-spawn: hint: did you mean "--isolate"? run ariel-spawn --help to see the flags\n',
    ],
    [
      "a flag of ariel-discover",
      "discover",
      ["--staus"],
      'ariel-discover: error: unknown flag "--staus" [ERR_USAGE]\n' +
        'ariel-discover: hint: did you mean "--status"? run ariel-discover --help to see the flags\n',
    ],
    [
      "nothing close: no guess",
      "worktree",
      ["frobnicate"],
      'ariel-worktree: error: unknown command "frobnicate" [ERR_USAGE]\n' +
        "ariel-worktree: hint: run ariel-worktree help to see the commands\n",
    ],
  ])("%s", async (_name, cli, args, stderr) => {
    root = makeWorkspace(["api"]);
    const r = await runAriel(cli, args, { cwd: root, env: GIT_TEST_ENV });
    expect([r.code, r.stdout, r.stderr]).toEqual([64, "", stderr]);
  });

  it("a source name, for ariel-spawn (66)", async () => {
    root = makeWorkspace(["api", "web"]);
    const r = await spawnIn(root, ["--source", "ap", "--", "true"]);
    expect([r.code, r.stdout]).toEqual([66, ""]);
    expect(r.stderr).toBe(
      `ariel-spawn: error: no source "ap" in workspace ${root} (--source ap) [ERR_SOURCE_NOT_FOUND]\n` +
        `ariel-spawn: hint: did you mean "api"? run ariel-discover to list the workspace's sources\n`,
    );
  });

  it("a source name, for ariel-worktree add (66)", async () => {
    root = makeWorkspace(["api", "web"]);
    const r = await wt(root, ["add", "--task", "t1", "--source", "wbe"]);
    expect([r.code, r.stdout]).toEqual([66, ""]);
    expect(r.stderr).toBe(
      `ariel-worktree: error: no source named "wbe" in ${root} [ERR_SOURCE_NOT_FOUND]\n` +
        `ariel-worktree: hint: did you mean "web"? run ariel-discover to list the workspace's sources\n`,
    );
  });

  it("a leg of a task, and an --allow reason (nothing changed)", async () => {
    root = makeWorkspace(["api", "web"]);
    expect((await wt(root, ["add", "--task", "t1", "--source", "api", "--source", "web"])).code).toBe(0);
    const leg = await wt(root, ["remove", "--task", "t1", "--source", "ap"]);
    expect([leg.code, leg.stderr]).toEqual([
      66,
      'ariel-worktree: error: task "t1" has no leg for source "ap" [ERR_SOURCE_NOT_FOUND]\n' +
        'ariel-worktree: hint: did you mean "api"? its sources are: api, web\n',
    ]);
    const allow = await wt(root, ["remove", "--task", "t1", "--allow", "dirt"]);
    expect([allow.code, allow.stderr]).toEqual([
      64,
      'ariel-worktree: error: unknown --allow reason "dirt" [ERR_USAGE]\n' +
        'ariel-worktree: hint: did you mean "dirty"? use one of: foreign-lock, branch-mismatch, branch-missing, dirty, overlay-changed, skip-worktree, unreachable, reflog, submodule-commits, nested-work\n',
    ]);
    expect(
      (await wt(root, ["list", "--json", "--no-bytes"])).stdout.split("\n").filter(Boolean),
    ).toHaveLength(2);
  });
});

describe("a command given without --", () => {
  it.each<[string, string[], string, string]>([
    ["one word", ["--source", "x", "ls"], "ls", "ariel-spawn --source x -- ls"],
    [
      "with its flags",
      ["-j", "2", "npm", "test", "--silent"],
      "npm",
      "ariel-spawn -j 2 -- npm test --silent",
    ],
    ["quoted for the shell", ["sh", "-c", "echo hi"], "sh", "ariel-spawn -- sh -c 'echo hi'"],
  ])("%s: put the command after --", async (_name, args, word, fixed) => {
    root = makeWorkspace(["api"]);
    const r = await spawnIn(root, args);
    expect([r.code, r.stdout]).toEqual([64, ""]);
    expect(r.stderr).toBe(
      `ariel-spawn: error: unexpected argument "${word}" [ERR_USAGE]\n` +
        `ariel-spawn: hint: put the command after --: ${fixed}\n`,
    );
  });
});

describe("pretty-printed JSON on stdin", () => {
  it("hints jq -c (65, nothing runs)", async () => {
    root = makeWorkspace(["api"]);
    const pretty = `${JSON.stringify({ v: 1, type: "source", name: "api", path: join(root, "api") }, null, 2)}\n`;
    const r = await spawnIn(root, ["--source", "-", "--", "true"], pretty);
    expect([r.code, r.stdout]).toEqual([65, ""]);
    const [error, hint] = r.stderr.split("\n");
    expect(error).toMatch(/^ariel-spawn: error: stdin line 1: .* \[ERR_INVALID_INPUT\]$/);
    expect(hint).toBe(
      "ariel-spawn: hint: the input looks like pretty-printed JSON; records must be one a line: pipe it through jq -c",
    );
  });

  it("a JSON array hints jq -c '.[]'", async () => {
    root = makeWorkspace(["api"]);
    const r = await spawnIn(root, ["--source", "-", "--", "true"], '[{"v":1}]\n');
    expect([r.code, r.stderr]).toEqual([
      65,
      "ariel-spawn: error: stdin line 1: expected a source record (a JSON object), a source name or a path, got an array [ERR_INVALID_INPUT]\n" +
        "ariel-spawn: hint: for a JSON array of records, pipe it through jq -c '.[]'\n",
    ]);
  });
});

describe("hints name the real task", () => {
  it("verify of a removed leg says which restore to run", async () => {
    root = makeWorkspace(["api"]);
    await wt(root, ["add", "--task", "t1", "--source", "api"]);
    rmSync(join(root, ".ariel/worktrees/t1/api"), { recursive: true, force: true });
    const r = await wt(root, ["verify", "--task", "t1"]);
    expect(r.code).toBe(3);
    expect(r.stderr).toBe(
      `ariel-worktree: error: the worktree of api at ${join(root, ".ariel/worktrees/t1/api")} is missing [ERR_WORKTREE_MISSING]\n` +
        "ariel-worktree: hint: run ariel-worktree restore --task t1 to bring it back, or ariel-worktree reconcile; nothing was changed\n" +
        "ariel-worktree: 1 of 1 legs failed: api (ERR_WORKTREE_MISSING); next: ariel-worktree reconcile && ariel-worktree restore --task t1 --source api\n",
    );
  });

  it("add over a removed task that differs says which restore to run", async () => {
    root = makeWorkspace(["api"]);
    await wt(root, ["add", "--task", "t1", "--source", "api"]);
    await wt(root, ["remove", "--task", "t1"]);
    const r = await wt(root, ["add", "--task", "t1", "--source", "api", "--branch", "other"]);
    expect(r.code).toBe(3);
    expect(r.stderr).toBe(
      'ariel-worktree: error: task "t1" already exists and differs: it is closed; its branch is ariel/t1 [ERR_TASK_CONFLICT]\n' +
        "ariel-worktree: hint: run ariel-worktree restore --task t1 to bring it back, or use another --task id\n",
    );
  });
});

describe("global flags and help, as git and gh take them", () => {
  it.each<[string, string[]]>([
    ["-C before the sub-command", ["-C", "ROOT", "list", "--no-bytes"]],
    ["--json before the sub-command", ["--json", "list", "--no-bytes"]],
    ["--repo-root= before, --json after", ["--repo-root=ROOT", "list", "--json", "--no-bytes"]],
  ])("%s", async (_name, args) => {
    root = makeWorkspace(["api"]);
    await wt(root, ["add", "--task", "t1", "--source", "api"]);
    const r = await runAriel(
      "worktree",
      args.map((a) => a.replace("ROOT", root)),
      { cwd: "/", env: { ...GIT_TEST_ENV, ARIEL_WORKSPACE_ROOT: root } },
    );
    expect([r.code, r.stderr]).toEqual([0, ""]);
    const first = r.stdout.split("\n")[0] as string;
    if (args.includes("--json")) {
      expect(JSON.parse(first)).toMatchObject({ v: 1, type: "worktree", task: "t1", bytes: null });
    } else
      expect(first.split("\t")).toEqual([
        "t1",
        "api",
        "active",
        "ariel:t1",
        "ariel/t1",
        "-",
        expect.any(String),
      ]);
  });

  it("help and help COMMAND print to stdout and exit 0", async () => {
    const group = await runAriel("worktree", ["help"]);
    expect([group.code, group.stderr]).toEqual([0, ""]);
    expect(group.stdout).toContain("  help [COMMAND]  show the help of a command\n");
    const sub = await runAriel("worktree", ["help", "list"]);
    expect([sub.code, sub.stderr]).toEqual([0, ""]);
    expect(sub.stdout.split("\n")[0]).toMatch(/^ariel-worktree list \S+: list task worktrees/);
    expect(sub.stdout).toBe((await runAriel("worktree", ["list", "--help"])).stdout);
  });

  it.each<[CliName, string[]]>([
    ["discover", []],
    ["spawn", []],
    ["worktree", []],
    ["worktree", ["add"]],
    ["worktree", ["list"]],
    ["worktree", ["verify"]],
    ["worktree", ["remove"]],
    ["worktree", ["restore"]],
    ["worktree", ["reconcile"]],
    ["worktree", ["adopt"]],
    ["worktree", ["hook"]],
    ["worktree", ["path"]],
    ["worktree", ["shell-init"]],
    ["worktree", ["diff"]],
    ["worktree", ["land"]],
  ])("ariel-%s %j --help shows 2 to 4 examples of that command", async (cli, sub) => {
    const r = await runAriel(cli, [...sub, "--help"]);
    expect(r.code).toBe(0);
    const lines = r.stdout.split("\n");
    const at = lines.indexOf("Examples:");
    const examples = lines.slice(at + 1, lines.indexOf("", at)).filter((l) => !l.startsWith("  # "));
    expect(examples.length).toBeGreaterThanOrEqual(2);
    expect(examples.length).toBeLessThanOrEqual(4);
    for (const e of examples) {
      expect(e).toMatch(/^ {2}ariel-/);
      expect(`${e} `).toContain(`ariel-${cli}${sub.length ? ` ${sub[0]}` : ""} `);
    }
  });
});

describe("records: v and type first", () => {
  it("an error record with --json, after a sub-command", async () => {
    root = makeWorkspace(["api"]);
    const r = await wt(root, ["verify", "--task", "nope", "--json"]);
    expect(r.code).toBe(66);
    expect(r.stderr).toBe(
      `{"v":1,"type":"error","code":"ERR_TASK_NOT_FOUND","message":"no task \\"nope\\" in ${root}","hint":"run ariel-worktree list --all to see the tasks (closed ones too)","exit":66,"task":"nope"}\n`,
    );
  });

  it("a refusal record keeps its context after the fixed fields", async () => {
    root = makeWorkspace(["api"]);
    await wt(root, ["add", "--task", "t1", "--source", "api"]);
    rmSync(join(root, ".ariel/worktrees/t1/api"), { recursive: true, force: true });
    const r = await wt(root, ["verify", "--task", "t1", "--json"]);
    const rec = JSON.parse(r.stderr.split("\n")[0] as string);
    expect(Object.keys(rec)).toEqual([
      "v",
      "type",
      "code",
      "message",
      "hint",
      "exit",
      "task",
      "source",
      "path",
    ]);
  });
});

describe("ariel-spawn over several sources", () => {
  it("pads the per-source prefixes to one width", async () => {
    root = makeWorkspace(["api", "web-app"]);
    const r = await spawnIn(root, ["--source", "api", "--source", "web-app", "--", "echo", "hi"]);
    expect(r.code).toBe(0);
    expect(r.stdout).toBe("[api]     hi\n[web-app] hi\n");
  });
});
