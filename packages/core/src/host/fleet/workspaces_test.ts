import { mkdirSync, symlinkSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { isArielError } from "../../errors.ts";
import { workspaceHash } from "../../hash.ts";
import { quoteValue } from "../../names.ts";
import { removeDir, tempDir } from "../_fixture.ts";
import { knownWorkspaces } from "./workspaces.ts";

const dirs: string[] = [];
afterEach(() => {
  for (const d of dirs.splice(0)) removeDir(d);
});

function scratch(prefix: string): string {
  const d = tempDir(prefix);
  dirs.push(d);
  return d;
}

/** A user state dir (ARIEL_STATE_HOME) and the env that names it. */
function stateHome(): { state: string; env: Record<string, string> } {
  const state = scratch("ariel-fleet-ws-state-");
  return { state, env: { ARIEL_STATE_HOME: state } };
}

/** Write `workspaces/<name>` with this entry (as the first ariel command in `root` does). */
function writeEntry(state: string, name: string, entry: Record<string, unknown> | string): string {
  mkdirSync(join(state, "workspaces"), { recursive: true });
  const path = join(state, "workspaces", name);
  writeFileSync(path, typeof entry === "string" ? entry : `${JSON.stringify(entry)}\n`);
  return path;
}

/** Register `root` under its own hash; returns the hash. */
async function register(state: string, root: string): Promise<string> {
  const hash = await workspaceHash(root);
  writeEntry(state, `${hash}.json`, { v: 1, root, hash, firstSeen: "2026-12-02T11:00:00.000Z" });
  return hash;
}

/** The problems as plain facts. */
function problemsOf(r: Awaited<ReturnType<typeof knownWorkspaces>>) {
  return r.problems.map((p) => ({ code: p.code, message: p.message, hint: p.hint, context: p.context }));
}

const HINT = "move the file aside; the workspace is registered again by its next ariel command";

describe("knownWorkspaces", () => {
  it("no registry and no --workspace: nothing, and no problem", async () => {
    const { env } = stateHome();
    expect(await knownWorkspaces(env, "/")).toEqual({ workspaces: [], problems: [] });
    // no state home can be named at all: no registry
    expect(await knownWorkspaces({}, "/")).toEqual({ workspaces: [], problems: [] });
  });

  it("the registry's entries by root, a gone root kept as not existing, a file root not a directory", async () => {
    const { state, env } = stateHome();
    const b = scratch("ariel-fleet-ws-b-");
    const a = scratch("ariel-fleet-ws-a-");
    const gone = join(scratch("ariel-fleet-ws-gone-"), "was-here");
    const file = join(scratch("ariel-fleet-ws-file-"), "a-file");
    writeFileSync(file, "not a directory\n");
    const hb = await register(state, b);
    const ha = await register(state, a);
    const hg = await register(state, gone);
    const hf = await register(state, file);
    const r = await knownWorkspaces(env, "/");
    expect(r.problems).toEqual([]);
    const expected = [
      { root: a, hash: ha, origin: "registry", exists: true },
      { root: b, hash: hb, origin: "registry", exists: true },
      { root: gone, hash: hg, origin: "registry", exists: false },
      { root: file, hash: hf, origin: "registry", exists: false },
    ].sort((x, y) => (x.root < y.root ? -1 : 1));
    expect(r.workspaces).toEqual(expected);
  });

  it("unusable registry files are ERR_RECORD_CORRUPT problems, sorted by path; the good entries still listed", async () => {
    const { state, env } = stateHome();
    const good = scratch("ariel-fleet-ws-good-");
    const other = scratch("ariel-fleet-ws-other-");
    const hGood = await register(state, good);
    const hOther = await workspaceHash(other);
    // a valid entry whose hash is another root's (the file is named by that hash)
    const wrongHash = writeEntry(state, `${hOther}.json`, {
      v: 1,
      root: good,
      hash: hOther,
      firstSeen: "2026-12-02T11:00:00.000Z",
    });
    const notJson = writeEntry(state, "0000000000000000.json", "{ torn");
    // a valid entry under a name that is not its hash
    const misnamed = writeEntry(state, "ffffffffffffffff.json", {
      v: 1,
      root: other,
      hash: hOther,
      firstSeen: "2026-12-02T11:00:00.000Z",
    });
    const r = await knownWorkspaces(env, "/");
    expect(r.workspaces).toEqual([{ root: good, hash: hGood, origin: "registry", exists: true }]);
    const torn = (() => {
      try {
        JSON.parse("{ torn");
        return "";
      } catch (e) {
        return (e as Error).message;
      }
    })();
    const bad = [
      { path: notJson, why: torn },
      { path: misnamed, why: `names hash ${hOther}` },
      { path: wrongHash, why: "its hash is not the hash of its root" },
    ].sort((x, y) => (x.path < y.path ? -1 : 1));
    expect(problemsOf(r)).toEqual(
      bad.map((b) => ({
        code: "ERR_RECORD_CORRUPT",
        message: `workspace registry entry ${quoteValue(b.path)}: ${b.why}`,
        hint: HINT,
        context: { path: b.path },
      })),
    );
    expect(r.problems.every((p) => isArielError(p))).toBe(true);
  });

  it("a schema failure: the reader's reason", async () => {
    const { state, env } = stateHome();
    const path = writeEntry(state, "1111111111111111.json", { v: 2, root: "rel", hash: "x" });
    expect(problemsOf(await knownWorkspaces(env, "/"))).toEqual([
      {
        code: "ERR_RECORD_CORRUPT",
        message: `workspace registry entry ${quoteValue(path)}: ${path}: v: must be 1 (and 3 more)`,
        hint: HINT,
        context: { path },
      },
    ]);
  });

  it("--workspace: taken from cwd and canonicalized, flags first and in their order, one per hash", async () => {
    const { state, env } = stateHome();
    const parent = scratch("ariel-fleet-ws-parent-");
    const x = join(parent, "x");
    const y = join(parent, "y");
    mkdirSync(x);
    mkdirSync(y);
    const link = join(parent, "link-to-y");
    symlinkSync(y, link);
    const reg = scratch("ariel-fleet-ws-reg-");
    const hReg = await register(state, reg);
    await register(state, y); // also in the registry: shown once, as the flag named it
    const missing = join(parent, "missing");
    const r = await knownWorkspaces(env, parent, ["y", "x", link, "missing", reg, "./x"]);
    expect(r.problems).toEqual([]);
    expect(r.workspaces).toEqual([
      { root: y, hash: await workspaceHash(y), origin: "flag", exists: true },
      { root: x, hash: await workspaceHash(x), origin: "flag", exists: true },
      { root: missing, hash: await workspaceHash(missing), origin: "flag", exists: false },
      { root: reg, hash: hReg, origin: "flag", exists: true },
    ]);
  });

  it("--workspace in a task's directory is the workspace that owns the task", async () => {
    const { env } = stateHome();
    const ws = scratch("ariel-fleet-ws-owner-");
    const task = join(ws, ".ariel/worktrees/login/api");
    mkdirSync(task, { recursive: true });
    const r = await knownWorkspaces(env, "/", [task]);
    expect(r.workspaces).toEqual([{ root: ws, hash: await workspaceHash(ws), origin: "flag", exists: true }]);
  });

  it('an empty --workspace is a usage error ("--workspace needs a directory")', async () => {
    const { env } = stateHome();
    const e = await knownWorkspaces(env, "/", [""]).catch((x: unknown) => x);
    expect(isArielError(e)).toBe(true);
    expect((e as { code: string; message: string }).code).toBe("ERR_USAGE");
    expect((e as Error).message).toBe("--workspace needs a directory");
  });
});
