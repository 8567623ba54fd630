/**
 * A sandbox's new objects brought into the real store: each loose object checked against its
 * name and copied (never linked), what is unsound or not a plain file left out and named, a pack
 * copied and indexed anew by git, what is home already left alone, a second run a no-op.
 */

import { spawnSync } from "node:child_process";
import {
  cpSync,
  existsSync,
  mkdirSync,
  readdirSync,
  readFileSync,
  statSync,
  symlinkSync,
  writeFileSync,
} from "node:fs";
import { join } from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { git, gitRaw, initRepo, removeDir, tempDir } from "../_fixture.ts";
import { objectsHome } from "./objects.ts";

let dir: string;
let repo: string;
let common: string;
let shadow: string;
beforeEach(() => {
  dir = tempDir("ariel-objects-");
  repo = join(dir, "repo");
  initRepo(repo);
  common = join(repo, ".git");
  shadow = join(dir, "shadow");
  mkdirSync(join(shadow, "objects"), { recursive: true });
});
afterEach(() => removeDir(dir));

/** A blob written into the shadow's store only; its name. */
function blobInShadow(text: string, at = shadow): string {
  const file = join(dir, "blob-input");
  writeFileSync(file, text);
  const oid = git(repo, "hash-object", file);
  const tmp = join(dir, "tmp-repo");
  if (!existsSync(tmp)) git(dir, "init", "-q", "--bare", tmp);
  git(tmp, "hash-object", "-w", file);
  const rel = `${oid.slice(0, 2)}/${oid.slice(2)}`;
  mkdirSync(join(at, "objects", oid.slice(0, 2)), { recursive: true });
  cpSync(join(tmp, "objects", rel), join(at, "objects", rel));
  return oid;
}

const has = (oid: string) => gitRaw(repo, "cat-file", "-e", oid).code === 0;
const loose = (oid: string) => join(common, "objects", oid.slice(0, 2), oid.slice(2));

