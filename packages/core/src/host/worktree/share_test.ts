/**
 * share.ts on real files: when shareInto shares a directory and when it leaves it (exact
 * records), what a leg gets in mode `tree` and mode `store` (every entry, its mode and inode),
 * what it never touches (a leg's own directory, a link out of the workspace, the source), a
 * failure part-way (another filesystem), the store's manifest and key, and the readers gc, du and
 * verify use (listStores, strayStoreDirs, legUsesStore, brokenStoreLinks), withShareLock and
 * shareLegs.
 */
import { spawnSync } from "node:child_process";
import { createHash } from "node:crypto";
import {
  chmodSync,
  existsSync,
  lstatSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  readlinkSync,
  realpathSync,
  renameSync,
  rmSync,
  statSync,
  symlinkSync,
  writeFileSync,
} from "node:fs";
import { readFile } from "node:fs/promises";
import { hostname, tmpdir } from "node:os";
import { join, relative } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { arielErrorOf } from "../../_fixture.ts";
import { initRepo, removeDir, tempDir, writeFile } from "../_fixture.ts";
import { faultyPorts, git, names } from "./_fixture.ts";
import {
  brokenStoreLinks,
  legUsesStore,
  listStores,
  shareInto,
  shareLegs,
  strayStoreDirs,
  withShareLock,
} from "./share.ts";

let root: string;
let api: string;
const extra: string[] = [];
afterEach(() => {
  removeDir(root);
  for (const d of extra.splice(0)) removeDir(d);
});

const LOCK = '{"lockfileVersion":3,"packages":{"node_modules/pkg":{"version":"1.0.0"}}}\n';
const sha = (text: string) => createHash("sha256").update(text).digest("hex");

/** Every entry under `dir`, links never followed: "dir <mode>", "file <mode> <ino> <content>", "link -> target", "fifo". */
function picture(dir: string, rel = ""): Record<string, string> {
  const out: Record<string, string> = {};
  for (const name of readdirSync(join(dir, rel)).sort()) {
    const r = rel === "" ? name : `${rel}/${name}`;
    const p = join(dir, r);
    const st = lstatSync(p);
    const mode = (st.mode & 0o7777).toString(8);
    if (st.isSymbolicLink()) out[r] = `link -> ${readlinkSync(p)}`;
    else if (st.isDirectory()) {
      out[r] = `dir ${mode}`;
      Object.assign(out, picture(dir, r));
    } else if (st.isFile()) out[r] = `file ${mode} ${st.ino} ${readFileSync(p, "utf8")}`;
    else out[r] = "fifo";
  }
  return out;
}

/** A directory outside the workspace holding one file: what a link may point at, never followed. */
function elsewhere(): string {
  const d = tempDir("ariel-share-elsewhere-");
  extra.push(d);
  writeFile(join(d, "o.txt"), "outside\n");
  return d;
}

/** A worktree of api on a new branch (what a leg is), at `base` (default HEAD). */
function leg(task: string, base = "HEAD"): string {
  const path = join(root, ".ariel/worktrees", task, "api");
  git(api, "worktree", "add", "-q", "-b", `ariel/${task}`, path, base);
  return path;
}

/** api: a checkout with a lockfile, a workspace package, and node_modules made by `fill`. */
function workspace(fill: (nm: string) => void = treeModules): void {
  root = tempDir("ariel-share-unit-");
  api = join(root, "api");
  initRepo(api, {
    "README.md": "# api\n",
    ".gitignore": "node_modules/\n.venv/\n",
    "package-lock.json": LOCK,
    "packages/local/index.js": "local\n",
  });
  fill(join(api, "node_modules"));
}

