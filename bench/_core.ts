/**
 * Core hot paths against baselines measured in the same run (ratios, never pass/fail):
 * the strict NDJSON reader vs bare JSON.parse, workspaceHash (Web Crypto) vs node:crypto,
 * resolveContained vs a bare realpath. Run through bench/core.mjs.
 */
import { createHash } from "node:crypto";
import { mkdirSync, mkdtempSync, realpathSync, rmSync, symlinkSync } from "node:fs";
import { realpath } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { nodeFs } from "../packages/core/src/host/fs.ts";
import { parseNdjson, parseNdjsonLines, resolveContained, workspaceHash } from "../packages/core/src/mod.ts";

const smoke = process.argv.includes("--smoke");
const N = smoke ? 2_000 : 50_000;
const REPS = smoke ? 200 : 5_000;

async function time(fn: () => unknown | Promise<unknown>, reps = 1): Promise<number> {
  await fn(); // warm up
  const t0 = performance.now();
  for (let i = 0; i < reps; i++) await fn();
  return (performance.now() - t0) / reps;
}

function report(name: string, ms: number, baseName: string, baseMs: number): void {
  const ratio = ms / baseMs;
  process.stdout.write(
    `${name.padEnd(34)} ${ms.toFixed(3).padStart(9)} ms   ${baseName.padEnd(26)} ${baseMs.toFixed(3).padStart(9)} ms   ratio ${ratio.toFixed(2)}\n`,
  );
}

const line = (i: number) =>
  JSON.stringify({
    v: 1,
    type: "source",
    name: `services/api-${i}`,
    path: `/ws/services/api-${i}`,
    kind: "checkout",
    gitDir: `/ws/services/api-${i}/.git`,
    head: "0123456789abcdef0123456789abcdef01234567",
    branch: "main",
    ahead: 3,
  });
const text = `${Array.from({ length: N }, (_, i) => line(i)).join("\n")}\n`;
const bytes = new TextEncoder().encode(text);
const chunks: Uint8Array[] = [];
for (let i = 0; i < bytes.length; i += 65536) chunks.push(bytes.subarray(i, i + 65536));

process.stdout.write(
  `N=${N} records (${(bytes.length / 1e6).toFixed(1)} MB), ${REPS} reps for the small ops\n`,
);
const base = await time(() =>
  text
    .split("\n")
    .filter((l) => l !== "")
    .map((l) => JSON.parse(l)),
);
report("parseNdjson (text)", await time(() => parseNdjson(text)), "split + JSON.parse", base);
report(
  "parseNdjsonLines (64 KiB chunks)",
  await time(async () => {
    let n = 0;
    for await (const _ of parseNdjsonLines(chunks)) n++;
    return n;
  }),
  "split + JSON.parse",
  base,
);

report(
  "workspaceHash (crypto.subtle)",
  await time(() => workspaceHash("/home/someone/work/a-workspace"), REPS),
  "node:crypto sha256",
  await time(
    () => createHash("sha256").update("/home/someone/work/a-workspace").digest("hex").slice(0, 16),
    REPS,
  ),
);

const dir = realpathSync(mkdtempSync(join(tmpdir(), "ariel-bench-")));
try {
  mkdirSync(join(dir, "a/b/c/d"), { recursive: true });
  symlinkSync("a/b", join(dir, "link"));
  const baseline = await time(() => realpath(join(dir, "link/c/d")), REPS);
  report(
    "resolveContained (existing, 1 link)",
    await time(() => resolveContained(nodeFs, dir, "link/c/d"), REPS),
    "fs.realpath (existing dir)",
    baseline,
  );
  report(
    "resolveContained (to be created)",
    await time(() => resolveContained(nodeFs, dir, "link/c/d/new/file"), REPS),
    "fs.realpath (existing dir)",
    baseline,
  );
} finally {
  rmSync(dir, { recursive: true, force: true });
}
