// Run a TypeScript entry point under Node, which cannot run .ts itself: bundle it with esbuild
// into a temporary .mjs (dependencies included), run that with the remaining arguments, and
// pass its exit status on. `import.meta.url` keeps pointing at the .ts file, so scripts can
// find files relative to themselves.
//
//   node scripts/run-ts.mjs scripts/gen-schema.ts --check
import { spawnSync } from "node:child_process";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { basename, join, resolve } from "node:path";
import { pathToFileURL } from "node:url";
import { build } from "esbuild";

const [entryArg, ...args] = process.argv.slice(2);
if (!entryArg) {
  process.stderr.write("usage: node scripts/run-ts.mjs FILE.ts [ARGS...]\n");
  process.exit(64);
}
const entry = resolve(entryArg);
const dir = mkdtempSync(join(tmpdir(), "ariel-run-ts-"));
const outfile = join(dir, `${basename(entry, ".ts")}.mjs`);
let status = 70;
try {
  await build({
    entryPoints: [entry],
    outfile,
    bundle: true,
    platform: "node",
    target: "node20",
    format: "esm",
    logLevel: "warning",
    define: { "import.meta.url": JSON.stringify(pathToFileURL(entry).href) },
    banner: {
      js: "import { createRequire as __cr } from 'node:module'; const require = __cr(import.meta.url);",
    },
  });
  const r = spawnSync(process.execPath, [outfile, ...args], { stdio: "inherit" });
  status = r.status ?? (r.signal ? 128 : 70);
} catch (e) {
  process.stderr.write(`run-ts: ${e instanceof Error ? e.message : String(e)}\n`);
} finally {
  rmSync(dir, { recursive: true, force: true });
}
process.exit(status);
