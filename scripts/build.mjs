// Bundle each CLI into one ESM file for Node: packages/cli-*/dist/ariel-*.mjs.
// The bins in packages/cli-*/bin import these bundles. Bundles are never committed.
import { build } from "esbuild";

const clis = ["discover", "worktree", "spawn"];
await Promise.all(
  clis.map((name) =>
    build({
      entryPoints: [`packages/cli-${name}/src/main.ts`],
      outfile: `packages/cli-${name}/dist/ariel-${name}.mjs`,
      bundle: true,
      platform: "node",
      target: "node20",
      format: "esm",
      splitting: false,
      minify: false,
      sourcemap: false,
      legalComments: "none",
      logLevel: "warning",
      // Heavy modules that a CLI imports lazily still land in the bundle; that is fine: a
      // dynamic import() inside one file costs nothing until it runs.
      banner: {
        js: "import { createRequire as __cr } from 'node:module'; const require = __cr(import.meta.url);",
      },
    }),
  ),
);
