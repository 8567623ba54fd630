/**
 * add --share node_modules --share-mode store: one store per source and lockfiles under
 * .ariel/share, each leg a real node_modules of links into it. Node resolves nested, hoisted,
 * scoped and pnpm-style dependencies from a leg; writes at the top of a leg's node_modules stay
 * in that leg; writes inside a package directory reach the other legs of the store (the
 * documented trade-off), never the source; du counts the store once; gc drops it only when no
 * leg links into it, and the source keeps every file.
 */
import { spawnSync } from "node:child_process";
import {
  lstatSync,
  mkdirSync,
  readdirSync,
  readFileSync,
  readlinkSync,
  renameSync,
  rmSync,
  statSync,
  symlinkSync,
  writeFileSync,
} from "node:fs";
import { hostname } from "node:os";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { initRepo, tempDir } from "./helpers/git.ts";
import { errors, legPath, records, removeDir, writeFile, wt } from "./worktree-fixtures.ts";

let root = "";
afterEach(() => removeDir(root));

const LOCK = '{"lockfileVersion":3,"packages":{"node_modules/a":{"version":"1.0.0"}}}\n';

/**
 * api: a checkout with packages/local (a workspace package) and a node_modules holding every
 * layout Node must resolve: `a` with a nested `b` and a hoisted `c`, a scoped `@s/d`, a pnpm-style
 * `e` (a link into `.pnpm`, its dependency `f` a link inside `.pnpm`), a workspace link
 * `@s/local -> ../../packages/local`, a `.bin` entry and npm's `.package-lock.json`.
 */
function workspace(): string {
  const r = tempDir("ariel-share-store-");
  const api = join(r, "api");
  initRepo(api, {
    "README.md": "# api\n",
    ".gitignore": "node_modules/\n.ariel/\n",
    "package-lock.json": LOCK,
    "packages/local/index.js": 'module.exports = "local:" + __dirname;\n',
  });
  const nm = join(api, "node_modules");
  writeFile(
    join(nm, "a/index.js"),
    'module.exports = [require("b"), require("c"), require("@s/d"), require("e")].join(",");\n',
  );
  writeFile(join(nm, "a/node_modules/b/index.js"), 'module.exports = "b";\n');
  writeFile(join(nm, "c/index.js"), 'module.exports = "c";\n');
  writeFile(join(nm, "@s/d/index.js"), 'module.exports = "d";\n');
  writeFile(join(nm, ".pnpm/e@1/node_modules/e/index.js"), 'module.exports = "e" + require("f");\n');
  writeFile(join(nm, ".pnpm/f@1/node_modules/f/index.js"), 'module.exports = "f";\n');
  symlinkSync("../../f@1/node_modules/f", join(nm, ".pnpm/e@1/node_modules/f"));
  symlinkSync(".pnpm/e@1/node_modules/e", join(nm, "e"));
  symlinkSync("../../packages/local", join(nm, "@s/local"));
  mkdirSync(join(nm, ".bin"));
  symlinkSync("../c/index.js", join(nm, ".bin/c"));
  writeFile(join(nm, ".package-lock.json"), "{}\n");
  return r;
}

const add = (task: string, ...more: string[]) =>
  wt(root, [
    "add",
    "--source",
    "api",
    "--task",
    task,
    "--share",
    "node_modules",
    "--share-mode",
    "store",
    ...more,
  ]);
const stores = () => readdirSync(join(root, ".ariel/share")).filter((n) => !n.startsWith("."));
const node = (cwd: string, code: string) => {
  const r = spawnSync(process.execPath, ["-e", code], { cwd, encoding: "utf8" });
  return { code: r.status, out: r.stdout.trim(), err: r.stderr };
};

