import { existsSync, readFileSync, rmSync } from "node:fs";
import { join } from "node:path";
import { VERSION } from "@ariel/core";
import { runCli } from "@ariel/core/host";
import { describe, expect, it } from "vitest";
import { git, initRepo, tempDir, writeFile } from "../../../core/src/host/_fixture.ts";
import { inProcessEnv, inWorkspace, records, runInProcess } from "../../../core/src/host/cli/_fixture.ts";
import { command } from "../command.ts";

// `ariel-worktree remove` in this process: what it plans (-n), removes, forgets and refuses, on
// real repositories (docs/worktree.md "remove", docs/lifecycle.md for its pre-remove hooks).

const TERMINAL = { stdout: true, stderr: false, columns: 120, color: false };

/** A workspace with api and web and task t1 with a leg in each; `w` runs a command at the root. */
async function world() {
  const ws = tempDir("ariel-wt-rm-");
  initRepo(join(ws, "api"));
  initRepo(join(ws, "web"));
  const w = inWorkspace(command, ws);
  await w(["add", "--task", "t1", "--source", "api", "--source", "web"]);
  const leg = (source: string) => join(ws, ".ariel/worktrees/t1", source);
  return { ws, w, leg };
}

describe("remove: plans and removals", () => {
  it("-n on a terminal: a table with its header; nothing removed", async () => {
    const { w, leg } = await world();
    expect(await w(["remove", "-n", "--task", "t1"], { term: TERMINAL })).toEqual({
      code: 0,
      stdout:
        "ACTION  TASK  SOURCE  SNAPSHOT  PATH\n" +
        "remove  t1    api     no        <ws>/.ariel/worktrees/t1/api\n" +
        "remove  t1    web     no        <ws>/.ariel/worktrees/t1/web\n",
      stderr: "",
    });
    expect([existsSync(leg("api")), existsSync(leg("web"))]).toEqual([true, true]);
  });

  it("--source removes only the legs named; a later plan leaves out the leg already removed", async () => {
    const { w, leg } = await world();
    expect(await w(["remove", "--task", "t1", "--source", "web"])).toEqual({
      code: 0,
      stdout: "t1\tweb\tremoved\t<ws>/.ariel/worktrees/t1/web\n",
      stderr: "",
    });
    expect([existsSync(leg("api")), existsSync(leg("web"))]).toEqual([true, false]);
    expect(await w(["remove", "-n", "--detailed-exitcode", "--task", "t1"])).toEqual({
      code: 2,
      stdout: "remove\tt1\tapi\tno\t<ws>/.ariel/worktrees/t1/api\n",
      stderr: "",
    });
  });

  it("a leg whose directory vanished is forgotten: planned as worktree.forget, then a table of both legs", async () => {
    const { ws, w, leg } = await world();
    rmSync(leg("api"), { recursive: true, force: true });
    const plan = await w(["remove", "-n", "--json", "--task", "t1"]);
    expect(records(plan.stdout).map((r) => [r.action, r.source, r.path])).toEqual([
      ["worktree.forget", "api", "<ws>/.ariel/worktrees/t1/api"],
      ["worktree.remove", "web", "<ws>/.ariel/worktrees/t1/web"],
    ]);
    expect((await w(["remove", "-n", "--task", "t1"])).stdout).toBe(
      "forget\tt1\tapi\tno\t<ws>/.ariel/worktrees/t1/api\nremove\tt1\tweb\tno\t<ws>/.ariel/worktrees/t1/web\n",
    );
    expect(await w(["remove", "--task", "t1"], { term: TERMINAL })).toEqual({
      code: 0,
      stdout:
        "TASK  SOURCE  OUTCOME  PATH\n" +
        "t1    api     removed  <ws>/.ariel/worktrees/t1/api\n" +
        "t1    web     removed  <ws>/.ariel/worktrees/t1/web\n",
      stderr: "",
    });
    expect(git(join(ws, "api"), "worktree", "list", "--porcelain")).not.toContain(leg("api"));
    expect(git(join(ws, "api"), "branch", "--list", "ariel/t1")).toContain("ariel/t1");
  });
});

