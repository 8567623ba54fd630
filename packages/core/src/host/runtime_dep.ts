import { realpathSync } from "node:fs";

/**
 * A package the CLI bundles leave out (scripts/packages.mjs RUNTIME_DEPENDENCIES: a native addon
 * and the terminal emulator of tty runs), loaded on first use from the installed CLI package's own
 * dependencies: by require() in a bundle (a code-cached bundle runs in a vm.Script, where import()
 * has no loader on Node 20), by import() when the source runs as ES modules (tests, Deno).
 *
 * The file is required by its real path: the addon finds its platform build as a sibling package
 * of its own real directory (pnpm's layout links it there only), and the monitor's loader was
 * seen to keep the linked path, where that sibling is not.
 */
export function loadRuntimeDependency(name: string): Promise<Record<string, unknown>> {
  if (typeof require === "function") {
    return Promise.resolve(require(realpathSync(require.resolve(name))) as Record<string, unknown>);
  }
  return import(name) as Promise<Record<string, unknown>>;
}
