/**
 * The rules that keep the source tree in order (issue 24), read from the source itself:
 *
 * - the pure core (`packages/core/src`, outside `host/` and `testing/`) imports nothing from
 *   `node:` and never touches `process`, `Deno`, `Buffer` or `require`: it runs unchanged on Node,
 *   Deno and in a browser;
 * - a `_`-prefixed module is private to its folder (and the folder's mirror, `core/x` ↔
 *   `core/host/x`): another folder that needs it needs a public module instead;
 * - the rooms of `core/host` import downwards only: run records at the bottom, worktree above
 *   them, then spawn, the runs supervisor, and disk (gc, du) and fleet on top. An upward import
 *   is a back-arrow; any that must remain is listed in {@link ALLOWED_BACK_ARROWS}, with why;
 * - no function of `packages/<name>/src` is over 100 lines (a long function is a missing name).
 *
 * Tests (`*_test.ts`) are left out: a test may reach into any fixture.
 */
import { spawnSync } from "node:child_process";
import { readdirSync, readFileSync } from "node:fs";
import { dirname, join, relative, resolve } from "node:path";
import { parseSync } from "vite";
import { describe, expect, it } from "vitest";

const REPO = resolve(import.meta.dirname, "..");
const CORE = join(REPO, "packages/core/src");

/**
 * The host rooms, lowest first. A room may import rooms of a lower or equal rank only. Rooms not
 * listed (cli, workspace, walk, the files right under host/) are shared ground below them all.
 * Run records (`runs`) sit lowest: worktree and spawn read them to refuse a task a run works in;
 * the supervisor that starts and controls runs (`supervise`, with its backends) sits above spawn.
 */
const HOST_RANK: Record<string, number> = {
  runs: 1,
  // Sandboxes: above the run records (a sandbox's end is its process's), below worktree, which
  // brings a sandbox's commits home before it reads a task.
  sandbox: 1.5,
  worktree: 2,
  reconcile: 3,
  spawn: 3,
  supervise: 4,
  fleet: 5,
  disk: 5,
};

/** Back-arrows still there, `from -> to` of host rooms, with the reason each is allowed. */
const ALLOWED_BACK_ARROWS: Record<string, string> = {};

function* sources(dir: string): Generator<string> {
  for (const e of readdirSync(dir, { withFileTypes: true })) {
    const p = join(dir, e.name);
    if (e.isDirectory()) {
      if (e.name !== "node_modules" && e.name !== "dist" && e.name !== "testdata") yield* sources(p);
    } else if (/\.ts$/.test(e.name) && !/_test\.ts$|\.d\.ts$/.test(e.name)) yield p;
  }
}

interface Node {
  type: string;
  [k: string]: unknown;
}

function walk(node: unknown, visit: (n: Node) => void): void {
  if (node === null || typeof node !== "object") return;
  if (Array.isArray(node)) {
    for (const c of node) walk(c, visit);
    return;
  }
  const n = node as Node;
  if (typeof n.type === "string") visit(n);
  for (const v of Object.values(n)) if (v !== null && typeof v === "object") walk(v, visit);
}

interface Parsed {
  file: string;
  imports: string[];
  /** Global runtime names the file uses (`process`, `Deno`, `Buffer`, `require`). */
  runtime: string[];
}

const RUNTIME = new Set(["process", "Deno", "Buffer", "require"]);

function parse(file: string): Parsed {
  const { program } = parseSync(file, readFileSync(file, "utf8"), { lang: "ts" });
  const imports: string[] = [];
  const runtime: string[] = [];
  walk(program, (n) => {
    const source = n.source as { value?: unknown } | null | undefined;
    if (
      (n.type === "ImportDeclaration" ||
        n.type === "ExportNamedDeclaration" ||
        n.type === "ExportAllDeclaration" ||
        n.type === "ImportExpression") &&
      typeof source?.value === "string"
    )
      imports.push(source.value);
    if (n.type === "MemberExpression") {
      const obj = n.object as Node;
      const prop = n.property as Node;
      if (obj.type === "Identifier" && RUNTIME.has(obj.name as string)) runtime.push(obj.name as string);
      if (obj.type === "Identifier" && obj.name === "globalThis" && RUNTIME.has(prop.name as string))
        runtime.push(`globalThis.${prop.name as string}`);
    }
    if (n.type === "CallExpression") {
      const callee = n.callee as Node;
      if (callee.type === "Identifier" && callee.name === "require") runtime.push("require");
    }
  });
  return { file, imports, runtime };
}

