/**
 * How a monitor names the agents' reporter (reporter_command.ts): under Deno the CLI's source
 * with the hidden argument; under Node its bundle when one is beside the module, else the CLI
 * with the hidden argument; and the first answer is kept for the process. Each case loads the module
 * afresh (its answer is cached per module instance).
 */
import { dirname } from "node:path";
import { fileURLToPath } from "node:url";
import { afterEach, describe, expect, it, vi } from "vitest";
import { REPORT_ARG } from "./protocol.ts";

const saved = process.argv.slice();

afterEach(() => {
  delete (globalThis as { Deno?: unknown }).Deno;
  process.argv.splice(0, process.argv.length, ...saved);
});

/** `reporterCommand` of a fresh module instance, with argv[1] `argv1` (undefined: none). */
async function fresh(argv1: string | undefined): Promise<() => string[]> {
  vi.resetModules();
  process.argv.splice(1);
  if (argv1 !== undefined) process.argv[1] = argv1;
  const m = await import("./reporter_command.ts");
  return m.reporterCommand;
}

describe("reporterCommand: the reporter's argv", () => {
  it.each([
    [
      "node, no bundle beside",
      undefined,
      "/x/ariel-runs.cjs",
      [process.execPath, "/x/ariel-runs.cjs", REPORT_ARG],
    ],
    ["node, no script", undefined, undefined, [process.execPath, "", REPORT_ARG]],
    [
      "deno, a source",
      "/opt/deno",
      "/x/main.ts",
      ["/opt/deno", "run", "-A", "--quiet", "/x/main.ts", REPORT_ARG],
    ],
    ["deno, no script", "/opt/deno", undefined, ["/opt/deno", "run", "-A", "--quiet", "", REPORT_ARG]],
  ])("%s", async (_name, deno, argv1, expected) => {
    const reporterCommand = await fresh(argv1);
    if (deno !== undefined) (globalThis as { Deno?: unknown }).Deno = { execPath: () => deno };
    expect(reporterCommand()).toEqual(expected);
  });

  // The bundle beside the module (as in dist/): node and that bundle, no hidden argument. Seen
  // through a stubbed existsSync: a file written into the sources' directory would be seen by
  // every test process running at the same time (the runs' end-to-end tests use the real one).
  it("node, the bundle beside the module: node and that bundle", async () => {
    const beside = `${dirname(fileURLToPath(import.meta.url))}/ariel-report.cjs`;
    const asked: unknown[] = [];
    vi.doMock("node:fs", async (orig) => ({
      ...(await orig<typeof import("node:fs")>()),
      existsSync: (p: unknown) => asked.push(p) > 0 && p === beside,
    }));
    try {
      const reporterCommand = await fresh("/x/ariel-runs.cjs");
      expect([reporterCommand(), asked]).toEqual([[process.execPath, beside], [beside]]);
    } finally {
      vi.doUnmock("node:fs");
    }
  });

  it("the first answer is kept: a later argv or Deno changes nothing", async () => {
    const reporterCommand = await fresh("/x/first.cjs");
    const first = reporterCommand();
    process.argv[1] = "/x/second.cjs";
    (globalThis as { Deno?: unknown }).Deno = { execPath: () => "/opt/deno" };
    expect([first, reporterCommand()]).toEqual([
      [process.execPath, "/x/first.cjs", REPORT_ARG],
      [process.execPath, "/x/first.cjs", REPORT_ARG],
    ]);
  });

  it("the bundle's file name is ariel-report.cjs", async () => {
    const m = await import("./reporter_command.ts");
    expect(m.REPORTER_BUNDLE).toBe("ariel-report.cjs");
  });
});
