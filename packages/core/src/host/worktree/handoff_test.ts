/**
 * handoff.ts (`ariel-worktree export` / `import`, docs/disk.md "Handoff") on real repositories:
 * two workspaces holding clones of the same upstreams. What the file holds (magic line, header,
 * one full-history bundle per leg with exactly its branch and snapshot refs); what an import
 * brings back (commits, every kind of snapshotted local work, reflog-only commits, per-worktree
 * refs, this machine's overlay) and the exact record it writes; the refs it never fetches; and
 * every refusal (a malformed file, path escapes, another repository, a task, branch or snapshot
 * ref already there) with the target's git and file state compared before and after.
 */
import { createHash } from "node:crypto";
import {
  chmodSync,
  copyFileSync,
  cpSync,
  existsSync,
  lstatSync,
  readdirSync,
  readFileSync,
  readlinkSync,
  renameSync,
  rmSync,
  symlinkSync,
  writeFileSync,
} from "node:fs";
import { join } from "node:path";
import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import { arielErrorOf } from "../../_fixture.ts";
import type { Ports } from "../../ports.ts";
import type { TaskRecord } from "../../schema/task.ts";
import type { Fault, FaultyFs } from "../../testing/faulty_fs.ts";
import { commitAll, gitRaw, initRepo, removeDir, tempDir, writeFile } from "../_fixture.ts";
import { faultyPorts, git, gitPicture } from "./_fixture.ts";
import { addTask } from "./add.ts";
import { exportTask, importTask } from "./handoff.ts";
import { removeTask } from "./remove.ts";
import { restoreTask } from "./restore.ts";
import { verifyTask } from "./verify.ts";
import { openWorkspace } from "./workspace.ts";

/** This test's own directory (a copy of the template's `b`, the export file, scratch files). */
let base = "";
afterEach(() => {
  if (base !== "") removeDir(base);
  base = "";
});

const MAGIC = "ariel-task-export 1\n";
const NOW = 1_800_000_000_000;
const NOW_ISO = new Date(NOW).toISOString();
const BRANCH = "refs/heads/ariel/t1";
const SNAP = "refs/ariel/snapshots/t1/api";

/** Host ports (fault-injecting fs, ARIEL_OWNER=tester) with a fixed clock. */
const ports = (faults: Fault[] = []): Ports => ({ ...faultyPorts(faults), clock: { now: () => NOW } });

const sha256 = (text: string) => createHash("sha256").update(text).digest("hex");

/**
 * `dir/up/<s>` an upstream per source; workspaces `a` and `b` each hold a clone of every one,
 * with their own overlay `.env` (SECRET=a, SECRET=b). The export file is `dir/t1.ariel`.
 */
function pair(
  dir: string,
  sources: readonly string[] = ["api", "web"],
): { a: string; b: string; out: string } {
  for (const s of sources) {
    initRepo(join(dir, "up", s), {
      "README.md": `# ${s}\n`,
      ".gitignore": ".env\n",
      "src/a.txt": "a\n",
      "src/gone.txt": "gone\n",
      "run.sh": "echo run\n",
    });
    for (const w of ["a", "b"]) {
      git(dir, "clone", "-q", join(dir, "up", s), join(dir, w, s));
      writeFile(join(dir, w, s, ".env"), `SECRET=${w}\n`);
    }
  }
  return { a: join(dir, "a"), b: join(dir, "b"), out: join(dir, "t1.ariel") };
}

const leg = (root: string, source: string) => join(root, ".ariel/worktrees/t1", source);
const recordText = (root: string) => readFileSync(join(root, ".ariel/tasks/t1.json"), "utf8");
const recordOf = (root: string) => JSON.parse(recordText(root)) as TaskRecord;

/**
 * Everything under `dir`: links as `-> target`, files as `<mode> content`, directories as
 * `<dir>` (a `.git` directory as `<git dir>`, not entered); {} when absent.
 */
function files(dir: string, rel = ""): Record<string, string> {
  const out: Record<string, string> = {};
  if (!existsSync(join(dir, rel))) return out;
  for (const name of readdirSync(join(dir, rel)).sort()) {
    const r = rel === "" ? name : `${rel}/${name}`;
    const p = join(dir, r);
    const st = lstatSync(p);
    if (st.isSymbolicLink()) out[r] = `-> ${readlinkSync(p)}`;
    else if (st.isDirectory()) {
      out[r] = name === ".git" ? "<git dir>" : "<dir>";
      if (name !== ".git") Object.assign(out, files(dir, r));
    } else out[r] = `${(st.mode & 0o777).toString(8)} ${readFileSync(p, "utf8")}`;
  }
  return out;
}

