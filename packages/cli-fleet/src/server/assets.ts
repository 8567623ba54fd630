import { readFileSync } from "node:fs";

/**
 * The dashboard's static files (packages/cli-fleet/src/dashboard/). Read from the source tree
 * when run from source (Deno, tests); scripts/build.mjs replaces this module in the bundle with
 * the same files inlined, so the bin needs nothing beside it.
 */
export const DASHBOARD_FILES = [
  "index.html",
  "app.js",
  "app.css",
  "favicon.svg",
  "xterm.js",
  "xterm.css",
] as const;

/** The files that come from a package (the terminal of tty runs, `@xterm/xterm`), by their path in node_modules. */
export const PACKAGE_FILES = {
  "xterm.js": "@xterm/xterm/lib/xterm.js",
  "xterm.css": "@xterm/xterm/css/xterm.css",
};

const cache = new Map<string, string>();

/** A dashboard file's text, or undefined for a name that is not one of them. */
export function dashboardFile(name: string): string | undefined {
  if (!(DASHBOARD_FILES as readonly string[]).includes(name)) return undefined;
  let text = cache.get(name);
  if (text === undefined) {
    const pkg = PACKAGE_FILES[name as keyof typeof PACKAGE_FILES];
    const at = pkg ? `../../node_modules/${pkg}` : `../dashboard/${name}`;
    text = withoutSourceMap(readFileSync(new URL(at, import.meta.url), "utf8"));
    cache.set(name, text);
  }
  return text;
}

/** A package file without its `sourceMappingURL` comment (the map is not served). */
export function withoutSourceMap(text: string): string {
  return text.replace(/\n\/[/*][#@] sourceMappingURL=[^\n]*\s*$/, "\n");
}
