import { existsSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { afterAll, afterEach, describe, expect, it } from "vitest";
import { commitAll, git, initRepo, removeDir, tempDir, writeFile } from "../../../core/src/host/_fixture.ts";
import { inWorkspace, records } from "../../../core/src/host/cli/_fixture.ts";
import type { Terminal } from "../../../core/src/host/cli/terminal.ts";
import { command } from "../command.ts";

// `ariel-worktree land` in this process on real repositories (docs/lifecycle.md, Land): what it
// prints in a pipe, on a terminal and with --json, its exit status, and where the branches are.

const TTY: Terminal = { stdout: true, stderr: false, columns: 120, color: false };
const made: string[] = [];
afterEach(() => {
  for (const d of made.splice(0)) removeDir(d);
});

/** A workspace with `sources` (one commit each on main) and task t1 over them; `w` runs a command. */
async function world(...sources: string[]) {
  const ws = tempDir("ariel-wt-land-");
  made.push(ws);
  for (const s of sources) initRepo(join(ws, s));
  const inWs = inWorkspace(command, ws);
  const w = (argv: string[], term?: Terminal) => inWs(argv, term ? { term } : {});
  const leg = (source: string) => join(ws, ".ariel/worktrees/t1", source);
  const work = (source: string, file = "f.txt", text = "x\n") => {
    writeFile(join(leg(source), file), text);
    return commitAll(leg(source), `work in ${source}`);
  };
  const main = (source: string, ref = "main") => git(join(ws, source), "rev-parse", ref);
  const add = await w(["add", "--task", "t1", "--no-hooks", ...sources.flatMap((s) => ["--source", s])]);
  expect(add.code, add.stderr).toBe(0);
  return { ws, w, leg, work, main };
}

/** The user's own (untracked) workspace config with these hooks. */
function hooks(ws: string, h: Record<string, string>): void {
  writeFileSync(join(ws, "ariel.config.json"), `${JSON.stringify({ hooks: h })}\n`);
}

/** The first commit of every repository here (fixed identity and dates). */
const SHA_DIR = tempDir("ariel-wt-land-sha-");
const INITIAL = initRepo(join(SHA_DIR, "r"));
afterAll(() => removeDir(SHA_DIR));
const short = (sha: string) => sha.slice(0, 12);

describe("land: its flags", () => {
  it("an unknown --strategy is a usage error (64) naming the strategies; nothing moves", async () => {
    const { w, work, main } = await world("api");
    work("api");
    expect(await w(["land", "--task", "t1", "--strategy", "octopus"])).toEqual({
      code: 64,
      stdout: "",
      stderr:
        'ariel-worktree: error: unknown --strategy "octopus" [ERR_USAGE]\n' +
        "ariel-worktree: hint: use one of: ff, merge, squash, rebase\n",
    });
    expect(main("api")).toBe(INITIAL);
  });

  it("an unknown task is not found (66)", async () => {
    const { w } = await world("api");
    expect(await w(["land", "--task", "nope"])).toEqual({
      code: 66,
      stdout: "",
      stderr:
        'ariel-worktree: error: no task "nope" in <ws> [ERR_TASK_NOT_FOUND]\n' +
        "ariel-worktree: hint: run ariel-worktree list --all to see the tasks (closed ones too)\n",
    });
  });

  it("--into a branch checked out nowhere: planned and landed there, main and its files untouched", async () => {
    const { ws, w, work, main } = await world("api");
    const head = work("api");
    git(join(ws, "api"), "branch", "release", "main");
    expect(await w(["land", "-n", "--task", "t1", "--into", "release", "--strategy", "ff"])).toEqual({
      code: 0,
      stdout: "land\tt1\tapi\tariel/t1\trelease\t1\tff\n",
      stderr: "",
    });
    expect(await w(["land", "--task", "t1", "--into", "release", "--strategy", "ff"])).toEqual({
      code: 0,
      stdout: `t1\tapi\trelease\tlanded\t${short(head)}\n`,
      stderr: "",
    });
    expect([main("api", "release"), main("api")]).toEqual([head, INITIAL]);
    expect(existsSync(join(ws, "api/f.txt"))).toBe(false);
  });

  it("nothing to land: every leg up-to-date, exit 0; with --remove the task goes and its branch stays", async () => {
    const { ws, w, leg } = await world("api");
    const upToDate = { code: 0, stdout: `t1\tapi\tmain\tup-to-date\t${short(INITIAL)}\n`, stderr: "" };
    expect(await w(["land", "--task", "t1"])).toEqual(upToDate);
    expect(await w(["land", "-n", "--detailed-exitcode", "--task", "t1"])).toEqual({
      code: 0,
      stdout: "skip\tt1\tapi\tariel/t1\tmain\t0\tmerge\n",
      stderr: "",
    });
    expect(await w(["land", "--task", "t1", "--remove"])).toEqual({
      ...upToDate,
      stderr:
        "ariel-worktree: removed task t1: api (removed); deleted no branch; kept ariel/t1 in api (nothing landed from it)\n",
    });
    expect(existsSync(leg("api"))).toBe(false);
    expect(git(join(ws, "api"), "branch", "--list", "ariel/t1")).toBe("ariel/t1");
  });
});

describe("land: the terminal form", () => {
  it("-n and the land itself print tables with their headers", async () => {
    const { w, work, main } = await world("api", "web");
    work("api");
    expect(await w(["land", "-n", "--task", "t1"], TTY)).toEqual({
      code: 0,
      stdout:
        "ACTION  TASK  SOURCE  BRANCH    TARGET  COMMITS  STRATEGY\n" +
        "land    t1    api     ariel/t1  main    1        merge\n" +
        "skip    t1    web     ariel/t1  main    0        merge\n",
      stderr: "",
    });
    const r = await w(["land", "--task", "t1", "--strategy", "squash"], TTY);
    expect(r).toEqual({
      code: 0,
      stdout:
        "TASK  SOURCE  TARGET  OUTCOME     COMMIT\n" +
        `t1    api     main    landed      ${short(main("api"))}\n` +
        `t1    web     main    up-to-date  ${short(INITIAL)}\n`,
      stderr: "",
    });
  });
});

describe("land: pre-land and post-land hooks", () => {
  it("a failing pre-land refuses (3, nothing landed, post-land not run); --no-hooks lands without either", async () => {
    const { ws, w, work, main } = await world("api");
    work("api");
    hooks(ws, { "pre-land": "echo no >&2; exit 1", "post-land": 'touch "$ARIEL_WORKSPACE_ROOT/post"' });
    expect(await w(["land", "--task", "t1"])).toEqual({
      code: 3,
      stdout: "",
      stderr:
        'ariel-worktree: error: api: pre-land hook "echo no >&2; exit 1" exited 1; nothing was landed [ERR_HOOK_REFUSED]\n' +
        "ariel-worktree: hint: read <ws>/.ariel/hooks/t1.log and fix the cause, or land with --no-hooks\n",
    });
    expect([main("api"), existsSync(join(ws, "post"))]).toEqual([INITIAL, false]);
    const r = await w(["land", "--task", "t1", "--strategy", "ff", "--no-hooks"]);
    expect(r).toEqual({ code: 0, stdout: `t1\tapi\tmain\tlanded\t${short(main("api"))}\n`, stderr: "" });
    expect([main("api") === INITIAL, existsSync(join(ws, "post"))]).toEqual([false, false]);
  });

  it("pre-land and post-land that pass: both run in the leg, in order, exit 0 and nothing said", async () => {
    const { ws, w, work } = await world("api");
    const head = work("api");
    const log = join(ws, "events");
    hooks(ws, {
      "pre-land": `echo "$ARIEL_HOOK $ARIEL_SOURCE" >> ${log}`,
      "post-land": `echo "$ARIEL_HOOK $ARIEL_SOURCE" >> ${log}`,
    });
    expect(await w(["land", "--task", "t1", "--strategy", "ff"])).toEqual({
      code: 0,
      stdout: `t1\tapi\tmain\tlanded\t${short(head)}\n`,
      stderr: "",
    });
    expect(readFileSync(log, "utf8")).toBe("pre-land api\npost-land api\n");
  });

  it.each([
    ["without a pre-land", {}],
    ["after a pre-land that passed", { "pre-land": "true" }],
  ])("a failing post-land %s: the land stands, exit 1 names the log and the retry", async (_, pre) => {
    const { ws, w, work, main } = await world("api");
    const head = work("api");
    hooks(ws, { ...pre, "post-land": "exit 4" });
    expect(await w(["land", "--task", "t1", "--strategy", "ff"])).toEqual({
      code: 1,
      stdout: `t1\tapi\tmain\tlanded\t${short(head)}\n`,
      stderr:
        "ariel-worktree: landed t1, but the post-land hook of api failed; log: <ws>/.ariel/hooks/t1.log; again: ariel-worktree hooks run --task t1 --event post-land\n",
    });
    expect(main("api")).toBe(head);
  });

  it("a repository's hook not approved is skipped with a warning and the command that approves it", async () => {
    const { ws, w, work, main } = await world("api");
    writeFile(join(ws, "api/ariel.config.json"), '{"hooks":{"post-land":["false"]}}\n');
    commitAll(join(ws, "api"), "config");
    const base = main("api");
    work("api");
    const r = await w(["land", "--task", "t1"]);
    expect(r).toEqual({
      code: 0,
      stdout: `t1\tapi\tmain\tlanded\t${short(main("api"))}\n`,
      stderr:
        `ariel-worktree: warning: skipped the post-land hook of <ws>/api/ariel.config.json (the repository's, not approved): ["false"]\n` +
        "ariel-worktree: hint: review <ws>/api/ariel.config.json, then approve its hooks: ariel-worktree -C <ws> trust --source api\n",
    });
    expect(git(join(ws, "api"), "rev-parse", "main^1")).toBe(base);
  });
});

describe("land: all legs or none", () => {
  /** api and web with a commit each, whose land is rolled back: web's main moved after the checks. */
  async function rolledBack() {
    const wld = await world("api", "web");
    wld.work("api");
    wld.work("web");
    // web's pre-land hook moves web's main: api lands first, then web's compare-and-swap fails.
    hooks(wld.ws, {
      "pre-land":
        '[ "$ARIEL_SOURCE" = web ] && git -C "$ARIEL_SOURCE_PATH" commit -q --allow-empty -m meanwhile || true',
    });
    const r = await wld.w(["land", "--task", "t1", "--json"]);
    hooks(wld.ws, {});
    const landState = () => {
      const land = JSON.parse(readFileSync(join(wld.ws, ".ariel/tasks/t1.json"), "utf8")).land;
      return [land.state, land.legs.map((l: { state: string }) => l.state)];
    };
    return { ...wld, r, landState };
  }

  it("a later leg whose target moved after the checks: the landed leg is moved back, exit 75, recorded rolled-back", async () => {
    const { ws, w, main, r, landState } = await rolledBack();
    const moved = main("web");
    expect([r.code, r.stdout]).toEqual([75, ""]);
    expect(records(r.stderr).map((e) => [e.code, e.exit, e.source])).toEqual([["ERR_CONFLICT", 75, "web"]]);
    expect([main("api"), git(join(ws, "api"), "status", "--porcelain")]).toEqual([INITIAL, ""]);
    expect(git(join(ws, "web"), "log", "-1", "--format=%s", moved)).toBe("meanwhile");
    expect(landState()).toEqual(["rolled-back", ["rolled-back", "rolled-back"]]);
    const again = await w(["land", "--task", "t1"]);
    expect([again.code, again.stderr]).toEqual([0, ""]);
    expect(git(join(ws, "web"), "rev-parse", "main^1")).toBe(moved);
    expect(landState()).toEqual(["landed", ["landed", "landed"]]);
  });

  it("merged by hand after the rollback: --remove keeps both branches, nothing landed from them", async () => {
    const { ws, w, landState } = await rolledBack();
    for (const s of ["api", "web"]) git(join(ws, s), "merge", "-q", "--no-edit", "ariel/t1");
    const r = await w(["land", "--task", "t1", "--remove"]);
    expect([r.code, r.stdout.split("\t")[3]]).toEqual([0, "up-to-date"]);
    expect(r.stderr).toBe(
      "ariel-worktree: removed task t1: api (removed), web (removed); deleted no branch; kept ariel/t1 in api (nothing landed from it), ariel/t1 in web (nothing landed from it)\n",
    );
    expect(landState()).toEqual(["rolled-back", ["rolled-back", "rolled-back"]]);
  });
});

describe("land: refusals, every reason in one answer", () => {
  it("dirty targets, a conflict and a dirty leg with --remove: each reason, then one line for all (3)", async () => {
    const { ws, w, leg, work } = await world("api", "web");
    work("api", "README.md", "mine\n");
    work("web");
    writeFile(join(ws, "api/README.md"), "theirs\n");
    commitAll(join(ws, "api"), "theirs");
    for (const s of ["api", "web"]) writeFile(join(ws, s, "scratch.txt"), "local\n");
    writeFile(join(leg("api"), "notes.txt"), "not committed\n");
    const tips = () => ["api", "web"].map((s) => git(join(ws, s), "for-each-ref", "refs/heads/"));
    const before = tips();
    const r = await w(["land", "--task", "t1", "--remove"]);
    const targetDirty = (s: string) => [
      `ariel-worktree: error: main is checked out in <ws>/${s}, which has uncommitted changes: scratch.txt [ERR_TARGET_DIRTY]`,
      `ariel-worktree: hint: commit or stash the changes in <ws>/${s}, or land --into a branch that is not checked out; nothing was changed`,
    ];
    expect(r).toEqual({
      code: 3,
      stdout: "",
      stderr: [
        ...targetDirty("api"),
        "ariel-worktree: error: api: ariel/t1 does not merge cleanly into main: README.md [ERR_LAND_CONFLICT]",
        "ariel-worktree: hint: in <ws>/.ariel/worktrees/t1/api: git merge main, resolve the conflicts and commit, then land again; nothing was changed",
        "ariel-worktree: error: <ws>/.ariel/worktrees/t1/api has uncommitted changes: notes.txt [ERR_DIRTY]",
        "ariel-worktree: hint: commit or stash the changes in <ws>/.ariel/worktrees/t1/api (land takes commits only), or land without --remove and keep them: ariel-worktree remove --task t1 --source api --snapshot; nothing was changed",
        ...targetDirty("web"),
        "ariel-worktree: nothing landed: api (target-dirty, conflict, dirty), web (target-dirty) refused; ariel-worktree diff --task t1 shows the task",
        "",
      ].join("\n"),
    });
    const json = records((await w(["land", "--task", "t1", "--remove", "--json"])).stderr);
    expect(json.map((e) => [e.code, e.exit, e.source, e.reason, e.items, e.remove])).toEqual([
      ["ERR_TARGET_DIRTY", 3, "api", "target-dirty", ["scratch.txt"], undefined],
      ["ERR_LAND_CONFLICT", 3, "api", "conflict", ["README.md"], undefined],
      ["ERR_DIRTY", 3, "api", "dirty", ["notes.txt"], true],
      ["ERR_TARGET_DIRTY", 3, "web", "target-dirty", ["scratch.txt"], undefined],
    ]);
    expect(json[2]).toEqual({
      v: 1,
      type: "error",
      code: "ERR_DIRTY",
      message: "<ws>/.ariel/worktrees/t1/api has uncommitted changes: notes.txt",
      hint: "commit or stash the changes in <ws>/.ariel/worktrees/t1/api (land takes commits only), or land without --remove and keep them: ariel-worktree remove --task t1 --source api --snapshot; nothing was changed",
      exit: 3,
      task: "t1",
      source: "api",
      reason: "dirty",
      remove: true,
      items: ["notes.txt"],
    });
    expect(tips()).toEqual(before);
    expect(existsSync(leg("api"))).toBe(true);
  });
});

describe("land --remove: what became of each worktree and branch", () => {
  it("--json: each record says its worktree's removal and whether its branch went (a snapshotted leg kept)", async () => {
    const { ws, w, leg, work, main } = await world("api", "web");
    const head = work("api");
    writeFile(join(leg("web"), "new.txt"), "x\n");
    expect((await w(["remove", "--task", "t1", "--source", "web", "--snapshot"])).code).toBe(0);
    const r = await w(["land", "--task", "t1", "--remove", "--json"]);
    const land = { v: 1, type: "land", task: "t1", branch: "ariel/t1", target: "main", strategy: "merge" };
    expect([r.code, r.stderr]).toEqual([0, ""]);
    expect(records(r.stdout)).toEqual([
      {
        ...land,
        source: "api",
        outcome: "landed",
        from: INITIAL,
        to: main("api"),
        branchDeleted: true,
        worktree: "removed",
      },
      {
        ...land,
        source: "web",
        outcome: "up-to-date",
        from: INITIAL,
        to: INITIAL,
        branchDeleted: false,
        worktree: "snapshotted",
      },
    ]);
    expect(git(join(ws, "api"), "rev-parse", "main^2")).toBe(head);
    expect(git(join(ws, "api"), "branch", "--list", "ariel/t1")).toBe("");
    expect(git(join(ws, "web"), "branch", "--list", "ariel/t1")).toBe("ariel/t1");
  });

  it("merge: every landed leg's branch deleted, none kept", async () => {
    const { ws, w, work, main } = await world("api", "web");
    work("api");
    work("web");
    const r = await w(["land", "--task", "t1", "--remove"]);
    expect(r).toEqual({
      code: 0,
      stdout: `t1\tapi\tmain\tlanded\t${short(main("api"))}\nt1\tweb\tmain\tlanded\t${short(main("web"))}\n`,
      stderr:
        "ariel-worktree: removed task t1: api (removed), web (removed); deleted branches ariel/t1 in api, ariel/t1 in web\n",
    });
    for (const s of ["api", "web"]) expect(git(join(ws, s), "branch", "--list", "ariel/t1")).toBe("");
  });

  it("squash: no branch deleted; a landed one kept as not contained, a skipped one as nothing landed", async () => {
    const { ws, w, work, main } = await world("api", "web");
    work("api");
    const r = await w(["land", "--task", "t1", "--remove", "--strategy", "squash"]);
    expect(r).toEqual({
      code: 0,
      stdout: `t1\tapi\tmain\tlanded\t${short(main("api"))}\nt1\tweb\tmain\tup-to-date\t${short(INITIAL)}\n`,
      stderr:
        "ariel-worktree: removed task t1: api (removed), web (removed); deleted no branch; kept ariel/t1 in api (not contained in the target), ariel/t1 in web (nothing landed from it)\n",
    });
    for (const s of ["api", "web"]) expect(git(join(ws, s), "branch", "--list", "ariel/t1")).toBe("ariel/t1");
  });
});

describe("land: uncommitted work in a leg", () => {
  it("--json: the commits land; a W_UNCOMMITTED warning record names the task and the leg", async () => {
    const { w, leg, work } = await world("api");
    const head = work("api");
    writeFile(join(leg("api"), "later.txt"), "y\n");
    const r = await w(["land", "--task", "t1", "--strategy", "ff", "--json"]);
    expect(r.code).toBe(0);
    expect(records(r.stdout).map((x) => [x.source, x.outcome, x.to, x.branchDeleted, x.worktree])).toEqual([
      ["api", "landed", head, false, undefined],
    ]);
    expect(records(r.stderr)).toEqual([
      {
        v: 1,
        type: "warning",
        code: "W_UNCOMMITTED",
        message: "api: 1 uncommitted path(s) in the leg were not landed",
        task: "t1",
        source: "api",
      },
    ]);
  });
});

describe("land -n: the hooks a land would run", () => {
  it("lists pre-land and post-land after the legs, runs none; 2 with --detailed-exitcode; none planned with --no-hooks", async () => {
    const { ws, w, work, main } = await world("api");
    work("api");
    hooks(ws, { "pre-land": 'touch "$ARIEL_WORKSPACE_ROOT/pre"', "post-land": "true" });
    expect(await w(["land", "-n", "--detailed-exitcode", "--task", "t1"])).toEqual({
      code: 2,
      stdout:
        "land\tt1\tapi\tariel/t1\tmain\t1\tmerge\n" +
        'hook\tt1\tpre-land\tapi\tyours\t<ws>/ariel.config.json\ttouch "$ARIEL_WORKSPACE_ROOT/pre"\n' +
        "hook\tt1\tpost-land\tapi\tyours\t<ws>/ariel.config.json\ttrue\n",
      stderr: "",
    });
    expect(await w(["land", "-n", "--task", "t1", "--no-hooks"])).toEqual({
      code: 0,
      stdout: "land\tt1\tapi\tariel/t1\tmain\t1\tmerge\n",
      stderr: "",
    });
    expect([main("api"), existsSync(join(ws, "pre"))]).toEqual([INITIAL, false]);
  });
});
