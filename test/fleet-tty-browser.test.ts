/**
 * The dashboard and tty runs in a real headless Chromium: a fake agent that asks gets a `waiting`
 * badge and moves to the top of the runs; answered through the input route, the badge goes. A
 * screenshot goes to artifacts/screenshots/ (CI keeps the folder). Skipped without chromium.
 */
import { existsSync, mkdirSync } from "node:fs";
import { delimiter, join } from "node:path";
import { chromium } from "playwright-core";
import { afterEach, describe, expect, it } from "vitest";
import { register, serve, stateHome } from "./fleet_helpers.ts";
import { REPO_ROOT, records } from "./helpers/cli.ts";
import { cleanUp, NODE, runs, runsWorkspace, spawnD } from "./runs_helpers.ts";

afterEach(cleanUp);

const CHROMIUM = (process.env.PATH ?? "")
  .split(delimiter)
  .flatMap((d) => (d === "" ? [] : ["chromium", "chromium-browser"].map((n) => join(d, n))))
  .find((p) => existsSync(p));

describe.skipIf(!CHROMIUM)("the dashboard shows who waits", () => {
  it("a waiting badge on the agent that asks, first in the list; gone once it is answered", async () => {
    const root = runsWorkspace();
    const state = stateHome();
    await register(state.dir, root);
    const server = await serve([], state.env);
    const browser = await chromium.launch({
      executablePath: CHROMIUM!,
      args: ["--no-sandbox", "--disable-dev-shm-usage", "--disable-gpu"],
      headless: true,
    });
    try {
      await spawnD(root, ["--name", "quiet", "--", "sleep", "60"]);
      const agent = ["--json", "--tty", "--agent", "claude", "--name", "asker", "--"];
      const r = await spawnD(root, [...agent, NODE, join(REPO_ROOT, "test/fixtures/fake-agent.mjs")]);
      const id = records(r.stdout)[0]!.runId as string;
      const problems: string[] = [];
      const page = await browser.newPage({ viewport: { width: 1200, height: 800 } });
      page.on("console", (m) => {
        if (m.type() === "error") problems.push(m.text());
      });
      page.on("pageerror", (e) => problems.push(String(e)));
      await page.goto(server.url);
      const badge = page.locator(`tr[data-run="${id}"] .activity.waiting`);
      await badge.waitFor({ timeout: 30_000 });
      expect(await badge.textContent()).toBe("waiting");
      // the asking run comes first, though the quiet one is not newer
      expect(await page.locator("#runs tbody tr").first().getAttribute("data-run")).toBe(id);
      mkdirSync(join(REPO_ROOT, "artifacts/screenshots"), { recursive: true });
      await page.screenshot({ path: join(REPO_ROOT, "artifacts/screenshots/tty-waiting-badge.png") });
      await page.selectOption("#state-filter", "waiting");
      expect(await page.locator("#runs tbody tr").count()).toBe(1);
      const res = await fetch(`${server.url}api/runs/${id}/input`, {
        method: "POST",
        headers: { "content-type": "application/json" },
        body: JSON.stringify({ data: "1\r" }),
      });
      expect(res.status).toBeLessThan(300);
      await page
        .locator(`tr[data-run="${id}"] .activity.waiting`)
        .waitFor({ state: "detached", timeout: 30_000 });
      expect(problems).toEqual([]);
    } finally {
      await browser.close();
      await server.stop();
    }
  });

  it("a tty run's terminal in the page: its screen replayed, keys typed from the keyboard reach it and echo", async () => {
    const root = runsWorkspace();
    const state = stateHome();
    await register(state.dir, root);
    const server = await serve([], state.env);
    const browser = await chromium.launch({
      executablePath: CHROMIUM!,
      args: ["--no-sandbox", "--disable-dev-shm-usage", "--disable-gpu"],
      headless: true,
    });
    try {
      const sh = ["--tty", "--size", "60x10", "--name", "sh", "--", "bash", "--norc", "--noprofile", "-i"];
      expect((await spawnD(root, sh)).code).toBe(0);
      await runs(root, ["send", "sh", "echo before-$((6*7))", "--enter"]);
      const problems: string[] = [];
      const page = await browser.newPage({ viewport: { width: 1200, height: 900 } });
      page.on("console", (m) => {
        if (m.type() === "error") problems.push(m.text());
      });
      page.on("pageerror", (e) => problems.push(String(e)));
      await page.goto(server.url);
      await page.getByRole("button", { name: "Log of sh" }).click();
      const shows = (text: string) =>
        page.waitForFunction(
          (t) => document.querySelector("#term .xterm-rows")?.textContent?.includes(t),
          text,
          {
            timeout: 15_000,
          },
        );
      await shows("before-42");
      await page.locator("#term .xterm-helper-textarea").focus();
      await page.keyboard.type("echo typed-$((2+3))");
      await page.keyboard.press("Enter");
      await shows("typed-5");
      expect(await page.locator("#term").getAttribute("aria-label")).toBe("Terminal of sh");
      mkdirSync(join(REPO_ROOT, "artifacts/screenshots"), { recursive: true });
      await page.screenshot({ path: join(REPO_ROOT, "artifacts/screenshots/tty-terminal.png") });
      expect(problems).toEqual([]);
    } finally {
      await browser.close();
      await server.stop();
    }
  });
});