describe("ariel-worktree add --share node_modules --share-mode store", () => {
  it("makes the store once, links each leg into it, and Node resolves every layout from a leg", async () => {
    root = workspace();
    const r1 = await add("t1");
    expect(r1.code).toBe(0);
    const [key] = stores();
    expect(stores()).toEqual([key]);
    expect(r1.stderr).toContain(
      `api: node_modules shared through store ${key} (made now) (1 files hardlinked into the worktree)`,
    );
    const r2 = await add("t2");
    expect(r2.code).toBe(0);
    expect(r2.stderr).toContain(
      `api: node_modules shared through store ${key} (1 files hardlinked into the worktree)`,
    );
    expect(stores()).toEqual([key]);

    const store = join(root, ".ariel/share", key!, "node_modules");
    const src = join(root, "api/node_modules");
    // The store's files are other names of the source's inodes.
    expect(statSync(join(store, "c/index.js")).ino).toBe(statSync(join(src, "c/index.js")).ino);
    expect(JSON.parse(readFileSync(join(root, ".ariel/share", key!, "store.json"), "utf8"))).toMatchObject({
      v: 1,
      source: "api",
      sourcePath: join(root, "api"),
      dir: "node_modules",
      lockfiles: ["package-lock.json"],
      escapes: ["@s/local"],
      files: 7,
    });

    const leg = legPath(root, "t1", "api");
    const nm = join(leg, "node_modules");
    expect(lstatSync(nm).isDirectory()).toBe(true);
    const entries = Object.fromEntries(
      readdirSync(nm)
        .sort()
        .map((n) => {
          const st = lstatSync(join(nm, n));
          return [
            n,
            st.isSymbolicLink() ? `-> ${readlinkSync(join(nm, n))}` : st.isDirectory() ? "dir" : "file",
          ];
        }),
    );
    expect(entries).toEqual({
      ".ariel-share": `-> ../../../../share/${key}/node_modules`,
      ".bin": "dir",
      ".package-lock.json": "file",
      ".pnpm": "-> .ariel-share/.pnpm",
      "@s": "dir",
      a: "-> .ariel-share/a",
      c: "-> .ariel-share/c",
      e: "-> .pnpm/e@1/node_modules/e",
    });
    expect(readlinkSync(join(nm, "@s/d"))).toBe("../.ariel-share/@s/d");
    // The workspace link is the leg's own: it resolves to the leg's packages/local.
    expect(readlinkSync(join(nm, "@s/local"))).toBe("../../packages/local");

    const got = node(leg, 'console.log(require("a"), require("@s/local"))');
    expect(got).toEqual({ code: 0, out: `b,c,d,ef local:${join(leg, "packages/local")}`, err: "" });
    // From inside the store, the same link is the source's (the store serves every leg).
    expect(readlinkSync(join(store, "@s/local"))).toBe(join(root, "api/packages/local"));
    expect(node(leg, 'console.log(require.resolve("c"))').out).toBe(join(store, "c/index.js"));
    expect(readFileSync(join(nm, ".bin/c"), "utf8")).toBe('module.exports = "c";\n');
  });

  it("du counts the store once, in its own record, with the legs that use it", async () => {
    root = workspace();
    for (const t of ["t1", "t2"]) expect((await add(t)).code).toBe(0);
    const [key] = stores();
    const r = await wt(root, ["du", "--json"]);
    expect(r.code).toBe(0);
    const recs = records(r.stdout);
    const share = recs.find((x) => x.type === "du.share")!;
    expect(share).toMatchObject({
      store: key,
      source: "api",
      dir: "node_modules",
      path: join(root, ".ariel/share", key!),
      users: ["t1/api", "t2/api"],
      checkout: 0,
      untracked: 0,
      admin: 0,
    });
    const ws = recs.find((x) => x.type === "du.workspace")!;
    const tasks = recs.filter((x) => x.type === "du.task");
    expect(ws.total).toBe(tasks.reduce((n, t) => n + (t.total as number), share.total as number));
    // The same bytes as du -s over the legs, their admin dirs and the store (hardlinks once).
    const paths = ["t1", "t2"].flatMap((t) => {
      const leg = legPath(root, t, "api");
      return [leg, readFileSync(join(leg, ".git"), "utf8").replace("gitdir: ", "").trim()];
    });
    const du = spawnSync("du", ["-s", "-B1", "-c", ...paths, join(root, ".ariel/share", key!)], {
      encoding: "utf8",
    });
    expect(ws.total).toBe(Number(du.stdout.trim().split("\n").pop()!.split("\t")[0]));
    // Each leg pays for its own top directory and what it holds, not the packages.
    for (const t of tasks) expect(t.ignored as number).toBeLessThan(share.ignored as number);
  });

  it("top-level writes stay in the leg; writes inside a package reach the other legs, never the source", async () => {
    root = workspace();
    for (const t of ["t1", "t2"]) expect((await add(t)).code).toBe(0);
    const leg1 = join(legPath(root, "t1", "api"), "node_modules");
    const leg2 = join(legPath(root, "t2", "api"), "node_modules");
    const src = join(root, "api/node_modules");
    // A cache at the top of node_modules, and a package replaced by the leg's own copy.
    writeFile(join(leg1, ".cache/x"), "cache\n");
    rmSync(join(leg1, "c"));
    writeFile(join(leg1, "c/index.js"), 'module.exports = "mine";\n');
    expect(node(legPath(root, "t1", "api"), 'console.log(require("c"))').out).toBe("mine");
    expect(node(legPath(root, "t2", "api"), 'console.log(require("c"))').out).toBe("c");
    expect(lstatSync(join(leg2, ".cache"), { throwIfNoEntry: false })).toBeUndefined();
    // Inside a package directory: the store's, so t2 sees it; the source does not.
    writeFileSync(join(leg2, "a/new.js"), "new\n");
    writeFileSync(join(leg2, "a/index.js.tmp"), 'module.exports = "replaced";\n');
    renameSync(join(leg2, "a/index.js.tmp"), join(leg2, "a/index.js"));
    expect(readFileSync(join(leg1, ".ariel-share/a/new.js"), "utf8")).toBe("new\n");
    expect(node(legPath(root, "t1", "api"), 'console.log(require("a"))').out).toBe("replaced");
    expect(lstatSync(join(src, "a/new.js"), { throwIfNoEntry: false })).toBeUndefined();
    expect(readFileSync(join(src, "a/index.js"), "utf8")).toContain('require("b")');
    // rm -rf with a trailing slash follows the link: the store's package is emptied for every
    // leg (documented); the source keeps its files.
    expect(spawnSync("rm", ["-rf", `${join(leg2, "@s/d")}/`]).status).toBe(0);
    expect(lstatSync(join(leg2, "@s/d")).isSymbolicLink()).toBe(true);
    expect(readdirSync(join(leg1, ".ariel-share/@s/d"))).toEqual([]);
    expect(readFileSync(join(src, "@s/d/index.js"), "utf8")).toBe('module.exports = "d";\n');
    // rm -rf node_modules in a leg removes its links only.
    rmSync(leg1, { recursive: true, force: true });
    expect(node(legPath(root, "t2", "api"), 'console.log(require("e"))').out).toBe("ef");
    expect(readFileSync(join(src, "c/index.js"), "utf8")).toBe('module.exports = "c";\n');
  });

  it("a relative link leaving node_modules deep in a package keeps that package per leg", async () => {
    root = workspace();
    const api = join(root, "api");
    symlinkSync("../../packages/local", join(api, "node_modules/c/local"));
    expect((await add("t1")).code).toBe(0);
    const [key] = stores();
    const manifest = JSON.parse(readFileSync(join(root, ".ariel/share", key!, "store.json"), "utf8"));
    expect(manifest.escapes).toEqual(["@s/local", "c"]);
    const nm = join(legPath(root, "t1", "api"), "node_modules");
    expect(lstatSync(join(nm, "c")).isDirectory()).toBe(true);
    expect(readlinkSync(join(nm, "c/local"))).toBe("../../packages/local");
    expect(node(legPath(root, "t1", "api"), 'console.log(require("c/local"))').out).toBe(
      `local:${join(legPath(root, "t1", "api"), "packages/local")}`,
    );
    expect(statSync(join(nm, "c/index.js")).ino).toBe(statSync(join(api, "node_modules/c/index.js")).ino);
  });

  it("two adds at once make one store (the share lock)", async () => {
    root = workspace();
    const [a, b] = await Promise.all([add("t1"), add("t2")]);
    expect([a.code, b.code]).toEqual([0, 0]);
    expect(stores()).toHaveLength(1);
    // No half-made store left, and the lock released.
    expect(readdirSync(join(root, ".ariel/share"))).toEqual(stores());
    for (const t of ["t1", "t2"]) {
      expect(node(legPath(root, t, "api"), 'console.log(require("a"))').out).toBe("b,c,d,ef");
    }
  });

  it("a different lockfile or a reinstall in the source makes a new store", async () => {
    root = workspace();
    expect((await add("t1")).code).toBe(0);
    writeFile(join(root, "api/node_modules/.package-lock.json"), '{"reinstalled":true}\n');
    expect((await add("t2")).code).toBe(0);
    expect(stores()).toHaveLength(2);
  });

  it("--share-mode with an unknown mode is ERR_USAGE (64) before anything is made", async () => {
    root = workspace();
    const r = await wt(root, ["add", "--source", "api", "--task", "t1", "--share-mode", "overlay", "--json"]);
    expect(r.code).toBe(64);
    expect(errors(r.stderr)[0]).toMatchObject({
      code: "ERR_USAGE",
      message: '--share-mode: not a mode: "overlay"',
      hint: "use one of: tree, store",
    });
    expect(lstatSync(join(root, ".ariel"), { throwIfNoEntry: false })).toBeUndefined();
  });

  it("config shareMode store applies to every add", async () => {
    root = workspace();
    writeFile(join(root, "ariel.config.json"), '{"share":["node_modules"],"shareMode":"store"}\n');
    expect((await wt(root, ["add", "--source", "api", "--task", "t1"])).code).toBe(0);
    expect(stores()).toHaveLength(1);
    expect(readlinkSync(join(legPath(root, "t1", "api"), "node_modules/c"))).toBe(".ariel-share/c");
  });
});

