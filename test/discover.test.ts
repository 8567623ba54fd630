/**
 * Discovery on real repositories made by git in temp dirs: every kind, HEAD shape and layout of
 * docs/discover.md, with head and branch checked against `git rev-parse` / `git symbolic-ref`.
 */
import { mkdirSync, renameSync, symlinkSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import {
  checkRecord,
  type DiscoverOptions,
  type DiscoverWarning,
  discoverSources,
  discoverSourcesSync,
  locateWorkspaceRoot,
  resolveWorkspaceRoot,
  type Source,
  sourceSchema,
} from "@ariel/core";
import { nodeFs, syncFs, syncReadFs } from "@ariel/core/host";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { records, runAriel } from "./helpers/cli.ts";
import { commitAll, git, gitRaw, initRepo, removeDir, tempDir, writeFile } from "./helpers/git.ts";

/** What git itself says about the checkout at `dir`. */
function gitTruth(dir: string): { head: string | null; branch: string | null } {
  const head = gitRaw(dir, "rev-parse", "-q", "--verify", "HEAD");
  const sym = gitRaw(dir, "symbolic-ref", "-q", "HEAD");
  return {
    head: head.code === 0 ? head.stdout.trim() : null,
    branch: sym.code === 0 ? sym.stdout.trim().replace(/^refs\/heads\//, "") : null,
  };
}

async function discover(root: string, options: DiscoverOptions = {}) {
  const warnings: DiscoverWarning[] = [];
  const sources = await discoverSources(nodeFs, root, options, (w) => warnings.push(w));
  return { sources, warnings, names: sources.map((s) => s.name) };
}

describe("discovery on real repositories", () => {
  let tmp: string;
  let ws: string;
  beforeAll(() => {
    tmp = tempDir("ariel-discover-it-");
    ws = join(tmp, "ws");
    // The root is itself a checkout, with a submodule.
    initRepo(ws, { "README.md": "workspace\n", ".gitignore": "/*/\n!/lib/\n" });
    const libOrigin = join(tmp, "lib-origin");
    initRepo(libOrigin, { "lib.txt": "lib\n" });
    git(ws, "-c", "protocol.file.allow=always", "submodule", "add", "-q", libOrigin, "lib");
    commitAll(ws, "add lib");

    initRepo(join(ws, "checkout"));
    git(join(ws, "checkout"), "worktree", "add", "-q", "-b", "feature", join(ws, "linked"));
    writeFile(join(ws, "plain", "notes.md"), "not a source\n");

    initRepo(join(ws, "packed"));
    git(join(ws, "packed"), "branch", "other");
    git(join(ws, "packed"), "tag", "-a", "-m", "v1", "v1");
    git(join(ws, "packed"), "pack-refs", "--all");

    initRepo(join(ws, "detached"));
    commitAll(join(ws, "detached"), "second");
    git(join(ws, "detached"), "checkout", "-q", "--detach", "HEAD~1");

    mkdirSync(join(ws, "unborn"));
    git(join(ws, "unborn"), "init", "-q", "-b", "trunk");

    // A checkout whose .git is a file with a relative gitdir (its git dir moved aside).
    initRepo(join(ws, "relative"));
    mkdirSync(join(tmp, "store"));
    renameSync(join(ws, "relative", ".git"), join(tmp, "store", "relative.git"));
    writeFileSync(join(ws, "relative", ".git"), "gitdir: ../../store/relative.git\n");

    // A symbolic ref chain: HEAD -> refs/heads/alias -> refs/heads/main.
    initRepo(join(ws, "chain"));
    git(join(ws, "chain"), "symbolic-ref", "refs/heads/alias", "refs/heads/main");
    git(join(ws, "chain"), "symbolic-ref", "HEAD", "refs/heads/alias");

    // Nested checkouts.
    initRepo(join(ws, "outer"));
    initRepo(join(ws, "outer", "inner"));

    // Links: one to a checkout inside the root, one to a checkout outside it.
    symlinkSync("checkout", join(ws, "alias-of-checkout"));
    initRepo(join(tmp, "outside"));
    symlinkSync(join(tmp, "outside"), join(ws, "outside-link"));
    symlinkSync(join(ws, "outer"), join(ws, "zz-link-to-outer"));
  });
  afterAll(() => removeDir(tmp));

  it("finds every source at depth 1 with its kind, git dir, and git's own head and branch", async () => {
    const { sources, warnings } = await discover(ws);
    expect(warnings).toEqual([]);
    const kinds = Object.fromEntries(sources.map((s) => [s.name, [s.kind, s.gitDir]]));
    expect(kinds).toEqual({
      ".": ["checkout", `${ws}/.git`],
      chain: ["checkout", `${ws}/chain/.git`],
      checkout: ["checkout", `${ws}/checkout/.git`],
      detached: ["checkout", `${ws}/detached/.git`],
      lib: ["submodule", `${ws}/.git/modules/lib`],
      linked: ["worktree", `${ws}/checkout/.git/worktrees/linked`],
      outer: ["checkout", `${ws}/outer/.git`],
      packed: ["checkout", `${ws}/packed/.git`],
      relative: ["checkout", `${tmp}/store/relative.git`],
      unborn: ["checkout", `${ws}/unborn/.git`],
    });
    for (const s of sources) {
      expect({ name: s.name, path: s.path, ...gitTruth(s.path) }).toEqual({
        name: s.name,
        path: s.name === "." ? ws : `${ws}/${s.name}`,
        head: s.head,
        branch: s.branch,
      });
    }
  });

  it.each([
    ["unborn", { head: null, branch: "trunk" }],
    ["detached", { branch: null }],
    ["chain", { branch: "main" }],
    ["linked", { branch: "feature" }],
    ["lib", { branch: "main" }],
  ])("%s has the HEAD shape git reports", async (name, shape) => {
    const { sources } = await discover(ws);
    expect(sources.find((s) => s.name === name)).toMatchObject(shape);
  });

  it("discoverSourcesSync over syncReadFs (what the CLI uses), syncFs and nodeFs agree", async () => {
    for (const options of [{}, { maxDepth: 3, nested: true, followSymlinks: true }]) {
      const warnA: DiscoverWarning[] = [];
      const warnB: DiscoverWarning[] = [];
      const warnC: DiscoverWarning[] = [];
      const a = await discoverSources(nodeFs, ws, options, (w) => warnA.push(w));
      const b = await discoverSources(syncFs, ws, options, (w) => warnB.push(w));
      const c = discoverSourcesSync(syncReadFs, ws, options, (w) => warnC.push(w));
      expect(a.length).toBeGreaterThan(3);
      expect([b, c]).toEqual([a, a]);
      expect([warnB, warnC]).toEqual([warnA, warnA]);
    }
    expect(() => syncReadFs.readText(join(ws, "nope"))).toThrow(expect.objectContaining({ code: "ENOENT" }));
    expect(() => syncReadFs.readDir(join(ws, "nope"))).toThrow(expect.objectContaining({ code: "ENOENT" }));
    await expect(syncFs.readText(join(ws, "nope"))).rejects.toMatchObject({ code: "ENOENT" });
    await expect(syncFs.readText(ws)).rejects.toMatchObject({ code: "EISDIR" });
    const big = `${"x".repeat(40_000)}\u00e9\n`; // larger than the shared buffer, with a multi-byte end
    writeFileSync(join(tmp, "big.txt"), big);
    expect(await syncFs.readText(join(tmp, "big.txt"))).toBe(big);
    writeFileSync(join(tmp, "exact.txt"), "y".repeat(16 * 1024));
    expect(await syncFs.readText(join(tmp, "exact.txt"))).toBe("y".repeat(16 * 1024));
    expect(await syncFs.stat(join(ws, "nope"))).toBeNull();
  });

  it("locateWorkspaceRoot is resolveWorkspaceRoot without the hash", async () => {
    for (const [cwd, flag] of [
      [join(ws, "plain"), undefined],
      ["/", ws],
      [ws, "checkout/../plain"],
    ] as const) {
      const ports = { fs: syncFs, env: {}, cwd };
      const { hash, ...rest } = await resolveWorkspaceRoot(ports, flag);
      expect(hash).toMatch(/^[0-9a-f]{16}$/);
      expect(await locateWorkspaceRoot(ports, flag)).toEqual(rest);
    }
  });

  it("nested checkouts need --nested", async () => {
    expect((await discover(ws, { maxDepth: 2 })).names).not.toContain("outer/inner");
    const { sources } = await discover(ws, { maxDepth: 2, nested: true });
    const inner = sources.find((s) => s.name === "outer/inner") as Source;
    expect(inner).toMatchObject({
      kind: "checkout",
      path: `${ws}/outer/inner`,
      ...gitTruth(`${ws}/outer/inner`),
    });
  });

  it("symbolic links: skipped by default; followed inside the root, deduplicated, never outside", async () => {
    const plain = await discover(ws);
    expect(plain.names.filter((n) => n.includes("link") || n.startsWith("alias"))).toEqual(["linked"]);
    const followed = await discover(ws, { followSymlinks: true });
    // alias-of-checkout and zz-link-to-outer point at sources already found under their real names.
    expect(followed.names).toEqual(plain.names);
    expect(followed.warnings).toEqual([
      {
        code: "WARN_SYMLINK_OUTSIDE_ROOT",
        message: `not following ${ws}/outside-link: it points outside the workspace root`,
        path: `${ws}/outside-link`,
      },
    ]);
  });

  it("a link is followed when its target is not reachable otherwise (beyond --max-depth)", async () => {
    const root = join(tmp, "ws2");
    initRepo(join(root, "a", "b", "c", "deep"));
    symlinkSync("a/b/c", join(root, "shortcut"));
    expect((await discover(root, { maxDepth: 2 })).names).toEqual([]);
    const { sources } = await discover(root, { maxDepth: 2, followSymlinks: true });
    expect(sources.map((s) => [s.name, s.path])).toEqual([["shortcut/deep", `${root}/a/b/c/deep`]]);
    // A link to a directory that was already looked at (a/b, at depth 2) is not followed again.
    symlinkSync("a/b", join(root, "again"));
    const again = await discover(root, { maxDepth: 2, followSymlinks: true });
    expect(again.names).toEqual(["shortcut/deep"]);
  });

  it("the CLI agrees: --json records carry git's head and branch", async () => {
    const r = await runAriel("discover", ["-C", ws, "--json", "--exclude", "outer"]);
    expect([r.code, r.stderr]).toEqual([0, ""]);
    const recs = records(r.stdout);
    expect(recs.map((x) => x.name)).toEqual([
      ".",
      "chain",
      "checkout",
      "detached",
      "lib",
      "linked",
      "packed",
      "relative",
      "unborn",
    ]);
    for (const rec of recs)
      expect({ head: rec.head, branch: rec.branch }).toEqual(gitTruth(rec.path as string));
  });

  it("--status records satisfy the source schema", async () => {
    const r = await runAriel("discover", ["-C", ws, "--json", "--status", "--exclude", "outer"]);
    expect([r.code, r.stderr]).toEqual([0, ""]);
    const recs = records(r.stdout);
    expect(recs).toHaveLength(9);
    for (const rec of recs) {
      const parsed = checkRecord(sourceSchema(), rec, `source ${String(rec.name)}`);
      expect(typeof parsed.dirty).toBe("boolean");
      expect(parsed.fingerprint).toMatch(/^[0-9a-f]{64}$/);
    }
  });

  it("without -C, a directory inside the root checkout resolves to its top (git top rule)", async () => {
    const r = await runAriel("discover", ["-0"], {
      cwd: join(ws, "plain"),
      env: { ARIEL_WORKSPACE_ROOT: undefined },
    });
    expect(r.code).toBe(0);
    expect(r.stdout.split("\0")[0]).toBe(ws);
  });

  it("a big workspace (past the baseline-JIT switch) lists every source, in order", async () => {
    const big = join(tmp, "big");
    const sha = "0123456789abcdef0123456789abcdef01234567";
    const names = Array.from({ length: 150 }, (_, i) => `r${String(i).padStart(3, "0")}`);
    for (const n of names) {
      mkdirSync(join(big, n, ".git", "refs", "heads"), { recursive: true });
      writeFileSync(join(big, n, ".git", "HEAD"), "ref: refs/heads/main\n");
      writeFileSync(join(big, n, ".git", "refs", "heads", "main"), `${sha}\n`);
    }
    const r = await runAriel("discover", ["-C", big, "--json"]);
    expect([r.code, r.stderr]).toEqual([0, ""]);
    const recs = records(r.stdout);
    expect(recs.map((x) => x.name)).toEqual(names);
    expect(new Set(recs.map((x) => `${x.head} ${x.branch} ${x.kind}`))).toEqual(
      new Set([`${sha} main checkout`]),
    );
  });
});