/** Workspace `b` as a whole: each source's worktrees and refs, and every file outside the sources' .git. */
function picture(b: string, sources: readonly string[] = ["api", "web"]) {
  return {
    git: Object.fromEntries(sources.map((s) => [s, gitPicture(join(b, s))])),
    files: files(b),
  };
}

/** An export's header, as a test reads and tampers with it. */
interface Header {
  v: number;
  type: string;
  task: string;
  record: TaskRecord;
  bundles: { source: string; bytes: number; refs: string[] }[];
}

/** The header of export `file` and its bundles. */
function readExport(file: string): { header: Header; bundles: Buffer[]; headLen: number } {
  const data = readFileSync(file);
  const nl = data.indexOf(10, MAGIC.length);
  const header = JSON.parse(data.subarray(MAGIC.length, nl).toString("utf8"));
  const bundles: Buffer[] = [];
  let at = nl + 1;
  for (const b of header.bundles) {
    bundles.push(data.subarray(at, at + b.bytes));
    at += b.bytes;
  }
  return { header, bundles, headLen: nl + 1 };
}

/** Write an export file from a header and bundles (each entry's `bytes` set to its bundle's length). */
function writeExport(file: string, header: Header, bundles: Buffer[]): void {
  bundles.forEach((b, i) => {
    header.bundles[i]!.bytes = b.length;
  });
  writeFileSync(file, Buffer.concat([Buffer.from(`${MAGIC}${JSON.stringify(header)}\n`), ...bundles]));
}

/** `git bundle list-heads` of a bundle's bytes, as `sha ref` lines. */
function heads(bundle: Buffer): string {
  const path = join(base, "heads.bundle");
  writeFileSync(path, bundle);
  try {
    return git(base, "bundle", "list-heads", path);
  } finally {
    rmSync(path);
  }
}

interface Made {
  /** The api leg's branch tip (one commit on the base). */
  tip: string;
  /** A commit only the api leg's HEAD reflog holds (committed, then reset away). */
  lost: string;
  /** A commit only the api leg's per-worktree ref refs/worktree/mark holds. */
  marked: string;
  snapshot: string;
  /** web's head: one commit on its base. */
  webHead: string;
}

/**
 * Task t1 in `a` over api and web, then `remove --snapshot`: api has a commit and every kind of
 * local work (a staged edit, an unstaged edit, a deletion, a mode change, a new symlink, an
 * untracked file in a new directory, a reflog-only commit and a per-worktree ref) and so is
 * snapshotted; web has one commit and no local work, and is removed.
 */
async function madeInA(a: string): Promise<Made> {
  await addTask(ports(), { root: a, taskId: "t1", sources: ["api", "web"] });
  const api = leg(a, "api");
  writeFile(join(api, "feature.txt"), "committed\n");
  const tip = commitAll(api, "feature");
  writeFile(join(api, "lost.txt"), "only in the reflog\n");
  const lost = commitAll(api, "lost");
  git(api, "reset", "-q", "--hard", tip);
  const marked = git(api, "commit-tree", "-p", tip, "-m", "marked", `${tip}^{tree}`);
  git(api, "update-ref", "refs/worktree/mark", marked);
  writeFile(join(api, "src/a.txt"), "staged\n");
  git(api, "add", "src/a.txt");
  writeFile(join(api, "README.md"), "edited\n");
  rmSync(join(api, "src/gone.txt"));
  chmodSync(join(api, "run.sh"), 0o755);
  symlinkSync("README.md", join(api, "link"));
  writeFile(join(api, "new dir/n.txt"), "untracked\n");
  writeFile(join(leg(a, "web"), "web.txt"), "web's commit\n");
  const webHead = commitAll(leg(a, "web"), "web work");
  const r = await removeTask(ports(), { root: a, taskId: "t1", snapshot: true });
  expect(r.results.map((x) => [x.source, x.outcome])).toEqual([
    ["api", "snapshotted"],
    ["web", "removed"],
  ]);
  const snapshot = git(join(a, "api"), "rev-parse", SNAP);
  return { tip, lost, marked, snapshot, webHead };
}

/**
 * Made once: workspace `a` with task t1 (madeInA) exported to `out`, and a clean `b`. Tests only
 * read `a` (or put back what they change); each imports into its own copy of `b` ({@link fresh}).
 * The clones' remotes name the template's upstreams, so a copy has the same fingerprints.
 */
