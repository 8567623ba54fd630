/**
 * What agents report, on the dashboard, in a real headless Chromium (docs/runs.md, "What agents
 * report"): a fake Claude Code whose wired hooks report (test/fixtures/agents/claude) is under
 * "Needs you" with why it waits in its own words and the tool it asks to use; answered, it moves
 * on with the tool done. An agent that reports nothing waits by its screen: no words of its own,
 * no last tool. No console errors. Screenshots go to artifacts/screenshots/.
 */
import { join } from "node:path";
import type { Browser, Page } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { CHROMIUM, launch, newPage, shoot } from "./browser_helpers.ts";
import { register, type Server, serve, stateHome } from "./fleet_helpers.ts";
import { REPO_ROOT, records } from "./helpers/cli.ts";
import { cleanUp, runs, runsWorkspace, spawnD } from "./runs_helpers.ts";

const CLAUDE = join(REPO_ROOT, "test/fixtures/agents/claude");

describe.skipIf(!CHROMIUM)("the dashboard shows what agents report", () => {
  let browser: Browser;
  let server: Server;
  let page: Page;
  let root: string;
  const problems: string[] = [];
  const ids: Record<string, string> = {};

  beforeAll(async () => {
    root = runsWorkspace();
    const state = stateHome();
    await register(state.dir, root);
    server = await serve([], state.env);
    const started: [string, Record<string, string>][] = [
      ["asks", {}],
      ["silent", { FAKE_CLAUDE_NO_HOOKS: "1" }],
    ];
    for (const [name, env] of started) {
      const r = await spawnD(
        root,
        ["--json", "--shared", "--tty", "--size", "70x14", "--name", name, "--", CLAUDE],
        {
          env,
        },
      );
      if (r.code !== 0) throw new Error(`spawn failed (${r.code}): ${r.stderr}`);
      ids[name] = records(r.stdout)[0]!.runId as string;
    }
    browser = await launch();
    page = await newPage(browser, problems, { width: 1300, height: 1000 });
    await page.goto(server.url);
  });

  afterAll(async () => {
    if (page) await shoot(page, "agents report");
    await browser?.close();
    await server?.stop();
    cleanUp();
  });

  const card = (group: string, name: string) => page.locator(`#${group} li.run[data-run="${ids[name]}"]`);

  it("the agent that asks: under “Needs you”, why in its own words, the tool it asks to use", async () => {
    await card("running", "asks").waitFor({ timeout: 20_000 });
    await runs(root, ["send", "asks", "ask", "--enter"]);
    const asking = card("needs", "asks");
    await asking.waitFor({ timeout: 20_000 });
    await expect
      .poll(() => asking.locator(".waiting-reason").textContent(), { timeout: 10_000 })
      .toBe("Claude needs your permission to use Bash");
    await expect
      .poll(() => asking.locator(".facts .last-tool").textContent(), { timeout: 10_000 })
      .toBe("last tool Bash (running)");
    expect(await asking.locator(".activity").textContent()).toBe("waiting");
    await shoot(page, "agents report needs you");
  });

  it("an agent that reports nothing waits by its screen: its question is its last line, no words of its own", async () => {
    await runs(root, ["send", "silent", "looks", "--enter"]);
    const waiting = card("needs", "silent");
    await waiting.waitFor({ timeout: 30_000 });
    await expect
      .poll(() => waiting.locator(".last-line").textContent(), { timeout: 10_000 })
      .toBe("The README asks: Do you want to proceed? (y/n)");
    expect(await waiting.locator(".waiting-reason").count()).toBe(0);
    expect(await waiting.locator(".last-tool").count()).toBe(0);
  });

  it("answered, it moves on: out of “Needs you”, its last tool done, no reason to wait", async () => {
    await runs(root, ["send", "asks", "1", "--enter"]);
    const moved = card("running", "asks");
    await moved.waitFor({ timeout: 20_000 });
    await expect
      .poll(() => moved.locator(".facts .last-tool").textContent(), { timeout: 10_000 })
      .toBe("last tool Bash (done)");
    await expect.poll(() => moved.locator(".activity").textContent(), { timeout: 10_000 }).toBe("idle");
    expect(await moved.locator(".waiting-reason").count()).toBe(0);
    expect(await page.locator("#needs li.run").count()).toBe(1); // the silent one still asks
    expect(problems).toEqual([]);
  });
});
