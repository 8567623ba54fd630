// Bundle each CLI into one file for Node: packages/cli-*/dist/ariel-*.mjs (ES module) or, for
// the CLIs in CJS, packages/cli-*/dist/ariel-*.cjs. The bins in packages/cli-*/bin load these
// bundles. Bundles are never committed.
//
// Why CommonJS for every CLI (ariel-discover is started thousands of times in pipelines,
// ariel-spawn and ariel-worktree once per agent step): a bundle that the
// bin require()s skips the ES-module loader's job for it, and its node: builtins come from
// require() instead of ES-module facades (importing node:fs as ESM evaluates every export,
// which loads the whole stream stack). About 5% of `node -e 0` at start-up (docs/benchmarks.md).
// A CJS main.ts must not use top-level await.
import { readFileSync } from "node:fs";
import { build } from "esbuild";

const clis = ["discover", "worktree", "spawn", "runs", "fleet"];
const cjs = new Set(["discover", "worktree", "spawn", "runs", "fleet"]);

// ariel-fleet's dashboard (HTML, CSS, a script) goes into its bundle: this plugin replaces the
// module that reads the files from the source tree with one that holds them, so the bin needs
// nothing beside it.
const inlineDashboard = {
  name: "inline-dashboard",
  setup(b) {
    b.onLoad({ filter: /cli-fleet\/src\/server\/assets\.ts$/ }, (args) => {
      const src = readFileSync(args.path, "utf8");
      const names = JSON.parse(/DASHBOARD_FILES = (\[[^\]]*\])/.exec(src)[1]);
      const dir = new URL("../packages/cli-fleet/src/dashboard/", import.meta.url);
      const files = Object.fromEntries(names.map((n) => [n, readFileSync(new URL(n, dir), "utf8")]));
      return {
        loader: "js",
        contents: `const FILES = ${JSON.stringify(files)};
export const DASHBOARD_FILES = ${JSON.stringify(names)};
export function dashboardFile(name) { return Object.hasOwn(FILES, name) ? FILES[name] : undefined; }`,
      };
    });
  },
};
await Promise.all(
  clis.map((name) =>
    build({
      entryPoints: [`packages/cli-${name}/src/main.ts`],
      outfile: `packages/cli-${name}/dist/ariel-${name}.${cjs.has(name) ? "cjs" : "mjs"}`,
      bundle: true,
      platform: "node",
      target: "node20",
      format: cjs.has(name) ? "cjs" : "esm",
      splitting: false,
      minify: false,
      sourcemap: false,
      legalComments: "none",
      logLevel: "warning",
      plugins: name === "fleet" ? [inlineDashboard] : [],
      // Heavy modules that a CLI imports lazily still land in the bundle; that is fine: a
      // dynamic import() inside one file costs nothing until it runs.
      banner: cjs.has(name)
        ? {}
        : {
            js: "import { createRequire as __cr } from 'node:module'; const require = __cr(import.meta.url);",
          },
    }),
  ),
);
