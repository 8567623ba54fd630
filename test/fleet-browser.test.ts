/**
 * The fleet dashboard in a real headless Chromium (Debian's `chromium`, driven by playwright-core):
 * workspace cards, a detached run's live output in the log pane, kill behind a confirm dialog, a
 * task's legs and its land behind the same dialog,
 * the empty state, no console errors, and basic accessibility (names, labels, keyboard focus).
 * A screenshot per test goes to artifacts/screenshots/ (CI keeps the folder).
 */
import { writeFileSync } from "node:fs";
import { join } from "node:path";
import type { Browser, Page } from "playwright-core";
import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import { workspaceHash } from "../packages/core/src/hash.ts";
import { CHROMIUM, launch, newPage, shoot } from "./browser_helpers.ts";
import { monitorGone, register, type Server, serve, stateHome, ticker, workspace } from "./fleet_helpers.ts";
import { runAriel } from "./helpers/cli.ts";
import { commitAll, GIT_TEST_ENV, git, removeDir, tempDir } from "./helpers/git.ts";
import { wt } from "./worktree-fixtures.ts";

/** Save the page's screenshot under artifacts/screenshots/ and close it. */
async function shootAndClose(page: Page, name: string): Promise<void> {
  await shoot(page, name);
  await page.close();
}