/** Files (one 0755, one with an odd name), a 0700 and an empty directory, links of every kind, a fifo. */
function treeModules(nm: string): void {
  const out = elsewhere();
  writeFile(join(nm, "pkg/index.js"), "index\n");
  writeFile(join(nm, "pkg/bin.js"), "#!/usr/bin/env node\n");
  chmodSync(join(nm, "pkg/bin.js"), 0o755);
  writeFile(join(nm, "pkg/sub/deep.txt"), "deep\n");
  writeFile(join(nm, "private/secret.txt"), "secret\n");
  chmodSync(join(nm, "private"), 0o700);
  mkdirSync(join(nm, "empty"));
  writeFile(join(nm, "name with space ✓.js"), "odd\n");
  writeFile(join(nm, ".package-lock.json"), "{}\n");
  mkdirSync(join(nm, ".bin"));
  symlinkSync("../pkg/bin.js", join(nm, ".bin/tool"));
  symlinkSync(join(out, "o.txt"), join(nm, "abs-link"));
  symlinkSync(out, join(nm, "dir-link"));
  symlinkSync("nowhere", join(nm, "dangling"));
  expect(spawnSync("mkfifo", [join(nm, "fifo")]).status).toBe(0);
}

describe("shareInto, mode tree", () => {
  it("the leg gets every directory (modes kept), every file as a hardlink, every link as it was; fifos left out; the source unchanged", () => {
    workspace();
    const src = join(api, "node_modules");
    const before = picture(src);
    const l = leg("t1");
    expect(shareInto("api", api, l, ["node_modules"])).toEqual([
      { share: true, lockfiles: ["package-lock.json"], name: "node_modules", source: "api", files: 6 },
    ]);
    const { fifo, ...noFifo } = before;
    expect(fifo).toBe("fifo");
    expect(picture(join(l, "node_modules"))).toEqual(noFifo);
    expect(lstatSync(join(l, "node_modules")).mode & 0o7777).toBe(lstatSync(src).mode & 0o7777);
    expect(picture(src)).toEqual(before);
    expect(statSync(join(src, "pkg/index.js")).nlink).toBe(2);
    // The link to a directory elsewhere is a link in the leg: nothing of it was linked or copied.
    expect(statSync(join(realpathSync(join(src, "dir-link")), "o.txt")).nlink).toBe(1);
    expect(git(l, "status", "--porcelain")).toBe("");
  });

  it("several names: each decided on its own, in order", () => {
    workspace();
    writeFile(join(api, ".venv/lib/site.py"), "site\n");
    const l = leg("t1");
    expect(shareInto("api", api, l, [".venv", "vendor", "node_modules"])).toEqual([
      { share: true, lockfiles: ["package-lock.json"], name: ".venv", source: "api", files: 1 },
      {
        share: false,
        reason: "no-source-dir",
        detail: "the source has no vendor",
        name: "vendor",
        source: "api",
      },
      { share: true, lockfiles: ["package-lock.json"], name: "node_modules", source: "api", files: 6 },
    ]);
    expect(statSync(join(l, ".venv/lib/site.py")).ino).toBe(statSync(join(api, ".venv/lib/site.py")).ino);
  });
});

