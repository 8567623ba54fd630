/**
 * workspace.ts against real directories and repositories: what openWorkspace opens (canonical
 * root, config values, the approved-root rule with its links), where repoLockDir finds a
 * repository's lock (with or without a git process), and how source names are checked and
 * resolved, with the hint a missing source gets.
 */
import { mkdirSync, symlinkSync } from "node:fs";
import { join, relative } from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { arielErrorOf } from "../../_fixture.ts";
import { workspaceHash } from "../../hash.ts";
import { LEASE_TTL_DEFAULT_MS, PORT_RANGE_DEFAULT } from "../../schema/config.ts";
import { initRepo, removeDir, tempDir, writeFile } from "../_fixture.ts";
import { faultyPorts, git, makeRoot, recordingPorts } from "./_fixture.ts";
import { checkSourceName, openWorkspace, repoLockDir, resolveSource } from "./workspace.ts";

let root: string;
let outside: string;
beforeEach(() => {
  root = makeRoot();
  outside = tempDir("ariel-ws-outside-");
});
afterEach(() => {
  removeDir(root);
  removeDir(outside);
});

const config = (c: Record<string, unknown>) => writeFile(join(root, "ariel.config.json"), JSON.stringify(c));

describe("openWorkspace: what it opens", () => {
  it("no config: canonical root, its hash, the default worktree root and values", async () => {
    const link = join(outside, "ws-link");
    symlinkSync(root, link);
    const ports = faultyPorts();
    const ws = await openWorkspace(ports, link);
    expect(ws).toEqual({
      ports,
      root,
      hash: await workspaceHash(root),
      worktreeRoot: join(root, ".ariel/worktrees"),
      overlay: [],
      leaseTtlMs: LEASE_TTL_DEFAULT_MS,
      minFreeBytes: 0,
      portRange: [PORT_RANGE_DEFAULT[0], PORT_RANGE_DEFAULT[1]],
    });
  });

  it("config values; overlay keeps only the globs beyond the default list, in order", async () => {
    config({
      overlay: ["config/*.local.json", ".env", ".mcp.json", "secrets/**"],
      leaseTtlMs: 120000,
      minFreeBytes: 1024,
      portRange: [41000, 41099],
    });
    const ws = await openWorkspace(faultyPorts(), root);
    expect([ws.overlay, ws.leaseTtlMs, ws.minFreeBytes, ws.portRange]).toEqual([
      ["config/*.local.json", "secrets/**"],
      120000,
      1024,
      [41000, 41099],
    ]);
  });
});

/** The first directory of the temp root (`/tmp`, say): an approved root right under `/`. */
const top = () => `/${root.split("/")[1]}`;

describe("openWorkspace: the worktree root must lie inside an approved root", () => {
  it.each<[string, () => Record<string, unknown>, () => string]>([
    ["the default", () => ({}), () => join(root, ".ariel/worktrees")],
    [
      "an approved root right under /",
      () => ({ worktreeRoots: [top()] }),
      () => join(root, ".ariel/worktrees"),
    ],
    ["/ approved", () => ({ worktreeRoots: ["/"] }), () => join(root, ".ariel/worktrees")],
    [
      "inside one of several approved roots",
      () => ({ worktreeRoots: ["/ariel-approved-nowhere", ".ariel/worktrees"] }),
      () => join(root, ".ariel/worktrees"),
    ],
    [
      "a worktree root elsewhere, approved",
      () => ({ worktreeRoot: "wt", worktreeRoots: ["wt"] }),
      () => join(root, "wt"),
    ],
  ])("%s: opened", async (_, cfg, worktreeRoot) => {
    config(cfg());
    expect((await openWorkspace(faultyPorts(), root)).worktreeRoot).toBe(worktreeRoot());
  });

  it("a worktree root outside every approved root: ERR_NOT_APPROVED_ROOT (77) naming both", async () => {
    config({ worktreeRoot: "elsewhere", worktreeRoots: ["/ariel-approved-nowhere", ".ariel/worktrees"] });
    const e = await arielErrorOf(openWorkspace(faultyPorts(), root));
    expect([e.code, e.message, e.hint, e.exit, e.context]).toEqual([
      "ERR_NOT_APPROVED_ROOT",
      `worktree root ${join(root, "elsewhere")} is not inside an approved root`,
      "add the directory to worktreeRoots in ariel.config.json",
      77,
      {
        worktreeRoot: join(root, "elsewhere"),
        approved: ["/ariel-approved-nowhere", join(root, ".ariel/worktrees")],
      },
    ]);
  });

  it("a link planted at the approved root is not followed: worktrees cannot leave through it", async () => {
    mkdirSync(join(root, ".ariel"));
    symlinkSync(outside, join(root, ".ariel/worktrees"));
    const e = await arielErrorOf(openWorkspace(faultyPorts(), root));
    expect([e.code, e.context]).toEqual([
      "ERR_NOT_APPROVED_ROOT",
      { worktreeRoot: outside, approved: [join(root, ".ariel/worktrees")] },
    ]);
  });

  it("the worktree root is followed through its links; an approved root's parent is canonicalized", async () => {
    mkdirSync(join(root, "real/wt/inner"), { recursive: true });
    symlinkSync(join(root, "real"), join(root, "alias"));
    symlinkSync(join(root, "real/wt/inner"), join(root, "wt-link"));
    config({ worktreeRoot: "wt-link", worktreeRoots: ["alias/wt"] });
    expect((await openWorkspace(faultyPorts(), root)).worktreeRoot).toBe(join(root, "real/wt/inner"));
  });
});

