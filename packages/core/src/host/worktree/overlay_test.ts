/**
 * overlay.ts against real repositories: which files of a source selectOverlay picks (defaults
 * present, config globs and `.worktreeinclude` matched by git, tracked or not), what it skips and
 * refuses, and what copyOverlay writes into a linked worktree, hashes and marks --skip-worktree.
 */
import { createHash } from "node:crypto";
import { chmodSync, lstatSync, mkdirSync, readFileSync, rmSync, statSync, symlinkSync } from "node:fs";
import { join } from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { arielErrorOf } from "../../_fixture.ts";
import { commitAll, removeDir, writeFile } from "../_fixture.ts";
import { faultyPorts, git, makeRoot, names, recordingPorts } from "./_fixture.ts";
import { copyOverlay, selectOverlay, sha256Hex } from "./overlay.ts";

let root: string;
let source: string;
let outside: string;
beforeEach(() => {
  root = makeRoot(["api"]);
  source = join(root, "api");
  outside = join(root, "outside");
  mkdirSync(outside);
});
afterEach(() => removeDir(root));

const sha = (text: string) => createHash("sha256").update(text).digest("hex");
const ESCAPE_HINT = "ariel never follows a link out of a source; replace the link with a file";

describe("sha256Hex", () => {
  it.each<[string, string]>([
    ["", "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855"],
    ["abc", "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad"],
  ])("of %j", (text, hex) => {
    expect(sha256Hex(new TextEncoder().encode(text))).toBe(hex);
  });
});

describe("selectOverlay: the defaults present, no git process without patterns", () => {
  it("every default there is, sorted; stray files never", async () => {
    writeFile(join(source, ".mcp.json"), "{}\n");
    writeFile(join(source, ".claude/settings.local.json"), "{}\n");
    // A stray untracked file (its name is the one a mutated empty list would hold).
    writeFile(join(source, "Stryker was here"), "stray\n");
    writeFile(join(source, "notes.txt"), "stray\n");
    const ports = recordingPorts();
    expect(await selectOverlay(ports, source, [])).toEqual([
      ".claude/settings.local.json",
      ".env",
      ".mcp.json",
    ]);
    expect(ports.calls).toEqual([]);
  });

  it("none present: nothing", async () => {
    rmSync(join(source, ".env"));
    expect(await selectOverlay(faultyPorts(), source, [])).toEqual([]);
  });

  it("a default that appears after the defaults were looked at is not picked up", async () => {
    const ports = faultyPorts([
      {
        op: "readText",
        path: join(source, ".worktreeinclude"),
        before: () => writeFile(join(source, ".envrc"), "x\n"),
      },
    ]);
    expect(await selectOverlay(ports, source, [])).toEqual([".env"]);
    expect(readFileSync(join(source, ".envrc"), "utf8")).toBe("x\n");
  });
});

/** Files matched by patterns: untracked `a.secret` and `deep/b.secret`, tracked `config/local.json`. */
function patternFiles(): void {
  writeFile(join(source, "config/local.json"), '{"tracked":true}\n');
  writeFile(join(source, "config/other.json"), "{}\n");
  commitAll(source, "config");
  writeFile(join(source, "a.secret"), "a\n");
  writeFile(join(source, "deep/b.secret"), "b\n");
  writeFile(join(source, "local/x.json"), "x\n");
  writeFile(join(source, "local/sub/y.json"), "y\n");
}

const lsFiles = (which: string, patterns: string[]) => [
  "ls-files",
  "-z",
  which,
  "--ignored",
  ...patterns.map((p) => `--exclude=${p}`),
];

