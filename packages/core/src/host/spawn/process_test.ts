import { chmodSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { findOnPath, startChild } from "./process.ts";

const dir = mkdtempSync(join(tmpdir(), "ariel-find-on-path-"));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

/** `<dir>/<sub>/<name>`, a file with `mode` (or a directory when mode is "dir"). */
function plant(sub: string, name: string, mode: number | "dir"): string {
  mkdirSync(join(dir, sub), { recursive: true });
  const path = join(dir, sub, name);
  if (mode === "dir") mkdirSync(path);
  else {
    writeFileSync(path, "#!/bin/sh\n");
    chmodSync(path, mode);
  }
  return path;
}
const a = join(dir, "a");
const b = join(dir, "b");
const c = join(dir, "c");
plant("a", "only-b", "dir"); // a directory of that name: skipped
plant("a", "plain", 0o644); // not executable: skipped
plant("b", "only-b", 0o755);
plant("b", "plain", 0o755);
plant("c", "plain", 0o755);
plant("a", "both", 0o755);
plant("b", "both", 0o755);

describe("findOnPath", () => {
  it.each([
    ["the first executable along PATH", "both", `${a}:${b}`, join(a, "both")],
    ["past a directory of that name", "only-b", `${a}:${b}`, join(b, "only-b")],
    ["past a file that is not executable", "plain", `${a}:${b}:${c}`, join(b, "plain")],
    ["an entry with a trailing slash", "both", `${b}/`, join(b, "both")],
    ["a relative entry after the match does not matter", "both", `${a}:bin`, join(a, "both")],
    ["none when no entry holds it (the search reports it)", "nowhere", `${a}:${b}`, null],
    ["none when a relative entry comes first (it depends on the cwd)", "both", `bin:${a}`, null],
    ["none when an empty entry (the cwd) comes first", "both", `:${a}`, null],
    ["none for a command with a slash (run as given)", "./both", `${a}`, null],
    ["none for an absolute command", join(a, "both"), `${a}`, null],
    ["none for an empty command", "", `${a}`, null],
    ["none without PATH", "both", undefined, null],
    ["none for an empty PATH", "both", "", null],
  ])("%s", (_name, command, path, expected) => {
    expect(findOnPath(command, path)).toBe(expected);
  });
});

describe("startChild with a file found on PATH", () => {
  it("runs the file and the child still sees argv[0] as given", async () => {
    let out = "";
    const child = startChild({
      argv: ["my-node", "-e", "process.stdout.write(process.argv0)"],
      file: process.execPath,
      cwd: dir,
      env: {},
      stdin: "ignore",
      ownGroup: true,
      onLine: (_stream, l) => {
        out += l.line;
      },
    });
    const r = await child.done;
    expect(r).toMatchObject({ code: 0, status: 0, error: null });
    expect(out).toBe("my-node");
  });
});