describe("shareInto: what it leaves alone, with the reason", () => {
  const notShared = (reason: string, detail: string) => [
    { share: false, reason, detail, name: "node_modules", source: "api" },
  ];

  it("the leg's own node_modules (modified), a dangling link or a link out of the workspace in its place: 'exists', untouched in both modes", () => {
    workspace();
    const out = elsewhere();
    const own = leg("t1");
    writeFile(join(own, "node_modules/pkg/index.js"), "patched by the leg\n");
    const dangling = leg("t2");
    symlinkSync(join(out, "missing"), join(dangling, "node_modules"));
    const linked = leg("t3");
    symlinkSync(out, join(linked, "node_modules"));
    const legs = [own, dangling, linked];
    const before = legs.map((l) => picture(l));
    const outside = picture(out);
    const exists = notShared("exists", "the worktree has a node_modules already");
    for (const l of legs) {
      expect(shareInto("api", api, l, ["node_modules"])).toEqual(exists);
      expect(shareInto("api", api, l, ["node_modules"], { root })).toEqual(exists);
    }
    expect(legs.map((l) => picture(l))).toEqual(before);
    expect(picture(out)).toEqual(outside);
    expect(readFileSync(join(own, "node_modules/pkg/index.js"), "utf8")).toBe("patched by the leg\n");
    expect(statSync(join(api, "node_modules/pkg/index.js")).nlink).toBe(1);
    expect(existsSync(join(root, ".ariel/share"))).toBe(false); // no store made for it
  });

  it("the source's node_modules is a link (here out of the workspace): 'no-source-dir', nothing followed", () => {
    const out = elsewhere();
    workspace((nm) => symlinkSync(out, nm));
    const l = leg("t1");
    const detail = "the source has no node_modules";
    expect(shareInto("api", api, l, ["node_modules"])).toEqual(notShared("no-source-dir", detail));
    expect(shareInto("api", api, l, ["node_modules"], { root })).toEqual(notShared("no-source-dir", detail));
    expect(lstatSync(join(l, "node_modules"), { throwIfNoEntry: false })).toBeUndefined();
    expect(statSync(join(out, "o.txt")).nlink).toBe(1);
    expect(existsSync(join(root, ".ariel/share"))).toBe(false);
  });

  it("no lockfile on either side: 'no-lockfile'", () => {
    workspace();
    const l = leg("t1");
    rmSync(join(api, "package-lock.json"));
    rmSync(join(l, "package-lock.json"));
    const r = notShared("no-lockfile", "no lockfile next to node_modules to prove it matches");
    expect(shareInto("api", api, l, ["node_modules"])).toEqual(r);
    expect(shareInto("api", api, l, ["node_modules"], { root })).toEqual(r);
    expect(names(l)).not.toContain("node_modules");
  });

  it.each<[string, (src: string, leg: string) => void, string]>([
    [
      "the leg's lockfile edited",
      (_s, l) => writeFile(join(l, "package-lock.json"), `${LOCK} `),
      "package-lock.json",
    ],
    ["a lockfile only the source has", (s) => writeFile(join(s, "yarn.lock"), "# yarn\n"), "yarn.lock"],
    ["a lockfile only the leg has", (_s, l) => writeFile(join(l, "Cargo.lock"), "# cargo\n"), "Cargo.lock"],
    [
      "all three at once",
      (s, l) => {
        writeFile(join(l, "package-lock.json"), `${LOCK} `);
        writeFile(join(s, "yarn.lock"), "# yarn\n");
        writeFile(join(l, "Cargo.lock"), "# cargo\n");
      },
      "Cargo.lock, package-lock.json, yarn.lock",
    ],
  ])("%s: 'lockfile-differs' naming them, in both modes", (_n, change, differ) => {
    workspace();
    const l = leg("t1");
    change(api, l);
    const r = notShared(
      "lockfile-differs",
      `${differ} differs from the source's: run the install in the worktree`,
    );
    expect(shareInto("api", api, l, ["node_modules"])).toEqual(r);
    expect(shareInto("api", api, l, ["node_modules"], { root })).toEqual(r);
    expect(names(l)).not.toContain("node_modules");
    expect(listStores(root)).toEqual([]);
  });

  it("every lockfile that both sides hold must match, not only the first", () => {
    workspace();
    writeFile(join(api, "yarn.lock"), "# yarn\n");
    const l = leg("t1");
    writeFile(join(l, "yarn.lock"), "# yarn\n");
    expect(shareInto("api", api, l, ["node_modules"])[0]).toMatchObject({
      share: true,
      lockfiles: ["package-lock.json", "yarn.lock"],
    });
  });
});

// A failure part-way: the source on another filesystem (tmpfs), so the first hardlink is EXDEV.
const otherFs = existsSync("/dev/shm") && statSync("/dev/shm").dev !== statSync(tmpdir()).dev;

