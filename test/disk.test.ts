/**
 * ariel-worktree du and the disk guard end to end: real repositories in temp dirs, the built CLI,
 * byte counts checked against an independent lstat walk.
 */
import { spawnSync } from "node:child_process";
import {
  chmodSync,
  existsSync,
  linkSync,
  lstatSync,
  readdirSync,
  readFileSync,
  statfsSync,
  symlinkSync,
} from "node:fs";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { type CliResult, runAriel } from "./helpers/cli.ts";
import { initRepo, tempDir } from "./helpers/git.ts";
import { errors, legPath, picture, records, removeDir, writeFile, wt } from "./worktree-fixtures.ts";

let root = "";
afterEach(() => {
  if (root) chmodSync(root, 0o755);
  removeDir(root);
});

/** Allocated bytes under `p` (lstat, links not followed), skipping inodes in `seen`. */
function allocated(p: string, seen = new Set<string>()): number {
  const st = lstatSync(p);
  let n = 0;
  const key = `${st.dev}:${st.ino}`;
  if (st.isDirectory() || st.nlink === 1 || !seen.has(key)) {
    if (!st.isDirectory() && st.nlink > 1) seen.add(key);
    n += st.blocks * 512;
  }
  if (st.isDirectory()) for (const name of readdirSync(p)) n += allocated(join(p, name), seen);
  return n;
}

function workspace(): string {
  const r = tempDir("ariel-disk-");
  initRepo(join(r, "api"), {
    "README.md": "# api\n",
    ".gitignore": "node_modules/\n.ariel/\n",
    "src/a.txt": "a\n".repeat(3000),
  });
  return r;
}

