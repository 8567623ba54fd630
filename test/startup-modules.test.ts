/**
 * What the code-cached bins load from Node before they do their work, on the path their start-up
 * is measured on (bench/spawn.mjs, bench/startup.mjs; docs/benchmarks.md): none of Node's heavy
 * built-in modules that only some commands need. node:crypto alone costs about 0.09× of
 * `node -e 0`; a static import anywhere in a bundle pays it on every start (host/builtins.ts
 * loads them on first use). Run on the built bundles, each with its build's warm-up command.
 * And what the code-cached bins read their bundle as: latin1, so every bundle is ASCII.
 */
import { spawnSync } from "node:child_process";
import { mkdirSync, readdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { REPO_ROOT } from "./helpers/cli.ts";

const dir = join(tmpdir(), `ariel-startup-modules-${process.pid}`);
const ws = join(dir, "ws");
mkdirSync(join(ws, ".ariel"), { recursive: true });
const preload = join(dir, "modules.cjs");
const listed = join(dir, "modules.txt");
writeFileSync(
  preload,
  `process.on("exit", () => require("node:fs").writeFileSync(${JSON.stringify(listed)}, process.moduleLoadList.join("\\n")));\n`,
);
afterAll(() => rmSync(dir, { recursive: true, force: true }));

/** The built-in modules (`NativeModule x`) a bin loaded over a whole run of `args`. */
function loadedBy(cli: string, bin: string, args: string[]): string[] {
  rmSync(listed, { force: true });
  const r = spawnSync(
    process.execPath,
    ["-r", preload, join(REPO_ROOT, "packages", cli, "dist", `${bin}.cjs`), ...args],
    {
      cwd: ws,
      env: { PATH: process.env.PATH, HOME: dir, ARIEL_STATE_HOME: join(dir, "state") },
      encoding: "utf8",
    },
  );
  expect([r.status, r.stderr]).toEqual([0, ""]);
  return readFileSync(listed, "utf8")
    .split("\n")
    .filter((l) => l.startsWith("NativeModule "))
    .map((l) => l.slice("NativeModule ".length));
}

const HEAVY = ["crypto", "fs/promises", "http", "https", "zlib", "internal/crypto/hash"];

describe("start-up of the code-cached bins", () => {
  it.each([
    ["cli-spawn", "ariel-spawn", ["--", "true"]],
    ["cli-worktree", "ariel-worktree", ["list"]],
    ["cli-runs", "ariel-runs", ["list"]],
  ])("%s's %s %j loads none of Node's heavy modules", (cli, bin, args) => {
    const loaded = loadedBy(cli, bin, args);
    // the guard reads what it means to: vm is what compiles a bundle with its code cache
    expect(loaded).toContain("vm");
    expect(loaded.filter((m) => HEAVY.includes(m))).toEqual([]);
  });
});

describe("the bundles", () => {
  // A code-cached bin reads its bundle as latin1 (scripts/build.mjs): a character outside ASCII
  // would be read as the latin1 characters of its UTF-8 bytes. esbuild leaves them in regular
  // expressions; the build escapes them.
  it("are ASCII, every one of them", () => {
    const bundles = readdirSync(join(REPO_ROOT, "packages"))
      .filter((p) => p.startsWith("cli-"))
      .flatMap((p) =>
        readdirSync(join(REPO_ROOT, "packages", p, "dist"))
          .filter((f) => f.endsWith(".cjs"))
          .map((f) => join("packages", p, "dist", f)),
      );
    expect(bundles).toContain(join("packages", "cli-spawn", "dist", "ariel-spawn.main.cjs"));
    const outside = bundles.flatMap((b) =>
      readFileSync(join(REPO_ROOT, b), "latin1")
        .split("\n")
        .flatMap((line, i) => (/[^\x00-\x7f]/.test(line) ? [`${b}:${i + 1}`] : [])),
    );
    expect(outside).toEqual([]);
  });
});