let tmpl: { dir: string; a: string; b: string; out: string; made: Made };
beforeAll(async () => {
  const dir = tempDir("ariel-handoff-tmpl-");
  const { a, b, out } = pair(dir);
  const made = await madeInA(a);
  await exportTask(ports(), { root: a, taskId: "t1", file: out });
  tmpl = { dir, a, b, out, made };
});
afterAll(() => removeDir(tmpl.dir));

/** This test's copy of the template's `b` and of the export file. */
function fresh(): { a: string; b: string; out: string; made: Made } {
  base = tempDir("ariel-handoff-");
  const b = join(base, "b");
  cpSync(tmpl.b, b, { recursive: true });
  const out = join(base, "t1.ariel");
  copyFileSync(tmpl.out, out);
  return { a: tmpl.a, b, out, made: tmpl.made };
}

describe("exportTask", () => {
  it("writes the magic line, the record as header, and a full-history bundle per leg of its branch and snapshot refs; nothing in the workspace changes", async () => {
    const { a, made } = tmpl;
    base = tempDir("ariel-handoff-");
    const out = join(base, "out.ariel");
    const before = { git: picture(a).git, record: recordText(a) };
    const r = await exportTask(ports(), { root: a, taskId: "t1", file: out });

    const data = readFileSync(out);
    expect(data.subarray(0, MAGIC.length).toString("latin1")).toBe(MAGIC);
    const { header, bundles, headLen } = readExport(out);
    const record = JSON.parse(before.record);
    expect(header).toEqual({
      v: 1,
      type: "export",
      task: "t1",
      record,
      bundles: [
        { source: "api", bytes: bundles[0]!.length, refs: [BRANCH, SNAP] },
        { source: "web", bytes: bundles[1]!.length, refs: [BRANCH] },
      ],
    });
    expect(headLen + bundles[0]!.length + bundles[1]!.length).toBe(data.length);
    expect(r).toEqual({ record, bytes: data.length, refs: [BRANCH, SNAP, BRANCH] });
    expect(heads(bundles[0]!)).toBe(`${made.tip} ${BRANCH}\n${made.snapshot} ${SNAP}`);
    expect(heads(bundles[1]!)).toBe(`${made.webHead} ${BRANCH}`);
    // No prerequisites: each bundle carries its whole history (a fresh repository can take it).
    const empty = join(base, "empty");
    initRepo(empty);
    for (const [i, bundle] of bundles.entries()) {
      writeFileSync(join(base, `${i}.bundle`), bundle);
      expect(gitRaw(empty, "bundle", "verify", join(base, `${i}.bundle`)).code).toBe(0);
    }
    expect({ git: picture(a).git, record: recordText(a) }).toEqual(before);
  });

  it("a snapshot ref gone from the repository is left out; import then refuses that file (65), nothing changed", async () => {
    const { a, b, out, made } = fresh();
    git(join(a, "api"), "update-ref", "-d", SNAP);
    const r = await exportTask(ports(), { root: a, taskId: "t1", file: out }).finally(() =>
      git(join(a, "api"), "update-ref", SNAP, made.snapshot),
    );
    expect(r.refs).toEqual([BRANCH, BRANCH]);
    expect(readExport(out).header.bundles.map((x: { refs: string[] }) => x.refs)).toEqual([
      [BRANCH],
      [BRANCH],
    ]);
    const before = picture(b);
    const e = await arielErrorOf(importTask(ports(), { root: b, file: out }));
    expect([e.code, e.exit, e.message]).toEqual([
      "ERR_INVALID_INPUT",
      65,
      `${out}: not an ariel task export: artifact 0: ${SNAP} is not in its bundle`,
    ]);
    expect(picture(b)).toEqual(before);
  });

  it("an unknown task: ERR_TASK_NOT_FOUND (66), no file written", async () => {
    const { a } = tmpl;
    base = tempDir("ariel-handoff-");
    const out = join(base, "out.ariel");
    const e = await arielErrorOf(exportTask(ports(), { root: a, taskId: "nope", file: out }));
    expect([e.code, e.exit, e.context]).toEqual(["ERR_TASK_NOT_FOUND", 66, { task: "nope" }]);
    expect(existsSync(out)).toBe(false);
  });
});

