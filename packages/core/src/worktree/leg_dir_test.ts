import { describe, expect, it } from "vitest";
import { legDirName, legDirNames } from "./leg_dir.ts";

describe("legDirName: the root's directory", () => {
  it.each([
    ["trailing slashes are dropped", "/w/app//", "app"],
    ["a name ending in .lock is not used", "/w/app.lock", "root"],
    ["a name with .lock inside it is used", "/w/x.lockers", "x.lockers"],
    ["a leading dot is not safe", "/w/.app", "root"],
    ["a dotted safe name", "/w/my-app.v2", "my-app.v2"],
  ])("%s (%s → %s)", (_n, root, expected) => {
    expect(legDirName(".", root)).toBe(expected);
  });
});

describe("legDirNames", () => {
  it("maps every source, repeats included", () => {
    expect([...legDirNames(["libs/api", ".", "web", "web"], "/w/app")]).toEqual([
      ["libs/api", "libs__api"],
      [".", "app"],
      ["web", "web"],
    ]);
  });

  it.each([
    [["app", "."], "/w/app", 'sources "app" and "." would share the worktree directory "app"', ["app", "."]],
    [
      ["a/b", "a__b"],
      "/w/x",
      'sources "a/b" and "a__b" would share the worktree directory "a__b"',
      ["a/b", "a__b"],
    ],
  ])("refuses %j: one directory for two sources", (sources, root, message, both) => {
    expect(() => legDirNames(sources, root)).toThrow(
      expect.objectContaining({
        code: "ERR_INVALID_NAME",
        exit: 65,
        message,
        hint: "make the task in two steps, one per source",
        context: { sources: both },
      }),
    );
  });
});
