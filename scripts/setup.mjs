// Idempotent set-up for a fresh clone: install with the pinned pnpm (frozen lockfile) when
// node_modules is missing or older than the lockfile, then bundle the CLIs when a source is
// newer than its bundle. Quiet when there is nothing to do.
import { spawnSync } from "node:child_process";
import { existsSync, readdirSync, statSync } from "node:fs";
import { join } from "node:path";

const PNPM = "pnpm@10.34.9";
const root = new URL("..", import.meta.url).pathname;
const mtime = (p) => (existsSync(p) ? statSync(p).mtimeMs : 0);

function run(cmd, args) {
  const r = spawnSync(cmd, args, { cwd: root, stdio: ["ignore", "inherit", "inherit"] });
  if (r.status !== 0) {
    process.stderr.write(`setup: ${cmd} ${args.join(" ")} failed (status ${r.status ?? r.signal})\n`);
    process.exit(r.status || 1);
  }
}

const marker = join(root, "node_modules/.modules.yaml");
if (mtime(marker) < mtime(join(root, "pnpm-lock.yaml"))) {
  process.stderr.write("setup: installing dependencies (pnpm, frozen lockfile)\n");
  run("npx", ["-y", PNPM, "install", "--frozen-lockfile", "--reporter=silent"]);
}

function newest(dir) {
  let t = 0;
  for (const e of readdirSync(dir, { withFileTypes: true })) {
    const p = join(dir, e.name);
    t = Math.max(t, e.isDirectory() ? newest(p) : statSync(p).mtimeMs);
  }
  return t;
}
const srcTime = Math.max(
  newest(join(root, "packages/core/src")),
  ...["discover", "worktree", "spawn", "runs", "fleet"].map((n) =>
    newest(join(root, `packages/cli-${n}/src`)),
  ),
  mtime(join(root, "scripts/build.mjs")),
);
const bundleTime = Math.min(
  ...["discover", "worktree", "spawn", "runs", "fleet"].map((n) =>
    Math.max(
      mtime(join(root, `packages/cli-${n}/dist/ariel-${n}.mjs`)),
      mtime(join(root, `packages/cli-${n}/dist/ariel-${n}.cjs`)),
    ),
  ),
);
if (bundleTime < srcTime) {
  process.stderr.write("setup: bundling the CLIs\n");
  run(process.execPath, [join(root, "scripts/build.mjs")]);
}
