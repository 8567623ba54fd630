/**
 * The dashboard and tty runs in a real headless Chromium: a fake agent that asks gets a `waiting`
 * badge and moves to the top of the runs; answered through the input route, the badge goes. A
 * screenshot goes to artifacts/screenshots/ (CI keeps the folder). Skipped without chromium.
 */
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { CHROMIUM, launch, newPage, shoot } from "./browser_helpers.ts";
import { register, serve, stateHome } from "./fleet_helpers.ts";
import { REPO_ROOT, records } from "./helpers/cli.ts";
import { cleanUp, NODE, runs, runsWorkspace, spawnD } from "./runs_helpers.ts";

afterEach(cleanUp);

describe.skipIf(!CHROMIUM)("the dashboard shows who waits", () => {
  it("a waiting badge on the agent that asks, first in the list; gone once it is answered", async () => {
    const root = runsWorkspace();
    const state = stateHome();
    await register(state.dir, root);
    const server = await serve([], state.env);
    const browser = await launch();
    try {
      await spawnD(root, ["--shared", "--name", "quiet", "--", "sleep", "60"]);
      const agent = ["--json", "--shared", "--tty", "--agent", "claude", "--name", "asker", "--"];
      const r = await spawnD(root, [...agent, NODE, join(REPO_ROOT, "test/fixtures/fake-agent.mjs")]);
      const id = records(r.stdout)[0]!.runId as string;
      const problems: string[] = [];
      const page = await newPage(browser, problems, { width: 1200, height: 800 });
      await page.goto(server.url);
      const badge = page.locator(`#needs [data-run="${id}"] .activity.waiting`);
      await badge.waitFor({ timeout: 30_000 });
      expect(await badge.textContent()).toBe("waiting");
      // the asking run comes first, though the quiet one is not newer
      expect(await page.locator("#runs li.run").first().getAttribute("data-run")).toBe(id);
      await shoot(page, "tty-waiting-badge");
      await page.selectOption("#state-filter", "waiting");
      expect(await page.locator("#runs li.run").count()).toBe(1);
      const res = await fetch(`${server.url}api/runs/${id}/input`, {
        method: "POST",
        headers: { "content-type": "application/json" },
        body: JSON.stringify({ data: "1\r" }),
      });
      expect(res.status).toBeLessThan(300);
      await page
        .locator(`[data-run="${id}"] .activity.waiting`)
        .waitFor({ state: "detached", timeout: 30_000 });
      expect(problems).toEqual([]);
    } finally {
      await browser.close();
      await server.stop();
    }
  });

  it("tty runs' terminals side by side: each replays its screen, takes keys from the keyboard and echoes them", async () => {
    const root = runsWorkspace();
    const state = stateHome();
    await register(state.dir, root);
    const server = await serve([], state.env);
    const browser = await launch();
    try {
      const ids: Record<string, string> = {};
      for (const name of ["one", "two"]) {
        const sh = [
          "--json",
          "--shared",
          "--tty",
          "--size",
          "50x8",
          "--name",
          name,
          "--",
          "bash",
          "--norc",
          "--noprofile",
          "-i",
        ];
        const r = await spawnD(root, sh);
        expect(r.code).toBe(0);
        ids[name] = records(r.stdout)[0]!.runId as string;
        await runs(root, ["send", name, `echo before-${name}`, "--enter"]);
      }
      const problems: string[] = [];
      const page = await newPage(browser, problems, { width: 1200, height: 1000 });
      await page.goto(server.url);
      const shows = (name: string, text: string) =>
        page.waitForFunction(
          ([id, t]) =>
            document.querySelector(`.term-pane[data-run="${id}"] .xterm-rows`)?.textContent?.includes(t),
          [ids[name]!, text] as const,
          { timeout: 15_000 },
        );
      for (const name of ["one", "two"]) {
        await page.getByRole("button", { name: `Terminal of ${name}` }).click();
        await shows(name, `before-${name}`);
      }
      expect(
        await page.locator(".term-pane").evaluateAll((ps) => ps.map((p) => p.getAttribute("aria-label"))),
      ).toEqual(["Terminal of one", "Terminal of two"]);
      for (const [name, sum] of [
        ["one", "2+3"],
        ["two", "4+4"],
      ] as const) {
        await page.locator(`.term-pane[data-run="${ids[name]}"] .xterm-helper-textarea`).focus();
        await page.keyboard.type(`echo ${name}-$((${sum}))`);
        await page.keyboard.press("Enter");
      }
      await shows("one", "one-5");
      await shows("two", "two-8");
      await shoot(page, "tty-terminals");
      // keyboard only: the close button is reachable and closes its pane
      await page.getByRole("button", { name: "Close the terminal of one" }).focus();
      await page.keyboard.press("Enter");
      expect(await page.locator(".term-pane").count()).toBe(1);
      expect(problems).toEqual([]);
    } finally {
      await browser.close();
      await server.stop();
    }
  });
});