describe("importTask: the task and all its local work arrive", () => {
  it("commits, every kind of snapshotted work, reflog-only commits and per-worktree refs; the exact record; only the task's refs are added; verify passes", async () => {
    const { a, b, out, made } = fresh();
    const src = recordOf(a);
    const refsBefore = { api: gitPicture(join(b, "api")).refs, web: gitPicture(join(b, "web")).refs };
    const hash = (await openWorkspace(ports(), b)).hash;

    const r = await importTask(ports(), { root: b, file: out });

    const api = leg(b, "api");
    const web = leg(b, "web");
    // Committed work, on the branch.
    expect(git(api, "rev-parse", "HEAD", BRANCH)).toBe(`${made.tip}\n${made.tip}`);
    expect(git(api, "symbolic-ref", "HEAD")).toBe(BRANCH);
    expect(git(web, "rev-parse", "HEAD")).toBe(made.webHead);
    // The snapshot's local work, back as local changes; b's own overlay, not a's.
    const { ".git": _a, ...apiFiles } = files(api);
    expect(apiFiles).toEqual({
      "new dir": "<dir>",
      src: "<dir>",
      ".env": "644 SECRET=b\n",
      ".gitignore": "644 .env\n",
      "README.md": "644 edited\n",
      "feature.txt": "644 committed\n",
      link: "-> README.md",
      "new dir/n.txt": "644 untracked\n",
      "run.sh": "755 echo run\n",
      "src/a.txt": "644 staged\n",
    });
    expect(gitRaw(api, "status", "--porcelain").stdout).toBe(
      [" M README.md", " M run.sh", " M src/a.txt", " D src/gone.txt", "?? link", '?? "new dir/"', ""].join(
        "\n",
      ),
    );
    expect(readFileSync(join(web, ".env"), "utf8")).toBe("SECRET=b\n");
    expect(git(web, "status", "--porcelain")).toBe("");
    // What only the reflog and a per-worktree ref held came along too.
    expect(git(api, "rev-parse", "refs/worktree/mark")).toBe(made.marked);
    expect(git(api, "log", "-g", "--format=%H", "HEAD").split("\n")).toContain(made.lost);
    expect(git(api, "show", `${made.lost}:lost.txt`)).toBe("only in the reflog");

    // Exactly the task's refs were added in b; nothing else moved.
    const added = (before: string, extra: string[]) => [...before.split("\n"), ...extra].sort().join("\n");
    expect(gitPicture(join(b, "api")).refs).toBe(
      added(refsBefore.api, [`${BRANCH} ${made.tip}`, `${SNAP} ${made.snapshot}`]),
    );
    expect(gitPicture(join(b, "web")).refs).toBe(added(refsBefore.web, [`${BRANCH} ${made.webHead}`]));

    // The record: a's, with b's paths and workspace, its legs active again.
    const { ports: _p, ...portless } = src;
    const expected = {
      ...portless,
      workspace: { root: b, hash },
      state: "active",
      legs: src.legs.map((l) => ({
        ...l,
        sourcePath: join(b, l.source),
        worktreePath: leg(b, l.source),
        state: "active",
        overlay: [{ path: ".env", sha256: sha256("SECRET=b\n") }],
      })),
      fencingToken: r.record.fencingToken,
      version: r.record.version,
      updatedAt: NOW_ISO,
    };
    expect(r.record).toEqual(expected);
    expect(recordOf(b)).toEqual(r.record);
    expect(r.restored?.results).toEqual([
      {
        source: "api",
        worktreePath: api,
        branch: "ariel/t1",
        outcome: "restored",
        snapshot: { ref: SNAP, commit: made.snapshot },
      },
      { source: "web", worktreePath: web, branch: "ariel/t1", outcome: "restored" },
    ]);
    const v = await verifyTask(ports(), { root: b, taskId: "t1" });
    expect([v.exit, v.legs.map((l) => l.ok)]).toEqual([0, [true, true]]);
  });

  it("a dry run returns the record it would write (b's paths, legs snapshotted/removed, closed, version 0, no ports) and writes nothing", async () => {
    const { a, b, out } = fresh();
    const src = recordOf(a);
    // A record from a machine that leased ports: they are that machine's, never carried.
    const { header, bundles } = readExport(out);
    header.record.ports = { web: 20000 };
    writeExport(out, header, bundles);
    const before = picture(b);
    const hash = (await openWorkspace(ports(), b)).hash;
    const p = ports();
    const r = await importTask(p, { root: b, file: out, dryRun: true });
    expect(r).toEqual({
      record: {
        ...src,
        workspace: { root: b, hash },
        state: "closed",
        version: 0,
        legs: [
          { ...src.legs[0], sourcePath: join(b, "api"), worktreePath: leg(b, "api"), state: "snapshotted" },
          { ...src.legs[1], sourcePath: join(b, "web"), worktreePath: leg(b, "web"), state: "removed" },
        ],
      },
      restored: null,
    });
    expect(r.record).not.toHaveProperty("ports");
    expect(picture(b)).toEqual(before);
    expect(
      (p.fs as FaultyFs).log.filter((l) =>
        /^(writeAtomic|mkdirp|createExclusive|rename|remove|unlink|rmdir) /.test(l),
      ),
    ).toEqual([]);
  });

  it("a branch already in b at the recorded head is not a conflict: it stays, and the import goes through", async () => {
    const { a, b, out, made } = fresh();
    git(join(b, "web"), "fetch", "-q", join(a, "web"), `${BRANCH}:${BRANCH}`);
    const r = await importTask(ports(), { root: b, file: out });
    expect(r.record.legs.map((l) => l.state)).toEqual(["active", "active"]);
    expect(git(join(b, "web"), "rev-parse", BRANCH)).toBe(made.webHead);
  });

  it("after an import that failed writing its record (refs fetched, no record), importing again succeeds", async () => {
    const { b, out, made } = fresh();
    const faulty = ports([{ op: "writeAtomic", path: join(b, ".ariel/tasks/t1.json"), code: "ENOSPC" }]);
    await expect(importTask(faulty, { root: b, file: out })).rejects.toMatchObject({ code: "ENOSPC" });
    expect(existsSync(join(b, ".ariel/tasks/t1.json"))).toBe(false);
    expect(git(join(b, "api"), "rev-parse", BRANCH, SNAP)).toBe(`${made.tip}\n${made.snapshot}`);
    const r = await importTask(ports(), { root: b, file: out });
    expect(r.record.legs.map((l) => l.state)).toEqual(["active", "active"]);
    expect(readFileSync(join(leg(b, "api"), "README.md"), "utf8")).toBe("edited\n");
  });

  it("fetches only the refs both the record and the header name: another branch or ref in the bundle is never written", async () => {
    const { a, b, out, made } = fresh();
    const aApi = join(base, "a-api");
    cpSync(join(a, "api"), aApi, { recursive: true });
    // A bundle that also holds main moved to the task's tip, another task's snapshot and an
    // extra snapshot ref of this task the record does not name; the header lists the extra one.
    git(aApi, "update-ref", "refs/heads/main", made.tip);
    git(aApi, "update-ref", "refs/ariel/snapshots/t2/api", made.snapshot);
    git(aApi, "update-ref", "refs/ariel/snapshots/t1/extra", made.snapshot);
    const path = join(base, "evil.bundle");
    git(
      aApi,
      "bundle",
      "create",
      "-q",
      path,
      BRANCH,
      SNAP,
      "refs/heads/main",
      "refs/ariel/snapshots/t2/api",
      "refs/ariel/snapshots/t1/extra",
    );
    const { header, bundles } = readExport(out);
    header.bundles[0]!.refs.push("refs/ariel/snapshots/t1/extra");
    writeExport(out, header, [readFileSync(path), bundles[1]!]);
    const refsBefore = gitPicture(join(b, "api")).refs;
    await importTask(ports(), { root: b, file: out });
    expect(gitPicture(join(b, "api")).refs).toBe(
      [...refsBefore.split("\n"), `${BRANCH} ${made.tip}`, `${SNAP} ${made.snapshot}`].sort().join("\n"),
    );
  });

  it("credentials in the remotes' URLs: neither reaches the file or b's record, and the clones still match", async () => {
    base = tempDir("ariel-handoff-");
    const { a, b, out } = pair(base, ["api"]);
    git(join(a, "api"), "remote", "set-url", "origin", "https://alice:s3cret-a@example.com/api.git");
    git(join(b, "api"), "remote", "set-url", "origin", "https://bob:s3cret-b@example.com/api.git");
    await addTask(ports(), { root: a, taskId: "t1", sources: ["api"] });
    await removeTask(ports(), { root: a, taskId: "t1" });
    await exportTask(ports(), { root: a, taskId: "t1", file: out });
    expect(readFileSync(out).toString("latin1")).not.toMatch(/s3cret|alice/);
    const r = await importTask(ports(), { root: b, file: out });
    expect(r.record.legs[0]!.state).toBe("active");
    expect(recordText(b)).not.toMatch(/s3cret|alice|bob/);
  });
});

