import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { workspaceHash } from "../../hash.ts";
import { nodeFs } from "../fs.ts";
import { ensureWorkspaceState } from "./state_dir.ts";

const dirs: string[] = [];
afterEach(() => {
  for (const d of dirs.splice(0)) rmSync(d, { recursive: true, force: true });
});
const temp = () => {
  const d = mkdtempSync(join(tmpdir(), "ariel-state-dir-"));
  dirs.push(d);
  return d;
};

describe("ensureWorkspaceState", () => {
  it("makes .ariel/ and registers the workspace once", async () => {
    const root = temp();
    const home = temp();
    const hash = await workspaceHash(root);
    const ports = { fs: nodeFs, env: { ARIEL_STATE_HOME: home }, cwd: "/", clock: { now: () => 0 } };
    expect(await ensureWorkspaceState(ports, { root, hash })).toBe(join(root, ".ariel"));
    expect(existsSync(join(root, ".ariel"))).toBe(true);
    const entry = join(home, "workspaces", `${hash}.json`);
    expect(JSON.parse(readFileSync(entry, "utf8"))).toEqual({
      v: 1,
      root,
      hash,
      firstSeen: "1970-01-01T00:00:00.000Z",
    });
    await ensureWorkspaceState({ ...ports, clock: { now: () => 1e12 } }, { root, hash });
    expect(JSON.parse(readFileSync(entry, "utf8")).firstSeen).toBe("1970-01-01T00:00:00.000Z");
  });

  it("still makes .ariel/ when the registry cannot be written", async () => {
    const root = temp();
    const home = join(temp(), "state");
    writeFileSync(home, "a file where the state dir should be");
    const ports = { fs: nodeFs, env: { ARIEL_STATE_HOME: home }, cwd: "/", clock: { now: () => 0 } };
    const hash = await workspaceHash(root);
    expect(await ensureWorkspaceState(ports, { root, hash })).toBe(join(root, ".ariel"));
    expect(readdirSync(root)).toEqual([".ariel"]);
  });
});