describe.skipIf(!CHROMIUM)("the dashboard in Chromium", () => {
  let browser: Browser;
  let server: Server;
  let empty: Server;
  let state: ReturnType<typeof stateHome>;
  let emptyState: ReturnType<typeof stateHome>;
  let root: string;
  let runId: string;
  let hash: string;
  let page: Page;
  let problems: string[];

  beforeAll(async () => {
    state = stateHome();
    emptyState = stateHome();
    root = workspace(["api", "web"]);
    hash = await register(state.dir, root);
    const r = await runAriel(
      "spawn",
      ["-C", root, "--detach", "--json", "--name", "ticker", "--", ...ticker(3000, 100)],
      { env: state.env },
    );
    expect(r.code).toBe(0);
    runId = JSON.parse(r.stdout).runId;
    server = await serve([], state.env);
    empty = await serve([], emptyState.env);
    browser = await launch();
  });

  afterAll(async () => {
    await browser?.close();
    // Stop every run still live (the respawned one too); their monitor then idles out.
    if (server && root) {
      const runs = (await (await fetch(`${server.url}api/workspaces/${hash}/runs`)).json()) as {
        runId: string;
        state: string;
      }[];
      for (const r of runs.filter((x) => x.state === "running" || x.state === "starting")) {
        const k = await runAriel("runs", ["kill", r.runId, "-C", root, "--grace", "0s"]);
        expect([k.code, k.stderr]).toEqual([0, ""]);
      }
      await monitorGone(root);
    }
    await server?.stop();
    await empty?.stop();
    for (const d of [state?.dir, emptyState?.dir, root]) if (d) removeDir(d);
  });

  async function open(url: string): Promise<Page> {
    problems = [];
    const p = await newPage(browser, problems);
    await p.goto(url);
    return p;
  }

  afterEach(async (ctx) => {
    if (page) await shootAndClose(page, ctx.task.name);
    expect(problems).toEqual([]);
  });

  it("shows the workspace with its health, sources and runs by state", async () => {
    page = await open(server.url);
    const card = page.getByRole("listitem", { name: `Workspace ${root}` });
    await expect.poll(() => card.textContent(), { timeout: 10_000 }).toContain("running");
    expect(await card.locator(".health").textContent()).toBe("ok");
    expect(await card.locator("dd").nth(1).textContent()).toBe("3");
    // The snapshot and the event stream load side by side: either may come first.
    await expect.poll(() => page.locator("#live").textContent(), { timeout: 10_000 }).toBe("live");
    const row = page.locator(`#runs [data-run="${runId}"]`);
    expect(await row.locator(".state").textContent()).toBe("running");
  });

  it("follows a running run's output live in the log pane", async () => {
    page = await open(server.url);
    await page.getByRole("button", { name: "Log of ticker" }).click();
    const log = page.getByRole("log");
    await expect.poll(() => log.textContent(), { timeout: 10_000 }).toMatch(/line \d+\n/);
    const seen = Number(/line (\d+)\n$/.exec((await log.textContent()) ?? "")?.[1]);
    await expect
      .poll(async () => Number(/line (\d+)\n$/.exec((await log.textContent()) ?? "")?.[1] ?? 0), {
        timeout: 10_000,
      })
      .toBeGreaterThan(seen + 3);
    const text = (await log.textContent()) ?? "";
    const numbers = [...text.matchAll(/line (\d+)\n/g)].map((m) => Number(m[1]));
    expect(numbers).toEqual(Array.from({ length: numbers.length }, (_, i) => i + 1));
  });

  it("passes basic accessibility checks: names, labels, landmarks, keyboard focus", async () => {
    page = await open(server.url);
    await page.locator(`#runs [data-run="${runId}"]`).waitFor();
    const report = await page.evaluate(() => {
      const nameless = [...document.querySelectorAll("button, a[href], select, input")].filter((el) => {
        const label =
          el.getAttribute("aria-label") ??
          (el.id ? document.querySelector(`label[for="${el.id}"]`)?.textContent : null);
        return !(label ?? el.textContent ?? "").trim();
      });
      return {
        lang: document.documentElement.lang,
        title: document.title,
        nameless: nameless.map((el) => el.outerHTML),
        main: document.querySelectorAll("main").length,
        h1: document.querySelectorAll("h1").length,
        imagesWithoutAlt: document.querySelectorAll("img:not([alt])").length,
        headersScoped: [...document.querySelectorAll("th")].every((th) => th.getAttribute("scope") === "col"),
      };
    });
    expect(report).toEqual({
      lang: "en",
      title: "ariel fleet",
      nameless: [],
      main: 1,
      h1: 1,
      imagesWithoutAlt: 0,
      headersScoped: true,
    });
    await page.keyboard.press("Tab");
    expect(await page.evaluate(() => document.activeElement?.textContent)).toBe("Skip to runs");
    const order: string[] = [];
    for (let i = 0; i < 4; i++) {
      await page.keyboard.press("Tab");
      order.push(
        await page.evaluate(
          () => document.activeElement?.getAttribute("aria-label") ?? document.activeElement?.id ?? "",
        ),
      );
    }
    expect(order).toEqual(["state-filter", "Log of ticker", "Kill ticker", "Respawn ticker"]);
    const outline = await page.evaluate(() => getComputedStyle(document.activeElement!).outlineStyle);
    expect(outline).toBe("solid");
  });

  it("kills the run from the UI after a confirm, and shows its new state", async () => {
    page = await open(server.url);
    await page.getByRole("button", { name: "Log of ticker" }).click();
    await page.getByRole("button", { name: "Kill ticker" }).click();
    const dialog = page.getByRole("dialog");
    await expect.poll(() => dialog.isVisible(), { timeout: 10_000 }).toBe(true);
    expect(await page.evaluate(() => document.activeElement?.id)).toBe("confirm-cancel");
    await page.keyboard.press("Escape");
    await expect.poll(() => dialog.isVisible(), { timeout: 10_000 }).toBe(false);
    expect(await page.locator(`#runs [data-run="${runId}"] .state`).textContent()).toBe("running");
    await page.getByRole("button", { name: "Kill ticker" }).click();
    await dialog.getByRole("button", { name: "OK" }).click();
    await expect
      .poll(() => page.locator(`#runs [data-run="${runId}"] .state`).textContent(), { timeout: 20_000 })
      .toBe("killed");
    await expect.poll(() => page.locator("#log-state").textContent(), { timeout: 10_000 }).toBe("killed");
    // The state line, the log's note and the button are updated by separate events: poll each.
    await expect
      .poll(() => page.getByRole("log").textContent(), { timeout: 10_000 })
      .toContain("[running → killed]");
    await expect
      .poll(() => page.getByRole("button", { name: "Kill ticker" }).isDisabled(), { timeout: 10_000 })
      .toBe(true);
  });

  it("respawns the killed run after a confirm and follows the new one", async () => {
    page = await open(server.url);
    await page.locator(`#runs [data-run="${runId}"]`).waitFor();
    await page.getByRole("button", { name: "Respawn ticker" }).first().click();
    await page.getByRole("dialog").getByRole("button", { name: "OK" }).click();
    await expect.poll(() => page.locator("#runs li.run").count(), { timeout: 20_000 }).toBe(2);
    const fresh = page.locator("#runs li.run").first();
    expect(await fresh.getAttribute("data-run")).not.toBe(runId);
    await expect.poll(() => fresh.locator(".state").textContent(), { timeout: 10_000 }).toBe("running");
    // The dashboard follows the new run when the respawn call answers, which can come after
    // the event that listed it: poll. The log names the run first, its id after.
    const freshId = await fresh.getAttribute("data-run");
    await expect
      .poll(() => page.locator("#log-run").getAttribute("data-run"), { timeout: 10_000 })
      .toBe(freshId);
    expect(await page.locator("#log-run").textContent()).toBe(`ticker ${freshId}`);
    await expect.poll(() => page.getByRole("log").textContent(), { timeout: 10_000 }).toContain("line 2\n");
  });

  it("says clearly when there are no workspaces", async () => {
    page = await open(empty.url);
    const box = page.locator("#empty");
    await expect.poll(() => box.isVisible(), { timeout: 10_000 }).toBe(true);
    expect(await box.textContent()).toContain("No workspaces yet.");
    expect(await page.locator("#no-runs").isVisible()).toBe(true);
  });

  it("shows a run over several legs (--span) with its task and every leg, each leg's worktree in its title", async () => {
    const r = await runAriel(
      "spawn",
      [
        "-C",
        root,
        "--detach",
        "--json",
        "--isolate",
        "--span",
        "--task",
        "span",
        "--source",
        "api",
        "--source",
        "web",
        "--name",
        "spanner",
        "--",
        "sleep",
        "300",
      ],
      { env: state.env },
    );
    expect(r.code, r.stderr).toBe(0);
    const id = JSON.parse(r.stdout).runId as string;
    page = await open(server.url);
    const facts = page.locator(`#runs [data-run="${id}"] .facts`);
    await expect
      .poll(() => facts.textContent(), { timeout: 10_000 })
      .toMatch(/^legs api, web · task span · branch ariel\/span · running for /);
    expect(await facts.locator(".leg").evaluateAll((n) => n.map((x) => x.getAttribute("title")))).toEqual([
      join(root, ".ariel/worktrees/span/api"),
      join(root, ".ariel/worktrees/span/web"),
    ]);
    // afterAll stops it, once the page is closed (its settle would race the page's task reads).
  });
});

