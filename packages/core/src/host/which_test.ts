import { chmodSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { findOnPath } from "./which.ts";

let dir: string;
beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), "ariel-which-"));
  for (const d of ["a", "b", "c"]) mkdirSync(join(dir, d));
});
afterEach(() => rmSync(dir, { recursive: true, force: true }));

function file(path: string, mode: number): void {
  writeFileSync(join(dir, path), "#!/bin/sh\n");
  chmodSync(join(dir, path), mode);
}

describe("findOnPath", () => {
  it("finds the first executable regular file along PATH", () => {
    file("b/tool", 0o755);
    file("c/tool", 0o755);
    expect(findOnPath("tool", `${dir}/a:${dir}/b:${dir}/c`)).toBe(`${dir}/b/tool`);
  });

  it("joins an entry that ends in a slash without doubling it", () => {
    file("b/tool", 0o755);
    expect(findOnPath("tool", `${dir}/b/`)).toBe(`${dir}/b/tool`);
  });

  it("passes over a file that is not executable and a directory of the name", () => {
    file("a/tool", 0o644);
    mkdirSync(join(dir, "b", "tool"));
    file("c/tool", 0o700);
    expect(findOnPath("tool", `${dir}/a:${dir}/b:${dir}/c`)).toBe(`${dir}/c/tool`);
  });

  it("leaves the search to each start: a name with a slash, no PATH, an empty name", () => {
    file("b/tool", 0o755);
    expect(findOnPath("./tool", `${dir}/b`)).toBeNull();
    expect(findOnPath(`${dir}/b/tool`, `${dir}/b`)).toBeNull();
    expect(findOnPath("tool", undefined)).toBeNull();
    expect(findOnPath("", `${dir}/b`)).toBeNull();
  });

  it("stops at a relative entry before the match (its meaning depends on the child's cwd)", () => {
    file("b/tool", 0o755);
    expect(findOnPath("tool", `bin:${dir}/b`)).toBeNull();
    expect(findOnPath("tool", `:${dir}/b`)).toBeNull();
    expect(findOnPath("tool", `${dir}/b:bin`)).toBe(`${dir}/b/tool`);
  });

  it("is null when no entry holds it", () => {
    expect(findOnPath("tool", `${dir}/a:${dir}/c`)).toBeNull();
  });
});