describe("repoLockDir: the repository's common git dir", () => {
  it("a plain checkout: its .git, read without a git process", async () => {
    const ports = recordingPorts();
    expect(await repoLockDir(ports, join(root, "api"))).toBe(join(root, "api/.git"));
    expect(ports.calls).toEqual([]);
  });

  it("a linked worktree: the main checkout's .git, without a git process", async () => {
    git(join(root, "api"), "worktree", "add", "-q", "-b", "side", join(outside, "wt"));
    const ports = recordingPorts();
    expect(await repoLockDir(ports, join(outside, "wt"))).toBe(join(root, "api/.git"));
    expect(ports.calls).toEqual([]);
  });

  it("a .git the file rule does not know (a link): git is asked, its absolute answer trimmed", async () => {
    mkdirSync(join(outside, "store"));
    git(outside, "init", "-q", "--separate-git-dir", join(outside, "store/r.git"), join(outside, "r"));
    const r = join(outside, "r");
    removeDir(join(r, ".git"));
    symlinkSync(join(outside, "store/r.git"), join(r, ".git"));
    const ports = recordingPorts();
    expect(await repoLockDir(ports, r)).toBe(join(outside, "store/r.git"));
    expect(ports.calls).toEqual([["rev-parse", "--path-format=absolute", "--git-common-dir"]]);
  });

  it("a checkout named by a relative path: still an absolute dir, from git", async () => {
    const ports = recordingPorts();
    expect(await repoLockDir(ports, relative(process.cwd(), join(root, "api")))).toBe(join(root, "api/.git"));
    expect(ports.calls).toEqual([["rev-parse", "--path-format=absolute", "--git-common-dir"]]);
  });
});

const ESCAPE_HINT = "name a source by its path relative to the workspace root";
const NAME_HINT =
  "a source name is . or a workspace-relative path of letters, digits, '.', '_', '@', '+', ',', '=' and '-'";

describe("checkSourceName", () => {
  it.each(["api", ".", "libs/core", "a..b/c..", "a.b_c@d+e,f=g-h"])("%j: valid, returned as is", (name) => {
    expect(checkSourceName(name)).toBe(name);
  });

  it.each([
    ["/etc", '"/etc"'],
    ["..", '".."'],
    ["../x", '"../x"'],
    ["a/../b", '"a/../b"'],
    ["a/..", '"a/.."'],
  ])("%j climbs out: ERR_PATH_ESCAPE (77)", (name, quoted) => {
    const e = errorOf(() => checkSourceName(name));
    expect([e.code, e.message, e.hint, e.exit, e.context]).toEqual([
      "ERR_PATH_ESCAPE",
      `source ${quoted} points outside the workspace root`,
      ESCAPE_HINT,
      77,
      { source: name },
    ]);
  });

  it.each([
    ["a//b", 'invalid source name "a//b": has an empty segment'],
    ["api/", 'invalid source name "api/": has an empty segment'],
    ["a/./b", 'invalid source name "a/./b": has a "." segment'],
    ["a/-x", 'invalid source name "a/-x": has a segment starting with "-" ("-x")'],
    ["", 'invalid source name "": is empty'],
  ])("%j is no name: ERR_INVALID_NAME (65)", (name, message) => {
    const e = errorOf(() => checkSourceName(name));
    expect([e.code, e.message, e.hint, e.exit]).toEqual(["ERR_INVALID_NAME", message, NAME_HINT, 65]);
  });
});

/** What `fn` threw. */
function errorOf(fn: () => unknown): {
  code: string;
  message: string;
  hint: string;
  exit: number;
  context: unknown;
} {
  try {
    fn();
  } catch (e) {
    return e as { code: string; message: string; hint: string; exit: number; context: unknown };
  }
  throw new Error("expected a throw");
}