describe.skipIf(!CHROMIUM)("the task view", () => {
  let browser: Browser;
  let server: Server;
  let state: ReturnType<typeof stateHome>;
  let root: string;
  let page: Page | undefined;
  const problems: string[] = [];

  beforeAll(async () => {
    state = stateHome();
    root = workspace(["api"]);
    await register(state.dir, root);
    const r = await wt(root, ["add", "--source", "api", "--task", "t1", "--no-hooks"], { env: state.env });
    expect(r.code, r.stderr).toBe(0);
    const leg = join(root, ".ariel/worktrees/t1/api");
    writeFileSync(join(leg, "feature.txt"), "done\n");
    commitAll(leg, "feature");
    // t2 changes the README that main changes too: its land is refused.
    const r2 = await wt(root, ["add", "--source", "api", "--task", "t2", "--no-hooks"], { env: state.env });
    expect(r2.code, r2.stderr).toBe(0);
    writeFileSync(join(root, ".ariel/worktrees/t2/api/README.md"), "t2\n");
    commitAll(join(root, ".ariel/worktrees/t2/api"), "t2 readme");
    writeFileSync(join(root, "api/README.md"), "main\n");
    commitAll(join(root, "api"), "main readme");
    server = await serve([], { ...GIT_TEST_ENV, ...state.env });
    browser = await launch();
  });

  afterAll(async () => {
    if (page) await shootAndClose(page, "the task view");
    await browser?.close();
    await server?.stop();
    for (const d of [state?.dir, root]) if (d) removeDir(d);
  });

  it("shows a task's leg with its commits ahead, lands it after a confirm, and shows it landed", async () => {
    page = await newPage(browser, problems);
    await page.goto(server.url);
    const row = page.locator('tr[data-task="t1"]');
    await expect.poll(() => row.textContent(), { timeout: 10_000 }).toContain("1 commit ahead");
    expect(await row.locator("ul.legs li").textContent()).toBe(
      "api ariel/t1 · 1 commit ahead · 1 file changed",
    );
    const before = git(join(root, "api"), "rev-parse", "main");
    await page.getByRole("button", { name: "Land t1" }).click();
    const dialog = page.getByRole("dialog");
    await expect.poll(() => dialog.isVisible(), { timeout: 10_000 }).toBe(true);
    expect(await page.locator("#confirm-text").textContent()).toContain("Land task t1?");
    await dialog.getByRole("button", { name: "OK" }).click();
    await expect.poll(() => row.locator(".state.landed").count(), { timeout: 20_000 }).toBe(1);
    expect(git(join(root, "api"), "rev-parse", "main^2")).toBe(
      git(join(root, "api"), "rev-parse", "ariel/t1"),
    );
    expect(git(join(root, "api"), "rev-parse", "main^1")).toBe(before);
    expect(await page.locator("#notice").isVisible()).toBe(false);
    expect(problems).toEqual([]);
  });

  it("a refused land shows its error and hint in the page, and moves nothing", async () => {
    const before = git(join(root, "api"), "rev-parse", "main");
    await page!.getByRole("button", { name: "Land t2" }).click();
    await page!.getByRole("dialog").getByRole("button", { name: "OK" }).click();
    const notice = page!.getByRole("alert");
    await expect.poll(() => notice.textContent(), { timeout: 20_000 }).toContain("(ERR_LAND_CONFLICT)");
    expect(await notice.textContent()).toMatch(/^land failed: .*README\.md.* — .*nothing was changed$/);
    expect(git(join(root, "api"), "rev-parse", "main")).toBe(before);
    expect(await page!.locator('tr[data-task="t2"] .state.landed').count()).toBe(0);
    // The browser reports the 409 answer itself; nothing else went wrong.
    expect(problems.filter((p) => !p.includes("409"))).toEqual([]);
  });
});

