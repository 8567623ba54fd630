/**
 * A leg's directory that appears between shareInto's look and its mkdir (an install started in
 * the leg meanwhile) is the leg's own: the share fails, and that directory and its files stay.
 * The race is made certain by a mkdirSync that makes the directory first.
 */
import * as fs from "node:fs";
import { mkdirSync, readFileSync, realpathSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, describe, expect, it, vi } from "vitest";

const race = vi.hoisted(() => ({ path: "" }));
vi.mock("node:fs", async (original) => {
  const real = await original<typeof fs>();
  const mkdir = ((path: fs.PathLike, options?: fs.MakeDirectoryOptions) => {
    if (race.path !== "" && String(path) === race.path) {
      real.mkdirSync(race.path);
      real.writeFileSync(join(race.path, "installing.js"), "the leg's own\n");
      race.path = "";
    }
    return real.mkdirSync(path, options);
  }) as typeof fs.mkdirSync;
  return { ...real, mkdirSync: mkdir, default: { ...real, mkdirSync: mkdir } };
});

const { shareInto } = await import("./share.ts");

let root = "";
afterEach(() => {
  race.path = "";
  rmSync(root, { recursive: true, force: true });
});

function sourceAndLeg(): { source: string; leg: string } {
  root = realpathSync(fs.mkdtempSync(join(tmpdir(), "ariel-share-race-")));
  const source = join(root, "api");
  const leg = join(root, "leg");
  for (const dir of [source, leg]) {
    mkdirSync(dir, { recursive: true });
    writeFileSync(join(dir, "package-lock.json"), '{"lockfileVersion":3}\n');
  }
  mkdirSync(join(source, "node_modules/pkg"), { recursive: true });
  writeFileSync(join(source, "node_modules/pkg/index.js"), "module.exports = 1;\n");
  return { source, leg };
}

describe("shareInto: the leg's directory appears while it shares", () => {
  it.each([
    ["tree mode", undefined],
    ["store mode", "store"],
  ])("%s: link-failed (EEXIST), the directory and its files kept", (_name, mode) => {
    const { source, leg } = sourceAndLeg();
    race.path = join(leg, "node_modules");
    const out = shareInto("api", source, leg, ["node_modules"], mode ? { root } : undefined);
    expect(out).toEqual([
      {
        share: false,
        reason: "link-failed",
        detail: "could not link (EEXIST): run the install in the worktree",
        name: "node_modules",
        source: "api",
      },
    ]);
    expect(race.path).toBe("");
    expect(readFileSync(join(leg, "node_modules/installing.js"), "utf8")).toBe("the leg's own\n");
  });
});