describe("importTask never writes over work already in the target", () => {
  it("a directory at a leg's worktree path: its files are left as they are (ERR_EXISTS), and restore brings the task back once it is moved", async () => {
    const { b, out, made } = fresh();
    writeFile(join(leg(b, "api"), "notes.txt"), "b's own notes\n");
    const stray = files(leg(b, "api"));
    const e = await arielErrorOf(importTask(ports(), { root: b, file: out }));
    expect([e.code, e.exit, e.context]).toEqual(["ERR_EXISTS", 73, { source: "api", path: leg(b, "api") }]);
    expect(files(leg(b, "api"))).toEqual(stray);
    expect(files(leg(b, "web"))).toEqual({});
    // The task is recorded (its refs fetched), its legs still to be restored.
    expect(recordOf(b).legs.map((l) => l.state)).toEqual(["snapshotted", "removed"]);
    expect(git(join(b, "api"), "rev-parse", BRANCH, SNAP)).toBe(`${made.tip}\n${made.snapshot}`);
    renameSync(leg(b, "api"), join(base, "moved-away"));
    await restoreTask(ports(), { root: b, taskId: "t1" });
    expect(readFileSync(join(leg(b, "api"), "README.md"), "utf8")).toBe("edited\n");
    expect(files(join(base, "moved-away"))).toEqual(stray);
  });
});