describe.skipIf(!otherFs)("shareInto: a link that fails part-way (EXDEV)", () => {
  it.each([
    ["tree", false],
    ["store", true],
  ])(
    "mode %s: 'link-failed', nothing of it left in the leg or the store, the source unchanged",
    (_m, store) => {
      workspace((nm) => writeFile(join(nm, "pkg/index.js"), "index\n"));
      const src = realpathSync(mkdtempSync("/dev/shm/ariel-share-src-"));
      extra.push(src);
      writeFile(join(src, "package-lock.json"), LOCK);
      writeFile(join(src, "node_modules/a/index.js"), "a\n");
      writeFile(join(src, "node_modules/b/index.js"), "b\n");
      const before = picture(src);
      const l = leg("t1");
      expect(shareInto("api", src, l, ["node_modules"], store ? { root } : undefined)).toEqual([
        {
          share: false,
          reason: "link-failed",
          detail:
            "could not link (EXDEV: the worktree root is on another filesystem): run the install in the worktree",
          name: "node_modules",
          source: "api",
        },
      ]);
      expect(lstatSync(join(l, "node_modules"), { throwIfNoEntry: false })).toBeUndefined();
      expect(picture(src)).toEqual(before);
      expect(names(join(root, ".ariel/share"))).toEqual([]); // no store, no half-made .tmp-*
    },
  );
});

/**
 * node_modules as npm and pnpm lay it out: packages (one nested), a scope with a package and a
 * workspace link, a scoped package holding a link that leaves node_modules deep inside, a
 * top-level link leaving it, a pnpm link, an absolute link, .bin, .package-lock.json.
 */
function storeModules(nm: string): void {
  const out = elsewhere();
  writeFile(join(nm, "a/index.js"), "a\n");
  writeFile(join(nm, "a/node_modules/b/index.js"), "b\n");
  writeFile(join(nm, "c/index.js"), "c\n");
  writeFile(join(nm, "@s/d/index.js"), "d\n");
  symlinkSync("../../packages/local", join(nm, "@s/local"));
  writeFile(join(nm, "@s/deep/index.js"), "deep\n");
  mkdirSync(join(nm, "@s/deep/lib"));
  symlinkSync("../../../../packages/local", join(nm, "@s/deep/lib/up"));
  symlinkSync("../packages/local", join(nm, "top"));
  writeFile(join(nm, ".pnpm/e@1/node_modules/e/index.js"), "e\n");
  symlinkSync(".pnpm/e@1/node_modules/e", join(nm, "e"));
  symlinkSync(join(out, "o.txt"), join(nm, "abs"));
  mkdirSync(join(nm, ".bin"));
  symlinkSync("../c/index.js", join(nm, ".bin/c"));
  writeFile(join(nm, ".package-lock.json"), "{}\n");
}

/** The store key: sha256 of the source, the directory, the lockfiles' and the top files' hashes. */
function keyOf(topFile: string): string {
  const text = [
    `source\t${api}`,
    "dir\tnode_modules",
    `package-lock.json\t${sha(LOCK)}`,
    "--",
    `.package-lock.json\t${sha(topFile)}`,
  ].join("\n");
  return sha(text).slice(0, 32);
}

