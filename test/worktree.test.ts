/**
 * ariel-worktree end to end: add (record, overlay, lock, idempotency, conflicts, crash reuse,
 * unwind), list, verify, remove of clean worktrees, dry runs. Real git in temp dirs.
 */
import { createHash } from "node:crypto";
import { chmodSync, existsSync, mkdirSync, readFileSync, rmSync } from "node:fs";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import {
  branches,
  errors,
  git,
  gitState,
  LOCAL_MCP,
  legPath,
  makeWorkspace,
  picture,
  records,
  removeDir,
  SECRET,
  taskFile,
  writeFile,
  wt,
} from "./worktree-fixtures.ts";

const sha = (s: string) => createHash("sha256").update(s).digest("hex");
let root = "";
afterEach(() => removeDir(root));

describe("ariel-worktree add", () => {
  it("makes one locked worktree per source with the overlay and writes the record", async () => {
    root = makeWorkspace();
    const base = git(join(root, "api"), "rev-parse", "HEAD");
    const r = await wt(root, ["add", "--task", "t1", "--source", "api", "--source", "web", "--json"]);
    expect(r.stderr).toBe("");
    expect(r.code).toBe(0);
    const [rec] = records(r.stdout);
    expect(rec).toMatchObject({
      v: 1,
      type: "task",
      taskId: "t1",
      workspace: { root },
      owner: "tester",
      state: "active",
      artifacts: [],
      version: 1,
    });
    expect(rec).toEqual(taskFile(root, "t1"));
    const api = legPath(root, "t1", "api");
    expect((rec as { legs: unknown[] }).legs[0]).toEqual({
      source: "api",
      sourcePath: join(root, "api"),
      fingerprint: expect.stringMatching(/^[0-9a-f]{64}$/),
      branch: "ariel/t1",
      base,
      head: base,
      worktreePath: api,
      overlay: [
        { path: ".env", sha256: sha(SECRET) },
        { path: ".mcp.json", sha256: sha(LOCAL_MCP), skipWorktree: true },
      ],
      state: "active",
    });
    expect(readFileSync(join(api, ".env"), "utf8")).toBe(SECRET);
    expect(readFileSync(join(api, ".mcp.json"), "utf8")).toBe(LOCAL_MCP);
    expect(git(api, "ls-files", "-v", ".mcp.json")).toBe("S .mcp.json");
    expect(git(api, "status", "--porcelain")).toBe("");
    for (const s of ["api", "web"]) {
      expect(git(join(root, s), "worktree", "list", "--porcelain")).toContain(
        `worktree ${legPath(root, "t1", s)}\nHEAD ${git(join(root, s), "rev-parse", "HEAD")}\nbranch refs/heads/ariel/t1\nlocked ariel:t1`,
      );
    }
    expect(readFileSync(join(root, "api/.git/info/exclude"), "utf8")).not.toContain("/.ariel/");
  });

  it("prints tab-separated legs when piped", async () => {
    root = makeWorkspace(["api"]);
    const r = await wt(root, ["add", "--task", "t1", "--source", "api"]);
    expect(r.code).toBe(0);
    expect(r.stdout).toBe(`t1\tapi\tariel/t1\t${legPath(root, "t1", "api")}\n`);
    expect(r.stderr).toBe("ariel-worktree: made task t1\n");
  });

  it("is idempotent: the same add returns the task unchanged without touching git", async () => {
    root = makeWorkspace();
    const args = ["add", "--task", "t1", "--source", "api", "--source", "web", "--json"];
    const first = await wt(root, args);
    const before = {
      api: gitState(join(root, "api")),
      web: gitState(join(root, "web")),
      files: picture(root),
    };
    const again = await wt(root, [...args.slice(0, 3), "--source", "web", "--source", "api", "--json"]);
    expect(again.code).toBe(0);
    expect(again.stdout).toBe(first.stdout);
    expect({
      api: gitState(join(root, "api")),
      web: gitState(join(root, "web")),
      files: picture(root),
    }).toEqual(before);
  });

  it.each([
    ["other sources", ["--source", "api"]],
    ["another branch", ["--source", "api", "--source", "web", "--branch", "feature/x"]],
    ["another base", ["--source", "api", "--source", "web", "--base", "HEAD~0^{tree}"]],
  ])("refuses a conflicting add (%s) with exit 3 and changes nothing", async (_n, extra) => {
    root = makeWorkspace();
    git(join(root, "api"), "commit", "-q", "--allow-empty", "-m", "second");
    git(join(root, "web"), "commit", "-q", "--allow-empty", "-m", "second");
    await wt(root, ["add", "--task", "t1", "--source", "api", "--source", "web", "--base", "HEAD~1"]);
    const before = { api: gitState(join(root, "api")), files: picture(root) };
    const r = await wt(root, [
      "add",
      "--task",
      "t1",
      ...extra.map((x) => (x === "HEAD~0^{tree}" ? "HEAD" : x)),
      "--json",
    ]);
    expect(r.code).toBe(3);
    expect(errors(r.stderr)).toEqual([
      expect.objectContaining({ code: "ERR_TASK_CONFLICT", exit: 3, task: "t1" }),
    ]);
    expect({ api: gitState(join(root, "api")), files: picture(root) }).toEqual(before);
  });

  // The branch is looked up in git's ref files first (loose, then packed-refs): every layout
  // must still be seen.
  it.each<[string, string, string[], string[][]]>([
    ["a loose branch", "ariel/t1", [], [["branch", "ariel/t1"]]],
    [
      "a packed branch",
      "ariel/t1",
      [],
      [
        ["branch", "ariel/t1"],
        ["pack-refs", "--all"],
      ],
    ],
    [
      "a --branch with dots and capitals",
      "Odd.Name/x-1_y.z",
      ["--branch", "Odd.Name/x-1_y.z"],
      [["branch", "Odd.Name/x-1_y.z"]],
    ],
    [
      "a symbolic ref",
      "ariel/t1",
      [],
      [
        ["symbolic-ref", "refs/heads/ariel/t1", "refs/heads/main"],
        ["pack-refs", "--all"],
      ],
    ],
  ])("refuses an existing branch that is not ours: %s", async (_name, branch, flags, arrange) => {
    root = makeWorkspace(["api"]);
    for (const args of arrange) git(join(root, "api"), ...args);
    const before = gitState(join(root, "api"));
    const r = await wt(root, ["add", "--task", "t1", "--source", "api", ...flags, "--json"]);
    expect(r.code).toBe(3);
    expect(errors(r.stderr)[0]).toMatchObject({ code: "ERR_TASK_CONFLICT", branch });
    expect(gitState(join(root, "api"))).toEqual(before);
    expect(existsSync(join(root, ".ariel/tasks/t1.json"))).toBe(false);
  });

  it("starts from a detached HEAD of the source, and refuses an unborn one", async () => {
    root = makeWorkspace(["api"]);
    const api = join(root, "api");
    git(api, "switch", "-q", "--detach");
    git(api, "commit", "-q", "--allow-empty", "-m", "detached");
    const head = git(api, "rev-parse", "HEAD");
    const r = await wt(root, ["add", "--task", "t1", "--source", "api", "--json"]);
    expect(r.code).toBe(0);
    expect(taskFile(root, "t1")).toMatchObject({ legs: [{ base: head, head }] });
    const fresh = join(root, "fresh");
    mkdirSync(fresh);
    git(fresh, "init", "-q", "-b", "main");
    writeFile(join(fresh, "f.txt"), "untracked\n");
    const u = await wt(root, ["add", "--task", "t2", "--source", "fresh", "--json"]);
    expect(u.code).toBe(66);
    expect(errors(u.stderr)[0]).toMatchObject({
      code: "ERR_NOINPUT",
      message: "source fresh has no commit at HEAD",
    });
    expect(git(fresh, "for-each-ref")).toBe("");
    expect(git(fresh, "worktree", "list", "--porcelain")).toBe(
      `worktree ${fresh}\nHEAD ${"0".repeat(40)}\nbranch refs/heads/main`,
    );
    expect(existsSync(join(root, ".ariel/tasks/t2.json"))).toBe(false);
  });

  it("refuses a branch checked out in another worktree, naming it", async () => {
    root = makeWorkspace(["api"]);
    git(join(root, "api"), "worktree", "add", "-q", "-b", "ariel/t1", join(root, "elsewhere"));
    const r = await wt(root, ["add", "--task", "t1", "--source", "api"]);
    expect(r.code).toBe(3);
    expect(r.stderr).toContain(`checked out at ${join(root, "elsewhere")}`);
  });

  it("reuses a worktree left by a crashed earlier add of ours", async () => {
    root = makeWorkspace(["api"]);
    const path = legPath(root, "t1", "api");
    git(join(root, "api"), "worktree", "add", "-q", "--lock", "--reason", "ariel:t1", "-b", "ariel/t1", path);
    const r = await wt(root, ["add", "--task", "t1", "--source", "api", "--json"]);
    expect(r.code).toBe(0);
    const rec = records(r.stdout)[0] as { legs: { worktreePath: string; overlay: unknown[] }[] };
    expect(rec.legs[0]?.worktreePath).toBe(path);
    expect(rec.legs[0]?.overlay).toHaveLength(2);
    expect(git(join(root, "api"), "worktree", "list").split("\n")).toHaveLength(2);
    expect(readFileSync(join(path, ".env"), "utf8")).toBe(SECRET);
  });

  it("generates <slug>-<6 chars> without --task", async () => {
    root = makeWorkspace(["api"]);
    const r = await wt(root, ["add", "--source", "api", "--json"]);
    expect(r.code).toBe(0);
    const id = (records(r.stdout)[0] as { taskId: string }).taskId;
    expect(id).toMatch(/^api-[a-z0-9]{6}$/);
    expect(git(join(root, "api"), "branch", "--list", "--format=%(refname)", `ariel/${id}`)).toBe(
      `refs/heads/ariel/${id}`,
    );
  });

  it("names the root's leg after the root directory", async () => {
    root = makeWorkspace(["."]);
    const r = await wt(root, ["add", "--task", "t1", "--source", ".", "--json"]);
    expect(r.code).toBe(0);
    const leaf = root.split("/").pop()!;
    expect(existsSync(join(legPath(root, "t1", leaf), "README.md"))).toBe(true);
    expect(readFileSync(join(root, ".git/info/exclude"), "utf8")).toContain("/.ariel/");
    expect(git(root, "status", "--porcelain")).toBe("M .mcp.json");
  });

  it("dry run prints the plan, exits 2 with --detailed-exitcode, and changes nothing", async () => {
    root = makeWorkspace();
    const before = { api: gitState(join(root, "api")), files: picture(root) };
    const plan = ["add", "-n", "--detailed-exitcode", "--task", "t1", "--source", "api", "--source", "web"];
    const r = await wt(root, [...plan, "--json"]);
    expect(r.code).toBe(2);
    const plans = records(r.stdout);
    expect(plans.map((p) => [p.type, p.action, p.source, p.path, p.branch, p.mode])).toEqual([
      ["plan", "worktree.add", "api", legPath(root, "t1", "api"), "ariel/t1", "create"],
      ["plan", "worktree.add", "web", legPath(root, "t1", "web"), "ariel/t1", "create"],
    ]);
    expect(plans[0]?.overlay).toEqual([
      { path: ".env", sha256: sha(SECRET) },
      { path: ".mcp.json", sha256: sha(LOCAL_MCP) },
    ]);
    expect({ api: gitState(join(root, "api")), files: picture(root) }).toEqual(before);
    await wt(root, ["add", "--task", "t1", "--source", "api", "--source", "web"]);
    const again = await wt(root, plan);
    expect(again.code).toBe(0);
    expect(again.stdout).toBe("");
  });

  it("unwinds a failed multi-source add: no record, directory, admin entry or branch is left", async () => {
    root = makeWorkspace(["api", "web"]);
    const hook = join(root, "web/.git/hooks/post-checkout");
    writeFile(hook, "#!/bin/sh\necho 'hook says no' >&2\nexit 1\n");
    chmodSync(hook, 0o755);
    const before = { api: gitState(join(root, "api")), web: gitState(join(root, "web")) };
    const r = await wt(root, ["add", "--task", "t1", "--source", "api", "--source", "web", "--json"]);
    expect(r.code).toBe(1);
    expect(errors(r.stderr)[0]).toMatchObject({ code: "ERR_GIT", git: "worktree" });
    expect({ api: gitState(join(root, "api")), web: gitState(join(root, "web")) }).toEqual(before);
    expect(existsSync(join(root, ".ariel/tasks/t1.json"))).toBe(false);
    expect(existsSync(join(root, ".ariel/worktrees/t1"))).toBe(false);
    expect(existsSync(join(root, "api/.git/worktrees"))).toBe(false);
    expect(existsSync(join(root, "web/.git/worktrees"))).toBe(false);
  });

  it("copies .worktreeinclude and config overlay globs, skips missing files", async () => {
    root = makeWorkspace(["api"]);
    writeFile(join(root, "ariel.config.json"), JSON.stringify({ overlay: ["*.local"] }));
    writeFile(join(root, "api/.worktreeinclude"), "# keys\nsecrets/*.key\n");
    writeFile(join(root, "api/secrets/a.key"), "A\n");
    writeFile(join(root, "api/settings.local"), "L\n");
    rmSync(join(root, "api/.env"));
    const r = await wt(root, ["add", "--task", "t1", "--source", "api", "--json"]);
    expect(r.code).toBe(0);
    const leg = (records(r.stdout)[0] as { legs: { overlay: { path: string }[] }[] }).legs[0]!;
    expect(leg.overlay.map((o) => o.path)).toEqual([".mcp.json", "secrets/a.key", "settings.local"]);
    expect(readFileSync(join(legPath(root, "t1", "api"), "secrets/a.key"), "utf8")).toBe("A\n");
  });
});

