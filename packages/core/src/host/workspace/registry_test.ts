import { mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { workspaceHash } from "../../hash.ts";
import { nodeFs } from "../fs.ts";
import { readWorkspaceRegistry, registerWorkspace, workspaceEntryPath } from "./registry.ts";

const dirs: string[] = [];
afterEach(() => {
  for (const d of dirs.splice(0)) rmSync(d, { recursive: true, force: true });
});
function ports(now = Date.UTC(2026, 0, 2, 3, 4, 5)) {
  const home = mkdtempSync(join(tmpdir(), "ariel-registry-"));
  dirs.push(home);
  return { home, fs: nodeFs, env: { ARIEL_STATE_HOME: home }, cwd: "/", clock: { now: () => now } };
}

describe("the workspace registry", () => {
  it("writes an entry once and reads every entry back, sorted by root", async () => {
    const p = ports();
    const b = { root: "/w/b", hash: await workspaceHash("/w/b") };
    const a = { root: "/w/a", hash: await workspaceHash("/w/a") };
    const path = await registerWorkspace(p, b);
    expect(path).toBe(join(p.home, "workspaces", `${b.hash}.json`));
    expect(readFileSync(path as string, "utf8")).toBe(
      `{"v":1,"root":"/w/b","hash":"${b.hash}","firstSeen":"2026-01-02T03:04:05.000Z"}\n`,
    );
    expect(await registerWorkspace({ ...p, clock: { now: () => 0 } }, b)).toBeNull();
    expect(readFileSync(path as string, "utf8")).toContain("2026-01-02T03:04:05.000Z");
    await registerWorkspace(p, a);
    expect(readdirSync(join(p.home, "workspaces")).filter((f) => f.startsWith("."))).toEqual([]);
    const { entries, problems } = await readWorkspaceRegistry(p);
    expect(entries.map((e) => e.root)).toEqual(["/w/a", "/w/b"]);
    expect(problems).toEqual([]);
  });

  it("reports a damaged or misnamed file as a problem and never deletes it", async () => {
    const p = ports();
    const dir = join(p.home, "workspaces");
    mkdirSync(dir, { recursive: true });
    writeFileSync(join(dir, "0000000000000000.json"), "{oops");
    writeFileSync(
      join(dir, "1111111111111111.json"),
      `${JSON.stringify({ v: 1, root: "/x", hash: "2222222222222222", firstSeen: "2026-01-01T00:00:00Z" })}\n`,
    );
    const { entries, problems } = await readWorkspaceRegistry(p);
    expect(entries).toEqual([]);
    expect(problems.map((x) => x.path)).toEqual([
      join(dir, "0000000000000000.json"),
      join(dir, "1111111111111111.json"),
    ]);
    expect(readdirSync(dir)).toHaveLength(2);
  });

  it("is empty, and writes nothing, without a user state dir", async () => {
    const p = { ...ports(), env: {} };
    expect(workspaceEntryPath(p, "0123456789abcdef")).toBeNull();
    expect(await registerWorkspace(p, { root: "/w", hash: "0123456789abcdef" })).toBeNull();
    expect(await readWorkspaceRegistry(p)).toEqual({ entries: [], problems: [] });
  });
});

describe("the workspace registry's order and what it skips", () => {
  it("sorts entries by root, not by file name: roots whose hashes sort the other way round", async () => {
    const p = ports();
    const roots = ["/w/a", "/w/b", "/w/c", "/w/d", "/w/e", "/w/f"];
    const hashes = await Promise.all(roots.map((r) => workspaceHash(r)));
    for (const [i, root] of roots.entries()) await registerWorkspace(p, { root, hash: hashes[i] as string });
    // The files sort by hash; at least one pair of roots is in the other order there.
    expect([...hashes].sort()).not.toEqual(hashes);
    expect((await readWorkspaceRegistry(p)).entries.map((e) => e.root)).toEqual(roots);
  });

  it("keeps two entries that name the same root in file-name order", async () => {
    const p = ports();
    const dir = join(p.home, "workspaces");
    mkdirSync(dir, { recursive: true });
    for (const hash of ["bbbbbbbbbbbbbbbb", "aaaaaaaaaaaaaaaa"]) {
      const entry = { v: 1, root: "/same", hash, firstSeen: "2026-01-01T00:00:00.000Z" };
      writeFileSync(join(dir, `${hash}.json`), `${JSON.stringify(entry)}\n`);
    }
    expect((await readWorkspaceRegistry(p)).entries.map((e) => e.hash)).toEqual([
      "aaaaaaaaaaaaaaaa",
      "bbbbbbbbbbbbbbbb",
    ]);
  });

  it("reads only regular .json files: a directory, other names and temporary files are skipped", async () => {
    const p = ports();
    const root = { root: "/w/only", hash: await workspaceHash("/w/only") };
    await registerWorkspace(p, root);
    const dir = join(p.home, "workspaces");
    mkdirSync(join(dir, "0000000000000000.json"));
    writeFileSync(join(dir, "notes.txt"), "not an entry");
    writeFileSync(join(dir, "1111111111111111.json.tmp"), "{");
    writeFileSync(join(dir, `.${root.hash}.json`), "{");
    writeFileSync(join(dir, "2222222222222222json"), "{");
    expect(await readWorkspaceRegistry(p)).toEqual({
      entries: [{ v: 1, root: "/w/only", hash: root.hash, firstSeen: "2026-01-02T03:04:05.000Z" }],
      problems: [],
    });
  });

  it("says what is wrong with each problem file, in file-name order", async () => {
    const p = ports();
    const dir = join(p.home, "workspaces");
    mkdirSync(dir, { recursive: true });
    const misnamed = { v: 1, root: "/x", hash: "2222222222222222", firstSeen: "2026-01-01T00:00:00Z" };
    const names = ["e", "b", "d", "a", "c"].map((c) => `${c.repeat(16)}.json`);
    for (const name of names) writeFileSync(join(dir, name), `${JSON.stringify(misnamed)}\n`);
    const { problems } = await readWorkspaceRegistry(p);
    expect(problems).toEqual(
      [...names].sort().map((name) => ({ path: join(dir, name), message: "names hash 2222222222222222" })),
    );
  });

  it("is empty when the state dir has no registry yet, and fails when the registry is not a directory", async () => {
    const p = ports();
    expect(await readWorkspaceRegistry(p)).toEqual({ entries: [], problems: [] });
    writeFileSync(join(p.home, "workspaces"), "a file");
    await expect(readWorkspaceRegistry(p)).rejects.toMatchObject({ code: "ENOTDIR" });
  });
});
