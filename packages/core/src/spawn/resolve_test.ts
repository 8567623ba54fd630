import { describe, expect, it } from "vitest";
import { asyncFake, fakeSyncFs } from "../discovery/_fake_fs.ts";
import type { ArielError } from "../errors.ts";
import { FakeFs } from "../testing/fake_fs.ts";
import { discoverLookup, resolveTargets, sourceAtCwd } from "./resolve.ts";
import type { TargetSpec } from "./targets.ts";

const fs = new FakeFs({
  "/w/.git/HEAD": "ref: refs/heads/main\n",
  "/w/api/.git/HEAD": "ref: refs/heads/main\n",
  "/w/libs/web/.git/HEAD": "ref: refs/heads/main\n",
  "/w/broken/.git": "gitdir: /elsewhere\n",
  "/w/plain/README": "not a checkout\n",
  "/w/link": { link: "/w/api" },
  "/w/evil": { link: "/outside" },
  "/w/.ariel/.git/HEAD": "ref: refs/heads/main\n",
  "/outside/.git/HEAD": "ref: refs/heads/main\n",
  "/outside/\u001b[31m\n/.git/HEAD": "ref: refs/heads/main\n",
});
const lookup = discoverLookup(fs, "/w");
const resolve = (specs: TargetSpec[], cwd = "/w") => resolveTargets(fs, { root: "/w", cwd, lookup }, specs);
const name = (n: string): TargetSpec => ({ kind: "name", name: n, origin: `--source ${n}` });
const path = (p: string): TargetSpec => ({ kind: "path", path: p, origin: `--source ${p}` });

describe("resolveTargets", () => {
  it("resolves names, paths and records in order, without duplicates", async () => {
    const got = await resolve(
      [
        name("api"),
        path("../libs/web"),
        { kind: "record", name: "api", path: "/w/api", origin: "stdin line 1" },
        name("."),
        path("/w/link"),
      ],
      "/w/api",
    );
    expect(got).toEqual([
      { name: "api", path: "/w/api", checkout: true },
      { name: "libs/web", path: "/w/libs/web", checkout: true },
      { name: ".", path: "/w", checkout: true },
    ]);
  });

  it.each([
    ["unknown name", [name("nope")], "ERR_SOURCE_NOT_FOUND", 66],
    ["directory without .git", [name("plain")], "ERR_SOURCE_NOT_FOUND", 66],
    ["broken .git file", [name("broken")], "ERR_SOURCE_NOT_FOUND", 66],
    ["skipped directory", [name(".ariel")], "ERR_SOURCE_NOT_FOUND", 66],
    ["symlinked name (not followed, like discovery)", [name("link")], "ERR_SOURCE_NOT_FOUND", 66],
    ["missing path", [path("/w/gone")], "ERR_SOURCE_NOT_FOUND", 66],
    ["path outside the workspace", [path("/outside")], "ERR_PATH_ESCAPE", 77],
    ["name that links out of the workspace", [name("evil")], "ERR_PATH_ESCAPE", 77],
    [
      "record from another workspace",
      [{ kind: "record", name: "api", path: "/other/api", origin: "stdin line 4" } as TargetSpec],
      "ERR_INVALID_INPUT",
      65,
    ],
  ])("%s", async (_n, specs, code, exit) => {
    await expect(resolve(specs)).rejects.toMatchObject({ code, exit });
  });

  it("names the stdin line of a stale record", async () => {
    await expect(
      resolve([{ kind: "record", name: "api", path: "/other/api", origin: "stdin line 4" }]),
    ).rejects.toThrow(/^stdin line 4: /);
  });

  it.each([
    ["missing", "./x\u001b[31mred\nline2"],
    ["outside", "/outside/\u001b[31m\n"],
  ])("a %s path is quoted in the message: one printable line", async (_n, p) => {
    const e = (await resolve([path(p)]).catch((x: unknown) => x)) as Error;
    expect(e.message).toMatch(/^[\x20-\x7e]+$/);
    expect(e.message).toContain("\\u001b[31m");
  });

  it("a stale record's path is quoted in the message", async () => {
    const spec: TargetSpec = { kind: "record", name: "api", path: "/x\u001b[31m\nz", origin: "stdin line 2" };
    const e = (await resolve([spec]).catch((x: unknown) => x)) as Error;
    expect(e.message).toBe(
      'stdin line 2: source "api" is at /w/api in this workspace, not "/x\\u001b[31m\\nz"',
    );
  });

  it.each<[string, string, string]>([
    ["a near name", "ap", 'did you mean "api"? run ariel-discover to list the workspace\'s sources'],
    [
      "a nested near name",
      "libs/wbe",
      'did you mean "libs/web"? run ariel-discover to list the workspace\'s sources',
    ],
    ["nothing near", "zzzzzz", "run ariel-discover to list the workspace's sources"],
  ])("an unknown source gets a did-you-mean hint: %s", async (_case, n, hint) => {
    const e = (await resolve([name(n)]).catch((x: unknown) => x)) as ArielError;
    expect([e.code, e.message, e.hint]).toEqual([
      "ERR_SOURCE_NOT_FOUND",
      `no source "${n}" in workspace /w (--source ${n})`,
      hint,
    ]);
  });
});