describe("selectOverlay: config globs and .worktreeinclude, matched by git", () => {
  beforeEach(patternFiles);

  it("config globs: tracked and untracked files they match, with the defaults", async () => {
    const ports = recordingPorts();
    const got = await selectOverlay(ports, source, ["*.secret", "config/local.json"]);
    expect(got).toEqual([".env", "a.secret", "config/local.json", "deep/b.secret"]);
    const patterns = ["*.secret", "config/local.json"];
    expect(ports.calls).toEqual([lsFiles("--cached", patterns), lsFiles("--others", patterns)]);
  });

  it("the source's .worktreeinclude (comments and blank lines dropped), after the globs", async () => {
    writeFile(join(source, ".worktreeinclude"), "# local settings\nlocal/  \n\n");
    const ports = recordingPorts();
    const got = await selectOverlay(ports, source, ["*.secret"]);
    expect(got).toEqual([".env", "a.secret", "deep/b.secret", "local/sub/y.json", "local/x.json"]);
    expect(ports.calls).toEqual([
      lsFiles("--cached", ["*.secret", "local/"]),
      lsFiles("--others", ["*.secret", "local/"]),
    ]);
  });

  it("a .worktreeinclude alone, no globs", async () => {
    writeFile(join(source, ".worktreeinclude"), "config/local.json\n");
    expect(await selectOverlay(faultyPorts(), source, [])).toEqual([".env", "config/local.json"]);
  });

  it("a tracked file the globs match but the working tree lacks: skipped", async () => {
    rmSync(join(source, "config/local.json"));
    expect(await selectOverlay(faultyPorts(), source, ["config/*.json"])).toEqual([
      ".env",
      "config/other.json",
    ]);
  });

  it.each<[string, string]>([
    ["EACCES", "EACCES"],
    ["EIO", "EIO"],
  ])("a .worktreeinclude that cannot be read (%s): that error, nothing selected", async (_name, code) => {
    writeFile(join(source, ".worktreeinclude"), "local/\n");
    const ports = faultyPorts([{ op: "readText", path: join(source, ".worktreeinclude"), code }]);
    await expect(selectOverlay(ports, source, [])).rejects.toMatchObject({ code });
  });

  it("a .worktreeinclude that is a directory: EISDIR", async () => {
    mkdirSync(join(source, ".worktreeinclude"));
    await expect(selectOverlay(faultyPorts(), source, [])).rejects.toMatchObject({ code: "EISDIR" });
  });
});

describe("selectOverlay: links and what is not a file", () => {
  it("a link to a file inside the source is selected; a dangling link, a directory, a link to one are not", async () => {
    writeFile(join(source, "env/real.env"), "REAL=1\n");
    rmSync(join(source, ".env"));
    symlinkSync("env/real.env", join(source, ".env"));
    symlinkSync("env/missing", join(source, ".envrc"));
    symlinkSync("env", join(source, ".mcp.json"));
    mkdirSync(join(source, ".claude/settings.local.json"), { recursive: true });
    const ports = faultyPorts();
    expect(await selectOverlay(ports, source, [])).toEqual([".env"]);
    // Only links are followed (stat); a directory is taken as lstat saw it.
    expect(ports.fs.log.filter((l) => l.startsWith("stat "))).toEqual([
      `stat ${source}/.env`,
      `stat ${source}/.envrc`,
      `stat ${source}/.mcp.json`,
    ]);
  });

  it.each<[string, string, () => void]>([
    [".env", ".env", () => symlinkSync(join(outside, "secret"), join(source, ".env"))],
    [
      ".claude/settings.local.json",
      "a parent directory",
      () => symlinkSync(outside, join(source, ".claude")),
    ],
    ["a.secret", "a glob's match", () => symlinkSync(join(outside, "secret"), join(source, "a.secret"))],
  ])("%s linking out of the source (%s): ERR_PATH_ESCAPE (77)", async (rel, _name, link) => {
    writeFile(join(outside, "secret"), "S\n");
    writeFile(join(outside, "settings.local.json"), "{}\n");
    rmSync(join(source, ".env"));
    link();
    const e = await arielErrorOf(selectOverlay(faultyPorts(), source, ["*.secret"]));
    expect([e.code, e.exit, e.message, e.hint]).toEqual([
      "ERR_PATH_ESCAPE",
      77,
      `overlay file ${rel} of ${source} links outside the source`,
      ESCAPE_HINT,
    ]);
    expect(e.context).toStrictEqual({ path: rel, source });
  });
});