describe("importTask refuses, and nothing in the target changes", () => {
  it("the task exists there already: ERR_TASK_CONFLICT (3), its record, worktrees and refs untouched", async () => {
    const { b, out } = fresh();
    await importTask(ports(), { root: b, file: out });
    writeFile(join(leg(b, "api"), "more.txt"), "new work in b\n");
    const before = { ...picture(b), record: recordText(b) };
    const e = await arielErrorOf(importTask(ports(), { root: b, file: out }));
    expect([e.code, e.exit, e.message, e.context]).toEqual([
      "ERR_TASK_CONFLICT",
      3,
      `task "t1" exists in ${b} already`,
      { task: "t1" },
    ]);
    expect({ ...picture(b), record: recordText(b) }).toEqual(before);
  });

  it("the second leg's branch is in b at another commit: ERR_TASK_CONFLICT (3), the first leg's refs not fetched either", async () => {
    const { b, out } = fresh();
    const web = join(b, "web");
    writeFile(join(web, "other.txt"), "b's own work\n");
    git(web, "add", "other.txt");
    git(web, "commit", "-q", "-m", "b's own");
    git(web, "branch", "ariel/t1");
    git(web, "reset", "-q", "--hard", "HEAD~1");
    const before = picture(b);
    const e = await arielErrorOf(importTask(ports(), { root: b, file: out }));
    expect([e.code, e.exit, e.message, e.context]).toEqual([
      "ERR_TASK_CONFLICT",
      3,
      `branch ariel/t1 exists in ${web} at another commit`,
      { source: "web", branch: "ariel/t1" },
    ]);
    expect(picture(b)).toEqual(before);
  });

  it("the snapshot ref is in b at another commit: ERR_TASK_CONFLICT (3)", async () => {
    const { b, out } = fresh();
    const api = join(b, "api");
    git(api, "update-ref", SNAP, git(api, "rev-parse", "HEAD"));
    const before = picture(b);
    const e = await arielErrorOf(importTask(ports(), { root: b, file: out }));
    expect([e.code, e.exit, e.message, e.context]).toEqual([
      "ERR_TASK_CONFLICT",
      3,
      `${SNAP} exists in ${api} at another commit`,
      { source: "api", ref: SNAP },
    ]);
    expect(picture(b)).toEqual(before);
  });

  it("a source of b is a clone of another repository: ERR_FINGERPRINT (3), no URL in the error", async () => {
    const { b, out } = fresh();
    const web = join(b, "web");
    git(web, "remote", "set-url", "origin", "https://carol:s3cret@example.com/other.git");
    const before = picture(b);
    const e = await arielErrorOf(importTask(ports(), { root: b, file: out }));
    expect([e.code, e.exit, e.message, e.context]).toEqual([
      "ERR_FINGERPRINT",
      3,
      `source "web" in ${b} is another repository (its remote or default branch differ)`,
      { source: "web" },
    ]);
    expect(JSON.stringify({ m: e.message, h: e.hint, c: e.context })).not.toMatch(/s3cret|carol/);
    expect(picture(b)).toEqual(before);
  });

  it("a source missing from b: ERR_SOURCE_NOT_FOUND (66)", async () => {
    const { b, out } = fresh();
    removeDir(join(b, "web"));
    const before = picture(b, ["api"]);
    const e = await arielErrorOf(importTask(ports(), { root: b, file: out }));
    expect([e.code, e.exit, e.context]).toEqual(["ERR_SOURCE_NOT_FOUND", 66, { source: "web" }]);
    expect(picture(b, ["api"])).toEqual(before);
  });

  it("a source of b that is a link out of b: ERR_PATH_ESCAPE (77)", async () => {
    const { b, out } = fresh();
    const outside = join(base, "outside-web");
    git(base, "clone", "-q", join(tmpl.dir, "up/web"), outside);
    removeDir(join(b, "web"));
    symlinkSync(outside, join(b, "web"));
    const before = { b: picture(b, ["api"]), outside: gitPicture(outside) };
    const e = await arielErrorOf(importTask(ports(), { root: b, file: out }));
    expect([e.code, e.exit]).toEqual(["ERR_PATH_ESCAPE", 77]);
    expect({ b: picture(b, ["api"]), outside: gitPicture(outside) }).toEqual(before);
  });

  it.each<[string, (h: Header) => void, string]>([
    [
      "an absolute source",
      (h) => {
        h.record.legs[1]!.source = "/etc";
        h.bundles[1]!.source = "/etc";
      },
      'source "/etc" points outside the workspace root',
    ],
    [
      "a leg directory ..",
      (h) => {
        h.record.legs[0]!.worktreePath = "/x/t1/..";
      },
      'leg directory ".." would leave the worktree root',
    ],
    [
      "a leg directory with a newline",
      (h) => {
        h.record.legs[0]!.worktreePath = "/x/t1/a\nb";
      },
      'leg directory "a\\nb" would leave the worktree root',
    ],
  ])("a record naming %s: ERR_PATH_ESCAPE (77)", async (_n, change, message) => {
    const { b, out } = fresh();
    const { header, bundles } = readExport(out);
    change(header);
    writeExport(out, header, bundles);
    const before = picture(b);
    const e = await arielErrorOf(importTask(ports(), { root: b, file: out }));
    expect([e.code, e.exit, e.message]).toEqual(["ERR_PATH_ESCAPE", 77, message]);
    expect(picture(b)).toEqual(before);
  });

  it.each<[string, (data: Buffer, file: string) => Buffer, string]>([
    [
      "a wrong first line",
      (d) => Buffer.concat([Buffer.from("ariel-task-export 2\n"), d.subarray(20)]),
      "wrong first line",
    ],
    ["no header line", () => Buffer.from(MAGIC + '{"v":1'), "no header"],
    [
      "a header that is not JSON",
      (d) => Buffer.concat([Buffer.from(`${MAGIC}{v:1}\n`), d.subarray(d.indexOf(10, 20) + 1)]),
      "the header is not JSON",
    ],
    [
      "version 2",
      (d) =>
        rewrite(d, (h) => {
          h.v = 2;
        }),
      "bad header",
    ],
    [
      "a type other than export",
      (d) =>
        rewrite(d, (h) => {
          h.type = "task";
        }),
      "bad header",
    ],
    [
      "bundles that are no list",
      (d) =>
        rewrite(d, (h) => {
          (h as { bundles: unknown }).bundles = {};
        }),
      "bad header",
    ],
    [
      "a record that does not validate",
      (d) =>
        rewrite(d, (h) => {
          h.record.legs[0]!.head = "HEAD";
        }),
      "the task record does not validate",
    ],
    [
      "fewer bundles than legs",
      (d) => rewrite(d, (h) => void h.bundles.pop()),
      "one bundle per leg expected",
    ],
    [
      "a bundle of 0 bytes",
      (d) =>
        rewrite(d, (h) => {
          h.bundles[1]!.bytes = 0;
        }),
      "truncated",
    ],
    [
      "a fractional byte count",
      (d) =>
        rewrite(d, (h) => {
          h.bundles[0]!.bytes += 0.5;
        }),
      "truncated",
    ],
    ["a last bundle cut short", (d) => d.subarray(0, d.length - 1), "truncated"],
    ["a byte after the last bundle", (d) => Buffer.concat([d, Buffer.from("x")]), "trailing bytes"],
    [
      "a task that is not the record's",
      (d) =>
        rewrite(d, (h) => {
          h.task = "t2";
        }),
      "its task is not the record's",
    ],
    [
      "a bundle listing another task's snapshot ref",
      (d) => rewrite(d, (h) => void h.bundles[0]!.refs.push("refs/ariel/snapshots/t2/api")),
      'bundle 0: ref "refs/ariel/snapshots/t2/api" is not under refs/ariel/snapshots/t1/',
    ],
    [
      "a bundle listing a remote-tracking ref",
      (d) => rewrite(d, (h) => void h.bundles[1]!.refs.push("refs/remotes/origin/main")),
      'bundle 1: ref "refs/remotes/origin/main" is not under refs/ariel/snapshots/t1/',
    ],
    [
      "two legs of one source",
      (d) =>
        rewrite(d, (h) => {
          h.record.legs[1]!.source = "api";
          h.bundles[1]!.source = "api";
        }),
      "leg 1: its source is twice",
    ],
  ])("%s: ERR_INVALID_INPUT (65), nothing written", async (_n, change, why) => {
    const { b, out } = fresh();
    writeFileSync(out, change(readFileSync(out), out));
    const before = picture(b);
    const e = await arielErrorOf(importTask(ports(), { root: b, file: out }));
    expect([e.code, e.exit, e.message, e.context]).toEqual([
      "ERR_INVALID_INPUT",
      65,
      `${out}: not an ariel task export: ${why}`,
      { file: out },
    ]);
    expect(picture(b)).toEqual(before);
  });

  it("a file that cannot be read: ERR_NOINPUT (66)", async () => {
    const { b } = fresh();
    const file = join(base, "missing.ariel");
    const before = picture(b);
    const e = await arielErrorOf(importTask(ports(), { root: b, file }));
    expect([e.code, e.exit, e.message, e.context]).toEqual([
      "ERR_NOINPUT",
      66,
      `cannot read ${file}`,
      { file },
    ]);
    expect(picture(b)).toEqual(before);
  });
});