describe("shareInto, mode store", () => {
  it("makes one store (exact manifest and key, links leaving node_modules pointed at the source's targets); each leg gets links into it and its own copies", () => {
    workspace(storeModules);
    const src = join(api, "node_modules");
    const before = picture(src);
    const l1 = leg("t1");
    const key = keyOf("{}\n");
    const share = join(root, ".ariel/share");
    const done = (made: boolean) => [
      {
        share: true,
        lockfiles: ["package-lock.json"],
        name: "node_modules",
        source: "api",
        files: 2,
        store: { key, made },
      },
    ];
    expect(shareInto("api", api, l1, ["node_modules"], { root })).toEqual(done(true));
    expect(names(share)).toEqual([key]);
    const manifest = JSON.parse(readFileSync(join(share, key, "store.json"), "utf8"));
    expect(manifest).toEqual({
      v: 1,
      source: "api",
      sourcePath: api,
      dir: "node_modules",
      lockfiles: ["package-lock.json"],
      escapes: ["@s/deep", "@s/local", "top"],
      relinks: {
        "@s/deep/lib/up": "../../../../packages/local",
        "@s/local": "../../packages/local",
        top: "../packages/local",
      },
      files: 7,
      createdAt: expect.stringMatching(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/),
    });
    expect(listStores(root)).toEqual([{ key, path: join(share, key), manifest }]);

    // The store: the source's tree, files the same inodes, links leaving node_modules absolute.
    const store = join(share, key, "node_modules");
    const local = join(api, "packages/local");
    expect(picture(store)).toEqual({
      ...before,
      "@s/deep/lib/up": `link -> ${local}`,
      "@s/local": `link -> ${local}`,
      top: `link -> ${local}`,
    });

    // The leg: a real directory; packages through .ariel-share; dot dirs, escaping packages and
    // files its own; the source's links as they were.
    const nm = join(l1, "node_modules");
    const ino = (p: string) => before[p]!;
    expect(picture(nm)).toEqual({
      ".ariel-share": `link -> ${relative(nm, store)}`,
      ".bin": before[".bin"],
      ".bin/c": "link -> ../c/index.js",
      ".package-lock.json": ino(".package-lock.json"),
      ".pnpm": "link -> .ariel-share/.pnpm",
      "@s": before["@s"],
      "@s/d": "link -> ../.ariel-share/@s/d",
      "@s/deep": before["@s/deep"],
      "@s/deep/index.js": ino("@s/deep/index.js"),
      "@s/deep/lib": before["@s/deep/lib"],
      "@s/deep/lib/up": "link -> ../../../../packages/local",
      "@s/local": "link -> ../../packages/local",
      a: "link -> .ariel-share/a",
      abs: before.abs,
      c: "link -> .ariel-share/c",
      e: "link -> .pnpm/e@1/node_modules/e",
      top: "link -> ../packages/local",
    });
    expect(relative(nm, store)).toBe(`../../../../share/${key}/node_modules`);
    expect(realpathSync(join(nm, "@s/deep/lib/up"))).toBe(join(l1, "packages/local"));
    expect(realpathSync(join(nm, "a/node_modules/b/index.js"))).toBe(
      join(store, "a/node_modules/b/index.js"),
    );
    expect(picture(src)).toEqual(before);

    // A second leg reuses it.
    const l2 = leg("t2");
    expect(shareInto("api", api, l2, ["node_modules"], { root })).toEqual(done(false));
    expect(names(share)).toEqual([key]);
    expect(picture(join(l2, "node_modules"))).toEqual(picture(nm));
    expect([legUsesStore(l1, listStores(root)[0]!), legUsesStore(l2, listStores(root)[0]!)]).toEqual([
      true,
      true,
    ]);
    expect([brokenStoreLinks(l1), brokenStoreLinks(l2)]).toEqual([[], []]);
  });

  it("a reinstall in the source (a top file rewritten) makes a new store; the old one and its legs stay as they were", () => {
    workspace(storeModules);
    const l1 = leg("t1");
    shareInto("api", api, l1, ["node_modules"], { root });
    const [old] = listStores(root);
    const oldTree = picture(old!.path);
    // As npm writes it: a new file renamed over the old name (the store keeps the old inode).
    writeFileSync(join(api, "node_modules/.package-lock.json.tmp"), '{"reinstalled":true}\n');
    renameSync(
      join(api, "node_modules/.package-lock.json.tmp"),
      join(api, "node_modules/.package-lock.json"),
    );
    const l2 = leg("t2");
    const [r] = shareInto("api", api, l2, ["node_modules"], { root });
    const key = keyOf('{"reinstalled":true}\n');
    expect(r?.store).toEqual({ key, made: true });
    expect(listStores(root).map((s) => s.key)).toEqual([keyOf("{}\n"), key].sort());
    expect(picture(old!.path)).toEqual(oldTree);
    const fresh = listStores(root).find((s) => s.key === key)!;
    expect([
      legUsesStore(l1, old!),
      legUsesStore(l1, fresh),
      legUsesStore(l2, old!),
      legUsesStore(l2, fresh),
    ]).toEqual([true, false, false, true]);
  });
});