/** A linked worktree of the source at `<root>/wt`, with tracked `config/app.json`; returns it. */
function linkedWorktree(): string {
  writeFile(join(source, "config/app.json"), '{"app":"committed"}\n');
  commitAll(source, "app config");
  writeFile(join(source, "config/app.json"), '{"app":"local"}\n');
  writeFile(join(source, "bin/run.sh"), "#!/bin/sh\n");
  chmodSync(join(source, "bin/run.sh"), 0o755);
  chmodSync(join(source, ".env"), 0o600);
  const wt = join(root, "wt");
  git(source, "worktree", "add", "-q", "-b", "ariel/t1", wt);
  return wt;
}

const modeOf = (path: string) => statSync(path).mode & 0o777;
const flags = (repo: string, ...paths: string[]) => git(repo, "ls-files", "-v", "--", ...paths);

describe("copyOverlay: copies, hashes and marks the tracked ones --skip-worktree", () => {
  let wt: string;
  beforeEach(() => {
    wt = linkedWorktree();
  });

  it("same paths, bytes and mode bits; tracked ones marked in the worktree only", async () => {
    const ports = recordingPorts();
    const got = await copyOverlay(ports, source, wt, [".env", "bin/run.sh", "config/app.json"]);
    expect(got).toStrictEqual([
      { path: ".env", sha256: sha("SECRET=api\n") },
      { path: "bin/run.sh", sha256: sha("#!/bin/sh\n") },
      { path: "config/app.json", sha256: sha('{"app":"local"}\n'), skipWorktree: true },
    ]);
    expect(readFileSync(join(wt, ".env"), "utf8")).toBe("SECRET=api\n");
    expect(readFileSync(join(wt, "bin/run.sh"), "utf8")).toBe("#!/bin/sh\n");
    expect(readFileSync(join(wt, "config/app.json"), "utf8")).toBe('{"app":"local"}\n');
    expect([modeOf(join(wt, ".env")), modeOf(join(wt, "bin/run.sh"))]).toEqual([0o600, 0o755]);
    expect(flags(wt, "config/app.json", "README.md")).toBe("H README.md\nS config/app.json");
    expect(flags(source, "config/app.json")).toBe("H config/app.json");
    expect(ports.calls).toEqual([
      ["ls-files", "-z", "--", ":(literal).env", ":(literal)bin/run.sh", ":(literal)config/app.json"],
      ["update-index", "--skip-worktree", "--", "config/app.json"],
    ]);
  });

  it("only untracked files: copied, none marked, no update-index", async () => {
    const ports = recordingPorts();
    const got = await copyOverlay(ports, source, wt, [".env"]);
    expect(got).toStrictEqual([{ path: ".env", sha256: sha("SECRET=api\n") }]);
    expect(ports.calls).toEqual([["ls-files", "-z", "--", ":(literal).env"]]);
    expect(flags(wt)).toBe("H .gitignore\nH README.md\nH config/app.json");
  });

  it.each<[string, string[]]>([
    ["no paths", []],
    ["only paths the source lacks or that are not files", ["gone.json", "config", "bin"]],
  ])("%s: nothing written, no git process", async (_name, paths) => {
    const ports = recordingPorts();
    expect(await copyOverlay(ports, source, wt, paths)).toEqual([]);
    expect(ports.calls).toEqual([]);
    expect(names(wt)).toEqual([".git", ".gitignore", "README.md", "config"]);
    expect(flags(wt, "config/app.json")).toBe("H config/app.json");
  });

  it("a link inside the source: its target's bytes, written as a file", async () => {
    writeFile(join(source, "env/real.env"), "REAL=1\n");
    rmSync(join(source, ".env"));
    symlinkSync("env/real.env", join(source, ".env"));
    const got = await copyOverlay(faultyPorts(), source, wt, [".env"]);
    expect(got).toStrictEqual([{ path: ".env", sha256: sha("REAL=1\n") }]);
    expect(statSync(join(wt, ".env")).isFile()).toBe(true);
    expect(readFileSync(join(wt, ".env"), "utf8")).toBe("REAL=1\n");
  });
});

