/**
 * Dry-run plans name the lifecycle (docs/lifecycle.md): `add -n` lists the ports a new task
 * would lease and its post-create hooks, `remove -n` its pre-remove hooks, `land -n` its
 * pre-land and post-land hooks (and with --remove the pre-remove ones), each with whose it is and
 * whether it would run: a repository's hook not trusted is listed as skipped, with the warning
 * the real run prints. Real git, the built ariel-worktree; the plan changes nothing: no hook
 * runs, no port is leased, no trust is asked, the state dirs are byte for byte as before.
 */
import { readdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { arielIn, records } from "./helpers/cli.ts";
import { commitAll, GIT_TEST_ENV, initRepo, removeDir, tempDir } from "./helpers/git.ts";
import { picture, wt } from "./worktree-fixtures.ts";

let ws: string;
let state: string;
let out: string;
const run = (args: string[]) => wt(ws, args, { env: { ARIEL_STATE_HOME: state, OUT: out } });

/** What a hook leaves behind when it runs: a file in $OUT named after its event. */
const mark = (event: string) => `touch "$OUT/${event}"`;
const REPO_HOOKS = { "post-create": ["make", "setup"], "pre-remove": mark("pre-remove") };

/**
 * Every file of the workspace, the user state dir and the hooks' output dir; git's loose objects
 * left out (land's check writes its merges as objects only), and the state dir's cache of git's
 * version (any command writes it once).
 */
function everything() {
  const keep = (p: Record<string, string>) =>
    Object.fromEntries(
      Object.entries(p).filter(([k]) => !k.includes(".git/objects/") && k !== "git-version"),
    );
  return { ws: keep(picture(ws)), state: keep(picture(state)), out: picture(out) };
}

beforeEach(() => {
  ws = tempDir("ariel-plans-");
  state = tempDir("ariel-plans-state-");
  out = tempDir("ariel-plans-out-");
  // The repository's committed config (its hooks need trust; its port does not), and the
  // user's own untracked workspace config.
  initRepo(join(ws, "api"), {
    "README.md": "api\n",
    "ariel.config.json": `${JSON.stringify({ hooks: REPO_HOOKS, ports: ["api"] })}\n`,
  });
  writeFileSync(
    join(ws, "ariel.config.json"),
    `${JSON.stringify({
      hooks: {
        "post-create": mark("post-create"),
        "post-restore": mark("post-restore"),
        "pre-land": mark("pre-land"),
        "post-land": mark("post-land"),
      },
      ports: ["web"],
      portRange: [21000, 21999],
    })}\n`,
  );
});
afterEach(() => {
  for (const d of [ws, state, out]) removeDir(d);
});

describe("add -n names the ports and the post-create hooks", () => {
  it("lists them after the legs, the repository's untrusted hook as skipped, and changes nothing", async () => {
    const before = everything();
    const r = await run(["add", "-n", "--source", "api", "--task", "t1"]);
    const repoFile = join(ws, "api/ariel.config.json");
    expect([r.code, r.stdout]).toEqual([
      0,
      [
        `add\tt1\tapi\tariel/t1\t${join(ws, ".ariel/worktrees/t1/api")}`,
        "port\tt1\tweb\t21000-21999",
        "port\tt1\tapi\t21000-21999",
        `skip-hook\tt1\tpost-create\tapi\tuntrusted\t${repoFile}\t["make","setup"]`,
        `hook\tt1\tpost-create\tapi\tyours\t${join(ws, "ariel.config.json")}\t${mark("post-create")}`,
        "",
      ].join("\n"),
    ]);
    expect(r.stderr).toBe(
      `ariel-worktree: warning: would skip the post-create hook of ${repoFile} (the repository's, not approved): ["make","setup"]\n` +
        `ariel-worktree: hint: review ${repoFile}, then approve its hooks: ariel-worktree -C ${ws} trust --source api\n`,
    );
    expect(everything()).toEqual(before);
  });

  it("the real add then does what the plan said: runs the listed hook, skips the other with the same warning, leases the ports", async () => {
    const plan = await run(["add", "-n", "--json", "--source", "api", "--task", "t1"]);
    const real = await run(["add", "--json", "--source", "api", "--task", "t1"]);
    expect(real.code).toBe(0);
    const planned = records(plan.stdout);
    const ran = planned.filter((r) => r.action === "hook.run").map((r) => r.event);
    expect(readdirSync(out)).toEqual(ran);
    const said = (stderr: string) =>
      records(stderr).map((w) => ({
        ...w,
        message: String(w.message).replace(/^(would skip|skipped) /, ""),
      }));
    expect(said(real.stderr)).toEqual(said(plan.stderr));
    expect(Object.keys(records(real.stdout)[0]?.ports as object)).toEqual(
      planned.filter((r) => r.action === "port.lease").map((r) => r.name),
    );
  });

  it("--json: port.lease and hook.run/hook.skip plan records; trusted once approved, changed after an edit", async () => {
    expect((await run(["trust", "--source", "api"])).code).toBe(0);
    const before = everything();
    const r = await run(["add", "-n", "--json", "--source", "api", "--task", "t1"]);
    expect([r.code, r.stderr]).toEqual([0, ""]);
    const leg = join(ws, ".ariel/worktrees/t1/api");
    const hookRecord = (file: string, hook: unknown, argv: string[], origin: string) => ({
      v: 1,
      type: "plan",
      action: "hook.run",
      task: "t1",
      event: "post-create",
      source: "api",
      path: leg,
      origin,
      file,
      hook,
      argv,
      trusted: true,
    });
    expect(records(r.stdout).slice(1)).toEqual([
      { v: 1, type: "plan", action: "port.lease", task: "t1", name: "web", range: [21000, 21999] },
      { v: 1, type: "plan", action: "port.lease", task: "t1", name: "api", range: [21000, 21999] },
      hookRecord(join(ws, "api/ariel.config.json"), ["make", "setup"], ["make", "setup"], "repository"),
      hookRecord(
        join(ws, "ariel.config.json"),
        mark("post-create"),
        ["sh", "-c", mark("post-create")],
        "workspace",
      ),
    ]);
    expect(everything()).toEqual(before);

    // A changed hook is no longer the approved one: skipped, said so.
    writeFileSync(
      join(ws, "api/ariel.config.json"),
      `${JSON.stringify({ hooks: { ...REPO_HOOKS, "post-create": "make all" }, ports: ["api"] })}\n`,
    );
    commitAll(join(ws, "api"), "change the hook");
    const changed = await run(["add", "-n", "--json", "--source", "api", "--task", "t1"]);
    expect(records(changed.stdout)[3]).toMatchObject({
      action: "hook.skip",
      hook: "make all",
      trusted: false,
      reason: "changed",
    });
    expect(records(changed.stderr)).toMatchObject([
      {
        type: "warning",
        code: "WARN_HOOK_UNTRUSTED",
        message: `would skip the post-create hook of ${join(ws, "api/ariel.config.json")} (the repository's, changed since it was approved): make all`,
        reason: "changed",
      },
    ]);
  });

  it("--no-hooks: the ports only; no config at all: the plan of old", async () => {
    const noHooks = await run(["add", "-n", "--no-hooks", "--source", "api", "--task", "t1"]);
    expect([noHooks.code, noHooks.stderr]).toEqual([0, ""]);
    expect(noHooks.stdout.split("\n").slice(1)).toEqual([
      "port\tt1\tweb\t21000-21999",
      "port\tt1\tapi\t21000-21999",
      "",
    ]);

    const bare = tempDir("ariel-plans-bare-");
    try {
      initRepo(join(bare, "api"), { "README.md": "api\n" });
      const r = await wt(bare, ["add", "-n", "--source", "api", "--task", "t1"], {
        env: { ARIEL_STATE_HOME: state },
      });
      expect([r.code, r.stdout, r.stderr]).toEqual([
        0,
        `add\tt1\tapi\tariel/t1\t${join(bare, ".ariel/worktrees/t1/api")}\n`,
        "",
      ]);
    } finally {
      removeDir(bare);
    }
  });
});

describe("remove -n and land -n name their hooks", () => {
  /** Task t1 over api (no hooks run), with one commit on its branch. */
  async function taskWithWork(): Promise<string> {
    expect((await run(["add", "--source", "api", "--task", "t1", "--no-hooks"])).code).toBe(0);
    const leg = join(ws, ".ariel/worktrees/t1/api");
    writeFileSync(join(leg, "feature.txt"), "done\n");
    commitAll(leg, "feature");
    return leg;
  }

  it("remove -n: the pre-remove hook of the legs it removes, untrusted then trusted", async () => {
    await taskWithWork();
    const repoFile = join(ws, "api/ariel.config.json");
    const before = everything();
    const r = await run(["remove", "-n", "--task", "t1"]);
    expect([r.code, r.stdout.split("\n").slice(1)]).toEqual([
      0,
      [`skip-hook\tt1\tpre-remove\tapi\tuntrusted\t${repoFile}\t${mark("pre-remove")}`, ""],
    ]);
    expect(r.stderr).toContain(`would skip the pre-remove hook of ${repoFile}`);
    expect(everything()).toEqual(before);

    expect((await run(["trust", "--source", "api"])).code).toBe(0);
    const trusted = await run(["remove", "-n", "--task", "t1"]);
    expect([trusted.stdout.split("\n").slice(1), trusted.stderr]).toEqual([
      [`hook\tt1\tpre-remove\tapi\ttrusted\t${repoFile}\t${mark("pre-remove")}`, ""],
      "",
    ]);
    const none = await run(["remove", "-n", "--no-hooks", "--task", "t1"]);
    expect(none.stdout.split("\n").length).toBe(2); // the leg's row only
  });

  it("land -n: pre-land and post-land, and with --remove the removal's pre-remove; nothing run", async () => {
    const leg = await taskWithWork();
    const root = join(ws, "ariel.config.json");
    const before = everything();
    const r = await run(["land", "-n", "--json", "--task", "t1", "--remove"]);
    expect(r.code).toBe(0);
    const recs = records(r.stdout);
    expect(recs[0]).toMatchObject({ action: "task.land", source: "api" });
    expect(recs.slice(1).map((x) => [x.action, x.event, x.file, x.path])).toEqual([
      ["hook.run", "pre-land", root, leg],
      ["hook.run", "post-land", root, leg],
      ["hook.skip", "pre-remove", join(ws, "api/ariel.config.json"), leg],
    ]);
    expect(everything()).toEqual(before);

    const plain = await run(["land", "-n", "--no-hooks", "--task", "t1"]);
    expect([plain.code, plain.stdout.split("\n").length, plain.stderr]).toEqual([0, 2, ""]);
  });
});

describe("restore -n names the ports it leases again and the post-restore hooks", () => {
  it("a closed task gave its ports back: both leased again; --no-hooks: the ports only", async () => {
    expect((await run(["add", "--source", "api", "--task", "t1", "--no-hooks"])).code).toBe(0);
    expect((await run(["remove", "--task", "t1", "--no-hooks"])).code).toBe(0);
    const before = everything();
    const r = await run(["restore", "-n", "--task", "t1"]);
    const ports = ["port\tt1\tweb\t21000-21999", "port\tt1\tapi\t21000-21999"];
    expect([r.code, r.stdout.split("\n").slice(1)]).toEqual([
      0,
      [
        ...ports,
        `hook\tt1\tpost-restore\tapi\tyours\t${join(ws, "ariel.config.json")}\t${mark("post-restore")}`,
        "",
      ],
    ]);
    expect(everything()).toEqual(before);
    const none = await run(["restore", "-n", "--no-hooks", "--task", "t1"]);
    expect(none.stdout.split("\n").slice(1)).toEqual([...ports, ""]);
  });
});

describe("gc -n names the pre-remove hooks of the tasks it removes", () => {
  it("after the gc plan; --no-hooks: none", async () => {
    expect((await run(["add", "--source", "api", "--task", "t1", "--no-hooks"])).code).toBe(0);
    expect((await run(["trust", "--source", "api"])).code).toBe(0);
    const before = everything();
    const gc = ["gc", "-n", "--state", "active", "--older-than", "0"];
    const r = await run(gc);
    const lines = r.stdout.split("\n");
    expect([r.code, lines[0]?.split("\t")[0], lines.slice(1)]).toEqual([
      0,
      "task.remove",
      [`hook\tt1\tpre-remove\tapi\ttrusted\t${join(ws, "api/ariel.config.json")}\t${mark("pre-remove")}`, ""],
    ]);
    expect(everything()).toEqual(before);
    expect((await run([...gc, "--no-hooks"])).stdout.split("\n").length).toBe(2);
  });
});

describe("ariel-spawn --isolate -n names them too", () => {
  const spawn = (args: string[]) =>
    arielIn("spawn", ws, args, { env: { ...GIT_TEST_ENV, ARIEL_STATE_HOME: state, OUT: out } });

  it("the new task's ports, its post-create hooks and the pre-remove hooks of the run's end", async () => {
    const before = everything();
    const r = await spawn(["--source", "api", "--isolate", "--task", "t1", "-n", "--", "make"]);
    const leg = join(ws, ".ariel/worktrees/t1/api");
    const repoFile = join(ws, "api/ariel.config.json");
    expect([r.code, r.stdout]).toEqual([
      0,
      [
        `api\t${leg}\tariel/t1\tmake`,
        "port\tt1\tweb\t21000-21999",
        "port\tt1\tapi\t21000-21999",
        `skip-hook\tt1\tpost-create\tapi\tuntrusted\t${repoFile}\t["make","setup"]`,
        `hook\tt1\tpost-create\tapi\tyours\t${join(ws, "ariel.config.json")}\t${mark("post-create")}`,
        `skip-hook\tt1\tpre-remove\tapi\tuntrusted\t${repoFile}\t${mark("pre-remove")}`,
        "",
      ].join("\n"),
    ]);
    expect(r.stderr).toContain(`ariel-spawn: warning: would skip the pre-remove hook of ${repoFile}`);
    expect(everything()).toEqual(before);
  });

  it("--keep: no pre-remove; --detach --json: the same records after the run's", async () => {
    const r = await spawn([
      "--source",
      "api",
      "--isolate",
      "--keep",
      "--task",
      "t1",
      "-n",
      "--json",
      "--",
      "make",
    ]);
    expect(records(r.stdout).map((x) => [x.action, x.event ?? x.name])).toEqual([
      ["spawn.run", undefined],
      ["port.lease", "web"],
      ["port.lease", "api"],
      ["hook.skip", "post-create"],
      ["hook.run", "post-create"],
    ]);
    const before = everything();
    const d = await spawn([
      "--source",
      "api",
      "--isolate",
      "--no-hooks",
      "-d",
      "--task",
      "t1",
      "-n",
      "--json",
      "--",
      "make",
    ]);
    expect([d.code, d.stderr]).toEqual([0, ""]);
    expect(records(d.stdout).map((x) => [x.action, x.name])).toEqual([
      ["run.start", null],
      ["port.lease", "web"],
      ["port.lease", "api"],
    ]);
    expect(everything()).toEqual(before);
  });
});
