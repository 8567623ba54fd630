// The Deno end-to-end suite: test/deno/*_test.ts run by the deno that pnpm installed, against
// the CLIs' TypeScript sources (docs/architecture.md, Runtimes and bundles). Prints a plain closing line like scripts/test.mjs.
import { spawnSync } from "node:child_process";
import { existsSync, readdirSync } from "node:fs";
import { join } from "node:path";

const root = new URL("..", import.meta.url).pathname;
const deno = join(root, "node_modules/.bin/deno");
const dir = join(root, "test/deno");
const files = existsSync(dir) ? readdirSync(dir).filter((f) => f.endsWith("_test.ts")) : [];
if (files.length === 0) {
  process.stdout.write("deno: no test files in test/deno\n");
  process.exit(1);
}
const r = spawnSync(
  deno,
  ["test", "-A", "--no-check", ...files.map((f) => join(dir, f)), ...process.argv.slice(2)],
  {
    cwd: root,
    encoding: "utf8",
    stdio: ["ignore", "pipe", "inherit"],
    env: { ...process.env, NO_COLOR: "1" },
  },
);
process.stdout.write(r.stdout);
const m = /(\d+) passed[^|]*\| (\d+) failed/.exec(r.stdout ?? "");
if (m) process.stdout.write(`deno tests: ${m[1]} passed, ${m[2]} failed\n`);
process.exit(r.status ?? 1);