describe("copyOverlay: keep (restore), and what is already in the worktree", () => {
  let wt: string;
  beforeEach(() => {
    wt = linkedWorktree();
  });

  it("kept paths are hashed from the source and marked, never written", async () => {
    writeFile(join(wt, "config/app.json"), '{"app":"snapshot"}\n');
    writeFile(join(wt, ".env"), "SNAPSHOT=1\n");
    const ports = recordingPorts();
    const keep = new Set(["config/app.json", ".env"]);
    const got = await copyOverlay(ports, source, wt, [".env", "bin/run.sh", "config/app.json"], keep);
    expect(got).toStrictEqual([
      { path: ".env", sha256: sha("SECRET=api\n") },
      { path: "bin/run.sh", sha256: sha("#!/bin/sh\n") },
      { path: "config/app.json", sha256: sha('{"app":"local"}\n'), skipWorktree: true },
    ]);
    expect(readFileSync(join(wt, "config/app.json"), "utf8")).toBe('{"app":"snapshot"}\n');
    expect(readFileSync(join(wt, ".env"), "utf8")).toBe("SNAPSHOT=1\n");
    expect(ports.fs.log.filter((l) => l.startsWith("writeAtomic "))).toEqual([
      `writeAtomic ${wt}/bin/run.sh`,
    ]);
    expect(flags(wt, "config/app.json")).toBe("S config/app.json");
  });

  it("an existing file is replaced in place (atomically, never removed first)", async () => {
    writeFile(join(wt, ".env"), "OLD=1\n");
    const ports = faultyPorts();
    await copyOverlay(ports, source, wt, [".env"]);
    expect(readFileSync(join(wt, ".env"), "utf8")).toBe("SECRET=api\n");
    expect(ports.fs.log.filter((l) => l.startsWith("remove "))).toEqual([]);
  });

  it("a directory or a link where the file goes: removed, then the file written", async () => {
    writeFile(join(wt, ".env/inside.txt"), "in a directory\n");
    writeFile(join(outside, "target"), "outside\n");
    symlinkSync(join(outside, "target"), join(wt, "tool"));
    writeFile(join(source, "tool"), "TOOL\n");
    const ports = faultyPorts();
    await copyOverlay(ports, source, wt, [".env", "tool"]);
    expect(readFileSync(join(wt, ".env"), "utf8")).toBe("SECRET=api\n");
    expect([lstatSync(join(wt, "tool")).isFile(), readFileSync(join(wt, "tool"), "utf8")]).toEqual([
      true,
      "TOOL\n",
    ]);
    expect(readFileSync(join(outside, "target"), "utf8")).toBe("outside\n");
    expect(ports.fs.log.filter((l) => l.startsWith("remove "))).toEqual([
      `remove ${wt}/.env`,
      `remove ${wt}/tool`,
    ]);
  });
});

describe("copyOverlay: links out of the source or the worktree are ERR_PATH_ESCAPE (77)", () => {
  let wt: string;
  beforeEach(() => {
    wt = linkedWorktree();
  });

  it("a source file linking out: refused before anything is written", async () => {
    writeFile(join(outside, "secret"), "S\n");
    rmSync(join(source, "bin/run.sh"));
    symlinkSync(join(outside, "secret"), join(source, "bin/run.sh"));
    const ports = recordingPorts();
    const e = await arielErrorOf(copyOverlay(ports, source, wt, ["bin/run.sh", ".env"]));
    expect([e.code, e.exit, e.message]).toEqual([
      "ERR_PATH_ESCAPE",
      77,
      `overlay file bin/run.sh of ${source} links outside the source`,
    ]);
    expect(e.context).toStrictEqual({ path: "bin/run.sh", source });
    expect(names(wt)).toEqual([".git", ".gitignore", "README.md", "config"]);
    expect(ports.calls).toEqual([]);
  });

  it("a worktree directory linking out: refused, nothing written outside", async () => {
    symlinkSync(outside, join(wt, "bin"));
    const e = await arielErrorOf(copyOverlay(faultyPorts(), source, wt, ["bin/run.sh"]));
    expect([e.code, e.exit, e.message]).toEqual([
      "ERR_PATH_ESCAPE",
      77,
      `overlay target bin/run.sh would land outside ${wt}`,
    ]);
    expect(e.context).toStrictEqual({ path: "bin/run.sh", worktree: wt });
    expect(names(outside)).toEqual([]);
  });
});