describe("objectsHome", () => {
  it("a sound loose object is copied: a file of its own, read-only, the same bytes", () => {
    const oid = blobInShadow("new work\n");
    expect(has(oid)).toBe(false);
    expect(objectsHome(shadow, common)).toEqual({ copied: 1, unsound: [] });
    expect(has(oid)).toBe(true);
    expect(git(repo, "cat-file", "-p", oid)).toBe("new work");
    const src = join(shadow, "objects", oid.slice(0, 2), oid.slice(2));
    expect(readFileSync(loose(oid))).toEqual(readFileSync(src));
    expect(statSync(loose(oid)).ino).not.toBe(statSync(src).ino);
    expect(statSync(loose(oid)).mode & 0o777).toBe(0o444);
    expect(readdirSync(join(common, "objects", oid.slice(0, 2))).filter((n) => n.startsWith("tmp_"))).toEqual(
      [],
    );
  });

  it("what is home already is left alone; a second run copies nothing", () => {
    const oid = blobInShadow("twice\n");
    expect(objectsHome(shadow, common).copied).toBe(1);
    expect(objectsHome(shadow, common)).toEqual({ copied: 0, unsound: [] });
    const head = git(repo, "rev-parse", "HEAD:README.md");
    mkdirSync(join(shadow, "objects", head.slice(0, 2)), { recursive: true });
    cpSync(loose(head), join(shadow, "objects", head.slice(0, 2), head.slice(2)));
    expect(objectsHome(shadow, common)).toEqual({ copied: 0, unsound: [] });
    expect(has(oid)).toBe(true);
  });

  it("an object whose bytes do not hash to its name is left out and named", () => {
    const oid = blobInShadow("honest\n");
    const other = blobInShadow("forged\n");
    const forgedAt = join(shadow, "objects", oid.slice(0, 2), oid.slice(2));
    cpSync(join(shadow, "objects", other.slice(0, 2), other.slice(2)), forgedAt, { force: true });
    const r = objectsHome(shadow, common);
    expect(r).toEqual({ copied: 1, unsound: [oid] });
    expect(has(oid)).toBe(false);
    expect(has(other)).toBe(true);
  });

  it("bytes that do not inflate are unsound", () => {
    const name = "ab".repeat(20);
    mkdirSync(join(shadow, "objects", "ab"), { recursive: true });
    writeFileSync(join(shadow, "objects", "ab", name.slice(2)), "not zlib");
    expect(objectsHome(shadow, common)).toEqual({ copied: 0, unsound: [name] });
    expect(existsSync(loose(name))).toBe(false);
  });

  it("a link in the sandbox's store is never followed: a linked object is unsound, a linked directory skipped", () => {
    const outside = join(dir, "outside");
    mkdirSync(outside);
    const oid = blobInShadow("through a link\n", outside);
    const rel = `${oid.slice(0, 2)}/${oid.slice(2)}`;
    mkdirSync(join(shadow, "objects", oid.slice(0, 2)));
    symlinkSync(join(outside, "objects", rel), join(shadow, "objects", rel));
    expect(objectsHome(shadow, common)).toEqual({ copied: 0, unsound: [oid] });
    removeDir(join(shadow, "objects", oid.slice(0, 2)));
    symlinkSync(join(outside, "objects", oid.slice(0, 2)), join(shadow, "objects", oid.slice(0, 2)));
    expect(objectsHome(shadow, common)).toEqual({ copied: 0, unsound: [] });
    expect(has(oid)).toBe(false);
  });

  it("names that are no object's, and a store that is a link or absent, bring nothing", () => {
    mkdirSync(join(shadow, "objects", "info"), { recursive: true });
    writeFileSync(join(shadow, "objects", "info", "alternates"), "/etc\n");
    mkdirSync(join(shadow, "objects", "ab"), { recursive: true });
    writeFileSync(join(shadow, "objects", "ab", "short"), "x");
    expect(objectsHome(shadow, common)).toEqual({ copied: 0, unsound: [] });
    expect(objectsHome(join(dir, "no-shadow"), common)).toEqual({ copied: 0, unsound: [] });
    const linked = join(dir, "linked");
    mkdirSync(linked);
    symlinkSync(join(shadow, "objects"), join(linked, "objects"));
    expect(objectsHome(linked, common)).toEqual({ copied: 0, unsound: [] });
  });

  it("a pack is copied and indexed anew by git: its objects are home, its own index not trusted", () => {
    const work = join(dir, "work");
    git(dir, "clone", "-q", repo, work);
    writeFileSync(join(work, "p.txt"), "packed\n");
    git(work, "add", "p.txt");
    git(work, "-c", "user.name=t", "-c", "user.email=t@e", "commit", "-q", "-m", "packed");
    const tip = git(work, "rev-parse", "HEAD");
    const base = git(repo, "rev-parse", "HEAD");
    const packDir = join(shadow, "objects", "pack");
    mkdirSync(packDir, { recursive: true });
    const made = spawnSync("git", ["pack-objects", "--revs", join(packDir, "pack")], {
      cwd: work,
      input: `${tip}\n^${base}\n`,
      encoding: "utf8",
    });
    expect(made.status).toBe(0);
    const packs = readdirSync(packDir).sort();
    expect(packs).toHaveLength(2);
    const idx = packs.find((p) => p.endsWith(".idx"))!;
    writeFileSync(join(packDir, idx), "a forged index");
    expect(has(tip)).toBe(false);
    expect(objectsHome(shadow, common)).toEqual({ copied: 1, unsound: [] });
    expect(has(tip)).toBe(true);
    expect(readdirSync(join(common, "objects", "pack")).sort()).toEqual(packs);
    expect(readFileSync(join(common, "objects", "pack", idx), "utf8")).not.toBe("a forged index");
    expect(objectsHome(shadow, common)).toEqual({ copied: 0, unsound: [] });
  });

  it("a pack git cannot index is an error; nothing half-made is left", () => {
    const packDir = join(shadow, "objects", "pack");
    mkdirSync(packDir, { recursive: true });
    const base = `pack-${"c".repeat(40)}`;
    writeFileSync(join(packDir, `${base}.pack`), "PACK garbage");
    writeFileSync(join(packDir, `${base}.idx`), "idx");
    expect(() => objectsHome(shadow, common)).toThrow(/^git index-pack pack-c+\.pack: /);
    expect(readdirSync(join(common, "objects", "pack")).filter((n) => n.startsWith("tmp_idx"))).toEqual([]);
    expect(existsSync(join(common, "objects", "pack", `${base}.idx`))).toBe(false);
  });

  it("a pack without its index in the sandbox is left until it has one", () => {
    const packDir = join(shadow, "objects", "pack");
    mkdirSync(packDir, { recursive: true });
    writeFileSync(join(packDir, `pack-${"d".repeat(40)}.pack`), "PACK");
    expect(objectsHome(shadow, common)).toEqual({ copied: 0, unsound: [] });
    expect(existsSync(join(common, "objects", "pack", `pack-${"d".repeat(40)}.pack`))).toBe(false);
  });
});

