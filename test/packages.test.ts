/**
 * Every package of the workspace is publishable as docs/install.md describes, and a new
 * packages/cli-* is caught here (in the unit suite, without a build) when its manifest misses
 * something: scripts/pack-check.mjs then proves the tarballs install and run.
 */
import { existsSync, readdirSync, readFileSync } from "node:fs";
import { dirname, join, relative, resolve, sep } from "node:path";
import { describe, expect, it } from "vitest";
import { VERSION } from "../packages/core/src/version.ts";
// @ts-expect-error: a plain .mjs module of the build scripts, no declarations
import { META_ALIASES, runtimeDependencyVersions } from "../scripts/packages.mjs";
import { REPO_ROOT } from "./helpers/cli.ts";

// biome-ignore lint/suspicious/noExplicitAny: package.json is any JSON
type Manifest = Record<string, any>;
const read = (path: string): Manifest => JSON.parse(readFileSync(join(REPO_ROOT, path), "utf8"));

const root = read("package.json");
const license = readFileSync(join(REPO_ROOT, "LICENSE"), "utf8");
const dirs = readdirSync(join(REPO_ROOT, "packages")).filter((d) =>
  existsSync(join(REPO_ROOT, "packages", d, "package.json")),
);
const cliDirs = dirs.filter((d) => d.startsWith("cli-"));
const manifests = Object.fromEntries(dirs.map((d) => [d, read(`packages/${d}/package.json`)]));
const binOf = (dir: string) => `ariel-${dir.slice("cli-".length)}`;

describe("every package", () => {
  it("has the expected set: core, the meta package ariel, and at least the three CLIs", () => {
    expect(dirs).toContain("core");
    expect(dirs).toContain("ariel");
    expect(cliDirs).toEqual(expect.arrayContaining(["cli-discover", "cli-spawn", "cli-worktree"]));
  });

  it.each(dirs)("packages/%s: public, licensed, documented, for Node >= 20, one version", (dir) => {
    const m = manifests[dir]!;
    expect(m.private).toBeUndefined();
    expect(m.license).toBe("MIT");
    expect(m.license).toBe(root.license);
    expect(m.engines).toEqual({ node: ">=20" });
    expect(m.repository).toEqual({ ...root.repository, directory: `packages/${dir}` });
    expect(typeof m.description).toBe("string");
    expect(m.files).toEqual(expect.arrayContaining(["README.md", "CHANGELOG.md", "LICENSE"]));
    expect(readFileSync(join(REPO_ROOT, "packages", dir, "LICENSE"), "utf8")).toBe(license);
    expect(existsSync(join(REPO_ROOT, "packages", dir, "README.md"))).toBe(true);
    expect(m.scripts?.prepack).toBe("node ../../scripts/prepack.mjs");
    expect(m.publishConfig?.access).toBe("public");
    expect(m.version).toBe(VERSION);
  });
});

describe("the CLI packages", () => {
  it.each(cliDirs)(
    "packages/%s: the bundle is the published bin; runtime dependencies only its addons",
    (dir) => {
      const m = manifests[dir]!;
      const bin = binOf(dir);
      expect(m.name).toBe(`@ariel/${dir}`);
      // In the repository the bin is the committed launcher (linked by pnpm before any build).
      expect(m.bin).toEqual({ [bin]: `./bin/${bin}.mjs` });
      expect(existsSync(join(REPO_ROOT, "packages", dir, "bin", `${bin}.mjs`))).toBe(true);
      expect(m.publishConfig.bin).toEqual({ [bin]: `./dist/${bin}.cjs` });
      expect(m.exports).toEqual({ "./bin": `./dist/${bin}.cjs`, "./package.json": "./package.json" });
      expect(m.files).toContain(`dist/${bin}.cjs`);
      // Those the bundle leaves out (scripts/packages.mjs), at core's versions: the CLIs that start
      // monitors (spawn, runs, fleet, and tui: its n starts runs, its preview renders screens) run
      // tty runs; the others need none.
      const runtime = runtimeDependencyVersions() as Record<string, string>;
      const tty = ["cli-spawn", "cli-runs", "cli-fleet", "cli-tui"].includes(dir);
      expect(m.dependencies).toEqual(tty ? runtime : undefined);
      expect(Object.values(runtime).every((v) => /^\d+\.\d+\.\d+$/.test(v))).toBe(true);
      expect(m.devDependencies["@ariel/core"]).toBe("workspace:*");
    },
  );

  it("are all dependencies of the repository root, so node_modules/.bin has every bin", () => {
    for (const dir of cliDirs) expect(root.dependencies[`@ariel/${dir}`]).toBe("workspace:*");
  });
});

describe("the meta package ariel", () => {
  const m = manifests.ariel!;
  it("depends on every CLI package and exposes every bin", () => {
    expect(m.name).toBe("ariel");
    expect(m.dependencies).toEqual(Object.fromEntries(cliDirs.map((d) => [`@ariel/${d}`, "workspace:*"])));
    expect(m.bin).toEqual({
      ...Object.fromEntries(cliDirs.map((d) => [binOf(d), `./dist/${binOf(d)}.cjs`])),
      // `ariel` itself: the terminal UI, another name for ariel-tui (scripts/packages.mjs META_ALIASES)
      ...Object.fromEntries(Object.keys(META_ALIASES).map((b) => [b, `./dist/${b}.cjs`])),
    });
    expect(META_ALIASES).toEqual({ ariel: "ariel-tui" });
  });
});

describe("@ariel/core", () => {
  const m = manifests.core!;
  it("exports the TypeScript source here and compiled ESM with declarations when published", () => {
    expect(m.exports).toEqual({
      ".": "./src/mod.ts",
      "./host": "./src/host/mod.ts",
      "./testing": "./src/testing/fake_fs.ts",
    });
    const compiled = (f: string) => ({ types: `./dist/${f}.d.ts`, default: `./dist/${f}.js` });
    expect(m.publishConfig.exports).toEqual({
      ".": compiled("mod"),
      "./host": compiled("host/mod"),
      "./testing": compiled("testing/fake_fs"),
      "./package.json": "./package.json",
    });
    expect(m.publishConfig.main).toBe("./dist/mod.js");
    expect(m.publishConfig.types).toBe("./dist/mod.d.ts");
    expect(m.files).toContain("dist");
  });
});

/** The .ts files under `dir` (none of node_modules or dist). */
function tsFiles(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((e) => {
    const p = join(dir, e.name);
    if (e.isDirectory()) return e.name === "node_modules" || e.name === "dist" ? [] : tsFiles(p);
    return e.name.endsWith(".ts") ? [p] : [];
  });
}

describe("the packages' sources", () => {
  it("import nothing from outside packages/ (test code may import a package, never the reverse)", () => {
    const packages = join(REPO_ROOT, "packages");
    const outside: string[] = [];
    for (const file of tsFiles(packages)) {
      const text = readFileSync(file, "utf8");
      for (const m of text.matchAll(/(?:\bfrom|\bimport)\s*\(?\s*["'](\.{1,2}\/[^"']*)["']/g)) {
        const target = resolve(dirname(file), m[1]!);
        if (!target.startsWith(packages + sep)) outside.push(`${relative(REPO_ROOT, file)}: ${m[1]}`);
      }
    }
    expect(outside).toEqual([]);
  });
});

describe(".changeset/config.json", () => {
  it("publishes publicly and versions every package together", () => {
    const c = read(".changeset/config.json");
    expect(c.access).toBe("public");
    expect(c.fixed).toEqual([["ariel", "@ariel/*"]]);
  });
});