describe("listStores, strayStoreDirs, legUsesStore, brokenStoreLinks", () => {
  it("listStores: directories with a readable manifest, by key; dot entries, half-made and unreadable ones left out", () => {
    root = tempDir("ariel-share-unit-");
    expect([listStores(root), strayStoreDirs(root)]).toEqual([[], []]);
    const share = join(root, ".ariel/share");
    const m = (source: string) => ({ v: 1, source, dir: "node_modules" });
    writeFile(join(share, "bbb/store.json"), JSON.stringify(m("b")));
    writeFile(join(share, "aaa/store.json"), JSON.stringify(m("a")));
    writeFile(join(share, ".tmp-aaa-1/store.json"), JSON.stringify(m("tmp")));
    mkdirSync(join(share, ".tmp-ccc-2"));
    mkdirSync(join(share, ".tmpnot"));
    writeFile(join(share, ".lock"), "{}\n");
    mkdirSync(join(share, "ccc"));
    writeFile(join(share, "ddd/store.json"), "{not json");
    writeFile(join(share, "eee"), "a file\n");
    expect(listStores(root)).toEqual([
      { key: "aaa", path: join(share, "aaa"), manifest: m("a") },
      { key: "bbb", path: join(share, "bbb"), manifest: m("b") },
    ]);
    expect(strayStoreDirs(root).sort()).toEqual([join(share, ".tmp-aaa-1"), join(share, ".tmp-ccc-2")]);
  });

  it("legUsesStore and brokenStoreLinks: a tree-mode leg, a store-mode leg, the store deleted by hand, a worktree gone", () => {
    workspace(storeModules);
    writeFile(join(api, ".venv/lib/site.py"), "site\n");
    const inStore = leg("t1");
    const inTree = leg("t2");
    shareInto("api", api, inStore, ["node_modules", ".venv"], { root });
    shareInto("api", api, inTree, ["node_modules"]);
    const stores = listStores(root);
    expect(stores.map((s) => s.manifest.dir).sort()).toEqual([".venv", "node_modules"]);
    const nmStore = stores.find((s) => s.manifest.dir === "node_modules")!;
    expect([legUsesStore(inStore, nmStore), legUsesStore(inTree, nmStore)]).toEqual([true, false]);
    expect([brokenStoreLinks(inStore), brokenStoreLinks(inTree)]).toEqual([[], null]);
    // A directory link at the top of the leg holding a store link is not counted twice.
    symlinkSync("node_modules", join(inStore, "alias"));
    expect(brokenStoreLinks(inStore)).toEqual([]);

    for (const s of stores) rmSync(s.path, { recursive: true });
    expect(brokenStoreLinks(inStore)).toEqual([".venv", "node_modules"]);
    expect(legUsesStore(inStore, nmStore)).toBe(false);
    const gone = join(root, "gone");
    expect([brokenStoreLinks(gone), legUsesStore(gone, nmStore)]).toEqual([null, false]);
  });
});

