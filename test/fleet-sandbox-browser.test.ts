/**
 * The dashboard's start form with a sandbox, in a real headless Chromium: the run starts in its
 * worktree and its sandbox (the fleet API's view says so), its card shows it, and its commit is
 * on its task's branch when it ends. A screenshot goes to artifacts/screenshots/.
 */
import { join } from "node:path";
import type { Browser } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { CHROMIUM, launch, newPage, shoot } from "./browser_helpers.ts";
import { monitorGone, register, type Server, serve, stateHome, workspace } from "./fleet_helpers.ts";
import { GIT_TEST_ENV, git, removeDir } from "./helpers/git.ts";
import { HAVE_BWRAP } from "./sandbox_helpers.ts";

describe.skipIf(!CHROMIUM || (!HAVE_BWRAP && !process.env.CI))("the dashboard starts a sandboxed run", () => {
  let browser: Browser;
  let server: Server;
  let state: ReturnType<typeof stateHome>;
  let root: string;
  let hash: string;

  beforeAll(async () => {
    state = stateHome();
    root = workspace(["api"]);
    hash = await register(state.dir, root);
    server = await serve([], { ...state.env, ...GIT_TEST_ENV });
    browser = await launch();
  });

  afterAll(async () => {
    await browser?.close();
    if (root) await monitorGone(root);
    await server?.stop();
    for (const d of [state?.dir, root]) if (d) removeDir(d);
  });

  it("from the form: in its worktree, in a sandbox without network; the card says so; the commit comes home", async () => {
    const problems: string[] = [];
    const page = await newPage(browser, problems);
    await page.goto(server.url);
    await page.getByText("Start a run").click();
    await page.getByLabel("Workspace", { exact: true }).selectOption(hash);
    await page.getByLabel("Source", { exact: true }).fill("api");
    await page
      .getByLabel("Command", { exact: true })
      .fill("git commit -q --allow-empty -m from-the-dashboard");
    await page.getByLabel("Name", { exact: true }).fill("boxed");
    await page.getByLabel("in a sandbox (writes its worktree only)").check();
    await page.getByLabel("Network", { exact: true }).selectOption("none");
    await page.getByRole("button", { name: "Start" }).click();
    const card = page.getByRole("listitem", { name: "Run boxed" });
    await card.getByText("no network").waitFor({ timeout: 20_000 });
    const runs = (await (await fetch(`${server.url}api/workspaces/${hash}/runs`)).json()) as {
      name: string;
      task: string;
      state: string;
      sandbox?: { net: string; write: string[] };
    }[];
    const run = runs.find((r) => r.name === "boxed")!;
    expect(run.sandbox?.net).toBe("none");
    expect(run.sandbox?.write[0]).toBe(join(root, ".ariel/worktrees", run.task, "api"));
    await card.getByText("exited").waitFor({ timeout: 20_000 });
    expect(git(join(root, "api"), "log", "--format=%s", "-1", `ariel/${run.task}`)).toBe(
      "from-the-dashboard",
    );
    await shoot(page, "dashboard-start-sandboxed");
    expect(problems).toEqual([]);
    await page.close();
  });
});
