/**
 * The trust store on a real state dir, and which config files speak for a leg: an absent store
 * trusts nothing, a damaged one is refused, an approval replaces the older one of its file and
 * is kept sorted and private, a revoke gives back what it dropped; a config file git tracks is the
 * repository's and runs only with the content approved, an untracked one is the user's own.
 */
import { mkdirSync, readFileSync, statSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { arielErrorOf } from "../../_fixture.ts";
import { hooksDigest } from "../../lifecycle/hooks.ts";
import type { Ports } from "../../ports.ts";
import { commitAll, GIT_TEST_ENV, initRepo, removeDir, tempDir, writeFile } from "../_fixture.ts";
import { hostPorts } from "../ports.ts";
import { configTracked, hookSetsFor, readConfigSet } from "./hook_sets.ts";
import { approveHooks, readTrust, revokeHooks, trustPath } from "./trust_store.ts";

let dir: string;
let ports: Ports;
afterEach(() => removeDir(dir));

function setUp(env: Record<string, string> = {}): void {
  dir = tempDir("ariel-trust-");
  ports = hostPorts({
    env: { PATH: process.env.PATH, ...GIT_TEST_ENV, ARIEL_STATE_HOME: join(dir, "state"), ...env },
    cwd: dir,
  });
}

const store = () => join(dir, "state", "trust.json");
const hooksA = { "post-create": "npm ci" };
const entry = (file: string, sha = "a") => ({ file, sha256: sha.repeat(64), hooks: hooksA });

describe("the trust store", () => {
  it("trustPath: the state dir's trust.json; none without a state dir", () => {
    setUp();
    expect(trustPath({ env: { ARIEL_STATE_HOME: "/st" }, cwd: "/" })).toBe("/st/trust.json");
    expect(trustPath({ env: { ARIEL_STATE_HOME: "rel" }, cwd: "/w" })).toBe("/w/rel/trust.json");
    expect(trustPath({ env: {}, cwd: "/w" })).toBeNull();
  });

  it("an absent store (or no state dir at all) trusts nothing", async () => {
    setUp();
    expect(await readTrust(ports)).toEqual([]);
    expect(await readTrust({ ...ports, env: {} })).toEqual([]);
  });

  it("approve: the entry with its time, sorted by file, one per file, private to the user", async () => {
    setUp();
    let now = Date.parse("2026-12-04T10:00:00.000Z");
    const at = { ...ports, clock: { now: () => now } };
    const b = await approveHooks(at, entry("/ws/b/ariel.config.json"));
    expect(b).toEqual({ ...entry("/ws/b/ariel.config.json"), trustedAt: "2026-12-04T10:00:00.000Z" });
    now += 1000;
    await approveHooks(at, entry("/ws/a/ariel.config.json"));
    now += 1000;
    await approveHooks(at, entry("/ws/b/ariel.config.json", "c"));
    const entries = await readTrust(ports);
    expect(entries.map((e) => [e.file, e.sha256[0], e.trustedAt])).toEqual([
      ["/ws/a/ariel.config.json", "a", "2026-12-04T10:00:01.000Z"],
      ["/ws/b/ariel.config.json", "c", "2026-12-04T10:00:02.000Z"],
    ]);
    expect(JSON.parse(readFileSync(store(), "utf8"))).toEqual({ v: 1, entries });
    expect(readFileSync(store(), "utf8").endsWith("}\n")).toBe(true);
    expect(statSync(store()).mode & 0o777).toBe(0o600);
  });

  it("revoke: drops the files named and gives back what was there; others stay", async () => {
    setUp();
    await approveHooks(ports, entry("/ws/a/ariel.config.json"));
    await approveHooks(ports, entry("/ws/b/ariel.config.json"));
    const gone = await revokeHooks(ports, ["/ws/b/ariel.config.json", "/ws/never/ariel.config.json"]);
    expect(gone.map((e) => e.file)).toEqual(["/ws/b/ariel.config.json"]);
    expect((await readTrust(ports)).map((e) => e.file)).toEqual(["/ws/a/ariel.config.json"]);
    expect(await revokeHooks(ports, ["/ws/b/ariel.config.json"])).toEqual([]);
  });

  it("no state dir: approving is refused (ERR_CANTCREAT) and nothing is written", async () => {
    setUp();
    const e = await arielErrorOf(approveHooks({ ...ports, env: {} }, entry("/ws/a/ariel.config.json")));
    expect(e.code).toBe("ERR_CANTCREAT");
    expect(e.hint).toBe("set ARIEL_STATE_HOME (or HOME) so ariel has a state dir");
    const r = await arielErrorOf(revokeHooks({ ...ports, env: {} }, ["/x"]));
    expect(r.code).toBe("ERR_CANTCREAT");
  });

  it.each([
    ["not JSON", "{"],
    ["another version", JSON.stringify({ v: 2, entries: [] })],
    ["a relative file", JSON.stringify({ v: 1, entries: [{ ...entry("ws/a"), trustedAt: "t" }] })],
    ["a short digest", JSON.stringify({ v: 1, entries: [{ ...entry("/a"), sha256: "ab", trustedAt: "t" }] })],
    [
      "a hook that is a number",
      JSON.stringify({ v: 1, entries: [{ ...entry("/a"), hooks: { x: 1 }, trustedAt: "t" }] }),
    ],
    ["no time", JSON.stringify({ v: 1, entries: [entry("/a")] })],
  ])("a damaged store (%s) is ERR_RECORD_CORRUPT, and an approval leaves it as it was", async (_, text) => {
    setUp();
    mkdirSync(join(dir, "state"));
    writeFileSync(store(), text);
    const e = await arielErrorOf(readTrust(ports));
    expect(e.code).toBe("ERR_RECORD_CORRUPT");
    expect(e.message).toBe(`the trust store ${store()} is not valid`);
    expect(e.hint).toMatch(/^repair or delete it/);
    expect(e.context).toEqual({ path: store() });
    expect((await arielErrorOf(approveHooks(ports, entry("/ws/a/ariel.config.json")))).code).toBe(
      "ERR_RECORD_CORRUPT",
    );
    expect(readFileSync(store(), "utf8")).toBe(text);
  });

  it("a store that cannot be read for another reason is that error, not an empty store", async () => {
    setUp();
    mkdirSync(store(), { recursive: true });
    await expect(readTrust(ports)).rejects.toMatchObject({ code: "EISDIR" });
  });
});

describe("config sets", () => {
  const config = (hooks: Record<string, unknown>, more: Record<string, unknown> = {}) =>
    `${JSON.stringify({ hooks, ...more })}\n`;

  it("configTracked: true only for a file git tracks in that directory's repository", async () => {
    setUp();
    const repo = join(dir, "api");
    initRepo(repo);
    expect(await configTracked(ports, repo)).toBe(false);
    writeFile(join(repo, "ariel.config.json"), config({}));
    expect(await configTracked(ports, repo)).toBe(false);
    commitAll(repo, "config");
    expect(await configTracked(ports, repo)).toBe(true);
    mkdirSync(join(dir, "plain"));
    expect(await configTracked(ports, join(dir, "plain"))).toBe(false);
  });

  it("readConfigSet: none without a file; a tracked file with hooks is the repository's, untrusted until approved", async () => {
    setUp();
    const repo = join(dir, "api");
    initRepo(repo);
    const file = join(repo, "ariel.config.json");
    expect(await readConfigSet(ports, repo, [])).toBeNull();
    writeFile(file, config(hooksA, { hookTimeoutMs: 1234, ports: ["web"] }));
    commitAll(repo, "config");
    const sha256 = await hooksDigest(hooksA);
    expect(await readConfigSet(ports, repo, [])).toEqual({
      origin: "repository",
      file,
      hooks: hooksA,
      sha256,
      timeoutMs: 1234,
      trusted: false,
      untrusted: "never-approved",
      ports: ["web"],
    });
    const approved = [{ file, sha256, hooks: hooksA, trustedAt: "t" }];
    expect(await readConfigSet(ports, repo, approved)).toMatchObject({ trusted: true });
    expect(await readConfigSet(ports, repo, approved)).not.toHaveProperty("untrusted");
    const other = [{ file, sha256: "f".repeat(64), hooks: hooksA, trustedAt: "t" }];
    expect(await readConfigSet(ports, repo, other)).toMatchObject({ trusted: false, untrusted: "changed" });
    const elsewhere = [{ file: join(dir, "x", "ariel.config.json"), sha256, hooks: hooksA, trustedAt: "t" }];
    expect(await readConfigSet(ports, repo, elsewhere)).toMatchObject({ untrusted: "never-approved" });
  });

  it("readConfigSet: a tracked file without hooks, or an untracked one, is the user's own and trusted", async () => {
    setUp();
    const repo = join(dir, "api");
    initRepo(repo);
    writeFile(join(repo, "ariel.config.json"), config({}, { ports: ["db"] }));
    commitAll(repo, "config");
    const set = await readConfigSet(ports, repo, []);
    expect(set).toMatchObject({ origin: "workspace", trusted: true, ports: ["db"], hooks: {} });
    expect(set).not.toHaveProperty("timeoutMs");
    expect(set).not.toHaveProperty("untrusted");
    const loose = join(dir, "loose");
    writeFile(join(loose, "ariel.config.json"), config(hooksA));
    expect(await readConfigSet(ports, loose, [])).toMatchObject({ origin: "workspace", trusted: true });
  });

  it("readConfigSet: a file that cannot be read is that error; an invalid one is ERR_CONFIG", async () => {
    setUp();
    mkdirSync(join(dir, "d", "ariel.config.json"), { recursive: true });
    await expect(readConfigSet(ports, join(dir, "d"), [])).rejects.toMatchObject({ code: "EISDIR" });
    writeFile(join(dir, "e", "ariel.config.json"), '{"hooks": []}');
    expect((await arielErrorOf(readConfigSet(ports, join(dir, "e"), []))).code).toBe("ERR_CONFIG");
  });

  it("hookSetsFor: the source's file then the root's; the root's alone when the source is the root", async () => {
    setUp();
    const root = join(dir, "ws");
    initRepo(join(root, "api"));
    writeFile(join(root, "api", "ariel.config.json"), config(hooksA));
    writeFile(join(root, "ariel.config.json"), config({ "pre-land": "make" }));
    const { sets, problems } = await hookSetsFor(ports, root, join(root, "api"));
    expect(sets.map((s) => s.file)).toEqual([
      join(root, "api", "ariel.config.json"),
      join(root, "ariel.config.json"),
    ]);
    expect(problems).toEqual([]);
    expect((await hookSetsFor(ports, root, root)).sets.map((s) => s.file)).toEqual([
      join(root, "ariel.config.json"),
    ]);
  });

  it("hookSetsFor: a source's invalid file is a problem and skipped; the root's is an error", async () => {
    setUp();
    const root = join(dir, "ws");
    writeFile(join(root, "api", "ariel.config.json"), '{"ports": "web"}');
    writeFile(join(root, "ariel.config.json"), config(hooksA));
    const { sets, problems } = await hookSetsFor(ports, root, join(root, "api"), []);
    expect(sets.map((s) => s.file)).toEqual([join(root, "ariel.config.json")]);
    expect(problems).toHaveLength(1);
    expect(problems[0]).toMatchObject({
      code: "WARN_CONFIG_INVALID",
      context: { file: join(root, "api", "ariel.config.json") },
    });
    expect(problems[0]!.message).toMatch(/ariel\.config\.json: .*; its hooks and ports are ignored$/);
    expect(problems[0]!.hint).toEqual(expect.any(String));
    writeFile(join(root, "ariel.config.json"), '{"ports": "web"}');
    expect((await arielErrorOf(hookSetsFor(ports, root, join(root, "api"), []))).code).toBe("ERR_CONFIG");
  });

  it("hookSetsFor reads the trust store when given none", async () => {
    setUp();
    const root = join(dir, "ws");
    const repo = join(root, "api");
    initRepo(repo);
    const file = join(repo, "ariel.config.json");
    writeFile(file, config(hooksA));
    commitAll(repo, "config");
    expect((await hookSetsFor(ports, root, repo)).sets[0]).toMatchObject({ trusted: false });
    await approveHooks(ports, { file, sha256: await hooksDigest(hooksA), hooks: hooksA });
    expect((await hookSetsFor(ports, root, repo)).sets[0]).toMatchObject({ trusted: true });
  });
});
