// After `changeset version`: write the released version into packages/core/src/version.ts, the
// VERSION every CLI prints with --version. All packages share one version (the `fixed` group in
// .changeset/config.json); test/packages.test.ts and scripts/pack-check.mjs fail when they differ.
//
//   npm run version-packages     (changeset version, then this)
import { readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { CORE_DIR, readJson } from "./packages.mjs";

const { version } = readJson(join(CORE_DIR, "package.json"));
const file = join(CORE_DIR, "src/version.ts");
const text = readFileSync(file, "utf8");
const next = text.replace(
  /export const VERSION = "[^"]*";/,
  `export const VERSION = ${JSON.stringify(version)};`,
);
if (next === text && !text.includes(`"${version}"`)) {
  process.stderr.write(`sync-version: no VERSION constant in ${file}\n`);
  process.exit(1);
}
writeFileSync(file, next);
process.stdout.write(`sync-version: VERSION = ${version}\n`);