describe("ariel-worktree du", () => {
  it("splits each leg into checkout, untracked, ignored and admin, links counted once and never followed", async () => {
    root = workspace();
    expect((await wt(root, ["add", "--source", "api", "--task", "t1"])).code).toBe(0);
    expect((await wt(root, ["add", "--source", "api", "--task", "t2"])).code).toBe(0);
    const leg = legPath(root, "t1", "api");
    const leg2 = legPath(root, "t2", "api");
    writeFile(join(leg, "node_modules/pkg/index.js"), "x".repeat(20_000));
    linkSync(join(leg, "node_modules/pkg/index.js"), join(leg, "node_modules/pkg/copy.js"));
    writeFile(join(leg2, "node_modules/pkg/other.js"), "y".repeat(9000));
    // The same file in t2's tree: measured once, in t1 (walked first).
    linkSync(join(leg, "node_modules/pkg/index.js"), join(leg2, "node_modules/pkg/index.js"));
    writeFile(join(leg, "notes/new.txt"), "n".repeat(5000));
    symlinkSync(".", join(leg, "loop"));
    symlinkSync("/", join(leg, "notes/out"));

    const r = await wt(root, ["du", "--json"]);
    expect(r.stderr).toBe("");
    expect(r.code).toBe(0);
    const recs = records(r.stdout);
    expect(recs.map((x) => `${x.type}:${x.task ?? ""}`)).toEqual([
      "du.leg:t1",
      "du.leg:t2",
      "du.task:t1",
      "du.task:t2",
      "du.workspace:",
    ]);
    const seen = new Set<string>();
    const ignored = allocated(join(leg, "node_modules"), seen);
    const untracked = allocated(join(leg, "notes"), seen) + allocated(join(leg, "loop"), seen);
    const admin1 = allocated(join(root, "api/.git/worktrees/api"), seen) + allocated(join(leg, ".git"), seen);
    const whole = allocated(leg, new Set());
    const checkout = whole - ignored - untracked - allocated(join(leg, ".git"));
    const l1 = recs[0]!;
    expect(l1).toEqual({
      v: 1,
      type: "du.leg",
      task: "t1",
      source: "api",
      path: leg,
      present: true,
      checkout,
      untracked,
      ignored,
      admin: admin1,
      total: checkout + untracked + ignored + admin1,
      hardlinked: lstatSync(join(leg, "node_modules/pkg/index.js")).blocks * 512,
    });
    const l2 = recs[1]!;
    expect(l2.ignored).toBe(allocated(join(leg2, "node_modules"), seen));
    expect(l2.ignored).toBe(
      allocated(join(leg2, "node_modules"), new Set()) -
        lstatSync(join(leg, "node_modules/pkg/index.js")).blocks * 512,
    );
    expect(l2.untracked).toBe(0);
    expect(recs[2]).toEqual({
      ...l1,
      type: "du.task",
      path: undefined,
      source: undefined,
      present: undefined,
    });
    const ws = recs[4]!;
    expect(ws.total).toBe((l1.total as number) + (l2.total as number));
    expect(ws.tasks).toBe(2);
    expect(ws.free).toBeGreaterThan(0);
    expect(ws.fsSize).toBeGreaterThanOrEqual(ws.free as number);
    expect(ws.fsPath).toBe(join(root, ".ariel/worktrees"));
  });

  it("--task measures one task; the human table ends with the workspace total and free space", async () => {
    root = workspace();
    expect((await wt(root, ["add", "--source", "api", "--task", "t1"])).code).toBe(0);
    const json = records((await wt(root, ["du", "--json", "--task", "t1"])).stdout);
    const r = await wt(root, ["du", "--task", "t1"]);
    expect(r.code).toBe(0);
    const l = json[0]!;
    expect(r.stdout).toBe(
      `t1\tapi\t${l.checkout}\t${l.untracked}\t${l.ignored}\t${l.admin}\t${l.total}\t${l.hardlinked}\t${legPath(root, "t1", "api")}\n` +
        `(all)\t1 task\t${l.checkout}\t${l.untracked}\t${l.ignored}\t${l.admin}\t${l.total}\t${l.hardlinked}\t\n`,
    );
    expect(r.stderr).toMatch(/^ariel-worktree: \d+ free of \d+ on .*\/\.ariel\/worktrees\n$/);
  });

  it("an unknown task is ERR_TASK_NOT_FOUND (66)", async () => {
    root = workspace();
    const r = await wt(root, ["du", "--task", "nope", "--json"]);
    expect(r.code).toBe(66);
    expect(r.stdout).toBe("");
    expect(errors(r.stderr)[0]).toMatchObject({ code: "ERR_TASK_NOT_FOUND" });
  });

  it("a leg whose worktree is gone is reported absent, all zeros", async () => {
    root = workspace();
    expect((await wt(root, ["add", "--source", "api", "--task", "t1"])).code).toBe(0);
    removeDir(legPath(root, "t1", "api"));
    const [leg] = records((await wt(root, ["du", "--json"])).stdout);
    expect(leg).toMatchObject({ present: false, checkout: 0, untracked: 0, ignored: 0, admin: 0, total: 0 });
  });

  it("the parallel walk through GNU find and the walk without it give the same bytes, as du -s -B1 does", async () => {
    root = workspace();
    expect((await wt(root, ["add", "--source", "api", "--task", "t1"])).code).toBe(0);
    const leg = legPath(root, "t1", "api");
    // 300 packages: more directories at one level than du lists itself, so find processes walk them.
    for (let i = 0; i < 300; i++) {
      writeFile(join(leg, `node_modules/p${i}/index.js`), "m".repeat(500 + 37 * i));
      writeFile(join(leg, `node_modules/p${i}/lib/a.js`), "l".repeat(4100));
    }
    for (let i = 0; i < 40; i++) writeFile(join(leg, `src/gen${i}/out.js`), "g".repeat(1000 * i));
    writeFile(join(leg, ".gitignore"), "node_modules/\n.ariel/\nsrc/gen*/\n");
    writeFile(join(leg, "src/new.txt"), "n".repeat(6000));
    writeFile(join(leg, "notes/todo.md"), "t".repeat(3000));
    linkSync(join(leg, "node_modules/p0/index.js"), join(leg, "node_modules/p299/same.js"));
    symlinkSync("..", join(leg, "node_modules/p5/up"));
    const admin = join(root, "api/.git/worktrees/api");
    const bin = join(root, "bin");
    writeFile(join(bin, "keep"), "");
    const which = (name: string) =>
      spawnSync("sh", ["-c", `command -v ${name}`], { encoding: "utf8" }).stdout.trim();
    const gitExe = which("git");
    // GNU find, through a wrapper that logs each run.
    const logged = join(root, "logged");
    writeFile(
      join(logged, "find"),
      `#!/bin/sh\necho run >> '${join(root, "find.log")}'\nexec '${which("find")}' "$@"\n`,
    );
    chmodSync(join(logged, "find"), 0o755);
    const runs = {
      find: await wt(root, ["du", "--json"], { env: { PATH: `${logged}:${process.env.PATH}` } }),
      // No find on PATH (git named by ARIEL_GIT): the walk happens in this process.
      noFind: await wt(root, ["du", "--json"], { env: { PATH: bin, ARIEL_GIT: gitExe } }),
    };
    writeFile(join(bin, "find"), "#!/bin/sh\necho not-gnu-find\n");
    chmodSync(join(bin, "find"), 0o755);
    const badFind = await wt(root, ["du", "--json"], { env: { PATH: bin, ARIEL_GIT: gitExe } });
    expect(readFileSync(join(root, "find.log"), "utf8")).toMatch(/^run\n(run\n)*$/);
    for (const r of [runs.find, runs.noFind, badFind]) {
      expect(r.stderr).toBe("");
      expect(r.code).toBe(0);
    }
    // Every record the same, but the free space (other work writes to the disk meanwhile).
    const measured = (r: CliResult) => records(r.stdout).map(({ free: _free, ...rest }) => rest);
    const [leg1] = measured(runs.find);
    expect(measured(runs.noFind)).toEqual(measured(runs.find));
    expect(measured(badFind)).toEqual(measured(runs.find));
    const duB1 = (...paths: string[]) =>
      Number(
        spawnSync("du", ["-s", "-B1", "-c", ...paths], { encoding: "utf8" })
          .stdout.trim()
          .split("\n")
          .pop()!
          .split("\t")[0],
      );
    const gens = Array.from({ length: 40 }, (_, i) => join(leg, `src/gen${i}`));
    expect(leg1).toMatchObject({
      total: duB1(leg, admin),
      ignored: duB1(join(leg, "node_modules"), ...gens),
      untracked: duB1(join(leg, "src/new.txt"), join(leg, "notes")),
      admin: duB1(admin, join(leg, ".git")),
      hardlinked: lstatSync(join(leg, "node_modules/p0/index.js")).blocks * 512,
    });
    expect(leg1!.checkout).toBe(
      duB1(leg) - (leg1!.ignored as number) - (leg1!.untracked as number) - duB1(join(leg, ".git")),
    );
  });

  it.skipIf(process.getuid?.() === 0)(
    "an unreadable directory: finishes, warns WARN_DU_UNREADABLE, exits 1",
    async () => {
      root = workspace();
      expect((await wt(root, ["add", "--source", "api", "--task", "t1"])).code).toBe(0);
      const dir = join(legPath(root, "t1", "api"), "secret");
      writeFile(join(dir, "x"), "x");
      chmodSync(dir, 0);
      try {
        const r = await wt(root, ["du", "--json"]);
        expect(r.code).toBe(1);
        expect(records(r.stderr)).toContainEqual(
          expect.objectContaining({ type: "warning", code: "WARN_DU_UNREADABLE", path: dir }),
        );
        expect(records(r.stdout).map((x) => x.type)).toEqual(["du.leg", "du.task", "du.workspace"]);
      } finally {
        chmodSync(dir, 0o755);
      }
    },
  );
});

