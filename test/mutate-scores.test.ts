/**
 * scripts/mutate.mjs --scores: the table of docs/testing.md ("Score") is made from the committed
 * incremental file, and a folder with no result in it is listed as not measured, with the command
 * that measures it.
 */
import { describe, expect, it } from "vitest";
import {
  folderOf,
  folderScores,
  hasCode,
  isMutable,
  measureCommand,
  partlyMeasured,
  unmeasured,
  // @ts-expect-error: a plain .mjs module of the scripts, no declarations
} from "../scripts/mutate.mjs";

const mutant = (status: string) => ({ status });

describe("scripts/mutate.mjs --scores", () => {
  it.each([
    ["packages/core/src/host/land/land.ts", "core/src/host/land"],
    ["packages/core/src/host/land/deep/x.ts", "core/src/host/land"],
    ["packages/core/src/host/paths.ts", "core/src/host (files)"],
    ["packages/core/src/names.ts", "core/src (files)"],
    ["packages/cli-worktree/src/commands/add.ts", "cli-worktree/src/commands"],
    ["packages/cli-spawn/src/command.ts", "cli-spawn/src (files)"],
    ["scripts/mutate.mjs", "scripts/mutate.mjs"],
  ])("folderOf(%s) is %s", (file, folder) => {
    expect(folderOf(file)).toBe(folder);
  });

  it.each([
    ["packages/core/src/host/land/land.ts", true],
    ["packages/cli-runs/src/commands/list.ts", true],
    ["packages/core/src/host/land/land_test.ts", false],
    ["packages/core/src/host/cli/_fixture.ts", false],
    ["packages/core/src/host/supervise/_durable_worker_fixture.ts", false],
    ["packages/core/src/testing/fake_fs.ts", false],
    ["packages/core/src/discovery/_fake_fs.ts", false],
    ["packages/core/src/schema/json_schema.ts", false],
    ["packages/cli-spawn/src/main.ts", false],
    ["packages/cli-spawn/src/main_helpers.ts", true],
    ["packages/core/src/host/README.md", false],
  ])("isMutable(%s) is %s (NOT_MUTATED of stryker.config.mjs)", (file, mutable) => {
    expect(isMutable(file)).toBe(mutable);
  });

  it.each([
    ["core/src/host/land", "nice -n 19 node scripts/mutate.mjs packages/core/src/host/land"],
    ["core/src/host (files)", "nice -n 19 node scripts/mutate.mjs 'packages/core/src/host/*.ts'"],
    ["cli-runs/src/commands", "nice -n 19 node scripts/mutate.mjs packages/cli-runs/src/commands"],
  ])("measureCommand(%s)", (folder, command) => {
    expect(measureCommand(folder)).toBe(command);
  });

  const report = {
    files: {
      "packages/core/src/host/land/land.ts": {
        mutants: [
          mutant("Killed"),
          mutant("Timeout"),
          mutant("Survived"),
          mutant("NoCoverage"),
          mutant("Ignored"),
        ],
      },
      "packages/core/src/host/land/step.ts": { mutants: [mutant("Killed"), mutant("CompileError")] },
      "packages/core/src/host/walk/walk.ts": { mutants: [mutant("Survived")] },
      "packages/core/src/names.ts": { mutants: [mutant("Killed")] },
    },
  };

  it("counts killed and timed-out mutants as killed, and leaves ignored and compile errors out", () => {
    expect(folderScores(report, ["packages/core/src/host"])).toEqual([
      { folder: "core/src/host/land", mutants: 5, killed: 3, survived: 1, noCoverage: 1 },
      { folder: "core/src/host/walk", mutants: 1, killed: 0, survived: 1, noCoverage: 0 },
    ]);
  });

  it("lists the folders with a mutable file and no result as not measured, with their command", () => {
    const files = [
      "packages/core/src/host/land/land.ts",
      "packages/core/src/host/land/new.ts",
      "packages/core/src/host/worktree/add.ts",
      "packages/core/src/host/worktree/add_test.ts",
      "packages/core/src/host/cli/_fixture.ts",
      "packages/core/src/host/paths.ts",
    ];
    expect(unmeasured(report, files)).toEqual([
      {
        folder: "core/src/host (files)",
        command: "nice -n 19 node scripts/mutate.mjs 'packages/core/src/host/*.ts'",
      },
      {
        folder: "core/src/host/worktree",
        command: "nice -n 19 node scripts/mutate.mjs packages/core/src/host/worktree",
      },
    ]);
  });

  it("lists the folders measured in part, with the files that have no result", () => {
    const files = [
      "packages/core/src/host/land/land.ts",
      "packages/core/src/host/land/zeta.ts",
      "packages/core/src/host/land/alpha.ts",
      "packages/core/src/host/land/alpha_test.ts",
      "packages/core/src/host/land/_fixture.ts",
      "packages/core/src/host/worktree/add.ts",
      "packages/cli-runs/src/commands/list.ts",
    ];
    const read = (f: string) =>
      f.endsWith("zeta.ts") ? 'export type { Z } from "./z.ts";\n' : "export const a = 1;\n";
    expect(partlyMeasured(report, files, read)).toEqual([
      { folder: "core/src/host/land", missing: ["alpha.ts"] },
    ]);
    expect(partlyMeasured(report, files, () => "export const a = 1;\n")).toEqual([
      { folder: "core/src/host/land", missing: ["alpha.ts", "zeta.ts"] },
    ]);
    expect(partlyMeasured(report, files.slice(0, 1))).toEqual([]);
  });

  it.each([
    ['export { a, b } from "./a.ts";\nexport * from "./b.ts";\nexport * as c from "./c.ts";\n', false],
    [
      'import type { T } from "./t.ts";\nexport interface I {\n  t: T;\n}\nexport type U = T | null;\n',
      false,
    ],
    ["// a comment\n/** a doc */\n", false],
    ['import { x } from "./x.ts";\nexport const y = x + 1;\n', true],
    ["export function f(): number {\n  return 1;\n}\n", true],
  ])("hasCode(%j) is %s", (source, code) => {
    expect(hasCode(source)).toBe(code);
  });
});