describe("withShareLock", () => {
  const lockPath = () => join(root, ".ariel/share/.lock");

  it("holds .ariel/share/.lock while fn runs and returns its value; released after it, also after a throw", async () => {
    root = tempDir("ariel-share-unit-");
    const got = await withShareLock(root, "test purpose", async () => {
      const holder = JSON.parse(readFileSync(lockPath(), "utf8"));
      return [holder.pid, holder.purpose, holder.host];
    });
    expect(got).toEqual([process.pid, "test purpose", hostname()]);
    expect(names(join(root, ".ariel/share"))).toEqual([]);
    const boom = new Error("boom");
    await expect(
      withShareLock(root, "p", async () => {
        throw boom;
      }),
    ).rejects.toBe(boom);
    expect(names(join(root, ".ariel/share"))).toEqual([]);
  });

  it("two holders in one process: the second starts only once the first is done", async () => {
    root = tempDir("ariel-share-unit-");
    const events: string[] = [];
    let open!: () => void;
    const gate = new Promise<void>((r) => {
      open = r;
    });
    let entered!: () => void;
    const firstIn = new Promise<void>((r) => {
      entered = r;
    });
    const first = withShareLock(root, "first", async () => {
      events.push("first in");
      entered();
      await gate;
      events.push("first out");
    });
    const second = withShareLock(root, "second", async () => {
      events.push("second in");
    });
    await firstIn;
    // Give the second holder every chance to go in (file reads on the thread pool, not sleeps).
    for (let i = 0; i < 10; i++) await readFile(lockPath());
    expect(events).toEqual(["first in"]);
    open();
    await Promise.all([first, second]);
    expect(events).toEqual(["first in", "first out", "second in"]);
    expect(names(join(root, ".ariel/share"))).toEqual([]);
  });

  it("a live holder elsewhere: ERR_LOCKED once the wait is over, fn not run, the holder's lock untouched", async () => {
    root = tempDir("ariel-share-unit-");
    const holder = {
      pid: process.pid,
      processStart: null,
      host: hostname(),
      nonce: "theirs",
      acquiredAt: "x",
    };
    writeFile(lockPath(), `${JSON.stringify(holder)}\n`);
    const saved = process.env.ARIEL_LOCK_TIMEOUT_MS;
    process.env.ARIEL_LOCK_TIMEOUT_MS = "0";
    let ran = false;
    try {
      const e = await arielErrorOf(
        withShareLock(root, "p", async () => {
          ran = true;
        }),
      );
      expect([e.code, e.message]).toEqual([
        "ERR_LOCKED",
        `share store lock ${lockPath()} is held by pid ${process.pid} on ${hostname()}`,
      ]);
    } finally {
      if (saved === undefined) delete process.env.ARIEL_LOCK_TIMEOUT_MS;
      else process.env.ARIEL_LOCK_TIMEOUT_MS = saved;
    }
    expect(ran).toBe(false);
    expect(readFileSync(lockPath(), "utf8")).toBe(`${JSON.stringify(holder)}\n`);
  });
});

