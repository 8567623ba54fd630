import { existsSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { VERSION } from "@ariel/core";
import { PIPE_TERMINAL, runCli } from "@ariel/core/host";
import { describe, expect, it } from "vitest";
import { git, initRepo, tempDir, writeFile } from "../../../core/src/host/_fixture.ts";
import { inProcessEnv, records, runInProcess } from "../../../core/src/host/cli/_fixture.ts";
import { command } from "../command.ts";

// `ariel-worktree hook claude` in this process: Claude Code's recorded WorktreeCreate and
// WorktreeRemove events on stdin (test/fixtures/claude-hooks, docs/lifecycle.md), what the hook
// prints, its exit status and what it leaves in git.

const FIXTURES = new URL("../../../../test/fixtures/claude-hooks/", import.meta.url);

/** A workspace with one repository, api (one commit on main); `hook` runs the hook with `stdin`. */
function world() {
  const ws = tempDir("ariel-wt-hook-");
  const api = join(ws, "api");
  initRepo(api);
  const scrub = (r: { code: number; stdout: string; stderr: string }) => ({
    code: r.code,
    stdout: r.stdout.replaceAll(ws, "<ws>"),
    stderr: r.stderr.replaceAll(ws, "<ws>"),
  });
  const hook = async (stdin: string, ...flags: string[]) =>
    scrub(await runInProcess(command, ["-C", ws, "hook", "claude", ...flags], { cwd: ws, stdin }));
  /** A recorded event with this workspace's paths put in. */
  const event = (file: string, worktree = "") =>
    readFileSync(new URL(file, FIXTURES), "utf8")
      .replaceAll("__REPO__", api)
      .replaceAll("__WORKTREE__", worktree);
  const leg = (task: string) => join(ws, ".ariel/worktrees", task, "api");
  return { ws, api, hook, event, leg, scrub };
}

const INVALID_HINT =
  "ariel-worktree: hint: pipe Claude Code's WorktreeCreate or WorktreeRemove event JSON to stdin (docs/lifecycle.md)\n";

describe("hook claude: WorktreeCreate", () => {
  it.each([
    ["create-name.json", "bright-running-fox"],
    ["create-worktree-name.json", "agent-a1b2c3d4"],
    ["create-worktree-path.json", "feature-auth"],
  ])("%s: task %s made, only its path on stdout; a repeat returns the same worktree", async (file, task) => {
    const { api, hook, event, leg } = world();
    const made = {
      code: 0,
      stdout: `<ws>/.ariel/worktrees/${task}/api\n`,
      stderr: `ariel-worktree: task ${task}: worktree <ws>/.ariel/worktrees/${task}/api\n`,
    };
    expect(await hook(event(file))).toEqual(made);
    expect(git(leg(task), "branch", "--show-current")).toBe(`ariel/${task}`);
    expect(git(leg(task), "rev-parse", "HEAD")).toBe(git(api, "rev-parse", "main"));
    expect(await hook(event(file))).toEqual(made);
    expect(await hook(event(file), "--json")).toEqual({ ...made, stderr: "" });
  });

  it("without -C the workspace is found from the event's directory, not the process's", async () => {
    const { api, event, scrub } = world();
    const elsewhere = tempDir("ariel-wt-hook-cwd-");
    const stdin = event("create-name.json");
    const r = scrub(await runInProcess(command, ["hook", "claude"], { cwd: elsewhere, stdin }));
    expect(r).toEqual({
      code: 0,
      stdout: "<ws>/api/.ariel/worktrees/bright-running-fox/api\n",
      stderr:
        "ariel-worktree: task bright-running-fox: worktree <ws>/api/.ariel/worktrees/bright-running-fox/api\n",
    });
    expect(git(api, "branch", "--list", "ariel/bright-running-fox")).toContain("ariel/bright-running-fox");
    expect(existsSync(join(elsewhere, ".ariel"))).toBe(false);
  });
});

describe("hook claude: WorktreeRemove", () => {
  it("a clean worktree: removed, its branch kept, 0; the same path again is no task's (3)", async () => {
    const { api, hook, event, leg } = world();
    await hook(event("create-name.json"));
    const path = leg("bright-running-fox");
    expect(await hook(event("remove.json", path))).toEqual({
      code: 0,
      stdout: "",
      stderr:
        "ariel-worktree: task bright-running-fox: removed <ws>/.ariel/worktrees/bright-running-fox/api (branch ariel/bright-running-fox kept)\n",
    });
    expect(existsSync(path)).toBe(false);
    expect(git(api, "branch", "--list", "ariel/bright-running-fox")).toContain("ariel/bright-running-fox");
    const again = await hook(event("remove.json", path), "--json");
    expect([again.code, again.stdout]).toEqual([3, ""]);
    expect(records(again.stderr)).toEqual([
      expect.objectContaining({
        code: "ERR_NOT_OURS",
        exit: 3,
        path: "<ws>/.ariel/worktrees/bright-running-fox/api",
      }),
    ]);
  });

  it("local work: saved under the snapshot ref, the worktree kept, the command that removes it named; 0", async () => {
    const { api, hook, event, leg } = world();
    await hook(event("create-worktree-name.json"));
    const path = leg("agent-a1b2c3d4");
    writeFile(join(path, "draft.txt"), "unsaved\n");
    expect(await hook(event("remove.json", path))).toEqual({
      code: 0,
      stdout: "",
      stderr:
        "ariel-worktree: warning: <ws>/.ariel/worktrees/agent-a1b2c3d4/api holds local work: saved at refs/ariel/snapshots/agent-a1b2c3d4/api, worktree kept\n" +
        "ariel-worktree: kept api (local work): ariel-worktree remove --task agent-a1b2c3d4 --snapshot\n",
    });
    expect(readFileSync(join(path, "draft.txt"), "utf8")).toBe("unsaved\n");
    const ref = "refs/ariel/snapshots/agent-a1b2c3d4/api";
    expect(git(api, "show", `${ref}:draft.txt`)).toBe("unsaved");
    const again = await hook(event("remove.json", path), "--json");
    expect([again.code, again.stdout]).toEqual([0, ""]);
    expect(records(again.stderr)).toEqual([
      {
        v: 1,
        type: "warning",
        code: "W_KEPT_WORK",
        message: `<ws>/.ariel/worktrees/agent-a1b2c3d4/api holds local work: saved at ${ref}, worktree kept`,
        task: "agent-a1b2c3d4",
        source: "api",
        snapshotRef: ref,
        snapshotCommit: git(api, "rev-parse", ref),
      },
    ]);
  });

  it("a refusal no snapshot answers: 3, an error per refusal whose hint is the whole remove -n; nothing changed", async () => {
    const { api, hook, event, leg } = world();
    await hook(event("create-name.json"));
    const path = leg("bright-running-fox");
    git(path, "switch", "-q", "-c", "elsewhere");
    writeFile(join(path, "draft.txt"), "unsaved\n");
    const hint =
      "ariel-worktree remove -n --task bright-running-fox --source api shows what stands in the way and how past it; nothing was changed";
    expect(await hook(event("remove.json", path))).toEqual({
      code: 3,
      stdout: "",
      stderr:
        "ariel-worktree: error: <ws>/.ariel/worktrees/bright-running-fox/api has elsewhere checked out, not ariel/bright-running-fox [ERR_BRANCH_MISMATCH]\n" +
        `ariel-worktree: hint: ${hint}\n` +
        "ariel-worktree: error: <ws>/.ariel/worktrees/bright-running-fox/api has uncommitted changes: draft.txt [ERR_DIRTY]\n" +
        `ariel-worktree: hint: ${hint}\n`,
    });
    const r = await hook(event("remove.json", path), "--json");
    expect([r.code, r.stdout]).toEqual([3, ""]);
    const context = { exit: 3, hint, task: "bright-running-fox", source: "api" };
    expect(records(r.stderr)).toEqual([
      expect.objectContaining({ code: "ERR_BRANCH_MISMATCH", reason: "branch-mismatch", ...context }),
      expect.objectContaining({ code: "ERR_DIRTY", reason: "dirty", ...context }),
    ]);
    expect(readFileSync(join(path, "draft.txt"), "utf8")).toBe("unsaved\n");
    expect(git(api, "for-each-ref", "refs/ariel/snapshots/")).toBe("");
  });
});

describe("hook claude: what it refuses", () => {
  it.each([
    ["claud", 'did you mean "claude"? use one of: claude'],
    ["codex", "use one of: claude"],
  ])("agent %s: a usage error (64) naming the agents", async (agent, hint) => {
    const { ws } = world();
    expect(await runInProcess(command, ["-C", ws, "hook", agent], { cwd: ws })).toEqual({
      code: 64,
      stdout: "",
      stderr: `ariel-worktree: error: unknown agent "${agent}" [ERR_USAGE]\nariel-worktree: hint: ${hint}\n`,
    });
  });

  it.each([
    ["nothing", "", "stdin is not JSON"],
    ["not JSON", "{", "stdin is not JSON"],
    ["an array", "[]", "the event is not a JSON object"],
    [
      "another event",
      '{"hook_event_name":"PreToolUse","cwd":"/"}',
      'unknown hook_event_name "PreToolUse"; expected WorktreeCreate or WorktreeRemove',
    ],
    [
      "a create without a name",
      '{"hook_event_name":"WorktreeCreate","cwd":"/"}',
      "WorktreeCreate carries no name, worktree_name or worktree_path",
    ],
    [
      "a remove without its path",
      '{"hook_event_name":"WorktreeRemove"}',
      "WorktreeRemove carries no worktree_path",
    ],
  ])(
    "%s on stdin: ERR_INVALID_INPUT (65), nothing on stdout, nothing made",
    async (_name, stdin, message) => {
      const { ws, hook } = world();
      expect(await hook(stdin)).toEqual({
        code: 65,
        stdout: "",
        stderr: `ariel-worktree: error: hook claude: ${message} [ERR_INVALID_INPUT]\n${INVALID_HINT}`,
      });
      expect(existsSync(join(ws, ".ariel"))).toBe(false);
    },
  );

  it("an event of 64 KiB is taken; one byte more is ERR_INVALID_INPUT (65), nothing made", async () => {
    const { ws, hook, event } = world();
    const padded = (bytes: number) => {
      const e = event("create-name.json");
      return e + " ".repeat(bytes - Buffer.byteLength(e));
    };
    expect(await hook(padded(64 * 1024 + 1))).toEqual({
      code: 65,
      stdout: "",
      stderr: `ariel-worktree: error: hook claude: the event is larger than 65536 bytes [ERR_INVALID_INPUT]\n${INVALID_HINT}`,
    });
    expect(existsSync(join(ws, ".ariel"))).toBe(false);
    expect((await hook(padded(64 * 1024))).stdout).toBe("<ws>/.ariel/worktrees/bright-running-fox/api\n");
  });
});

describe("hook claude: stdin as it comes", () => {
  /** Run the hook on `stdin` given as an iterable of chunks, as a pipe delivers it. */
  async function hookOn(ws: string, stdin: AsyncIterable<Uint8Array | string>) {
    const out: string[] = [];
    const err: string[] = [];
    const code = await runCli(command, {
      version: VERSION,
      argv: ["-C", ws, "hook", "claude"],
      cwd: ws,
      env: inProcessEnv(),
      stdout: { write: (t: string) => void out.push(t) },
      stderr: { write: (t: string) => void err.push(t) },
      stdin,
      term: PIPE_TERMINAL,
    });
    return { code, stdout: out.join("").replaceAll(ws, "<ws>"), stderr: err.join("").replaceAll(ws, "<ws>") };
  }

  it.each<[string, (s: string) => Uint8Array | string]>([
    ["text", (s) => s],
    ["bytes", (s) => new TextEncoder().encode(s)],
  ])("an event in several chunks of %s is read whole", async (_kind, as) => {
    const { ws, event } = world();
    const e = event("create-worktree-name.json");
    const chunks = [e.slice(0, 10), e.slice(10, 100), e.slice(100)].map(as);
    const r = await hookOn(
      ws,
      (async function* () {
        yield* chunks;
      })(),
    );
    expect(r).toEqual({
      code: 0,
      stdout: "<ws>/.ariel/worktrees/agent-a1b2c3d4/api\n",
      stderr: "ariel-worktree: task agent-a1b2c3d4: worktree <ws>/.ariel/worktrees/agent-a1b2c3d4/api\n",
    });
  });

  it("a stream longer than 64 KiB is refused once past the limit, not read to its end", async () => {
    const { ws, event } = world();
    // A whole event, then blanks: 2000 chunks of 1 KiB. Its first 64 KiB alone would parse.
    const e = event("create-name.json");
    const first = new TextEncoder().encode(e + " ".repeat(1024 - e.length));
    const blank = new TextEncoder().encode(" ".repeat(1024));
    let pulled = 0;
    const stdin = (async function* () {
      while (pulled < 2000) {
        pulled++;
        yield pulled === 1 ? first : blank;
      }
    })();
    expect(await hookOn(ws, stdin)).toEqual({
      code: 65,
      stdout: "",
      stderr: `ariel-worktree: error: hook claude: the event is larger than 65536 bytes [ERR_INVALID_INPUT]\n${INVALID_HINT}`,
    });
    expect(pulled).toBe(65);
    expect(existsSync(join(ws, ".ariel"))).toBe(false);
  });
});
