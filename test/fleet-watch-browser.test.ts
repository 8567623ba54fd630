/**
 * The dashboard as a person watching agents uses it, in a real headless Chromium: "Needs you"
 * first (the agent that asks), then running, then ended; each run's name, source, task, branch,
 * duration (ticking while it runs, final once it ended), exit status and last line of output,
 * updated as the run goes on; a tty run's terminal opened, typed into and closed from the
 * keyboard alone. No console errors. Screenshots go to artifacts/screenshots/.
 */
import { join } from "node:path";
import type { Browser, Page } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { CHROMIUM, launch, newPage, shoot } from "./browser_helpers.ts";
import { register, type Server, serve, stateHome, ticker } from "./fleet_helpers.ts";
import { REPO_ROOT } from "./helpers/cli.ts";
import { cleanUp, NODE, runsWorkspace, startRun } from "./runs_helpers.ts";

describe.skipIf(!CHROMIUM)("the dashboard for a person watching agents", () => {
  let browser: Browser;
  let server: Server;
  let page: Page;
  const problems: string[] = [];
  const ids: Record<string, string> = {};

  beforeAll(async () => {
    const root = runsWorkspace();
    const state = stateHome();
    await register(state.dir, root);
    server = await serve([], state.env);
    const agent = join(REPO_ROOT, "test/fixtures/fake-agent.mjs");
    const started = {
      ticker: ["--isolate", "--task", "t1", "--name", "ticker", "--", ...ticker(1200, 250)],
      done: ["--name", "done", "--", "sh", "-c", "echo working; sleep 1; echo 'gave up: no tests'; exit 3"],
      asker: ["--tty", "--size", "60x12", "--agent", "claude", "--name", "asker", "--", NODE, agent],
    };
    for (const [name, args] of Object.entries(started))
      ids[name] = (await startRun(root, args)).runId as string;
    browser = await launch();
    page = await newPage(browser, problems, { width: 1300, height: 1000 });
    await page.goto(server.url);
  });

  afterAll(async () => {
    if (page) await shoot(page, "watching agents");
    await browser?.close();
    await server?.stop();
    cleanUp();
  });

  const card = (group: string, name: string) => page.locator(`#${group} li.run[data-run="${ids[name]}"]`);
  const lineNumber = async (name: string) =>
    Number(
      /^line (\d+)$/.exec((await card("running", name).locator(".last-line").textContent()) ?? "")?.[1] ?? 0,
    );

  it("a running run: name first, source, task, branch, a duration that ticks and a last line that moves on", async () => {
    const ticking = card("running", "ticker");
    await expect.poll(() => lineNumber("ticker"), { timeout: 15_000 }).toBeGreaterThan(0);
    const seen = await lineNumber("ticker");
    await expect.poll(() => lineNumber("ticker"), { timeout: 15_000 }).toBeGreaterThan(seen);
    expect(await ticking.locator(".run-name").textContent()).toBe("ticker");
    expect(await ticking.locator(".facts").textContent()).toMatch(
      /^source \. · task t1 · branch ariel\/t1 · running for \d+(s|m\d\ds)$/,
    );
    const duration = ticking.locator(".duration");
    const first = (await duration.textContent()) ?? "";
    await expect.poll(() => duration.textContent(), { timeout: 10_000 }).not.toBe(first);
    // the name comes before the id everywhere
    const text = (await ticking.textContent()) ?? "";
    expect(text.indexOf("ticker")).toBeLessThan(text.indexOf(ids.ticker!));
  });

  it("an ended run: its exit status, its final duration and its last line", async () => {
    const ended = card("ended", "done");
    await ended.waitFor({ timeout: 20_000 });
    const view = (await (await fetch(`${server.url}api/runs/${ids.done}`)).json()) as {
      startedAt: string;
      endedAt: string;
    };
    const s = Math.floor((Date.parse(view.endedAt) - Date.parse(view.startedAt)) / 1000);
    expect(await ended.locator(".state").textContent()).toBe("failed");
    expect(await ended.locator(".facts").textContent()).toBe(`source . · ran ${s}s · exit 3`);
    expect(await ended.locator(".last-line").textContent()).toBe("gave up: no tests");
    expect(await ended.locator(".duration").getAttribute("data-live")).toBeNull();
  });

  it("the agent that asks is under “Needs you”, with its question's last line", async () => {
    const asking = card("needs", "asker");
    await asking.waitFor({ timeout: 30_000 });
    expect(await page.locator("#needs li.run").count()).toBe(1);
    expect(await asking.locator(".activity").textContent()).toBe("waiting");
    await expect.poll(() => asking.locator(".last-line").textContent(), { timeout: 10_000 }).toBe("2. No");
    expect(await page.locator("#no-needs").isVisible()).toBe(false);
    // seen from another tab too
    expect(await page.title()).toBe("(1) ariel fleet");
    await shoot(page, "watching agents needs you");
  });

  it("keyboard only: Tab to the agent, Enter opens its terminal, typing answers, Ctrl-] leaves, Escape closes", async () => {
    await page.locator("#runs-heading").focus();
    let guard = 0;
    const focused = () => page.evaluate(() => document.activeElement?.getAttribute("aria-label") ?? "");
    while ((await focused()) !== "Terminal of asker" && guard++ < 10) await page.keyboard.press("Tab");
    expect(await focused()).toBe("Terminal of asker");
    await page.keyboard.press("Enter");
    const pane = page.locator(`.term-pane[data-run="${ids.asker}"]`);
    await expect
      .poll(() => pane.locator(".xterm-rows").textContent(), { timeout: 15_000 })
      .toContain("Do you want to proceed?");
    expect(
      await page.evaluate(() => document.activeElement?.classList.contains("xterm-helper-textarea")),
    ).toBe(true);
    await page.keyboard.type("1");
    await page.keyboard.press("Enter");
    await card("running", "asker").waitFor({ timeout: 30_000 });
    expect(await page.locator("#needs li.run").count()).toBe(0);
    expect(await page.locator("#no-needs").isVisible()).toBe(true);
    expect(await page.title()).toBe("ariel fleet");
    await page.keyboard.press("Control+]");
    expect(await focused()).toBe("Close the terminal of asker");
    await page.keyboard.press("Escape");
    expect(await pane.count()).toBe(0);
    expect(await focused()).toBe("Terminal of asker");
    expect(problems).toEqual([]);
  });
});