describe("remove: refusals", () => {
  it("a refusal after a leg was removed by an earlier run: 'nothing changed' (this run removed nothing)", async () => {
    const { w, leg } = await world();
    await w(["remove", "--task", "t1", "--source", "web"]);
    writeFile(join(leg("api"), "new.txt"), "x\n");
    expect(await w(["remove", "--task", "t1"])).toEqual({
      code: 3,
      stdout: "",
      stderr:
        "ariel-worktree: error: <ws>/.ariel/worktrees/t1/api has uncommitted changes: new.txt [ERR_DIRTY]\n" +
        "ariel-worktree: hint: commit or stash the changes, pass --snapshot, or --allow dirty; nothing was changed\n" +
        "ariel-worktree: refused, nothing changed: api (dirty); next: ariel-worktree remove --task t1 --snapshot\n",
    });
    expect(existsSync(leg("api"))).toBe(true);
  });

  it("the next command keeps --source and names the root when run from elsewhere; it works", async () => {
    const { ws, w, leg } = await world();
    writeFile(join(leg("api"), "new.txt"), "x\n");
    const web = join(ws, "web");
    const r = await w(["remove", "--task", "t1", "--source", "api"], { cwd: web });
    const next = "ariel-worktree remove -C <ws> --task t1 --source api --snapshot";
    expect([r.code, r.stderr.split("\n").at(-2)]).toEqual([
      3,
      `ariel-worktree: refused, nothing changed: api (dirty); next: ${next}`,
    ]);
    const argv = next.replace("<ws>", ws).split(" ").slice(1);
    const again = await runInProcess(command, argv, { cwd: web });
    expect([again.code, again.stdout.replaceAll(ws, "<ws>")]).toEqual([
      0,
      "t1\tapi\tsnapshotted\t<ws>/.ariel/worktrees/t1/api\n",
    ]);
    expect(existsSync(leg("web"))).toBe(true);
  });

  it("new work found just before a leg's removal: 3, the legs removed before it named", async () => {
    const { ws, leg } = await world();
    const err: string[] = [];
    // The progress line of web's step is the moment between its check and its removal.
    const stderr = {
      write: (t: string) => {
        err.push(t);
        if (t.includes("web: removing")) writeFile(join(leg("web"), "late.txt"), "x\n");
      },
    };
    const code = await runCli(command, {
      version: VERSION,
      argv: ["-C", ws, "remove", "--task", "t1"],
      cwd: ws,
      env: inProcessEnv(),
      stdout: { write: () => {} },
      stderr,
      stdin: (async function* () {})(),
      term: { stdout: false, stderr: true, columns: 120, color: false },
    });
    expect(code).toBe(3);
    const shown = err.join("").replaceAll(ws, "<ws>").split("\r\x1b[K");
    expect(shown).toContain("[2/2] web: removing worktree");
    expect(shown.at(-1)).toBe(
      "ariel-worktree: error: <ws>/.ariel/worktrees/t1/web has uncommitted changes: late.txt (written while remove ran; kept) [ERR_DIRTY]\n" +
        "ariel-worktree: hint: commit or stash the changes, pass --snapshot, or --allow dirty; api was removed before it, nothing else was changed\n" +
        "ariel-worktree: refused after removing api: web (dirty); next: ariel-worktree remove --task t1 --snapshot\n",
    );
    expect([existsSync(leg("api")), readFileSync(join(leg("web"), "late.txt"), "utf8")]).toEqual([
      false,
      "x\n",
    ]);
  });

  it("a failing pre-remove hook: its error record names the task, nothing removed", async () => {
    const { ws, w, leg } = await world();
    writeFile(join(ws, "api/ariel.config.json"), '{"hooks":{"pre-remove":["false"]}}\n');
    const r = await w(["remove", "--task", "t1", "--json"]);
    expect([r.code, r.stdout]).toEqual([3, ""]);
    expect(records(r.stderr)).toEqual([
      {
        v: 1,
        type: "error",
        code: "ERR_HOOK_REFUSED",
        message: 'api: pre-remove hook ["false"] exited 1',
        hint: "nothing was changed; read <ws>/.ariel/hooks/t1.log and fix the cause, or pass --no-hooks to skip the hooks",
        exit: 3,
        task: "t1",
        source: "api",
        event: "pre-remove",
        file: "<ws>/api/ariel.config.json",
        status: "failed",
        hookExit: 1,
        log: "<ws>/.ariel/hooks/t1.log",
      },
    ]);
    expect([existsSync(leg("api")), existsSync(leg("web"))]).toEqual([true, true]);
  });
});
