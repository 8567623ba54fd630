/**
 * add --sparse: a cone-mode sparse checkout per leg, recorded; remove and verify treat the files
 * outside the cone as absent by design; restore makes it sparse again.
 */
import { existsSync } from "node:fs";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { initRepo, tempDir } from "./helpers/git.ts";
import { errors, git, legPath, records, removeDir, taskFile, writeFile, wt } from "./worktree-fixtures.ts";

let root = "";
afterEach(() => removeDir(root));

function workspace(): string {
  const r = tempDir("ariel-sparse-");
  initRepo(join(r, "api"), {
    "README.md": "# api\n",
    ".gitignore": ".ariel/\n",
    "packages/a/index.txt": "a\n",
    "packages/b/index.txt": "b\n",
    "docs/guide.txt": "g\n",
  });
  return r;
}

describe("ariel-worktree add --sparse", () => {
  it("checks out only the cone, records it, and verify and remove treat it as clean", async () => {
    root = workspace();
    const r = await wt(root, ["add", "--source", "api", "--task", "t1", "--sparse", "packages/a/", "--json"]);
    expect(r.code).toBe(0);
    const leg = legPath(root, "t1", "api");
    expect(existsSync(join(leg, "packages/a/index.txt"))).toBe(true);
    expect(existsSync(join(leg, "README.md"))).toBe(true);
    expect(existsSync(join(leg, "packages/b"))).toBe(false);
    expect(existsSync(join(leg, "docs"))).toBe(false);
    expect((taskFile(root, "t1").legs as { sparse?: string[] }[])[0]?.sparse).toEqual(["packages/a"]);
    expect(git(leg, "status", "--porcelain")).toBe("");
    const v = await wt(root, ["verify", "--task", "t1", "--json"]);
    expect(v.code).toBe(0);
    expect(records(v.stdout)[0]).toMatchObject({ ok: true, checks: { sparse: true } });
    // Changing the cone by hand is caught.
    git(leg, "sparse-checkout", "set", "--cone", "docs");
    const changed = await wt(root, ["verify", "--task", "t1", "--json"]);
    expect(changed.code).toBe(3);
    expect(records(changed.stdout)[0]).toMatchObject({ ok: false, code: "ERR_SPARSE_CHANGED" });
    git(leg, "sparse-checkout", "set", "--cone", "packages/a");
    // Files outside the cone are absent by design: remove does not take them for changes.
    expect((await wt(root, ["remove", "--task", "t1"])).code).toBe(0);
    expect(existsSync(leg)).toBe(false);
  });

  it("with --with-changes: every change carried, the files outside the cone skipped (not deleted), verify clean", async () => {
    root = workspace();
    const src = join(root, "api");
    writeFile(join(src, "packages/a/index.txt"), "edited\n");
    writeFile(join(src, "packages/a/new.txt"), "new\n");
    writeFile(join(src, "docs/guide.txt"), "edited outside the cone\n");
    const before = git(src, "status", "--porcelain");
    const r = await wt(root, [
      "add",
      "--source",
      "api",
      "--task",
      "t1",
      "--sparse",
      "packages/a",
      "--with-changes",
    ]);
    expect([r.code, r.stderr]).toEqual([0, "ariel-worktree: made task t1\n"]);
    const leg = legPath(root, "t1", "api");
    expect([git(leg, "status", "--porcelain"), git(src, "status", "--porcelain")]).toEqual([before, before]);
    expect(git(leg, "ls-files", "-v", "packages/b", "docs")).toBe("H docs/guide.txt\nS packages/b/index.txt");
    expect(existsSync(join(leg, "packages/b"))).toBe(false);
    const v = await wt(root, ["verify", "--task", "t1", "--json"]);
    expect([v.code, records(v.stdout)[0]]).toMatchObject([0, { ok: true, checks: { sparse: true } }]);
  });

  it("local work in a sparse leg is snapshotted and restored into a sparse checkout again", async () => {
    root = workspace();
    expect((await wt(root, ["add", "--source", "api", "--task", "t1", "--sparse", "packages/a"])).code).toBe(
      0,
    );
    const leg = legPath(root, "t1", "api");
    writeFile(join(leg, "packages/a/index.txt"), "edited\n");
    expect((await wt(root, ["remove", "--task", "t1", "--snapshot"])).code).toBe(0);
    expect((await wt(root, ["restore", "--task", "t1"])).code).toBe(0);
    expect(git(leg, "status", "--porcelain")).toBe("M packages/a/index.txt");
    expect(existsSync(join(leg, "packages/b"))).toBe(false);
    expect((await wt(root, ["verify", "--task", "t1"])).code).toBe(0);
  });

  it.each(["../x", "/abs", "a/../b", ""])(
    "refuses --sparse %j with ERR_USAGE (64), nothing made",
    async (p) => {
      root = workspace();
      const r = await wt(root, ["add", "--source", "api", "--task", "t1", "--sparse", p, "--json"]);
      expect(r.code).toBe(64);
      expect(errors(r.stderr)[0]).toMatchObject({ code: "ERR_USAGE" });
      expect(existsSync(join(root, ".ariel/tasks"))).toBe(false);
    },
  );
});
