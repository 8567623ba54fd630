/**
 * More of handoff.ts on real repositories, with both legs of the task snapshotted: which refs an
 * export bundles per leg (and where it stages them), the exact hints of import's refusals, which
 * snapshot ref a check compares, the lock and temp files an import uses, and git's words on a
 * damaged bundle.
 */
import { existsSync, lstatSync, mkdirSync, readdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import { arielErrorOf } from "../../_fixture.ts";
import type { Ports } from "../../ports.ts";
import type { TaskRecord } from "../../schema/task.ts";
import { commitAll, gitRaw, initRepo, removeDir, tempDir, writeFile } from "../_fixture.ts";
import { faultyPorts, git, gitPicture, recordingPorts } from "./_fixture.ts";
import { addTask } from "./add.ts";
import { exportTask, importTask } from "./handoff.ts";
import { removeTask } from "./remove.ts";

const MAGIC = "ariel-task-export 1\n";
const BRANCH = "refs/heads/ariel/t1";
const SNAP_API = "refs/ariel/snapshots/t1/api";
const SNAP_WEB = "refs/ariel/snapshots/t1/web";
const HINT = "make it with ariel-worktree export --task T -o FILE";

const ports = (): Ports => faultyPorts();
const leg = (root: string, source: string) => join(root, ".ariel/worktrees/t1", source);

/** Upstreams `up/<s>`; workspaces `a` and `b` holding a clone of each. */
function pair(dir: string): { a: string; b: string } {
  for (const s of ["api", "web"]) {
    initRepo(join(dir, "up", s), { "README.md": `# ${s}\n`, ".gitignore": ".env\n" });
    for (const w of ["a", "b"]) git(dir, "clone", "-q", join(dir, "up", s), join(dir, w, s));
  }
  return { a: join(dir, "a"), b: join(dir, "b") };
}

interface Made {
  apiTip: string;
  webTip: string;
  apiSnap: string;
  webSnap: string;
}

/** Task t1 over api and web in `a`: a commit and an uncommitted edit in each, removed with --snapshot. */
async function made(a: string): Promise<Made> {
  await addTask(ports(), { root: a, taskId: "t1", sources: ["api", "web"] });
  const tips: string[] = [];
  for (const s of ["api", "web"]) {
    writeFile(join(leg(a, s), `${s}.txt`), `${s} committed\n`);
    tips.push(commitAll(leg(a, s), `${s} work`));
    writeFile(join(leg(a, s), "README.md"), `${s} edited\n`);
  }
  await removeTask(ports(), { root: a, taskId: "t1", snapshot: true });
  return {
    apiTip: tips[0]!,
    webTip: tips[1]!,
    apiSnap: git(join(a, "api"), "rev-parse", SNAP_API),
    webSnap: git(join(a, "web"), "rev-parse", SNAP_WEB),
  };
}

interface Header {
  v: number;
  type: string;
  task: string;
  record: TaskRecord;
  bundles: { source: string; bytes: number; refs: string[] }[];
}

function readExport(file: string): { header: Header; bundles: Buffer[] } {
  const data = readFileSync(file);
  const nl = data.indexOf(10, MAGIC.length);
  const header = JSON.parse(data.subarray(MAGIC.length, nl).toString("utf8")) as Header;
  const bundles: Buffer[] = [];
  let at = nl + 1;
  for (const b of header.bundles) {
    bundles.push(data.subarray(at, at + b.bytes));
    at += b.bytes;
  }
  return { header, bundles };
}

function writeExport(file: string, header: Header, bundles: Buffer[]): void {
  bundles.forEach((b, i) => {
    header.bundles[i]!.bytes = b.length;
  });
  writeFileSync(file, Buffer.concat([Buffer.from(`${MAGIC}${JSON.stringify(header)}\n`), ...bundles]));
}

let tmpl: { dir: string; a: string; b: string; out: string; made: Made };
/** The template's directory, removed after all even when the set-up failed half-way. */
let tmplDir = "";
beforeAll(async () => {
  const dir = tempDir("ariel-handoff-more-tmpl-");
  tmplDir = dir;
  const { a, b } = pair(dir);
  const m = await made(a);
  const out = join(dir, "t1.ariel");
  await exportTask(ports(), { root: a, taskId: "t1", file: out });
  tmpl = { dir, a, b, out, made: m };
});
afterAll(() => {
  if (tmplDir !== "") removeDir(tmplDir);
});

let base = "";
const savedTmp = process.env.TMPDIR;
afterEach(() => {
  if (savedTmp === undefined) delete process.env.TMPDIR;
  else process.env.TMPDIR = savedTmp;
  if (base !== "") removeDir(base);
  base = "";
});

/** This test's copy of `b`, of the export file, and an empty TMPDIR. */
function fresh(): { b: string; out: string; tmp: string } {
  base = tempDir("ariel-handoff-more-");
  const b = join(base, "b");
  git(base, "clone", "-q", join(tmpl.dir, "up/api"), join(b, "api"));
  git(base, "clone", "-q", join(tmpl.dir, "up/web"), join(b, "web"));
  const out = join(base, "t1.ariel");
  writeFileSync(out, readFileSync(tmpl.out));
  const tmp = join(base, "tmp");
  mkdirSync(tmp);
  process.env.TMPDIR = tmp;
  return { b, out, tmp };
}

/** The path of the single temp directory `paths` share, checked to be `<tmp>/<prefix>XXXXXX`. */
function stagedIn(tmp: string, prefix: string, paths: string[]): string {
  const dir = paths[0]!.slice(0, paths[0]!.lastIndexOf("/"));
  expect(dir).toMatch(new RegExp(`^${tmp}/${prefix}[A-Za-z0-9]{6}$`));
  return dir;
}

/** `git bundle list-heads` of a bundle's bytes. */
function heads(bundle: Buffer): string {
  const path = join(base, "heads.bundle");
  writeFileSync(path, bundle);
  try {
    return git(base, "bundle", "list-heads", path);
  } finally {
    rmSync(path);
  }
}

describe("exportTask: each leg's bundle holds its branch and only that leg's snapshot refs", () => {
  it("another leg's snapshot ref and an artifact of another kind stay out, even where the repository has them; staged in TMPDIR/ariel-export-*, removed after", async () => {
    const { tmp } = fresh();
    const { a, made: m } = tmpl;
    const api = join(a, "api");
    const recordPath = join(a, ".ariel/tasks/t1.json");
    const saved = readFileSync(recordPath, "utf8");
    const record = JSON.parse(saved) as TaskRecord;
    record.artifacts.push({ kind: "note", ref: "refs/ariel/snapshots/t1/note", source: "api" });
    writeFileSync(recordPath, `${JSON.stringify(record)}\n`);
    git(api, "update-ref", SNAP_WEB, m.apiTip);
    git(api, "update-ref", "refs/ariel/snapshots/t1/note", m.apiTip);
    const p = recordingPorts();
    const out = join(base, "x.ariel");
    try {
      const r = await exportTask(p, { root: a, taskId: "t1", file: out });
      expect(r.refs).toEqual([BRANCH, SNAP_API, BRANCH, SNAP_WEB]);
      const bundleCalls = p.calls.filter((c) => c[0] === "bundle");
      const dir = stagedIn(
        tmp,
        "ariel-export-",
        bundleCalls.map((c) => c[3]!),
      );
      expect(bundleCalls).toEqual([
        ["bundle", "create", "--quiet", `${dir}/0.bundle`, BRANCH, SNAP_API],
        ["bundle", "create", "--quiet", `${dir}/1.bundle`, BRANCH, SNAP_WEB],
      ]);
      expect(readdirSync(tmp)).toEqual([]);
      const { header, bundles } = readExport(out);
      expect(header.bundles.map((b) => [b.source, b.refs])).toEqual([
        ["api", [BRANCH, SNAP_API]],
        ["web", [BRANCH, SNAP_WEB]],
      ]);
      expect(heads(bundles[0]!)).toBe(`${m.apiTip} ${BRANCH}\n${m.apiSnap} ${SNAP_API}`);
      expect(heads(bundles[1]!)).toBe(`${m.webTip} ${BRANCH}\n${m.webSnap} ${SNAP_WEB}`);
    } finally {
      writeFileSync(recordPath, saved);
      git(api, "update-ref", "-d", SNAP_WEB);
      git(api, "update-ref", "-d", "refs/ariel/snapshots/t1/note");
    }
  });
});

describe("importTask: both legs snapshotted", () => {
  it("a dry run marks both legs snapshotted", async () => {
    const { b, out } = fresh();
    const r = await importTask(ports(), { root: b, file: out, dryRun: true });
    expect(r.record.legs.map((l) => [l.source, l.state])).toEqual([
      ["api", "snapshotted"],
      ["web", "snapshotted"],
    ]);
    expect(r.restored).toBeNull();
  });

  it("a dry run of a record whose second leg has no snapshot artifact: that leg is removed, not snapshotted", async () => {
    const { b, out } = fresh();
    const { header, bundles } = readExport(out);
    header.record.artifacts = header.record.artifacts.filter((x) => x.source !== "web");
    header.bundles[1]!.refs = [BRANCH];
    writeExport(out, header, bundles);
    const r = await importTask(ports(), { root: b, file: out, dryRun: true });
    expect(r.record.legs.map((l) => [l.source, l.state])).toEqual([
      ["api", "snapshotted"],
      ["web", "removed"],
    ]);
  });

  it("stages bundles in TMPDIR/ariel-import-* (removed after), fetches under each repository's lock (purpose `import t1`)", async () => {
    const { b, out, tmp } = fresh();
    const inner = recordingPorts();
    const locks: string[] = [];
    const p: Ports = {
      ...inner,
      git: {
        run: (args, options) => {
          if (args[0] === "fetch") {
            const source = options?.cwd === join(b, "api") ? "api" : "web";
            const lock = JSON.parse(readFileSync(join(b, source, ".git/ariel-worktree.lock"), "utf8"));
            locks.push(`${source} ${lock.purpose}`);
          }
          return inner.git.run(args, options);
        },
      },
    };
    const r = await importTask(p, { root: b, file: out });
    expect(r.record.legs.map((l) => l.state)).toEqual(["active", "active"]);
    const verify = inner.calls.filter((c) => c[0] === "bundle");
    const dir = stagedIn(
      tmp,
      "ariel-import-",
      verify.map((c) => c[3]!),
    );
    const fetchArgs = ["fetch", "--quiet", "--no-tags", "--no-write-fetch-head"];
    expect(inner.calls.filter((c) => c[0] === "bundle" || c[0] === "fetch")).toEqual([
      ["bundle", "verify", "--quiet", `${dir}/0.bundle`],
      [...fetchArgs, `${dir}/0.bundle`, BRANCH, SNAP_API],
      ["bundle", "verify", "--quiet", `${dir}/1.bundle`],
      [...fetchArgs, `${dir}/1.bundle`, BRANCH, SNAP_WEB],
      [...fetchArgs, `${dir}/0.bundle`, `${BRANCH}:${BRANCH}`, `${SNAP_API}:${SNAP_API}`],
      [...fetchArgs, `${dir}/1.bundle`, `${BRANCH}:${BRANCH}`, `${SNAP_WEB}:${SNAP_WEB}`],
    ]);
    expect(locks).toEqual(["api import t1", "web import t1", "api import t1", "web import t1"]);
    expect(readdirSync(tmp)).toEqual([]);
    expect(existsSync(join(b, "api/.git/ariel-worktree.lock"))).toBe(false);
  });

  it("the second leg's snapshot ref already in b at its own commit is no conflict (compared with that ref's artifact, not the first)", async () => {
    const { b, out } = fresh();
    git(join(b, "web"), "fetch", "-q", join(tmpl.a, "web"), `${SNAP_WEB}:${SNAP_WEB}`);
    const r = await importTask(ports(), { root: b, file: out });
    expect(r.record.legs.map((l) => l.state)).toEqual(["active", "active"]);
    expect(git(join(b, "web"), "rev-parse", SNAP_WEB, BRANCH)).toBe(
      `${tmpl.made.webSnap}\n${tmpl.made.webTip}`,
    );
  });

  it("a header not listing a leg's branch: that branch is not fetched, and restore finds it gone", async () => {
    const { b, out } = fresh();
    const { header, bundles } = readExport(out);
    header.bundles[1]!.refs = [SNAP_WEB];
    writeExport(out, header, bundles);
    const e = await arielErrorOf(importTask(ports(), { root: b, file: out }));
    expect([e.code, e.message]).toEqual(["ERR_NOINPUT", "branch ariel/t1 of web is gone; cannot restore"]);
    expect(git(join(b, "web"), "for-each-ref", "--format=%(refname)", "refs/heads/ariel", "refs/ariel")).toBe(
      SNAP_WEB,
    );
  });

  it("a damaged second bundle: ERR_GIT naming git's whole first line of complaint", async () => {
    const { b, out } = fresh();
    const { header, bundles } = readExport(out);
    const bundle = Buffer.from(bundles[1]!);
    const pack = bundle.indexOf("PACK");
    const at = pack + Math.floor((bundle.length - 20 - pack) / 2);
    bundle[at] = bundle[at]! ^ 0xff;
    bundles[1] = bundle;
    writeExport(out, header, bundles);
    // What git says fetching that bundle into a clone of web.
    const path = join(base, "damaged.bundle");
    writeFileSync(path, bundle);
    git(base, "clone", "-q", join(tmpl.dir, "up/web"), join(base, "probe"));
    const said = gitRawIn(join(base, "probe"), ["fetch", "--quiet", "--no-tags", path, BRANCH, SNAP_WEB]);
    const first = said.trim().split("\n")[0]!;
    expect(first.length).toBeGreaterThan(10);
    const before = { api: gitPicture(join(b, "api")), web: gitPicture(join(b, "web")) };
    const e = await arielErrorOf(importTask(ports(), { root: b, file: out }));
    expect([e.code, e.message]).toEqual(["ERR_GIT", `git fetch from the bundle failed: ${first}`]);
    expect({ api: gitPicture(join(b, "api")), web: gitPicture(join(b, "web")) }).toEqual(before);
  });
});

/** Workspace `b` as git and the disk see it: each source's worktrees and refs, and what is under .ariel. */
function picture(b: string) {
  const under = (dir: string): string[] =>
    existsSync(dir)
      ? readdirSync(dir, { recursive: true, encoding: "utf8" })
          .sort()
          .map((f) => (lstatSync(join(dir, f)).isFile() ? `${f} ${readFileSync(join(dir, f), "latin1")}` : f))
      : [];
  return {
    api: gitPicture(join(b, "api")),
    web: gitPicture(join(b, "web")),
    ariel: under(join(b, ".ariel")),
  };
}

/** Import of `out` into `b` refused: the error's code, exit, message, hint and context; `b` unchanged. */
async function refused(b: string, out: string): Promise<unknown[]> {
  const before = picture(b);
  const e = await arielErrorOf(importTask(ports(), { root: b, file: out }));
  expect(picture(b)).toEqual(before);
  return [e.code, e.exit, e.message, e.hint, e.context];
}

describe("importTask refusals: exact errors and hints, nothing changed", () => {
  it("a header that is JSON null: ERR_INVALID_INPUT (65) with the export hint", async () => {
    const { b, out } = fresh();
    writeFileSync(out, `${MAGIC}null\n`);
    expect(await refused(b, out)).toEqual([
      "ERR_INVALID_INPUT",
      65,
      `${out}: not an ariel task export: bad header`,
      HINT,
      { file: out },
    ]);
  });

  it("a leg directory `.`: ERR_PATH_ESCAPE (77) naming the leg's source", async () => {
    const { b, out } = fresh();
    const { header, bundles } = readExport(out);
    header.record.legs[1]!.worktreePath = "/x/t1/.";
    writeExport(out, header, bundles);
    expect(await refused(b, out)).toEqual([
      "ERR_PATH_ESCAPE",
      77,
      'leg directory "." would leave the worktree root',
      "paths must stay inside the workspace root",
      { source: "web" },
    ]);
  });

  it("the task already in b: ERR_TASK_CONFLICT (3) with its hint", async () => {
    const { b, out } = fresh();
    await importTask(ports(), { root: b, file: out });
    expect(await refused(b, out)).toEqual([
      "ERR_TASK_CONFLICT",
      3,
      `task "t1" exists in ${b} already`,
      "remove it first, or import into another workspace (-C ROOT); nothing was changed",
      { task: "t1" },
    ]);
  });

  it("a source of b cloned from another repository: ERR_FINGERPRINT (3) with its hint", async () => {
    const { b, out } = fresh();
    git(join(b, "api"), "remote", "set-url", "origin", "https://example.com/other.git");
    expect(await refused(b, out)).toEqual([
      "ERR_FINGERPRINT",
      3,
      `source "api" in ${b} is another repository (its remote or default branch differ)`,
      "import into a workspace holding a clone of the same repository; nothing was changed",
      { source: "api" },
    ]);
  });

  it("the leg's branch in b at another commit: ERR_TASK_CONFLICT (3) with its hint", async () => {
    const { b, out } = fresh();
    git(join(b, "api"), "branch", "ariel/t1");
    expect(await refused(b, out)).toEqual([
      "ERR_TASK_CONFLICT",
      3,
      `branch ariel/t1 exists in ${join(b, "api")} at another commit`,
      "rename or delete that branch first; nothing was changed",
      { source: "api", branch: "ariel/t1" },
    ]);
  });

  it("the second leg's snapshot ref in b at the first leg's snapshot commit: ERR_TASK_CONFLICT (3) with its hint", async () => {
    const { b, out } = fresh();
    const web = join(b, "web");
    git(web, "fetch", "-q", join(tmpl.a, "api"), `${SNAP_API}:refs/probe`);
    git(web, "update-ref", SNAP_WEB, tmpl.made.apiSnap);
    git(web, "update-ref", "-d", "refs/probe");
    expect(await refused(b, out)).toEqual([
      "ERR_TASK_CONFLICT",
      3,
      `${SNAP_WEB} exists in ${web} at another commit`,
      "nothing was changed; delete that ref first if it is stale",
      { source: "web", ref: SNAP_WEB },
    ]);
  });
});

/** git's stderr running `args` in `cwd` (expected to fail). */
function gitRawIn(cwd: string, args: string[]): string {
  const r = gitRaw(cwd, ...args);
  expect(r.code).not.toBe(0);
  return r.stderr;
}
