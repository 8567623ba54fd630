import { readFileSync } from "node:fs";

/**
 * The dashboard's static files (packages/cli-fleet/src/dashboard/). Read from the source tree
 * when run from source (Deno, tests); scripts/build.mjs replaces this module in the bundle with
 * the same files inlined, so the bin needs nothing beside it.
 */
export const DASHBOARD_FILES = ["index.html", "app.js", "app.css", "favicon.svg"] as const;

const cache = new Map<string, string>();

/** A dashboard file's text, or undefined for a name that is not one of them. */
export function dashboardFile(name: string): string | undefined {
  if (!(DASHBOARD_FILES as readonly string[]).includes(name)) return undefined;
  let text = cache.get(name);
  if (text === undefined) {
    text = readFileSync(new URL(`../dashboard/${name}`, import.meta.url), "utf8");
    cache.set(name, text);
  }
  return text;
}