describe("resolveSource: found", () => {
  it("a source: its canonical path and common git dir", async () => {
    const ws = await openWorkspace(faultyPorts(), root);
    expect(await resolveSource(ws, "api")).toEqual({
      name: "api",
      path: join(root, "api"),
      commonGitDir: join(root, "api/.git"),
    });
  });

  it("a link to a source inside the root: the source's path, under the name asked", async () => {
    symlinkSync(join(root, "web"), join(root, "alias"));
    const ws = await openWorkspace(faultyPorts(), root);
    expect(await resolveSource(ws, "alias")).toEqual({
      name: "alias",
      path: join(root, "web"),
      commonGitDir: join(root, "web/.git"),
    });
  });

  it('"." is the root as opened, resolved without reading a link', async () => {
    initRepo(root, { "README.md": "# root\n", ".gitignore": "api/\nweb/\n" });
    const ws = await openWorkspace(faultyPorts(), root);
    const ports = faultyPorts([{ op: "realpath", code: "EIO" }]);
    expect(await resolveSource({ ...ws, ports }, ".")).toEqual({
      name: ".",
      path: root,
      commonGitDir: join(root, ".git"),
    });
  });

  it('the root is a source even when the worktree root is the root itself (".")', async () => {
    initRepo(root, { "README.md": "# root\n", ".gitignore": "api/\nweb/\n" });
    config({ worktreeRoot: ".", worktreeRoots: ["."] });
    const ws = await openWorkspace(faultyPorts(), root);
    expect((await resolveSource(ws, ".")).path).toBe(root);
    const e = await arielErrorOf(resolveSource(ws, "api"));
    expect([e.code, e.message]).toEqual(["ERR_PATH_ESCAPE", 'source "api" lies inside the worktree root']);
  });
});

describe("resolveSource: refused", () => {
  it("a checkout inside the worktree root: ERR_PATH_ESCAPE (77)", async () => {
    config({ worktreeRoot: "wt", worktreeRoots: ["wt"] });
    initRepo(join(root, "wt/t1/api"));
    const ws = await openWorkspace(faultyPorts(), root);
    const e = await arielErrorOf(resolveSource(ws, "wt/t1/api"));
    expect([e.code, e.message, e.hint, e.exit, e.context]).toEqual([
      "ERR_PATH_ESCAPE",
      'source "wt/t1/api" lies inside the worktree root',
      "name a source checkout, not a task's worktree",
      77,
      { source: "wt/t1/api" },
    ]);
  });

  it("a link out of the root: ERR_PATH_ESCAPE before any .git is looked at", async () => {
    initRepo(join(outside, "repo"));
    symlinkSync(join(outside, "repo"), join(root, "out"));
    const ws = await openWorkspace(faultyPorts(), root);
    const e = await arielErrorOf(resolveSource(ws, "out"));
    expect([e.code, e.exit]).toEqual(["ERR_PATH_ESCAPE", 77]);
  });

  it("a bad name: refused as checkSourceName refuses it", async () => {
    const ws = await openWorkspace(faultyPorts(), root);
    const e = await arielErrorOf(resolveSource(ws, "../api"));
    expect([e.code, e.context]).toEqual(["ERR_PATH_ESCAPE", { source: "../api" }]);
  });
});

const DISCOVER = "run ariel-discover to list the workspace's sources";

describe("resolveSource: no such source, and the suggestion", () => {
  it.each<[string, string, string[], string]>([
    ["a typo of a source", "apo", [], 'did you mean "api"? '],
    ["nothing close", "zzz", [], ""],
    ["a plain directory, no .git", "docs", ["docs/"], ""],
    ["a typo of a source nested in a source", "api/plugn", ["api/plugin"], 'did you mean "api/plugin"? '],
    ["a typo of a source two deep", "group/apu", ["group/api"], 'did you mean "group/api"? '],
    ["a source deeper than the name is not searched", "a/b-api", ["a/b/api"], ""],
  ])("%s: ERR_SOURCE_NOT_FOUND (66)", async (_, name, made, suggestion) => {
    for (const m of made) {
      if (m.endsWith("/")) mkdirSync(join(root, m));
      else initRepo(join(root, m));
    }
    const ws = await openWorkspace(faultyPorts(), root);
    const e = await arielErrorOf(resolveSource(ws, name));
    expect([e.code, e.message, e.hint, e.exit, e.context]).toEqual([
      "ERR_SOURCE_NOT_FOUND",
      `no source named "${name}" in ${root}`,
      `${suggestion}${DISCOVER}`,
      66,
      { source: name },
    ]);
  });

  it("the listing fails: the refusal stands, without a suggestion", async () => {
    const ws = await openWorkspace(faultyPorts(), root);
    const ports = faultyPorts([{ op: "readDir", path: root, code: "EIO" }]);
    const e = await arielErrorOf(resolveSource({ ...ws, ports }, "apo"));
    expect([e.code, e.hint]).toEqual(["ERR_SOURCE_NOT_FOUND", DISCOVER]);
  });
});
