/**
 * One agent, one place (issue 19, decision 0055): a task has one agent unless `--join`, a
 * checkout one detached agent unless `--shared`, a fan-out one task per source, a start failure
 * is immediate, and spawn without `--source` works in the source the user stands in.
 */
import { mkdirSync } from "node:fs";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { startFailureIsImmediate } from "./e2e/one_place_cases.ts";
import { type CliName, records, runAriel } from "./helpers/cli.ts";
import { cleanUp, multiRepoWorkspace, runs, TEST_ENV } from "./runs_helpers.ts";
import { REPORT } from "./spawn_helpers.ts";

afterEach(() => cleanUp());

describe("a start failure is immediate", () => {
  it("spawn --detach --isolate of a missing command: 127, the message, its clean worktree removed", async () => {
    await startFailureIsImmediate();
  });
});

describe("without --source, spawn and add work in the source the user stands in", () => {
  const inDir = (name: CliName, cwd: string, args: readonly string[]) =>
    runAriel(name, args, { cwd, env: TEST_ENV });

  it("spawn --detach --isolate --name from inside a repo of a multi-repo workspace", async () => {
    const root = multiRepoWorkspace(["api", "web"]);
    mkdirSync(join(root, "api/src"));
    const r = await inDir("spawn", join(root, "api/src"), [
      "--detach",
      "--isolate",
      "--name",
      "fix-login",
      "--json",
      "--",
      ...REPORT,
    ]);
    expect([r.code, r.stderr]).toEqual([0, ""]);
    const [rec] = records(r.stdout);
    expect(rec).toMatchObject({ name: "fix-login", source: "api", branch: `ariel/${rec?.task}` });
    expect(rec?.task).toMatch(/^api-[a-z0-9]{6}$/);
    expect(rec?.cwd).toBe(join(root, ".ariel/worktrees", rec?.task as string, "api"));
    const w = await runs(root, ["wait", "fix-login"]);
    expect(w.code).toBe(0);
    const out = JSON.parse((await runs(root, ["logs", "fix-login"])).stdout);
    expect(out.env.ARIEL_SOURCE).toBe("api");
  });

  it("a foreground spawn runs in the source; from the workspace root, in the root", async () => {
    const root = multiRepoWorkspace(["api", "web"]);
    const inWeb = await inDir("spawn", join(root, "web"), ["--", ...REPORT]);
    expect(inWeb.code).toBe(0);
    expect(JSON.parse(inWeb.stdout)).toMatchObject({ cwd: join(root, "web"), env: { ARIEL_SOURCE: "web" } });
    const atRoot = await inDir("spawn", root, ["--", ...REPORT]);
    expect(atRoot.code).toBe(0);
    expect(JSON.parse(atRoot.stdout)).toMatchObject({ cwd: root, env: { ARIEL_SOURCE: "." } });
    const isolatedAtRoot = await inDir("spawn", root, ["--isolate", "--", ...REPORT]);
    expect(isolatedAtRoot.code).toBe(66);
    expect(isolatedAtRoot.stderr).toContain(`workspace root ${root} is not a git checkout`);
  });

  it("ariel-worktree add without --source makes the leg of the source the cwd is in", async () => {
    const root = multiRepoWorkspace(["api", "web"]);
    const r = await inDir("worktree", join(root, "web"), ["add", "--task", "t1", "--json"]);
    expect([r.code, r.stderr]).toEqual([0, ""]);
    const [task] = records(r.stdout);
    expect((task?.legs as { source: string }[] | undefined)?.map((l) => l.source)).toEqual(["web"]);
    const bare = await inDir("worktree", root, ["add", "--task", "t2"]);
    expect(bare.code).toBe(64);
    expect(bare.stderr).toContain("add needs at least one --source NAME");
  });
});
