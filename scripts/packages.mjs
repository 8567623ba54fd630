// The workspace's packages as the build, set-up, pack check and benchmarks see them: every
// packages/cli-* with a src/main.ts is a CLI bundled to dist/ariel-<name>.cjs; packages/ariel is
// the meta package whose bins load those bundles; packages/core ships compiled ESM with types.
// A new CLI package needs no change here (docs/decisions/0029-dist-publishable-packages.md).
import { existsSync, readdirSync, readFileSync, statSync } from "node:fs";
import { join } from "node:path";

export const ROOT = new URL("..", import.meta.url).pathname;
export const PACKAGES = join(ROOT, "packages");
export const CORE_DIR = join(PACKAGES, "core");
export const META_DIR = join(PACKAGES, "ariel");

/**
 * Bins of the meta package that are another name for a CLI's bundle: `ariel` (no arguments) is
 * the terminal UI, `ariel-tui` (docs/decisions/0125-tui-package-and-bin.md).
 */
export const META_ALIASES = { ariel: "ariel-tui" };

/** @returns {{ dir: string, name: string, bin: string, bundle: string, src: string }[]} one per CLI */
export function cliPackages() {
  return readdirSync(PACKAGES)
    .filter((d) => d.startsWith("cli-") && existsSync(join(PACKAGES, d, "src/main.ts")))
    .sort()
    .map((d) => {
      const dir = join(PACKAGES, d);
      const bin = `ariel-${d.slice("cli-".length)}`;
      return {
        dir,
        name: readJson(join(dir, "package.json")).name,
        bin,
        bundle: join(dir, "dist", `${bin}.cjs`),
        src: join(dir, "src", "main.ts"),
      };
    });
}

/**
 * Packages the CLI bundles leave out and load at run time (a native addon, and the terminal
 * emulator only tty runs load): a CLI package that starts monitors or renders screens lists them
 * in its `dependencies`, at @ariel/core's versions. docs/decisions/0076-tty-runs.md.
 */
export const RUNTIME_DEPENDENCIES = ["@lydell/node-pty", "@xterm/headless", "@xterm/addon-serialize"];

/** @returns {Record<string, string>} each runtime dependency at the version @ariel/core pins */
export function runtimeDependencyVersions() {
  const core = readJson(join(CORE_DIR, "package.json"));
  return Object.fromEntries(RUNTIME_DEPENDENCIES.map((n) => [n, core.dependencies[n]]));
}

export function readJson(path) {
  return JSON.parse(readFileSync(path, "utf8"));
}

/** 0 when `p` does not exist. */
export const mtime = (p) => (existsSync(p) ? statSync(p).mtimeMs : 0);

/** The newest modification time of any file under `dir` (0 when it does not exist). */
export function newest(dir, keep = () => true) {
  if (!existsSync(dir)) return 0;
  let t = 0;
  for (const e of readdirSync(dir, { withFileTypes: true })) {
    const p = join(dir, e.name);
    if (e.isDirectory()) t = Math.max(t, newest(p, keep));
    else if (keep(e.name)) t = Math.max(t, statSync(p).mtimeMs);
  }
  return t;
}

const notTest = (name) => !name.endsWith("_test.ts");

/**
 * What `npm run build` must have written for the package in `dir` before it is packed: each
 * output with the sources it is built from (scripts/prepack.mjs refuses a missing or stale one).
 * @returns {{ file: string, since: number }[]}
 */
export function buildOutputs(dir) {
  const coreTime = newest(join(CORE_DIR, "src"), notTest);
  if (dir === CORE_DIR) {
    return ["mod.js", "mod.d.ts", "host/mod.js", "testing/fake_fs.js"].map((f) => ({
      file: join(CORE_DIR, "dist", f),
      since: coreTime,
    }));
  }
  const clis = cliPackages();
  if (dir === META_DIR) {
    const bins = [...clis.map((cli) => cli.bin), ...Object.keys(META_ALIASES)];
    return bins.map((bin) => ({ file: join(META_DIR, "dist", `${bin}.cjs`), since: 0 }));
  }
  return clis
    .filter((cli) => cli.dir === dir)
    .map((cli) => ({ file: cli.bundle, since: Math.max(coreTime, newest(join(dir, "src"), notTest)) }));
}
