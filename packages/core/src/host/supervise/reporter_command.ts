/**
 * How a monitor names the agents' reporter in the hooks it wires: its own small bundle beside
 * the CLI bundle the monitor runs from (dist/ariel-report.cjs, started about as fast as
 * `node -e 0`), else the CLI itself with the hidden {@link REPORT_ARG} (Deno, which runs the
 * sources; a build without the small bundle).
 */
import { existsSync } from "node:fs";
import { REPORT_ARG } from "./protocol.ts";

/** The file name of the reporter's bundle, beside each CLI bundle that can host a monitor (scripts/build.mjs). */
export const REPORTER_BUNDLE = "ariel-report.cjs";

let cached: string[] | undefined;

/** The reporter's argv, without the agent's name. */
export function reporterCommand(): string[] {
  if (cached) return cached;
  const deno = (globalThis as { Deno?: { execPath(): string } }).Deno;
  const main = process.argv[1] ?? "";
  if (deno) cached = [deno.execPath(), "run", "-A", "--quiet", main, REPORT_ARG];
  else {
    // The bundle's own directory (a CommonJS bundle has one); undefined when run from sources.
    const dir = typeof __dirname === "string" ? __dirname : undefined;
    const bundle = dir === undefined ? null : `${dir}/${REPORTER_BUNDLE}`;
    cached =
      bundle !== null && existsSync(bundle)
        ? [process.execPath, bundle]
        : [process.execPath, main, REPORT_ARG];
  }
  return cached;
}