describe("shareLegs", () => {
  /** api (node_modules, lockfile) and web (node_modules, its leg made at an older lockfile). */
  function twoSources(): { apiLeg: string; webLeg: string } {
    workspace((nm) => writeFile(join(nm, "pkg/index.js"), "index\n"));
    const web = join(root, "web");
    initRepo(web, { ".gitignore": "node_modules/\n", "package-lock.json": LOCK });
    const old = git(web, "rev-parse", "HEAD");
    writeFile(join(web, "package-lock.json"), `${LOCK}\n`);
    git(web, "commit", "-q", "-am", "bump");
    writeFile(join(web, "node_modules/w/index.js"), "w\n");
    const webLeg = join(root, ".ariel/worktrees/t1/web");
    git(web, "worktree", "add", "-q", "-b", "ariel/t1", webLeg, old);
    return { apiLeg: leg("t1"), webLeg };
  }
  const legsOf = (apiLeg: string, webLeg: string) => [
    { source: "api", sourcePath: api, worktreePath: apiLeg },
    { source: "web", sourcePath: join(root, "web"), worktreePath: webLeg },
  ];
  const warning = (source: string, path: string, dir: string, reason: string, detail: string) => ({
    code: "WARN_NOT_SHARED",
    message: `${source}: ${dir} not shared: ${detail}`,
    hint: `run the install in ${path} to give the worktree its own ${dir}`,
    context: { source, dir, reason },
  });

  it("config names and flags, once each: shared ones listed, a configured name the source lacks quiet, every other one a warning", async () => {
    const { apiLeg, webLeg } = twoSources();
    writeFile(join(root, "ariel.config.json"), '{"share":["node_modules",".venv"]}\n');
    const r = await shareLegs(faultyPorts(), root, legsOf(apiLeg, webLeg), ["vendor", "node_modules"]);
    expect(r).toEqual({
      shared: [
        { share: true, lockfiles: ["package-lock.json"], name: "node_modules", source: "api", files: 1 },
      ],
      warnings: [
        warning("api", apiLeg, "vendor", "no-source-dir", "the source has no vendor"),
        warning(
          "web",
          webLeg,
          "node_modules",
          "lockfile-differs",
          "package-lock.json differs from the source's: run the install in the worktree",
        ),
        warning("web", webLeg, "vendor", "no-source-dir", "the source has no vendor"),
      ],
    });
    expect(names(webLeg)).not.toContain("node_modules");
    expect(existsSync(join(root, ".ariel/share"))).toBe(false); // mode tree: no store, no lock
  });

  it("nothing to share: nothing done, even in mode store (no lock taken, no .ariel/share)", async () => {
    const { apiLeg, webLeg } = twoSources();
    writeFile(join(root, "ariel.config.json"), '{"shareMode":"store"}\n');
    expect(await shareLegs(faultyPorts(), root, legsOf(apiLeg, webLeg), [])).toEqual({
      shared: [],
      warnings: [],
    });
    expect(existsSync(join(root, ".ariel/share"))).toBe(false);
    expect(names(apiLeg)).not.toContain("node_modules");
  });

  it("--share-mode store over config tree: one store for two legs of a source, made by the first; the lock released", async () => {
    workspace(storeModules);
    writeFile(join(root, "ariel.config.json"), '{"shareMode":"tree"}\n');
    const [l1, l2] = [leg("t1"), leg("t2")];
    const legs = [l1, l2].map((worktreePath) => ({ source: "api", sourcePath: api, worktreePath }));
    const r = await shareLegs(faultyPorts(), root, legs, ["node_modules"], "store");
    const key = keyOf("{}\n");
    const one = (made: boolean) => ({
      share: true,
      lockfiles: ["package-lock.json"],
      name: "node_modules",
      source: "api",
      files: 2,
      store: { key, made },
    });
    expect(r).toEqual({ shared: [one(true), one(false)], warnings: [] });
    expect(names(join(root, ".ariel/share"))).toEqual([key]);
  });

  it("config shareMode store, --share-mode tree: mode tree", async () => {
    const { apiLeg } = twoSources();
    writeFile(join(root, "ariel.config.json"), '{"shareMode":"store"}\n');
    const r = await shareLegs(
      faultyPorts(),
      root,
      [{ source: "api", sourcePath: api, worktreePath: apiLeg }],
      ["node_modules"],
      "tree",
    );
    expect(r.shared).toEqual([
      { share: true, lockfiles: ["package-lock.json"], name: "node_modules", source: "api", files: 1 },
    ]);
    expect(existsSync(join(root, ".ariel/share"))).toBe(false);
    expect(lstatSync(join(apiLeg, "node_modules/pkg")).isDirectory()).toBe(true);
  });

  it("mode store while another process holds the share lock: ERR_LOCKED, no store made, the leg untouched", async () => {
    const { apiLeg } = twoSources();
    writeFile(join(root, "ariel.config.json"), '{"shareMode":"store"}\n');
    const holder = {
      pid: process.pid,
      processStart: null,
      host: hostname(),
      nonce: "theirs",
      acquiredAt: "x",
    };
    writeFile(join(root, ".ariel/share/.lock"), `${JSON.stringify(holder)}\n`);
    const before = picture(apiLeg);
    const saved = process.env.ARIEL_LOCK_TIMEOUT_MS;
    process.env.ARIEL_LOCK_TIMEOUT_MS = "0";
    try {
      const e = await arielErrorOf(
        shareLegs(
          faultyPorts(),
          root,
          [{ source: "api", sourcePath: api, worktreePath: apiLeg }],
          ["node_modules"],
        ),
      );
      expect(e.code).toBe("ERR_LOCKED");
    } finally {
      if (saved === undefined) delete process.env.ARIEL_LOCK_TIMEOUT_MS;
      else process.env.ARIEL_LOCK_TIMEOUT_MS = saved;
    }
    expect(names(join(root, ".ariel/share"))).toEqual([".lock"]);
    expect(picture(apiLeg)).toEqual(before);
  });
});