describe("importTask of a damaged bundle", () => {
  /** The export with one byte inside leg `i`'s pack data flipped (its length kept). */
  function damage(out: string, i: number): void {
    const { header, bundles } = readExport(out);
    const bundle = Buffer.from(bundles[i]!);
    const pack = bundle.indexOf("PACK");
    const at = pack + Math.floor((bundle.length - 20 - pack) / 2);
    bundle[at] = bundle[at]! ^ 0xff;
    bundles[i] = bundle;
    writeExport(out, header, bundles);
  }

  it("the first leg's: ERR_GIT, no ref fetched, no record", async () => {
    const { b, out } = fresh();
    damage(out, 0);
    const before = picture(b);
    const e = await arielErrorOf(importTask(ports(), { root: b, file: out }));
    expect([e.code, e.message]).toEqual([
      "ERR_GIT",
      expect.stringMatching(/^git fetch from the bundle failed: /),
    ]);
    // Only the state directory and the task's lease file are new: no ref, no record, no worktree.
    const after = picture(b);
    const lease = after.files[".ariel/leases/t1.json"] ?? "";
    expect(after).toEqual({
      git: before.git,
      files: { ...before.files, ".ariel": "<dir>", ".ariel/leases": "<dir>", ".ariel/leases/t1.json": lease },
    });
    expect(JSON.parse(lease.slice(4))).toMatchObject({ taskId: "t1", owner: "tester" });
  });

  // Bad input (a damaged bundle) must change nothing. Bundles were verified and fetched leg after
  // leg: the first leg's branch and snapshot ref were in b/api before the second leg's bundle was
  // found damaged, named by no record. Every bundle's objects are fetched before any ref now.
  it("the second leg's: nothing fetched into the first leg's source either", async () => {
    const { b, out } = fresh();
    // (web's bundle holds a commit b lacks: git reads it.)
    damage(out, 1);
    const before = picture(b).git;
    const e = await arielErrorOf(importTask(ports(), { root: b, file: out }));
    expect(e.code).toBe("ERR_GIT");
    expect(existsSync(join(b, ".ariel/tasks/t1.json"))).toBe(false);
    expect(picture(b).git).toEqual(before);
  });
});

/** `data` (an export) with its header changed by `change`, its bundles kept. */
function rewrite(data: Buffer, change: (h: Header) => void): Buffer {
  const nl = data.indexOf(10, MAGIC.length);
  const header = JSON.parse(data.subarray(MAGIC.length, nl).toString("utf8"));
  change(header);
  return Buffer.concat([Buffer.from(`${MAGIC}${JSON.stringify(header)}\n`), data.subarray(nl + 1)]);
}