describe("resolveTargets: exact errors", () => {
  it.each<[string, TargetSpec, Record<string, unknown>]>([
    [
      "an unknown name",
      name("nope"),
      {
        code: "ERR_SOURCE_NOT_FOUND",
        message: 'no source "nope" in workspace /w (--source nope)',
        context: { source: "nope", workspaceRoot: "/w" },
      },
    ],
    [
      "a missing path (named by flag, not repeated)",
      path("gone"),
      {
        code: "ERR_SOURCE_NOT_FOUND",
        message: 'no such directory: "gone" (--source)',
        context: { path: "/w/gone" },
      },
    ],
    [
      "a missing path from another origin",
      { kind: "path", path: "gone", origin: "argument 2" },
      { code: "ERR_SOURCE_NOT_FOUND", message: 'no such directory: "gone" (argument 2)' },
    ],
    [
      "a name that is a link out of the workspace",
      name("evil"),
      {
        code: "ERR_PATH_ESCAPE",
        exit: 77,
        message: 'path "evil" resolves to "/outside", outside "/w"',
      },
    ],
    [
      "a link inside the workspace is no source, but no escape either",
      name("link"),
      { code: "ERR_SOURCE_NOT_FOUND", exit: 66 },
    ],
    [
      "a path outside",
      path("/outside"),
      {
        code: "ERR_PATH_ESCAPE",
        exit: 77,
        message: '"/outside" is not inside workspace /w (--source)',
        hint: "pass -C DIR to choose the workspace",
        context: { path: "/outside", workspaceRoot: "/w" },
      },
    ],
    [
      "a stale record",
      { kind: "record", name: "api", path: "/other/api", origin: "stdin line 4" },
      {
        code: "ERR_INVALID_INPUT",
        hint: "the record comes from another workspace or is stale; pass -C DIR or re-run ariel-discover",
        context: { source: "api", path: "/other/api", expected: "/w/api" },
      },
    ],
  ])("%s", async (_n, spec, expected) => {
    await expect(resolve([spec])).rejects.toMatchObject(expected);
  });
});

describe("discoverLookup", () => {
  it.each([
    ["the root checkout", ".", { name: ".", path: "/w", checkout: true }],
    ["a nested source", "libs/web", { name: "libs/web", path: "/w/libs/web", checkout: true }],
    ["an invalid name", "../outside", null],
    ["a name deeper than any source", "libs/web/x", null],
  ])("%s", async (_n, n, expected) => {
    expect(await lookup(n)).toEqual(expected);
  });

  it("the bare root (no .git) is . without a checkout", async () => {
    const bare = discoverLookup(new FakeFs({ "/b/api/.git/HEAD": "ref: refs/heads/main\n" }), "/b");
    expect(await bare(".")).toEqual({ name: ".", path: "/b", checkout: false });
    expect(await bare("api")).toEqual({ name: "api", path: "/b/api", checkout: true });
  });

  it("discovers each depth once, however often it is asked", async () => {
    const head = "ref: refs/heads/main\n";
    const counted = new FakeFs({ "/c/a/.git/HEAD": head, "/c/b/.git/HEAD": head });
    const look = discoverLookup(counted, "/c");
    await look("a");
    const before = counted.calls.length;
    expect(await look("b")).toEqual({ name: "b", path: "/c/b", checkout: true });
    expect(counted.calls.length).toBe(before);
  });

  it("over a synchronous port: the same answers, and no read through the async one", async () => {
    const head = "ref: refs/heads/main\n";
    const tree = {
      "/s/.git/HEAD": head,
      "/s/api/.git/HEAD": head,
      "/s/libs/web/.git/HEAD": head,
      "/s/broken/.git": "gitdir: /elsewhere\n",
      "/s/link": { link: "/s/api" },
      "/s/.ariel/x/.git/HEAD": head,
    };
    const syncFs = fakeSyncFs(tree);
    const asyncFs = asyncFake(fakeSyncFs(tree));
    const viaSync = discoverLookup(asyncFs, "/s", syncFs);
    const viaAsync = discoverLookup(asyncFake(fakeSyncFs(tree)), "/s");
    for (const n of [".", "api", "libs/web", "libs", "broken", "link", ".ariel/x", "nope"]) {
      expect(await viaSync(n)).toEqual(await viaAsync(n));
    }
    expect(await viaSync.names?.(2)).toEqual(await viaAsync.names?.(2));
    expect(await viaSync("libs/web")).toEqual({ name: "libs/web", path: "/s/libs/web", checkout: true });
    expect(syncFs.calls.length).toBeGreaterThan(0);
    expect(asyncFs.calls).toEqual([]);
  });

  it("over a synchronous port, a failing discovery rejects the lookup", async () => {
    const syncFs = fakeSyncFs({ "/e": { error: "EACCES" } });
    const look = discoverLookup(asyncFake(fakeSyncFs({})), "/e", syncFs);
    await expect(look("api")).rejects.toThrow();
  });
});

describe("sourceAtCwd", () => {
  it.each([
    ["/w/api", "api"],
    ["/w/api/src/deep", "api"],
    ["/w/libs/web", "libs/web"],
    ["/w/libs", null],
    ["/w/plain", null],
    ["/w/broken", null],
    ["/w/.ariel", null],
    ["/w/link", null],
    ["/w", null],
    ["/outside", null],
    ["/nowhere", null],
  ])("cwd %s → %s", async (cwd, want) => {
    const fs2 = new FakeFs({
      "/w/api/.git/HEAD": "ref: refs/heads/main\n",
      "/w/api/src/deep/x": "",
      "/w/libs/web/.git/HEAD": "ref: refs/heads/main\n",
      "/w/broken/.git": "gitdir: /elsewhere\n",
      "/w/plain/README": "",
      "/w/.ariel/.git/HEAD": "ref: refs/heads/main\n",
      "/w/link": { link: "/w/plain" },
      "/outside/.git/HEAD": "ref: refs/heads/main\n",
    });
    const found = await sourceAtCwd(fs2, { root: "/w", cwd, lookup: discoverLookup(fs2, "/w") });
    expect(found?.name ?? null).toBe(want);
  });
});
