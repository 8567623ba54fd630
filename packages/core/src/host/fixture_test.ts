/**
 * The test helpers never touch the project's own checkout: a relative path (taken from the test
 * process's cwd, which is the checkout) or a path inside it is refused before git runs or a file
 * is written.
 */
import { existsSync } from "node:fs";
import { fileURLToPath } from "node:url";
import { describe, expect, it } from "vitest";
import { commitAll, git, gitRaw, initRepo, writeFile } from "./_fixture.ts";

const project = fileURLToPath(new URL("../../../../", import.meta.url)).replace(/\/$/, "");

describe("the test helpers' scratch guard", () => {
  it.each([
    ["a relative path", "58662662a80551479125bb5a54b6f6762c9514cb"],
    ["the checkout", project],
    ["a path inside it", `${project}/packages/x`],
  ])("%s is refused by every helper, and nothing is made", (_, path) => {
    expect(() => git(path, "status")).toThrow(/is not a scratch path/);
    expect(() => gitRaw(path, "status")).toThrow(/is not a scratch path/);
    expect(() => commitAll(path)).toThrow(/is not a scratch path/);
    expect(() => initRepo(path)).toThrow(/is not a scratch path/);
    expect(() => writeFile(`${path}/ariel.config.json`, "{}")).toThrow(/is not a scratch path/);
    expect(existsSync(`${path}/ariel.config.json`)).toBe(false);
  });
});