describe("gc and remove with a share store", () => {
  it("remove keeps the store; gc drops it once no leg links into it, and the source keeps every file", async () => {
    root = workspace();
    for (const t of ["t1", "t2"]) expect((await add(t)).code).toBe(0);
    const [key] = stores();
    const storePath = join(root, ".ariel/share", key!);
    const srcIndex = join(root, "api/node_modules/c/index.js");
    // A half-made store a crashed add left.
    mkdirSync(join(root, ".ariel/share/.tmp-dead-1/node_modules"), { recursive: true });

    expect((await wt(root, ["remove", "--task", "t1"])).code).toBe(0);
    expect(lstatSync(storePath).isDirectory()).toBe(true);
    const plan1 = await wt(root, ["gc", "-n", "--json"]);
    expect(records(plan1.stdout)).toEqual([
      expect.objectContaining({ type: "plan", action: "gc.share.drop", store: ".tmp-dead-1" }),
    ]);

    expect((await wt(root, ["remove", "--task", "t2"])).code).toBe(0);
    const plan2 = await wt(root, ["gc", "-n", "--json"]);
    expect(records(plan2.stdout).map((x) => x.store)).toEqual([key, ".tmp-dead-1"]);
    const drop = records(plan2.stdout)[0]!;
    expect(drop).toMatchObject({ type: "plan", action: "gc.share.drop", path: storePath });

    const r = await wt(root, ["gc", "--json"]);
    expect(r.code).toBe(0);
    expect(records(r.stdout).map((x) => [x.action, x.store, x.outcome])).toEqual([
      ["gc.share.drop", key, "done"],
      ["gc.share.drop", ".tmp-dead-1", "done"],
    ]);
    expect(readdirSync(join(root, ".ariel/share"))).toEqual([]);
    expect(readFileSync(srcIndex, "utf8")).toBe('module.exports = "c";\n');
    expect(statSync(srcIndex).nlink).toBe(1);
    expect(readlinkSync(join(root, "api/node_modules/e"))).toBe(".pnpm/e@1/node_modules/e");
  });

  it("gc keeps a store a leg uses, also one no task record names", async () => {
    root = workspace();
    expect((await add("t1")).code).toBe(0);
    const [key] = stores();
    // The record is gone (as after a crash); the worktree still links into the store.
    rmSync(join(root, ".ariel/tasks/t1.json"));
    const plan = await wt(root, ["gc", "-n", "--json", "--detailed-exitcode"]);
    expect(records(plan.stdout)).toEqual([]);
    expect(plan.code).toBe(0);
    expect(stores()).toEqual([key]);
  });

  it("gc waits for the share lock an add holds, and skips the drop when it is not released", async () => {
    root = workspace();
    expect((await add("t1")).code).toBe(0);
    expect((await wt(root, ["remove", "--task", "t1"])).code).toBe(0);
    const [key] = stores();
    // An add making or linking a store holds this lock (a live holder: this process).
    const lock = join(root, ".ariel/share/.lock");
    const holder = {
      pid: process.pid,
      processStart: null,
      host: hostname(),
      nonce: "n1",
      acquiredAt: new Date().toISOString(),
    };
    writeFileSync(lock, `${JSON.stringify(holder)}\n`);
    const r = await wt(root, ["gc", "--json"], { env: { ARIEL_LOCK_TIMEOUT_MS: "300" } });
    expect(r.code).toBe(1); // planned, not done
    expect(records(r.stdout)).toEqual([
      expect.objectContaining({
        action: "gc.share.drop",
        store: key,
        outcome: "skipped",
        refusal: expect.objectContaining({ code: "ERR_LOCKED" }),
      }),
    ]);
    expect(stores()).toEqual([key]);
    rmSync(lock);
    const again = await wt(root, ["gc", "--json"]);
    expect(records(again.stdout).map((x) => [x.store, x.outcome])).toEqual([[key, "done"]]);
    expect(readFileSync(join(root, "api/node_modules/c/index.js"), "utf8")).toBe('module.exports = "c";\n');
  });
});