describe("ariel-worktree list and verify", () => {
  it("lists legs with status, lock, branch and bytes", async () => {
    root = makeWorkspace();
    await wt(root, ["add", "--task", "t1", "--source", "api", "--source", "web"]);
    writeFile(join(legPath(root, "t1", "web"), "new.txt"), "x\n");
    const r = await wt(root, ["list", "--json"]);
    expect(r.code).toBe(0);
    const rows = records(r.stdout);
    expect(rows.map((x) => [x.type, x.task, x.source, x.status, x.lockReason, x.branch, x.path])).toEqual([
      ["worktree", "t1", "api", "active", "ariel:t1", "ariel/t1", legPath(root, "t1", "api")],
      ["worktree", "t1", "web", "dirty", "ariel:t1", "ariel/t1", legPath(root, "t1", "web")],
    ]);
    expect(rows[0]?.bytes).toBeGreaterThan(0);
    rmSync(legPath(root, "t1", "api"), { recursive: true });
    writeFile(join(root, ".ariel/worktrees/zz/leftover/f"), "x");
    const again = records((await wt(root, ["list", "--json"])).stdout);
    expect(again.map((x) => [x.task, x.source, x.status])).toEqual([
      ["t1", "api", "missing"],
      ["t1", "web", "dirty"],
      ["zz", null, "orphaned"],
    ]);
  });

  it("list says what git has checked out now: another branch, or null for a detached HEAD", async () => {
    root = makeWorkspace(["api", "web"]);
    await wt(root, ["add", "--task", "t1", "--source", "api", "--source", "web"]);
    git(legPath(root, "t1", "api"), "switch", "-q", "--detach");
    git(legPath(root, "t1", "web"), "switch", "-q", "-c", "side");
    const r = await wt(root, ["list", "--json"]);
    expect(r.code).toBe(0);
    expect(records(r.stdout).map((x) => [x.source, x.branch])).toEqual([
      ["api", null],
      ["web", "side"],
    ]);
    const piped = await wt(root, ["list", "--no-bytes"]);
    expect(piped.stdout.split("\n")[0]?.split("\t")[4]).toBe("-");
  });

  it("list never shows a leg as clean when git status fails there: status unknown, dirty null", async () => {
    root = makeWorkspace(["api", "web"]);
    await wt(root, ["add", "--task", "t1", "--source", "api", "--source", "web"]);
    const gitDir = git(legPath(root, "t1", "api"), "rev-parse", "--absolute-git-dir");
    writeFile(join(gitDir, "index"), "not an index");
    const r = await wt(root, ["list", "--json", "--no-bytes"]);
    expect(r.code).toBe(0);
    expect(records(r.stdout).map((x) => [x.source, x.status, x.dirty])).toEqual([
      ["api", "unknown", null],
      ["web", "active", false],
    ]);
  });

  it("list leaves closed tasks out without parsing their records; --all and --task show them", async () => {
    root = makeWorkspace(["api"]);
    for (const t of ["done", "kept", "open"]) await wt(root, ["add", "--task", t, "--source", "api"]);
    for (const t of ["done", "kept"]) expect((await wt(root, ["remove", "--task", t])).code).toBe(0);
    // A leftover directory of a closed task keeps it listed (its record is read in full).
    writeFile(join(legPath(root, "kept", "api"), "left.txt"), "x\n");
    // A closed record that would not validate: never parsed without --all.
    const bad = join(root, ".ariel/tasks/zbad.json");
    const done = JSON.parse(readFileSync(join(root, ".ariel/tasks/done.json"), "utf8"));
    writeFile(bad, `${JSON.stringify({ ...done, taskId: "zbad", owner: "" }, null, 2)}\n`);
    const rows = (args: string[]) =>
      wt(root, ["list", "--json", "--no-bytes", ...args]).then((r) => ({
        code: r.code,
        rows: records(r.stdout).map((x) => [x.task, x.status, x.state]),
        warned: r.stderr.includes("ERR_RECORD_CORRUPT"),
      }));
    expect(await rows([])).toEqual({
      code: 0,
      rows: [
        ["kept", "orphaned", "removed"],
        ["open", "active", "active"],
      ],
      warned: false,
    });
    expect(await rows(["--all"])).toEqual({
      code: 1,
      rows: [
        ["done", "removed", "removed"],
        ["kept", "orphaned", "removed"],
        ["open", "active", "active"],
      ],
      warned: true,
    });
    expect(await rows(["--task", "done"])).toEqual({
      code: 0,
      rows: [["done", "removed", "removed"]],
      warned: false,
    });
  });

  it("verify passes, and still passes after a commit on the task branch", async () => {
    root = makeWorkspace(["api"]);
    await wt(root, ["add", "--task", "t1", "--source", "api"]);
    expect((await wt(root, ["verify", "--task", "t1"])).code).toBe(0);
    const path = legPath(root, "t1", "api");
    writeFile(join(path, "feature.txt"), "f\n");
    git(path, "add", "feature.txt");
    git(path, "commit", "-q", "-m", "agent work");
    const r = await wt(root, ["verify", "--task", "t1", "--json"]);
    expect(r.code).toBe(0);
    expect(records(r.stdout)).toEqual([
      {
        v: 1,
        type: "verify",
        task: "t1",
        source: "api",
        path,
        ok: true,
        checks: { containment: true, presence: true, head: true, fingerprint: true },
      },
    ]);
  });

  it.each([
    [
      "a rewound branch",
      "ERR_HEAD_MOVED",
      (root: string) => {
        const p = legPath(root, "t1", "api");
        git(p, "commit", "-q", "--allow-empty", "-m", "x");
        git(p, "checkout", "-q", "--orphan", "tmp");
        git(p, "commit", "-q", "--allow-empty", "-m", "unrelated");
        git(p, "branch", "-f", "ariel/t1", "tmp");
        git(p, "checkout", "-q", "ariel/t1");
      },
    ],
    [
      "another branch",
      "ERR_BRANCH_MISMATCH",
      (root: string) => git(legPath(root, "t1", "api"), "switch", "-q", "-c", "other"),
    ],
    [
      "a new remote",
      "ERR_FINGERPRINT",
      (root: string) => git(join(root, "api"), "remote", "add", "origin", "https://u:pw@example.com/x.git"),
    ],
    [
      "a deleted worktree",
      "ERR_WORKTREE_MISSING",
      (root: string) => rmSync(legPath(root, "t1", "api"), { recursive: true }),
    ],
  ])("verify refuses %s with exit 3 (%s)", async (_n, code, change) => {
    root = makeWorkspace(["api"]);
    await wt(root, ["add", "--task", "t1", "--source", "api"]);
    change(root);
    const r = await wt(root, ["verify", "--task", "t1", "--json"]);
    expect(r.code).toBe(3);
    expect(records(r.stdout)[0]).toMatchObject({ ok: false, code });
    expect(errors(r.stderr)[0]).toMatchObject({ code });
    expect(r.stderr).not.toContain("pw@");
  });

  it("verify exits 77 when a recorded worktree lies outside the worktree root", async () => {
    root = makeWorkspace(["api"]);
    await wt(root, ["add", "--task", "t1", "--source", "api"]);
    const rec = taskFile(root, "t1");
    rec.legs[0]!.worktreePath = join(root, "api");
    writeFile(join(root, ".ariel/tasks/t1.json"), JSON.stringify(rec));
    const r = await wt(root, ["verify", "--task", "t1", "--json"]);
    expect(r.code).toBe(77);
    expect(records(r.stdout)[0]).toMatchObject({ code: "ERR_PATH_ESCAPE" });
  });
});

