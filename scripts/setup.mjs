// Idempotent set-up for a fresh clone: install with the pinned pnpm (frozen lockfile) when
// node_modules is missing or older than the lockfile, then bundle the CLIs (every packages/cli-*) when
// a source is newer than a bundle. Quiet when there is nothing to do.
import { spawnSync } from "node:child_process";
import { dirname, join } from "node:path";
import { cliPackages, mtime, newest, ROOT } from "./packages.mjs";

const PNPM = "pnpm@10.34.9";
const root = ROOT;

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

const clis = cliPackages();
const srcTime = Math.max(
  newest(join(root, "packages/core/src")),
  ...clis.map((cli) => newest(dirname(cli.src))),
  mtime(join(root, "scripts/build.mjs")),
  mtime(join(root, "scripts/packages.mjs")),
);
const bundleTime = Math.min(...clis.map((cli) => mtime(cli.bundle)));
if (bundleTime < srcTime) {
  process.stderr.write("setup: bundling the CLIs\n");
  run(process.execPath, [join(root, "scripts/build.mjs"), "--bins"]);
}
