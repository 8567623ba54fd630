// `prepack` of every publishable package (pnpm runs it in the package's directory before
// `pnpm pack` and `pnpm publish`): refuse to pack a build output that is missing or older than
// its sources, so a tarball never ships a stale bundle. Run `npm run build` first.
import { realpathSync } from "node:fs";
import { relative } from "node:path";
import { buildOutputs, mtime, ROOT } from "./packages.mjs";

const dir = realpathSync(process.cwd());
const stale = buildOutputs(dir).filter((o) => mtime(o.file) === 0 || mtime(o.file) < o.since);
if (stale.length > 0) {
  const names = stale.map((o) => relative(ROOT, o.file)).join(", ");
  process.stderr.write(`prepack: missing or older than its sources: ${names}\nhint: run npm run build\n`);
  process.exit(1);
}
