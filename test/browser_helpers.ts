/**
 * The dashboard's browser tests' set-up: Debian's `chromium` (found on PATH; the tests skip
 * without it), driven by playwright-core; a page that records its console errors; screenshots in
 * artifacts/screenshots/ (CI keeps the folder).
 */
import { existsSync, mkdirSync } from "node:fs";
import { delimiter, join } from "node:path";
import { type Browser, chromium, type Page } from "playwright-core";
import { REPO_ROOT } from "./helpers/cli.ts";

export const SHOTS = join(REPO_ROOT, "artifacts/screenshots");

/** `command -v chromium`, without a shell. */
function findChromium(): string | null {
  for (const dir of (process.env.PATH ?? "").split(delimiter)) {
    for (const name of ["chromium", "chromium-browser"]) {
      const p = join(dir, name);
      if (dir !== "" && existsSync(p)) return p;
    }
  }
  return null;
}

export const CHROMIUM = findChromium();
if (!CHROMIUM) console.warn("browser tests: no chromium on PATH (apt-get install -y chromium); skipped");

/** Headless Debian chromium. */
export function launch(): Promise<Browser> {
  return chromium.launch({
    executablePath: CHROMIUM!,
    args: ["--no-sandbox", "--disable-dev-shm-usage", "--disable-gpu"],
    headless: true,
  });
}

/** A new page that records its console errors and uncaught exceptions in `problems`. */
export async function newPage(
  browser: Browser,
  problems: string[],
  viewport = { width: 1200, height: 900 },
): Promise<Page> {
  const p = await browser.newPage({ viewport });
  p.on("console", (m) => {
    if (m.type() === "error") problems.push(m.text());
  });
  p.on("pageerror", (e) => problems.push(String(e)));
  return p;
}

/** Save the page's screenshot (the whole page) as artifacts/screenshots/<name>.png. */
export async function shoot(page: Page, name: string): Promise<void> {
  mkdirSync(SHOTS, { recursive: true });
  await page.screenshot({ path: join(SHOTS, `${name.replace(/[^a-z0-9]+/gi, "-")}.png`), fullPage: true });
}
