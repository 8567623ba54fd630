/**
 * The file a run's command names, found as execvp would (absolute, relative to the run's cwd, on
 * the run's PATH), each failure the errno a spawn would give (ENOENT, EACCES), and the
 * descriptor-closing shim in front of it.
 */
import { chmodSync, mkdirSync, symlinkSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { CLOSE_FDS_PERL } from "../../runs/exec_shim.ts";
import { removeDir, tempDir } from "../_fixture.ts";
import { resolveExecutable, runExec, shimPerl } from "./exec.ts";

let dir: string;
let bin: string;
beforeEach(() => {
  dir = tempDir("ariel-exec-");
  bin = join(dir, "bin");
  mkdirSync(bin);
});
afterEach(() => removeDir(dir));

function file(path: string, mode: number): string {
  writeFileSync(path, "#!/bin/sh\n");
  chmodSync(path, mode);
  return path;
}

/** The errno `f` throws. */
function errno(f: () => unknown): string | undefined {
  try {
    f();
  } catch (e) {
    return (e as NodeJS.ErrnoException).code;
  }
  return undefined;
}

describe("resolveExecutable", () => {
  it("a name on PATH: the first executable file, in PATH's order", () => {
    const other = join(dir, "other");
    mkdirSync(other);
    file(join(bin, "tool"), 0o644);
    const second = file(join(other, "tool"), 0o755);
    expect(resolveExecutable("tool", "/", { PATH: `${bin}:${other}` })).toBe(second);
    const first = file(join(bin, "tool2"), 0o755);
    file(join(other, "tool2"), 0o755);
    expect(resolveExecutable("tool2", "/", { PATH: `${bin}:${other}` })).toBe(first);
  });

  it("an absolute path as it is; a path with a slash relative to the cwd", () => {
    const abs = file(join(bin, "abs"), 0o755);
    expect(resolveExecutable(abs, "/", { PATH: "" })).toBe(abs);
    expect(resolveExecutable("bin/abs", dir, { PATH: "/usr/bin" })).toBe(`${dir}/bin/abs`);
    expect(resolveExecutable("./bin/abs", dir, {})).toBe(`${dir}/./bin/abs`);
  });

  it("nothing by that name: ENOENT, like a spawn", () => {
    expect(errno(() => resolveExecutable("ariel-none", "/", { PATH: bin }))).toBe("ENOENT");
    expect(errno(() => resolveExecutable(join(bin, "none"), "/", { PATH: bin }))).toBe("ENOENT");
    expect(errno(() => resolveExecutable("ariel-none", "/", {}))).toBe("ENOENT");
    symlinkSync(join(dir, "gone"), join(bin, "dangling"));
    expect(errno(() => resolveExecutable(join(bin, "dangling"), "/", {}))).toBe("ENOENT");
  });

  it("a file that may not be run, or a directory: EACCES", () => {
    const plain = file(join(bin, "plain"), 0o644);
    expect(errno(() => resolveExecutable(plain, "/", {}))).toBe("EACCES");
    expect(errno(() => resolveExecutable(bin, "/", {}))).toBe("EACCES");
    expect(() => resolveExecutable(plain, "/", {})).toThrow(`EACCES: ${plain}`);
  });

  it("a relative PATH entry: the name is left for execvp to search", () => {
    expect(resolveExecutable("ariel-none", "/", { PATH: `${bin}:relative` })).toBe("ariel-none");
  });
});

describe("runExec", () => {
  it("the shim's perl in front of the file and the whole argv, when there is a perl", () => {
    const tool = file(join(bin, "tool"), 0o755);
    const perl = shimPerl();
    const exec = runExec(["tool", "a b", "c"], "/", { PATH: bin });
    if (perl === null) expect(exec).toEqual({ file: tool, args: ["a b", "c"] });
    else expect(exec).toEqual({ file: perl, args: ["-e", CLOSE_FDS_PERL, tool, "tool", "a b", "c"] });
  });

  it("a command that cannot be found fails before anything starts", () => {
    expect(errno(() => runExec(["ariel-none"], "/", { PATH: bin }))).toBe("ENOENT");
  });
});