describe("verify with a share store", () => {
  it("passes while the store is there; ERR_SHARE_BROKEN (3) once it is deleted by hand", async () => {
    root = workspace();
    expect((await add("t1")).code).toBe(0);
    const ok = await wt(root, ["verify", "--task", "t1", "--json"]);
    expect(ok.code).toBe(0);
    expect(records(ok.stdout)[0]).toMatchObject({ ok: true, checks: { shared: true } });
    rmSync(join(root, ".ariel/share", stores()[0]!), { recursive: true });
    const r = await wt(root, ["verify", "--task", "t1", "--json"]);
    expect(r.code).toBe(3);
    expect(records(r.stdout)[0]).toMatchObject({
      ok: false,
      checks: { shared: false },
      code: "ERR_SHARE_BROKEN",
      message: `${legPath(root, "t1", "api")}/node_modules links into a share store that is gone (node_modules)`,
    });
    // The source keeps its files.
    expect(readFileSync(join(root, "api/node_modules/c/index.js"), "utf8")).toBe('module.exports = "c";\n');
  });

  it("a tree-mode leg has no shared check", async () => {
    root = workspace();
    expect((await wt(root, ["add", "--source", "api", "--task", "t1", "--share", "node_modules"])).code).toBe(
      0,
    );
    const ok = await wt(root, ["verify", "--task", "t1", "--json"]);
    expect(ok.code).toBe(0);
    expect(records(ok.stdout)[0]!.checks).toEqual({
      containment: true,
      presence: true,
      head: true,
      fingerprint: true,
    });
  });
});
