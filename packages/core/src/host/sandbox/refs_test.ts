/**
 * A common git dir's refs read from its files, as git itself would list them: packed refs with
 * loose ones over them, peeled lines and lock files left out, symbolic refs apart, names skipped
 * by prefix; a reflog's new values; a file replaced whole.
 */
import { mkdirSync, readdirSync, readFileSync, statSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { commitAll, git, initRepo, removeDir, tempDir, writeFile } from "../_fixture.ts";
import { readOrNull, readRefs, reflogValues, replaceFile } from "./refs.ts";

let dir: string;
let repo: string;
let common: string;
beforeEach(() => {
  dir = tempDir("ariel-refs-");
  repo = join(dir, "repo");
  initRepo(repo);
  common = join(repo, ".git");
});
afterEach(() => removeDir(dir));

/** What git lists: every ref but the symbolic ones, by name. */
function gitRefs(): Map<string, string> {
  const out = git(repo, "for-each-ref", "--format=%(symref)|%(refname) %(objectname)");
  return new Map(
    out
      .split("\n")
      .filter((l) => l.startsWith("|"))
      .map((l) => l.slice(1).split(" ") as [string, string]),
  );
}

describe("readRefs", () => {
  it("loose refs, packed refs, and a loose ref over its packed value, as git lists them", () => {
    const first = git(repo, "rev-parse", "HEAD");
    git(repo, "branch", "old");
    git(repo, "tag", "-a", "-m", "annotated", "v1");
    git(repo, "pack-refs", "--all");
    writeFile(join(repo, "b.txt"), "b\n");
    const second = commitAll(repo, "second");
    git(repo, "branch", "-f", "old", second);
    git(repo, "branch", "fresh");
    const refs = readRefs(common);
    expect(refs).toEqual(gitRefs());
    expect(refs.get("refs/heads/old")).toBe(second);
    expect(refs.get("refs/heads/main")).toBe(second);
    expect(refs.get("refs/tags/v1")).toBe(git(repo, "rev-parse", "refs/tags/v1"));
    expect(refs.get("refs/tags/v1")).not.toBe(first);
    expect(readFileSync(join(common, "packed-refs"), "utf8")).toContain(`^${first}`);
  });

  it("a repository without packed-refs is its loose refs", () => {
    expect(readRefs(common)).toEqual(new Map([["refs/heads/main", git(repo, "rev-parse", "HEAD")]]));
  });

  it("leaves out lock files and files that hold no object name; symbolic refs go apart", () => {
    const head = git(repo, "rev-parse", "HEAD");
    writeFileSync(join(common, "refs/heads/main.lock"), `${head}\n`);
    writeFileSync(join(common, "refs/heads/junk"), "not a name\n");
    git(repo, "symbolic-ref", "refs/heads/alias", "refs/heads/main");
    const symbolic = new Map<string, string>();
    const refs = readRefs(common, [], symbolic);
    expect([...refs.keys()]).toEqual(["refs/heads/main"]);
    expect(symbolic).toEqual(new Map([["refs/heads/alias", "ref: refs/heads/main"]]));
  });

  it("skip: a name and everything under a directory of that name, not a name that only starts so", () => {
    const head = git(repo, "rev-parse", "HEAD");
    for (const r of ["refs/ariel/snapshots/t1/api", "refs/ariel/x", "refs/arielle", "refs/heads/keep"]) {
      git(repo, "update-ref", r, head);
    }
    git(repo, "pack-refs", "--all");
    git(repo, "update-ref", "refs/ariel/loose", head);
    const refs = readRefs(common, ["refs/ariel", "refs/heads/keep"]);
    expect([...refs.keys()].sort()).toEqual(["refs/arielle", "refs/heads/main"]);
  });

  it("a sha256 repository's names are read too", () => {
    const r2 = join(dir, "sha256");
    mkdirSync(r2);
    git(r2, "init", "-q", "--object-format=sha256", "-b", "main");
    writeFile(join(r2, "a"), "a\n");
    git(r2, "add", "a");
    git(r2, "commit", "-q", "-m", "a");
    const head = git(r2, "rev-parse", "HEAD");
    expect(head).toHaveLength(64);
    expect(readRefs(join(r2, ".git"))).toEqual(new Map([["refs/heads/main", head]]));
  });

  it("a dir that is no git dir has no refs", () => {
    expect(readRefs(join(dir, "nothing"))).toEqual(new Map());
  });
});

describe("reflogValues", () => {
  it("the new value of each entry, oldest first, without the zero id of a creation", () => {
    const a = git(repo, "rev-parse", "HEAD");
    writeFile(join(repo, "b.txt"), "b\n");
    const b = commitAll(repo, "b");
    git(repo, "branch", "topic");
    expect(reflogValues(join(common, "logs/refs/heads/main"))).toEqual([a, b]);
    expect(reflogValues(join(common, "logs/refs/heads/topic"))).toEqual([b]);
    expect(reflogValues(join(common, "logs/refs/heads/none"))).toEqual([]);
  });

  it("lines that hold no object name are left out", () => {
    const a = git(repo, "rev-parse", "HEAD");
    const file = join(dir, "log");
    writeFileSync(file, `${"0".repeat(40)} ${a} x\n\ngarbage\n${a} nothex y\n${a} ${a} z`);
    expect(reflogValues(file)).toEqual([a, a]);
  });
});

describe("readOrNull and replaceFile", () => {
  it("readOrNull: the text, or null when the file (or a directory on its way) is not there", () => {
    writeFileSync(join(dir, "f"), "text");
    expect(readOrNull(join(dir, "f"))).toBe("text");
    expect(readOrNull(join(dir, "none"))).toBeNull();
    expect(readOrNull(join(dir, "f", "under"))).toBeNull();
    expect(() => readOrNull(dir)).toThrow(/EISDIR/);
  });

  it("replaceFile: the new text whole, private by default, no temp file left", () => {
    const f = join(dir, "state");
    writeFileSync(f, "old");
    replaceFile(f, "new");
    expect(readFileSync(f, "utf8")).toBe("new");
    expect(statSync(f).mode & 0o777).toBe(0o600);
    replaceFile(join(dir, "other"), "x", 0o644);
    expect(statSync(join(dir, "other")).mode & 0o777).toBe(0o644);
    expect(readdirSync(dir).sort()).toEqual(["other", "repo", "state"]);
  });
});

describe("readRefs and reflogValues: at the edges", () => {
  it("a loose ref file holding more or less than an object name is not a ref", () => {
    const head = git(repo, "rev-parse", "HEAD");
    mkdirSync(join(common, "refs/odd"), { recursive: true });
    writeFileSync(join(common, "refs/odd/longer"), `0${head}\n`);
    writeFileSync(join(common, "refs/odd/suffixed"), `${head}x\n`);
    writeFileSync(join(common, "refs/odd/fine"), `${head}\n`);
    expect(readRefs(common)).toEqual(
      new Map([
        ["refs/heads/main", head],
        ["refs/odd/fine", head],
      ]),
    );
  });

  it("symbolic refs are left out even when nobody asks for them", () => {
    const head = git(repo, "rev-parse", "HEAD");
    git(repo, "symbolic-ref", "refs/heads/alias", "refs/heads/main");
    expect(readRefs(common)).toEqual(new Map([["refs/heads/main", head]]));
  });

  it("a refs that is not a directory is an error, not an empty list", () => {
    const bad = join(dir, "bad");
    mkdirSync(bad);
    writeFileSync(join(bad, "refs"), "not a dir\n");
    expect(() => readRefs(bad)).toThrow(/ENOTDIR/);
  });

  it("reflogValues: the zero id, lines without a second column and names that are not ids are skipped; ids with zeros at either end are kept", () => {
    const zeroStart = `0${"a".repeat(39)}`;
    const zeroEnd = `${"b".repeat(39)}0`;
    const zero = "0".repeat(40);
    const log = join(dir, "reflog");
    writeFileSync(
      log,
      [
        `${zero} ${zeroStart} A <a@b> 1 +0000\tone`,
        `${zeroStart} ${zeroEnd} A <a@b> 2 +0000\ttwo`,
        `${zeroEnd} ${zero} A <a@b> 3 +0000\tdelete`,
        "lonely",
        `${zeroEnd} not-an-id A <a@b> 4 +0000\tbad`,
        "",
      ].join("\n"),
    );
    expect(reflogValues(log)).toEqual([zeroStart, zeroEnd]);
    expect(reflogValues(join(dir, "none"))).toEqual([]);
  });
});
