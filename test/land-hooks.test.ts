/**
 * A land's lifecycle hooks (docs/lifecycle.md): `pre-land` runs after every check and before any
 * branch moves, and its failure refuses the land (3, nothing landed); `post-land` runs once every
 * leg landed, and its failure is exit 1 with the land standing; `--no-hooks` runs neither, nor the
 * pre-remove of a `--remove`.
 */
import { existsSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { commitAll, git, initRepo, removeDir, tempDir } from "./helpers/git.ts";
import { errors, records, wt } from "./worktree-fixtures.ts";

let ws: string;
let state: string;
let out: string;
const run = (args: string[]) => wt(ws, args, { env: { ARIEL_STATE_HOME: state, OUT: out } });

/** The user's own (untracked) workspace config with these hooks. */
function hooks(h: Record<string, string>): void {
  writeFileSync(join(ws, "ariel.config.json"), `${JSON.stringify({ hooks: h })}\n`);
}

/** Task t1 over api with one commit on its branch; returns main's head before the land. */
async function taskWithWork(): Promise<string> {
  expect((await run(["add", "--source", "api", "--task", "t1", "--no-hooks"])).code).toBe(0);
  const leg = join(ws, ".ariel/worktrees/t1/api");
  writeFileSync(join(leg, "feature.txt"), "done\n");
  commitAll(leg, "feature");
  return git(join(ws, "api"), "rev-parse", "main");
}

beforeEach(() => {
  ws = tempDir("ariel-land-hooks-");
  state = tempDir("ariel-land-hooks-state-");
  out = tempDir("ariel-land-hooks-out-");
  initRepo(join(ws, "api"), { "README.md": "api\n" });
});
afterEach(() => {
  for (const d of [ws, state, out]) removeDir(d);
});

describe("land runs pre-land and post-land", () => {
  it("a failing pre-land refuses the land: exit 3, ERR_HOOK_REFUSED, main unmoved", async () => {
    const before = await taskWithWork();
    hooks({ "pre-land": "echo no >&2; exit 1", "post-land": 'touch "$OUT/post"' });
    const r = await run(["land", "--task", "t1", "--json"]);
    expect(r.code).toBe(3);
    expect(errors(r.stderr).map((e) => e.code)).toEqual(["ERR_HOOK_REFUSED"]);
    expect(git(join(ws, "api"), "rev-parse", "main")).toBe(before);
    expect(existsSync(join(out, "post"))).toBe(false);
  });

  it("pre-land then post-land run in the leg with ARIEL_HOOK set; the land lands", async () => {
    const before = await taskWithWork();
    hooks({
      "pre-land": 'echo "$ARIEL_HOOK $(git rev-parse --abbrev-ref HEAD)" >> "$OUT/log"',
      "post-land":
        'echo "$ARIEL_HOOK $(git -C "$ARIEL_WORKSPACE_ROOT/api" log -1 --format=%s main)" >> "$OUT/log"',
    });
    const r = await run(["land", "--task", "t1", "--strategy", "ff"]);
    expect(r.code, r.stderr).toBe(0);
    expect(readFileSync(join(out, "log"), "utf8")).toBe("pre-land ariel/t1\npost-land feature\n");
    expect(git(join(ws, "api"), "rev-parse", "main")).not.toBe(before);
  });

  it("a failing post-land: the land stands, exit 1 names the retry", async () => {
    await taskWithWork();
    hooks({ "post-land": "exit 4" });
    const r = await run(["land", "--task", "t1", "--strategy", "ff"]);
    expect(r.code).toBe(1);
    expect(r.stderr).toContain("ariel-worktree hooks run --task t1 --event post-land");
    expect(git(join(ws, "api"), "log", "-1", "--format=%s", "main")).toBe("feature");
  });

  it("--no-hooks runs neither", async () => {
    await taskWithWork();
    hooks({ "pre-land": "exit 1", "post-land": 'touch "$OUT/post"' });
    const r = await run(["land", "--task", "t1", "--strategy", "ff", "--no-hooks"]);
    expect(r.code, r.stderr).toBe(0);
    expect(existsSync(join(out, "post"))).toBe(false);
    expect(git(join(ws, "api"), "log", "-1", "--format=%s", "main")).toBe("feature");
  });

  it("--remove --no-hooks runs no hook of the removal either (its pre-remove)", async () => {
    await taskWithWork();
    hooks({ "pre-remove": 'touch "$OUT/pre-remove"', "post-land": 'touch "$OUT/post"' });
    const plan = await run([
      "land",
      "-n",
      "--task",
      "t1",
      "--strategy",
      "ff",
      "--remove",
      "--no-hooks",
      "--json",
    ]);
    expect(plan.code, plan.stderr).toBe(0);
    expect(plan.stdout).not.toContain('"hook.');
    const r = await run(["land", "--task", "t1", "--strategy", "ff", "--remove", "--no-hooks"]);
    expect(r.code, r.stderr).toBe(0);
    expect(existsSync(join(out, "pre-remove"))).toBe(false);
    expect(existsSync(join(out, "post"))).toBe(false);
    expect(existsSync(join(ws, ".ariel/worktrees/t1/api"))).toBe(false);
    expect(git(join(ws, "api"), "log", "-1", "--format=%s", "main")).toBe("feature");
  });

  it("--remove without --no-hooks runs the removal's pre-remove", async () => {
    await taskWithWork();
    hooks({ "pre-remove": 'touch "$OUT/pre-remove"' });
    const r = await run(["land", "--task", "t1", "--strategy", "ff", "--remove"]);
    expect(r.code, r.stderr).toBe(0);
    expect(existsSync(join(out, "pre-remove"))).toBe(true);
  });

  it("the refusal names the hook, its exit and its log, and hints at --no-hooks", async () => {
    await taskWithWork();
    hooks({ "pre-land": "echo no >&2; exit 1" });
    const r = await run(["land", "--task", "t1", "--json"]);
    const [e] = errors(r.stderr);
    const log = join(ws, ".ariel/hooks/t1.log");
    expect(e).toEqual({
      v: 1,
      type: "error",
      code: "ERR_HOOK_REFUSED",
      message: 'api: pre-land hook "echo no >&2; exit 1" exited 1; nothing was landed',
      hint: `read ${log} and fix the cause, or land with --no-hooks`,
      exit: 3,
      task: "t1",
      source: "api",
      event: "pre-land",
      log,
    });
    expect(readFileSync(log, "utf8")).toContain("no\n");
  });
});

describe("the legs a land's hooks run in", () => {
  /**
   * Task t1 over api, web and lib: api and lib have a commit, web none (nothing to land), and
   * lib's worktree is removed (it lands from its branch). Hooks log their event and source.
   */
  async function threeLegs(): Promise<void> {
    for (const s of ["web", "lib"]) initRepo(join(ws, s), { "README.md": `${s}\n` });
    const add = await run([
      "add",
      "--task",
      "t1",
      "--source",
      "api",
      "--source",
      "web",
      "--source",
      "lib",
      "--no-hooks",
    ]);
    expect(add.code, add.stderr).toBe(0);
    for (const s of ["api", "lib"]) {
      const leg = join(ws, ".ariel/worktrees/t1", s);
      writeFileSync(join(leg, "feature.txt"), `${s}\n`);
      commitAll(leg, "feature");
    }
    expect((await run(["remove", "--task", "t1", "--source", "lib", "--no-hooks"])).code).toBe(0);
    hooks({
      "pre-land": 'echo "$ARIEL_HOOK $ARIEL_SOURCE" >> "$OUT/log"',
      "post-land": 'echo "$ARIEL_HOOK $ARIEL_SOURCE" >> "$OUT/log"',
    });
  }

  it("only a leg that lands and still has its worktree: not one with nothing to land, not a removed one", async () => {
    await threeLegs();
    const r = await run(["land", "--task", "t1", "--strategy", "ff"]);
    expect(r.code, r.stderr).toBe(0);
    expect(readFileSync(join(out, "log"), "utf8")).toBe("pre-land api\npost-land api\n");
    for (const s of ["api", "lib"])
      expect(git(join(ws, s), "log", "-1", "--format=%s", "main")).toBe("feature");
  });

  it("a dry run plans the same hooks, and runs none", async () => {
    await threeLegs();
    const r = await run(["land", "-n", "--task", "t1", "--strategy", "ff", "--json"]);
    expect(r.code, r.stderr).toBe(0);
    const hooksPlanned = records(r.stdout)
      .filter((p) => String(p.action).startsWith("hook."))
      .map((p) => [p.action, p.event, p.source]);
    expect(hooksPlanned).toEqual([
      ["hook.run", "pre-land", "api"],
      ["hook.run", "post-land", "api"],
    ]);
    expect(existsSync(join(out, "log"))).toBe(false);
  });

  it("nothing to land: no hook is planned or run", async () => {
    expect((await run(["add", "--source", "api", "--task", "t1", "--no-hooks"])).code).toBe(0);
    hooks({ "pre-land": 'touch "$OUT/pre"', "post-land": 'touch "$OUT/post"' });
    const plan = await run(["land", "-n", "--task", "t1", "--json"]);
    expect(plan.code, plan.stderr).toBe(0);
    expect(records(plan.stdout).filter((p) => String(p.action).startsWith("hook."))).toEqual([]);
    const r = await run(["land", "--task", "t1"]);
    expect(r.code, r.stderr).toBe(0);
    expect([existsSync(join(out, "pre")), existsSync(join(out, "post"))]).toEqual([false, false]);
  });

  it("a refused plan plans no hook", async () => {
    await taskWithWork();
    writeFileSync(join(ws, "api", "README.md"), "dirty\n");
    hooks({ "pre-land": 'touch "$OUT/pre"' });
    const plan = await run(["land", "-n", "--task", "t1", "--strategy", "ff", "--json"]);
    expect(plan.code).toBe(3);
    expect(records(plan.stdout).filter((p) => String(p.action).startsWith("hook."))).toEqual([]);
    expect(existsSync(join(out, "pre"))).toBe(false);
  });
});