describe("disk guard: --min-free / config minFreeBytes", () => {
  const HUGE = "1024T";
  it.each([
    ["--min-free", () => ["add", "--source", "api", "--task", "t1", "--min-free", HUGE, "--json"], null],
    [
      "config minFreeBytes",
      () => ["add", "--source", "api", "--task", "t1", "--json"],
      { minFreeBytes: 1024 ** 5 },
    ],
    [
      "a dry run too",
      () => ["add", "-n", "--source", "api", "--task", "t1", "--min-free", HUGE, "--json"],
      null,
    ],
  ])("add refuses with ERR_DISK_LOW (75) and changes nothing: %s", async (_n, argv, config) => {
    root = workspace();
    if (config) writeFile(join(root, "ariel.config.json"), JSON.stringify(config));
    const before = picture(root);
    const r = await wt(root, argv());
    expect(r.code).toBe(75);
    expect(r.stdout).toBe("");
    const [err] = errors(r.stderr);
    expect(err).toMatchObject({
      code: "ERR_DISK_LOW",
      exit: 75,
      message: expect.stringMatching(/^add: only \S+ \S+ free on .*, under the floor of 1 PiB$/),
      hint: expect.stringContaining("ariel-worktree gc -n"),
      minFreeBytes: 1024 ** 5,
      free: expect.any(Number),
    });
    expect(picture(root)).toEqual(before);
  });

  // A floor under the disk's size but over its free space: compared with the free space, not
  // the size (a 1 PiB floor is over both and cannot tell them apart).
  it.each([
    ["add", () => ["worktree", ["add", "--source", "api", "--task", "t1"]], /^add: only/],
    ["spawn", () => ["spawn", ["-C", root, "--source", "api"]], /^spawn: only/],
    ["spawn --detach", () => ["spawn", ["-C", root, "--source", "api", "--detach"]], /^spawn --detach: only/],
  ] as const)("%s refuses a floor between the free space and the disk's size", async (_n, cmd, message) => {
    root = workspace();
    const fs = statfsSync(root);
    const [free, size] = [fs.bavail * fs.bsize, fs.blocks * fs.bsize];
    expect(size - free).toBeGreaterThan(2 * 1024 ** 2); // room for a floor well clear of both
    const floor = Math.round((free + size) / 2);
    const before = picture(root);
    const [cli, argv] = cmd() as [string, string[]];
    const tail = [
      "--min-free",
      String(floor),
      "--json",
      "--",
      process.execPath,
      "-e",
      "require('fs').writeFileSync('ran','x')",
    ];
    const r =
      cli === "worktree"
        ? await wt(root, [...argv, "--min-free", String(floor), "--json"])
        : await runAriel("spawn", [...argv, ...tail], { cwd: root });
    expect([r.code, r.stdout]).toEqual([75, ""]);
    expect(errors(r.stderr)[0]).toMatchObject({
      code: "ERR_DISK_LOW",
      message: expect.stringMatching(message),
      minFreeBytes: floor,
    });
    expect(existsSync(join(root, "api/ran"))).toBe(false);
    expect(picture(root)).toEqual(before);
  });

  it("--min-free 0 lifts the config's floor; a small floor lets add through", async () => {
    root = workspace();
    writeFile(join(root, "ariel.config.json"), JSON.stringify({ minFreeBytes: 1024 ** 5 }));
    expect((await wt(root, ["add", "--source", "api", "--task", "t1", "--min-free", "0"])).code).toBe(0);
    expect((await wt(root, ["add", "--source", "api", "--task", "t2", "--min-free", "1K"])).code).toBe(0);
  });

  it("a bad size is ERR_USAGE (64)", async () => {
    root = workspace();
    const r = await wt(root, ["add", "--source", "api", "--task", "t1", "--min-free", "lots", "--json"]);
    expect(r.code).toBe(64);
    expect(errors(r.stderr)[0]).toMatchObject({
      code: "ERR_USAGE",
      message: '--min-free: not a size: "lots"',
    });
  });

  it.each([[[]], [["--isolate"]]])("spawn %j refuses before starting anything", async (extra) => {
    root = workspace();
    const before = picture(root);
    const r = await runAriel(
      "spawn",
      [
        "-C",
        root,
        "--source",
        "api",
        ...extra,
        "--min-free",
        HUGE,
        "--json",
        "--",
        process.execPath,
        "-e",
        "require('fs').writeFileSync('ran','x')",
      ],
      { cwd: root },
    );
    expect(r.code).toBe(75);
    expect(r.stdout).toBe("");
    expect(errors(r.stderr)[0]).toMatchObject({
      code: "ERR_DISK_LOW",
      message: expect.stringMatching(extra.length ? /^spawn --isolate: only/ : /^spawn: only/),
    });
    expect(existsSync(join(root, "api/ran"))).toBe(false);
    expect(picture(root)).toEqual(before);
  });
});

describe("ariel-worktree list with disk usage", () => {
  it("gives each row its leg's allocated bytes and its task's total", async () => {
    root = workspace();
    initRepo(join(root, "web"), { "README.md": "# web\n" });
    expect((await wt(root, ["add", "--source", "api", "--source", "web", "--task", "t1"])).code).toBe(0);
    writeFile(join(legPath(root, "t1", "web"), "big.bin"), "z".repeat(50_000));
    const rows = records((await wt(root, ["list", "--json"])).stdout);
    const expected = rows.map((r) => allocated(r.path as string));
    expect(rows.map((r) => r.bytes)).toEqual(expected);
    expect(rows.map((r) => r.taskBytes)).toEqual([expected[0]! + expected[1]!, expected[0]! + expected[1]!]);
  });
});