describe("ariel-worktree remove (clean)", () => {
  it("removes clean worktrees, keeps every branch, closes the record", async () => {
    root = makeWorkspace();
    await wt(root, ["add", "--task", "t1", "--source", "api", "--source", "web"]);
    const before = {
      api: branches(join(root, "api")),
      web: branches(join(root, "web")),
    };
    const r = await wt(root, ["remove", "--task", "t1", "--json"]);
    expect(r.stderr).toBe("");
    expect(r.code).toBe(0);
    expect(records(r.stdout)).toEqual([
      {
        v: 1,
        type: "removal",
        task: "t1",
        source: "api",
        path: legPath(root, "t1", "api"),
        outcome: "removed",
      },
      {
        v: 1,
        type: "removal",
        task: "t1",
        source: "web",
        path: legPath(root, "t1", "web"),
        outcome: "removed",
      },
    ]);
    expect({
      api: branches(join(root, "api")),
      web: branches(join(root, "web")),
    }).toEqual(before);
    // The task's path, not a bare "t1": the temp dir's random name may hold "t1" too.
    expect(git(join(root, "api"), "worktree", "list", "--porcelain")).not.toContain("/.ariel/worktrees/t1/");
    expect(existsSync(join(root, ".ariel/worktrees/t1"))).toBe(false);
    const rec = taskFile(root, "t1");
    expect(rec.state).toBe("closed");
    expect(rec.legs.map((l) => l.state)).toEqual(["removed", "removed"]);
    expect(rec.version).toBe(3);
    const again = await wt(root, ["remove", "--task", "t1"]);
    expect(again.code).toBe(0);
  });

  it("records the leg's HEAD as it is at removal: a commit made in it, on a packed branch", async () => {
    root = makeWorkspace(["api"]);
    await wt(root, ["add", "--task", "t1", "--source", "api"]);
    const leg = legPath(root, "t1", "api");
    git(leg, "commit", "-q", "--allow-empty", "-m", "work");
    const tip = git(leg, "rev-parse", "HEAD");
    git(join(root, "api"), "pack-refs", "--all");
    expect(existsSync(join(root, "api/.git/refs/heads/ariel/t1"))).toBe(false);
    const r = await wt(root, ["remove", "--task", "t1"]);
    expect(r.code).toBe(0);
    expect(taskFile(root, "t1").legs).toEqual([expect.objectContaining({ state: "removed", head: tip })]);
    expect(git(join(root, "api"), "rev-parse", "refs/heads/ariel/t1")).toBe(tip);
  });

  it("removes one leg with --source and leaves the other", async () => {
    root = makeWorkspace();
    await wt(root, ["add", "--task", "t1", "--source", "api", "--source", "web"]);
    const r = await wt(root, ["remove", "--task", "t1", "--source", "web"]);
    expect(r.code).toBe(0);
    expect(r.stdout).toBe(`t1\tweb\tremoved\t${legPath(root, "t1", "web")}\n`);
    expect(existsSync(legPath(root, "t1", "api"))).toBe(true);
    expect(taskFile(root, "t1").state).toBe("active");
  });

  it("dry run lists what it would remove and changes nothing", async () => {
    root = makeWorkspace(["api"]);
    await wt(root, ["add", "--task", "t1", "--source", "api"]);
    const before = { git: gitState(join(root, "api")), files: picture(root) };
    const r = await wt(root, ["remove", "-n", "--detailed-exitcode", "--task", "t1", "--json"]);
    expect(r.code).toBe(2);
    expect(records(r.stdout)).toEqual([
      {
        v: 1,
        type: "plan",
        action: "worktree.remove",
        task: "t1",
        source: "api",
        path: legPath(root, "t1", "api"),
        snapshot: false,
        allowed: [],
      },
    ]);
    expect({ git: gitState(join(root, "api")), files: picture(root) }).toEqual(before);
  });

  it.each([
    [["remove", "--task", "nope"], 66, "ERR_TASK_NOT_FOUND"],
    [["remove", "--task", "t1", "--source", "nope"], 66, "ERR_SOURCE_NOT_FOUND"],
    [["remove"], 64, "ERR_USAGE"],
    [["remove", "--task", "t1", "--allow", "main-worktree"], 64, "ERR_USAGE"],
    [["remove", "--task", "t1", "--allow", "bogus"], 64, "ERR_USAGE"],
    [["restore", "--task", "nope"], 66, "ERR_TASK_NOT_FOUND"],
    [["verify", "--task", "nope"], 66, "ERR_TASK_NOT_FOUND"],
  ])("%j → exit %i %s", async (args, exit, code) => {
    root = makeWorkspace(["api"]);
    await wt(root, ["add", "--task", "t1", "--source", "api"]);
    const r = await wt(root, [...args, "--json"]);
    expect(r.code).toBe(exit);
    expect(errors(r.stderr)[0]).toMatchObject({ code, exit });
    expect(r.stdout).toBe("");
  });
});