const ALL: Parsed[] = readdirSync(join(REPO, "packages")).flatMap((pkg) => {
  try {
    return [...sources(join(REPO, "packages", pkg, "src"))].map(parse);
  } catch (e) {
    if ((e as NodeJS.ErrnoException).code === "ENOENT") return [];
    throw e;
  }
});

/** The folder a file lives in, relative to packages/ (`core/src/host/worktree`). */
function folderOf(file: string): string {
  return relative(join(REPO, "packages"), dirname(file));
}

/**
 * Whether a module in folder `a` may import a `_`-prefixed one in folder `b`: the same folder, its
 * mirror (`core/src/x` ↔ `core/src/host/x`), or, in a CLI package, anywhere in the package.
 */
function sameRoom(a: string, b: string): boolean {
  const mirror = (f: string) =>
    f.startsWith("core/src/host/")
      ? f.replace("core/src/host/", "core/src/")
      : f.replace("core/src/", "core/src/host/");
  const cliPackage = (f: string) => (f.startsWith("cli-") ? f.split("/")[0] : null);
  return a === b || mirror(a) === b || (cliPackage(a) !== null && cliPackage(a) === cliPackage(b));
}

/** Test support (fixtures, fakes) may reach any fixture, like the tests it serves. */
const isTestSupport = (file: string) => /fixture|_fake/.test(file.split("/").pop()!);

/** The host room of a file (`worktree` for core/src/host/worktree/add.ts), or null. */
function hostRoom(file: string): string | null {
  const rel = relative(join(CORE, "host"), file);
  if (rel.startsWith("..")) return null;
  const parts = rel.split("/");
  return parts.length > 1 ? parts[0]! : null;
}

function relativeTargets(p: Parsed): string[] {
  return p.imports.filter((s) => s.startsWith(".")).map((s) => resolve(dirname(p.file), s));
}

describe("house rules", () => {
  it("reads the source (a guard that reads nothing cannot fail)", () => {
    expect(ALL.length).toBeGreaterThan(200);
    expect(ALL.filter((p) => hostRoom(p.file) !== null).length).toBeGreaterThan(60);
  });

  it("the pure core imports nothing from node: and never touches process, Deno, Buffer or require", () => {
    const pure = ALL.filter((p) => {
      const rel = relative(CORE, p.file);
      return !rel.startsWith("..") && !rel.startsWith("host/") && !rel.startsWith("testing/");
    });
    expect(pure.length).toBeGreaterThan(80);
    const found = pure.flatMap((p) => [
      ...p.imports.filter((s) => s.startsWith("node:")).map((s) => `${relative(CORE, p.file)}: import ${s}`),
      ...p.runtime.map((r) => `${relative(CORE, p.file)}: uses ${r}`),
    ]);
    expect(found).toEqual([]);
  });

  it("a _-prefixed module is imported only from its own folder (or its mirror)", () => {
    const found = ALL.filter((p) => !isTestSupport(p.file)).flatMap((p) =>
      relativeTargets(p)
        .filter((t) => /^_/.test(t.split("/").pop()!) && !sameRoom(folderOf(p.file), folderOf(t)))
        .map(
          (t) => `${folderOf(p.file)}/${p.file.split("/").pop()} -> ${relative(join(REPO, "packages"), t)}`,
        ),
    );
    expect(found).toEqual([]);
  });

  it("the host rooms import downwards only (the remaining back-arrows are listed, each with a reason)", () => {
    const arrows = new Set<string>();
    for (const p of ALL) {
      const from = hostRoom(p.file);
      if (from === null || HOST_RANK[from] === undefined) continue;
      for (const t of relativeTargets(p)) {
        const to = hostRoom(t);
        if (to === null || to === from || HOST_RANK[to] === undefined) continue;
        if (HOST_RANK[to]! > HOST_RANK[from]!) arrows.add(`${from} -> ${to}`);
      }
    }
    expect([...arrows].sort()).toEqual(Object.keys(ALLOWED_BACK_ARROWS).sort());
  });

  it("no function of packages/<name>/src is over 100 lines (scripts/long-functions.mjs)", () => {
    const r = spawnSync(process.execPath, [join(REPO, "scripts/long-functions.mjs")], { encoding: "utf8" });
    expect(r.status, r.stderr).toBe(0);
    expect(r.stdout).toBe("0 functions over 100 lines\n");
  });
});