describe.skipIf(!CHROMIUM)("the dashboard of a server with --token-file", () => {
  const TOKEN = "correct-horse-battery-staple-42";
  let browser: Browser;
  let server: Server;
  let state: ReturnType<typeof stateHome>;
  let root: string;
  let tokenDir: string;
  let runId: string;
  let page: Page;
  let problems: string[];
  let urls: string[];
  let authorized: string[];

  beforeAll(async () => {
    state = stateHome();
    root = workspace();
    await register(state.dir, root);
    tokenDir = tempDir("ariel-fleet-token-");
    writeFileSync(join(tokenDir, "token"), `${TOKEN}\n`, { mode: 0o600 });
    const r = await runAriel(
      "spawn",
      ["-C", root, "--detach", "--json", "--name", "guarded", "--", ...ticker(3000, 100)],
      { env: state.env },
    );
    expect(r.code).toBe(0);
    runId = JSON.parse(r.stdout).runId;
    server = await serve(["--token-file", join(tokenDir, "token")], state.env);
    browser = await launch();
  });

  afterAll(async () => {
    await browser?.close();
    if (root) {
      const k = await runAriel("runs", ["kill", runId, "-C", root, "--grace", "0s"]);
      expect([0, 3]).toContain(k.code);
      await monitorGone(root);
    }
    await server?.stop();
    for (const d of [state?.dir, root, tokenDir]) if (d) removeDir(d);
  });

  /** A page on the guarded server; with `fakeClock`, its timers run only when the test says. */
  async function open(fakeClock = false): Promise<Page> {
    problems = [];
    urls = [];
    authorized = [];
    const p = await newPage(browser, problems);
    p.on("request", (req) => {
      urls.push(req.url());
      if (req.headers().authorization === `Bearer ${TOKEN}`) authorized.push(new URL(req.url()).pathname);
    });
    if (fakeClock) await p.clock.install();
    await p.goto(server.url);
    return p;
  }

  afterEach(async (ctx) => {
    if (page) await shootAndClose(page, `token ${ctx.task.name}`);
    expect(problems).toEqual([]);
    // The token is never in a URL (request lines end up in logs and history).
    expect(urls.filter((u) => u.includes(TOKEN))).toEqual([]);
  });

  it("without the token: a labelled prompt with the focus in it, nothing else, no API request", async () => {
    page = await open(true);
    const input = page.getByLabel("Access token", { exact: true });
    await expect.poll(() => input.isVisible()).toBe(true);
    expect(await page.evaluate(() => document.activeElement?.id)).toBe("token");
    expect(await page.getByRole("heading", { name: "Access token needed" }).isVisible()).toBe(true);
    expect(await page.locator("#live").textContent()).toBe("token needed");
    expect(await page.locator("#workspaces").isVisible()).toBe(false);
    expect(await page.locator("#runs").isVisible()).toBe(false);
    // Every timer the page set goes off (its 5 s refresh twice over), then a request of our own:
    // seen after any request the page made before it, so none can still be on its way.
    await page.clock.runFor(10_000);
    const marker = `${server.url.replace(/\/$/, "")}/?quiescent`;
    await page.evaluate((url) => fetch(url).then((r) => r.text()), marker);
    await expect.poll(() => urls.includes(marker)).toBe(true);
    expect(urls.map((u) => new URL(u).pathname).filter((p) => p.startsWith("/api/"))).toEqual([]);
  });

  it("a wrong token: asked again, with why, and nothing kept", async () => {
    page = await open();
    await page.getByLabel("Access token", { exact: true }).fill("not-the-token-at-all");
    await page.getByRole("button", { name: "Connect" }).click();
    await expect
      .poll(() => page.getByRole("alert").textContent(), { timeout: 10_000 })
      .toBe("The token was not accepted. Enter it again.");
    expect(await page.getByLabel("Access token", { exact: true }).isVisible()).toBe(true);
    expect(await page.evaluate(() => sessionStorage.length)).toBe(0);
    // Chromium logs each refused request itself; that is the only console error there may be.
    problems = problems.filter((p) => !p.includes("status of 401 (Unauthorized)"));
  });

  it("with the token: live output in the log pane, then kill from the UI", async () => {
    page = await open();
    await page.getByLabel("Access token", { exact: true }).fill(TOKEN);
    await page.getByRole("button", { name: "Connect" }).click();
    const row = page.locator(`#runs [data-run="${runId}"]`);
    await expect.poll(() => row.locator(".state").textContent(), { timeout: 10_000 }).toBe("running");
    await expect.poll(() => page.locator("#live").textContent(), { timeout: 10_000 }).toBe("live");
    await page.getByRole("button", { name: "Log of guarded" }).click();
    const log = page.getByRole("log");
    const last = async () => Number(/line (\d+)\n$/.exec((await log.textContent()) ?? "")?.[1] ?? 0);
    await expect.poll(last, { timeout: 10_000 }).toBeGreaterThan(0);
    const seen = await last();
    await expect.poll(last, { timeout: 10_000 }).toBeGreaterThan(seen + 3);
    await page.getByRole("button", { name: "Kill guarded" }).click();
    await page.getByRole("dialog").getByRole("button", { name: "OK" }).click();
    await expect.poll(() => row.locator(".state").textContent(), { timeout: 20_000 }).toBe("killed");
    await expect.poll(() => page.locator("#log-state").textContent(), { timeout: 10_000 }).toBe("killed");
    // The kill is answered 202 at once; the run's run.state event reaches the log pane after.
    await expect.poll(() => log.textContent(), { timeout: 10_000 }).toContain("[running → killed]");
    const text = (await log.textContent()) ?? "";
    const numbers = [...text.matchAll(/line (\d+)\n/g)].map((m) => Number(m[1]));
    expect(numbers).toEqual(Array.from({ length: numbers.length }, (_, i) => i + 1));
    // Every API request and both streams carried the token as a header.
    expect(new Set(authorized)).toEqual(
      new Set([
        "/api/fleet",
        `/api/workspaces/${await workspaceHash(root)}/runs`,
        `/api/workspaces/${await workspaceHash(root)}/tasks`,
        "/api/events/stream",
        `/api/runs/${runId}/stream`,
        `/api/runs/${runId}/kill`,
      ]),
    );
    // The token stays in this tab's sessionStorage only.
    expect(await page.evaluate(() => [sessionStorage.length, localStorage.length, document.cookie])).toEqual([
      1,
      0,
      "",
    ]);
  });
});