describe("objectsHome: names, hashes and packs at the edges", () => {
  /** A sha256 repository's loose blob, written into `shadow`'s store; its name. */
  function sha256Setup(): { real: string; oid: string } {
    const real = join(dir, "r256");
    git(dir, "init", "-q", "--bare", "--object-format=sha256", real);
    const file = join(dir, "blob256");
    writeFileSync(file, "sha256 work\n");
    const src = join(dir, "s256");
    git(dir, "init", "-q", "--bare", "--object-format=sha256", src);
    const oid = git(src, "hash-object", "-w", file);
    mkdirSync(join(shadow, "objects", oid.slice(0, 2)), { recursive: true });
    cpSync(
      join(src, "objects", oid.slice(0, 2), oid.slice(2)),
      join(shadow, "objects", oid.slice(0, 2), oid.slice(2)),
    );
    return { real, oid };
  }

  it("a sha256 repository's objects are hashed with sha256, however its config spells the format", () => {
    const { real, oid } = sha256Setup();
    expect(oid).toHaveLength(64);
    const config = readFileSync(join(real, "config"), "utf8");
    expect(config).toMatch(/objectformat = sha256/);
    for (const spelled of ["objectformat = sha256", "objectFormat=sha256", "objectformat  =  sha256"]) {
      writeFileSync(join(real, "config"), config.replace(/objectformat = sha256/, spelled));
      removeDir(join(real, "objects", oid.slice(0, 2)));
      expect(objectsHome(shadow, real)).toEqual({ copied: 1, unsound: [] });
      expect(existsSync(join(real, "objects", oid.slice(0, 2), oid.slice(2)))).toBe(true);
    }
    writeFileSync(join(real, "config"), config);
    expect(gitRaw(real, "cat-file", "-e", oid).code).toBe(0);
  });

  it("a sha256 object is unsound in a sha1 repository", () => {
    const { oid } = sha256Setup();
    expect(objectsHome(shadow, common)).toEqual({ copied: 0, unsound: [oid] });
  });

  it("only two-hex directories and object-shaped names are looked at", () => {
    const name38 = "e".repeat(38);
    for (const d of ["abc", "xab", "info", "pack"]) {
      mkdirSync(join(shadow, "objects", d), { recursive: true });
      writeFileSync(join(shadow, "objects", d, name38), "not zlib");
    }
    mkdirSync(join(shadow, "objects", "ab"), { recursive: true });
    for (const f of [`g${name38}`, `${name38}g`, `${name38}${"e".repeat(23)}`, name38])
      writeFileSync(join(shadow, "objects", "ab", f), "not zlib");
    expect(objectsHome(shadow, common)).toEqual({ copied: 0, unsound: [`ab${name38}`] });
  });

  it("an object goes into a fan-out directory the real store has already", () => {
    const oid = blobInShadow("beside others\n");
    mkdirSync(join(common, "objects", oid.slice(0, 2)), { recursive: true });
    expect(objectsHome(shadow, common)).toEqual({ copied: 1, unsound: [] });
    expect(has(oid)).toBe(true);
  });

  it("names that are no pack's, and a pack that is a link, are left alone", () => {
    const packDir = join(shadow, "objects", "pack");
    mkdirSync(packDir, { recursive: true });
    for (const f of [
      "xpack-cc.pack",
      "xpack-cc.idx",
      "pack-cc.packx",
      "pack-cc..idx",
      "pack-zz.pack",
      "pack-zz.idx",
    ])
      writeFileSync(join(packDir, f), "PACK garbage");
    writeFileSync(join(dir, "outside.pack"), "PACK garbage");
    symlinkSync(join(dir, "outside.pack"), join(packDir, "pack-dd.pack"));
    writeFileSync(join(packDir, "pack-dd.idx"), "idx");
    expect(objectsHome(shadow, common)).toEqual({ copied: 0, unsound: [] });
    expect(existsSync(join(common, "objects", "pack", "pack-dd.pack"))).toBe(false);
  });

  it("a pack git cannot index: ERR_GIT with git's reason", () => {
    const packDir = join(shadow, "objects", "pack");
    mkdirSync(packDir, { recursive: true });
    writeFileSync(join(packDir, "pack-ee.pack"), "PACK garbage");
    writeFileSync(join(packDir, "pack-ee.idx"), "idx");
    let err: { code?: string; message?: string } = {};
    try {
      objectsHome(shadow, common);
    } catch (e) {
      err = e as typeof err;
    }
    expect(err.code).toBe("ERR_GIT");
    expect(err.message).toMatch(/^git index-pack pack-ee\.pack: \S/);
  });
});
