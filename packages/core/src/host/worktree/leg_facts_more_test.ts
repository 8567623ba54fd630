/**
 * More of leg_facts.ts against real repositories and worktrees: the index as indexEntries parses
 * it, overlay copies by sha256, hidden (skip-worktree, assume-unchanged) files in every shape
 * (sparse or not), which git processes the HEAD and reflog questions cost and what each answers
 * in every state of HEAD, the replaced ref and the long ways, submodules and nested repositories,
 * and gatherLegFacts' whole answer for each kind of leg.
 */
import { createHash } from "node:crypto";
import { chmodSync, mkdirSync, renameSync, rmSync, symlinkSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { arielErrorOf } from "../../_fixture.ts";
import type { Leg } from "../../schema/task.ts";
import type { Fault } from "../../testing/faulty_fs.ts";
import type { WorktreeEntry } from "../../worktree/porcelain.ts";
import type { LegFacts } from "../../worktree/refusals.ts";
import { commitAll, initRepo, removeDir, tempDir, writeFile } from "../_fixture.ts";
import { faultyPorts, git, makeRoot, recordingPorts } from "./_fixture.ts";
import { addTask } from "./add.ts";
import { listWorktrees } from "./facts.ts";
import {
  changedOverlay,
  gatherLegFacts,
  headOf,
  headReflog,
  indexEntries,
  modifiedHidden,
  nestedWork,
  reflogOnlyCommits,
  statusPaths,
  submoduleCommits,
  unreachableByRefList,
  unreachableCommits,
} from "./leg_facts.ts";

/** git's object id of a blob holding `content`. */
const blobSha = (content: string) =>
  createHash("sha1")
    .update(`blob ${Buffer.byteLength(content)}\0${content}`)
    .digest("hex");
const sha256 = (content: string) => createHash("sha256").update(content).digest("hex");
/** An arrangement: `fns` in turn. */
const steps =
  (...fns: (() => unknown)[]) =>
  (): void => {
    for (const f of fns) f();
  };
/** An arrangement: `fns` in turn, then `value` (what the case expects). */
const returning =
  <T>(value: T, ...fns: (() => unknown)[]) =>
  (): T => {
    steps(...fns)();
    return value;
  };
/** The commands (first argument) of the git processes a recording port started. */
const commands = (calls: string[][]) => calls.map((a) => a[0]);

// ---------------------------------------------------------------------------------------------
// A plain repository: the index, the status paths, overlay copies, hidden files.

let dir = "";
let repo = "";
const FILES: Record<string, string> = {
  "a.txt": "a\n",
  "b.txt": "b\n",
  "dir/c.txt": "c\n",
  "out/d.txt": "d\n",
  "t.txt": "target",
  "new\nline": "n\n",
};

/** `repo` with {@link FILES} and `link` (a symbolic link to a.txt), committed. */
function plainRepo(): void {
  dir = tempDir("ariel-legfacts-more-");
  repo = join(dir, "repo");
  initRepo(repo, FILES);
  symlinkSync("a.txt", join(repo, "link"));
  commitAll(repo, "link");
}

/** A leg record for `worktreePath` with `overlay` (the other fields only have to be valid). */
function legOf(worktreePath: string, over: Partial<Leg> = {}): Leg {
  return {
    source: "api",
    sourcePath: worktreePath,
    fingerprint: "f".repeat(64),
    branch: "main",
    base: "0".repeat(40),
    head: "0".repeat(40),
    worktreePath,
    overlay: [],
    state: "active",
    ...over,
  };
}

describe("indexEntries and statusPaths: git's index and status, parsed whole", () => {
  beforeEach(plainRepo);
  afterEach(() => removeDir(dir));

  it("every entry: its -v tag, mode, blob and path (spaces, tabs and newlines kept)", async () => {
    writeFile(join(repo, "sp ace.txt"), "s\n");
    writeFile(join(repo, "tab\there"), "t\n");
    writeFile(join(repo, "run.sh"), "#!/bin/sh\n");
    chmodSync(join(repo, "run.sh"), 0o755);
    const head = commitAll(repo, "odd");
    git(repo, "update-index", "--add", "--cacheinfo", `160000,${head},sub`);
    git(repo, "update-index", "--skip-worktree", "b.txt");
    git(repo, "update-index", "--assume-unchanged", "dir/c.txt");
    git(repo, "update-index", "--skip-worktree", "out/d.txt");
    git(repo, "update-index", "--assume-unchanged", "out/d.txt");
    const e = (tag: string, mode: string, sha: string, path: string) => ({ tag, mode, sha, path });
    expect(await indexEntries(faultyPorts(), repo)).toEqual([
      e("H", "100644", blobSha("a\n"), "a.txt"),
      e("S", "100644", blobSha("b\n"), "b.txt"),
      e("h", "100644", blobSha("c\n"), "dir/c.txt"),
      e("H", "120000", blobSha("a.txt"), "link"),
      e("H", "100644", blobSha("n\n"), "new\nline"),
      e("s", "100644", blobSha("d\n"), "out/d.txt"),
      e("H", "100755", blobSha("#!/bin/sh\n"), "run.sh"),
      e("H", "100644", blobSha("s\n"), "sp ace.txt"),
      e("H", "160000", head, "sub"),
      e("H", "100644", blobSha("target"), "t.txt"),
      e("H", "100644", blobSha("t\n"), "tab\there"),
    ]);
  });

  it("statusPaths: modified, staged (a deletion) and untracked (the same path again); nothing ignored", async () => {
    writeFileSync(join(repo, "a.txt"), "changed\n");
    git(repo, "rm", "-q", "--cached", "b.txt");
    writeFileSync(join(repo, ".git/info/exclude"), "*.log\n");
    writeFile(join(repo, "x.log"), "ignored\n");
    writeFile(join(repo, "new/f.txt"), "f\n");
    expect(await statusPaths(faultyPorts(), repo)).toEqual(["a.txt", "b.txt", "b.txt", "new/f.txt"]);
  });
});

describe("changedOverlay: an overlay copy is unchanged only while a regular file keeps its sha256", () => {
  beforeEach(plainRepo);
  afterEach(() => removeDir(dir));

  it.each<[string, string, string, string[]]>([
    ["a directory now", "dir", "c\n", ["dir"]],
    ["a symbolic link to the same bytes", "link", "a\n", ["link"]],
  ])("%s", async (_name, path, recorded, want) => {
    const leg = legOf(repo, { overlay: [{ path, sha256: sha256(recorded) }] });
    expect(await changedOverlay(faultyPorts(), repo, leg)).toEqual(want);
  });

  it("several: the changed ones, in the record's order", async () => {
    const overlay = [
      { path: "t.txt", sha256: sha256("x") },
      { path: "a.txt", sha256: sha256("a\n") },
      { path: "gone", sha256: sha256("") },
      { path: "b.txt", sha256: sha256("b\n") },
    ];
    expect(await changedOverlay(faultyPorts(), repo, legOf(repo, { overlay }))).toEqual(["t.txt", "gone"]);
  });
});

const modify = (path: string) => () => writeFileSync(join(repo, path), "x\n");
const remove = (path: string) => () => rmSync(join(repo, path));
const skipWorktree = (...paths: string[]) => git(repo, "update-index", "--skip-worktree", "--", ...paths);
const assumeUnchanged = (...paths: string[]) =>
  git(repo, "update-index", "--assume-unchanged", "--", ...paths);

/** modifiedHidden cases: the arrangement, then the paths listed. */
const HIDDEN_CASES: [string, () => void, string[]][] = [
  ["nothing hidden (a visible change is git status's)", modify("a.txt"), []],
  ["a skip-worktree file and link, unchanged", () => skipWorktree("a.txt", "link"), []],
  ["skip-worktree, modified", steps(() => skipWorktree("a.txt"), modify("a.txt")), ["a.txt"]],
  ["assume-unchanged, modified", steps(() => assumeUnchanged("a.txt"), modify("a.txt")), ["a.txt"]],
  [
    "skip-worktree, deleted outside a sparse checkout",
    steps(() => skipWorktree("a.txt"), remove("a.txt")),
    ["a.txt"],
  ],
  [
    "skip-worktree, a directory in its place",
    steps(
      () => skipWorktree("a.txt"),
      remove("a.txt"),
      () => mkdirSync(join(repo, "a.txt")),
    ),
    ["a.txt"],
  ],
  [
    "a skip-worktree link, pointing elsewhere",
    steps(
      () => skipWorktree("link"),
      remove("link"),
      () => symlinkSync("b.txt", join(repo, "link")),
    ),
    ["link"],
  ],
  [
    "a skip-worktree file turned into a link whose target is its old content",
    steps(
      () => skipWorktree("t.txt"),
      remove("t.txt"),
      () => symlinkSync("target", join(repo, "t.txt")),
    ),
    ["t.txt"],
  ],
  [
    "a skip-worktree link turned into a file whose content is its old target",
    steps(
      () => skipWorktree("link"),
      remove("link"),
      () => writeFileSync(join(repo, "link"), "a.txt"),
    ),
    ["link"],
  ],
  [
    "a skip-worktree path with a newline, unchanged (cannot be hashed by path)",
    () => skipWorktree("new\nline"),
    ["new\nline"],
  ],
];

describe("modifiedHidden: skip-worktree and assume-unchanged files whose content left the index blob", () => {
  beforeEach(plainRepo);
  afterEach(() => removeDir(dir));

  it.each(HIDDEN_CASES)("%s", async (_name, arrange, want) => {
    arrange();
    expect(await modifiedHidden(faultyPorts(), repo, new Set())).toEqual(want);
  });

  it("several: sorted bytewise, the paths in `skip` left out", async () => {
    skipWorktree("a.txt", "b.txt", "dir/c.txt", "t.txt");
    writeFileSync(join(repo, "a.txt"), "x\n");
    rmSync(join(repo, "b.txt"));
    writeFileSync(join(repo, "dir/c.txt"), "x\n");
    writeFileSync(join(repo, "t.txt"), "x\n");
    expect(await modifiedHidden(faultyPorts(), repo, new Set(["t.txt"]))).toEqual([
      "a.txt",
      "b.txt",
      "dir/c.txt",
    ]);
  });

  it("nothing hidden: one git process (ls-files), no sparse or hash question", async () => {
    const ports = recordingPorts();
    expect(await modifiedHidden(ports, repo, new Set())).toEqual([]);
    expect(ports.calls).toEqual([["ls-files", "-s", "-v", "-z"]]);
  });

  it("the index given is the one used: S, s and every lowercase tag are hidden, H and neighbours not", async () => {
    const other = blobSha("other\n");
    const tags = ["S", "s", "a", "h", "z", "H", "`", "{", "R"];
    for (const t of tags) writeFile(join(repo, `tag-${t}`), "x\n");
    const index = tags.map((tag) => ({ tag, mode: "100644", sha: other, path: `tag-${tag}` }));
    index.push({ tag: "h", mode: "100644", sha: blobSha("x\n"), path: "same" });
    writeFile(join(repo, "same"), "x\n");
    const ports = recordingPorts();
    expect(await modifiedHidden(ports, repo, new Set(), index)).toEqual([
      "tag-S",
      "tag-a",
      "tag-h",
      "tag-s",
      "tag-z",
    ]);
    expect(commands(ports.calls)).toEqual(["hash-object"]);
  });
});

describe("modifiedHidden in a sparse checkout: absent skip-worktree files are the cone's, not changes", () => {
  beforeEach(() => {
    plainRepo();
    writeFile(join(repo, "out/e.txt"), "e\n");
    commitAll(repo, "e");
    git(repo, "sparse-checkout", "set", "dir");
  });
  afterEach(() => removeDir(dir));

  it("outside the cone (skip-worktree, one of them assume-unchanged too): nothing", async () => {
    assumeUnchanged("out/e.txt");
    expect(git(repo, "ls-files", "-v", "out")).toBe("S out/d.txt\ns out/e.txt");
    expect(await modifiedHidden(faultyPorts(), repo, new Set())).toEqual([]);
  });

  it("a skip-worktree file outside the cone written anyway, an absent assume-unchanged one: both listed", async () => {
    // Kept skip-worktree while present (git would otherwise clear the bit).
    git(repo, "config", "sparse.expectFilesOutsideOfPatterns", "true");
    writeFile(join(repo, "out/d.txt"), "x\n");
    assumeUnchanged("a.txt");
    rmSync(join(repo, "a.txt"));
    expect(git(repo, "ls-files", "-v", "a.txt", "out")).toBe("h a.txt\nS out/d.txt\nS out/e.txt");
    expect(await modifiedHidden(faultyPorts(), repo, new Set())).toEqual(["a.txt", "out/d.txt"]);
  });
});

// ---------------------------------------------------------------------------------------------
// A task's leg (a linked worktree on ariel/t1, locked "ariel:t1") of source `api`.

let root = "";
let src = "";
let legPath = "";
let rec: Leg;
async function makeLeg(): Promise<void> {
  root = makeRoot(["api"]);
  src = join(root, "api");
  const { record } = await addTask(faultyPorts(), { root, taskId: "t1", sources: ["api"] });
  rec = record.legs[0]!;
  legPath = rec.worktreePath;
}
const head = () => git(legPath, "rev-parse", "HEAD");
const adminDir = () => git(legPath, "rev-parse", "--absolute-git-dir");
/** Commit on a detached HEAD and stay there; the commit. */
function detachAndCommit(message = "own"): string {
  git(legPath, "switch", "-q", "--detach");
  return commitAll(legPath, message);
}
/** A commit left behind: made on a detached HEAD, then back to ariel/t1. */
function leaveBehind(message = "left"): string {
  const c = detachAndCommit(message);
  git(legPath, "switch", "-q", "ariel/t1");
  return c;
}
/** The leg's branch deleted while checked out (its HEAD names a branch that does not exist). */
const deleteBranch = () => git(src, "update-ref", "-d", "refs/heads/ariel/t1");
/** A `reftable` directory in the common dir: git's files can no longer answer, git must. */
const reftableDir = () => mkdirSync(join(src, ".git/reftable"));
/** Remove the loose object `sha` from the source's object store. */
const dropObject = (sha: string) => rmSync(join(src, ".git/objects", sha.slice(0, 2), sha.slice(2)));

const LASTING = [
  "--exclude=refs/worktree/*",
  "--exclude=refs/bisect/*",
  "--exclude=refs/rewritten/*",
  "--glob=refs/*",
];
const OWN = ["--glob=refs/worktree/*", "--glob=refs/bisect/*", "--glob=refs/rewritten/*"];
const FAST = ["rev-list", "--max-count=1000", "HEAD", "--not", ...LASTING];
const FOR_EACH_REF = [
  "for-each-ref",
  "--format=%(objecttype) %(objectname) %(*objecttype) %(*objectname) %(refname)",
];
const BY_REF_LIST = ["rev-list", "--max-count=1000", "--stdin", "HEAD"];

describe("unreachableCommits: no git on a branch that exists, else one rev-list, else the long way", () => {
  beforeEach(makeLeg);
  afterEach(() => removeDir(root));

  it.each<[string, () => string[], string[][]]>([
    ["HEAD on its branch: read from the files", () => [], []],
    ["a detached HEAD with a commit of its own", () => [detachAndCommit()], [FAST]],
    ["files that cannot answer (reftable): git, even on a branch", returning([], reftableDir), [FAST]],
    [
      "its branch deleted while checked out: both ways fail, nothing is unreachable",
      returning([], deleteBranch),
      [FAST, FOR_EACH_REF, BY_REF_LIST],
    ],
  ])("%s", async (_name, arrange, calls) => {
    const want = arrange();
    const ports = recordingPorts();
    expect(await unreachableCommits(ports, legPath)).toEqual(want);
    expect(ports.calls).toEqual(calls);
  });

  it("a parent commit gone from the object store: both ways fail, ERR_GIT from the long way's rev-list", async () => {
    const first = detachAndCommit("first");
    detachAndCommit("second");
    dropObject(first);
    const ports = recordingPorts();
    const e = await arielErrorOf(unreachableCommits(ports, legPath));
    expect([e.code, e.message, e.context]).toEqual([
      "ERR_GIT",
      `git rev-list failed in ${legPath}: error: Could not read ${first}`,
      { git: "rev-list", cwd: legPath, status: 128 },
    ]);
    expect(ports.calls).toEqual([FAST, FOR_EACH_REF, BY_REF_LIST]);
  });
});

describe("unreachableByRefList: every ref's commit (tags peeled) as a negative", () => {
  beforeEach(makeLeg);
  afterEach(() => removeDir(root));

  it("a commit only an annotated tag holds is reachable; blob and tree tags hold nothing", async () => {
    const tagged = detachAndCommit("tagged");
    git(legPath, "tag", "-a", "-m", "t", "v1", tagged);
    git(legPath, "tag", "-a", "-m", "t", "treetag", "HEAD^{tree}");
    git(legPath, "tag", "blobtag", "HEAD:README.md");
    const loose = commitAll(legPath, "loose");
    const ports = recordingPorts();
    expect(await unreachableByRefList(ports, legPath)).toEqual([loose]);
    expect(ports.calls).toEqual([FOR_EACH_REF, BY_REF_LIST]);
  });
});

describe("headOf: what HEAD is on, from the files or else from git, the same answer", () => {
  beforeEach(makeLeg);
  afterEach(() => removeDir(root));

  const states: [string, () => { head: string | null; branch: string | null }][] = [
    ["on its branch", () => ({ head: head(), branch: "ariel/t1" })],
    ["detached", () => ({ head: detachAndCommit(), branch: null })],
    ["its branch deleted", returning({ head: null, branch: "ariel/t1" }, deleteBranch)],
    [
      "on a per-worktree ref whose name holds refs/heads/",
      () => {
        git(legPath, "update-ref", "refs/worktree/refs/heads/x", "HEAD");
        git(legPath, "symbolic-ref", "HEAD", "refs/worktree/refs/heads/x");
        return { head: head(), branch: "refs/worktree/refs/heads/x" };
      },
    ],
  ];

  it.each(states)(
    "%s: from the files without git, then from git when they cannot answer",
    async (_name, arrange) => {
      const want = arrange();
      const files = recordingPorts();
      expect(await headOf(files, legPath)).toEqual(want);
      expect(files.calls).toEqual([]);
      reftableDir();
      const viaGit = recordingPorts();
      expect(await headOf(viaGit, legPath)).toEqual(want);
      expect(viaGit.calls).toEqual([
        ["rev-parse", "-q", "--verify", "HEAD^{commit}"],
        ["symbolic-ref", "-q", "HEAD"],
      ]);
    },
  );
});

const REFLOG = ["reflog", "show", "--format=%H", "HEAD", "--"];
const reflogFile = () => join(adminDir(), "logs/HEAD");
const reflogLine = (from: string, to: string) => `${from} ${to} A <a@b> 1700000000 +0000\tx\n`;

describe("headReflog: the commit ids of HEAD's reflog, read from the file or else from git", () => {
  beforeEach(makeLeg);
  afterEach(() => removeDir(root));

  it("both sides of each line, once; SHA-1 and SHA-256 lengths; no null or malformed id", async () => {
    const h = (c: string) => c.repeat(40);
    const sha256Id = "b".repeat(64);
    const endsInZeros = `${"c".repeat(38)}00`;
    writeFileSync(
      reflogFile(),
      [
        reflogLine(h("0"), h("a")),
        reflogLine(h("a"), sha256Id),
        reflogLine("0".repeat(64), endsInZeros),
        reflogLine(`g${h("d")}`, `${h("e")}x`),
        reflogLine(`${h("1")}2`, `${"f".repeat(63)}`),
        reflogLine(`${"9".repeat(65)}`, h("a")),
      ].join(""),
    );
    const ports = recordingPorts();
    expect(await headReflog(ports, legPath)).toEqual([h("a"), sha256Id, endsInZeros]);
    expect(ports.calls).toEqual([]);
  });

  it("no reflog file: nothing", async () => {
    rmSync(reflogFile());
    expect(await headReflog(faultyPorts(), legPath)).toEqual([]);
  });

  it("a reflog file that cannot be read: its error", async () => {
    const path = reflogFile();
    const ports = faultyPorts([{ op: "readText", path, code: "EIO" }]);
    await expect(headReflog(ports, legPath)).rejects.toThrow(`EIO: readText '${path}'`);
  });

  it.each<[string, () => Fault[]]>([
    ["the .git file cannot be read", () => [{ op: "readText", path: `${legPath}/.git`, code: "EIO" }]],
    ["reftable", returning<Fault[]>([], reftableDir)],
  ])("%s: git's reflog, the commit of each entry", async (_name, arrange) => {
    const base = head();
    const left = leaveBehind();
    const ports = recordingPorts(arrange());
    expect(await headReflog(ports, legPath)).toEqual([base, left]);
    expect(ports.calls).toEqual([REFLOG]);
  });
});

/** `reflogOnlyCommits`' fast call: reflog commits on stdin, own refs in, lasting refs and HEAD out. */
const onlyArgs = (notHead: string[], replacing: string[] = []) => [
  "rev-list",
  "--parents",
  "--stdin",
  ...OWN,
  "--not",
  ...replacing,
  ...LASTING,
  ...notHead,
];
const SNAP = "refs/ariel/snapshots/t1";

describe("reflogOnlyCommits: HEAD excluded when it exists, the replaced ref holds nothing", () => {
  beforeEach(makeLeg);
  afterEach(() => removeDir(root));

  it("a detached HEAD's own commit: HEAD holds it", async () => {
    const c = detachAndCommit();
    const ports = recordingPorts();
    expect(await reflogOnlyCommits(ports, legPath)).toEqual({ commits: [], tips: [] });
    expect(ports.calls).toEqual([onlyArgs([c])]);
  });

  it("its branch deleted while checked out: no HEAD to exclude, the commit left behind listed", async () => {
    const c = leaveBehind();
    deleteBranch();
    const ports = recordingPorts();
    expect(await reflogOnlyCommits(ports, legPath)).toEqual({ commits: [c], tips: [c] });
    expect(ports.calls).toEqual([onlyArgs([])]);
  });

  it("no reflog: what the worktree's own refs alone hold, from one rev-list (nothing on stdin)", async () => {
    const c = git(legPath, "commit-tree", "-p", "HEAD", "-m", "kept", "HEAD^{tree}");
    git(legPath, "update-ref", "refs/worktree/kept", c);
    rmSync(reflogFile());
    const ports = recordingPorts();
    expect(await reflogOnlyCommits(ports, legPath)).toEqual({ commits: [c], tips: [c] });
    expect(ports.calls).toEqual([onlyArgs([head()])]);
  });

  it("a commit only the replaced ref (and the reflog) holds: listed with `replacing`, not without", async () => {
    const c = leaveBehind();
    git(src, "update-ref", SNAP, c);
    const ports = recordingPorts();
    expect(await reflogOnlyCommits(ports, legPath, undefined, SNAP)).toEqual({ commits: [c], tips: [c] });
    expect(ports.calls).toEqual([onlyArgs([head()], [`--exclude=${SNAP}`])]);
    expect(await reflogOnlyCommits(faultyPorts(), legPath)).toEqual({ commits: [], tips: [] });
  });

  it("held by the replaced ref and a branch: the branch keeps it", async () => {
    const c = leaveBehind();
    git(src, "update-ref", SNAP, c);
    git(src, "branch", "kept", c);
    expect(await reflogOnlyCommits(faultyPorts(), legPath, 5, SNAP)).toEqual({ commits: [], tips: [] });
  });

  it("the long way (a pruned reflog entry) leaves the replaced ref out too", async () => {
    const c = leaveBehind();
    git(src, "update-ref", SNAP, c);
    writeFileSync(reflogFile(), reflogLine(head(), "d".repeat(40)), { flag: "a" });
    const ports = recordingPorts();
    expect(await reflogOnlyCommits(ports, legPath, undefined, SNAP)).toEqual({ commits: [c], tips: [c] });
    expect(commands(ports.calls)).toEqual(["rev-list", "cat-file", "for-each-ref", "rev-list"]);
  });
});

describe("reflogOnlyCommits, the long way: nothing left to ask, no last rev-list", () => {
  beforeEach(makeLeg);
  afterEach(() => removeDir(root));

  it.each<[string, () => void]>([
    ["no own refs", () => {}],
    [
      "own refs naming a blob and an annotated tag of a tree (no commit)",
      () => {
        git(legPath, "update-ref", "refs/worktree/blob", "HEAD:README.md");
        git(legPath, "tag", "-a", "-m", "t", "treetag", "HEAD^{tree}");
        git(legPath, "update-ref", "refs/worktree/treetag", git(legPath, "rev-parse", "treetag"));
        git(legPath, "tag", "-d", "treetag");
      },
    ],
  ])("every reflog commit pruned, %s: nothing", async (_name, arrange) => {
    arrange();
    writeFileSync(reflogFile(), reflogLine("0".repeat(40), "d".repeat(40)));
    const ports = recordingPorts();
    expect(await reflogOnlyCommits(ports, legPath)).toEqual({ commits: [], tips: [] });
    expect(commands(ports.calls)).toEqual(["rev-list", "cat-file", "for-each-ref"]);
  });

  it("an empty reflog and a ref naming a missing object: ERR_GIT from for-each-ref, no cat-file", async () => {
    rmSync(reflogFile());
    writeFileSync(join(src, ".git/refs/heads/broken"), `${"1".repeat(40)}\n`);
    const ports = recordingPorts();
    const e = await arielErrorOf(reflogOnlyCommits(ports, legPath));
    expect([e.code, e.message]).toEqual([
      "ERR_GIT",
      `git for-each-ref failed in ${legPath}: fatal: missing object ${"1".repeat(40)} for refs/heads/broken`,
    ]);
    expect(commands(ports.calls)).toEqual(["rev-list", "for-each-ref"]);
  });
});

// ---------------------------------------------------------------------------------------------
// gatherLegFacts: the whole answer.

/** The facts of the fresh leg, with `over`; `full` false keeps only what every answer has. */
function factsOf(over: Partial<LegFacts> = {}, full = true): LegFacts {
  const all: LegFacts = {
    source: "api",
    worktreePath: legPath,
    present: true,
    main: false,
    owned: true,
    lock: "ariel:t1",
    checkedOut: "refs/heads/ariel/t1",
    recordedBranch: "ariel/t1",
    dirty: [],
    overlayChanged: [],
    skipWorktreeModified: [],
    unreachable: [],
    branchMissing: false,
    reflogOnly: [],
    submoduleCommits: [],
    nestedWork: [],
    ...over,
  };
  if (full) return all;
  const { branchMissing, reflogOnly, submoduleCommits, nestedWork, ...base } = all;
  return base;
}
const wtRoot = () => join(root, ".ariel/worktrees");
const gather = (leg: Leg = rec, worktrees: Parameters<typeof gatherLegFacts>[3] = null, at = wtRoot()) =>
  gatherLegFacts(faultyPorts(), at, leg, worktrees);

/** gatherLegFacts cases of a leg that is ours: the arrangement, returning what differs from the fresh leg's facts. */
const OURS_CASES: [string, () => Partial<LegFacts>][] = [
  ["fresh", () => ({})],
  [
    "modified, staged, untracked and a repository made inside",
    () => {
      writeFileSync(join(legPath, "README.md"), "changed\n");
      writeFile(join(legPath, "staged.txt"), "s\n");
      git(legPath, "add", "staged.txt");
      writeFile(join(legPath, "notes/n.txt"), "n\n");
      initRepo(join(legPath, "nested"));
      return { dirty: ["README.md", "staged.txt", "nested/", "notes/n.txt"], nestedWork: ["nested/"] };
    },
  ],
  [
    "a tracked file hidden by skip-worktree and modified",
    () => {
      git(legPath, "update-index", "--skip-worktree", "README.md");
      writeFileSync(join(legPath, "README.md"), "changed\n");
      return { skipWorktreeModified: ["README.md"] };
    },
  ],
  [
    "its overlay copy changed",
    returning({ overlayChanged: [".env"] }, () => writeFileSync(join(legPath, ".env"), "SECRET=x\n")),
  ],
  ["a detached HEAD with a commit", () => ({ checkedOut: null, unreachable: [detachAndCommit()] })],
  ["a commit left behind on a detached HEAD", () => ({ reflogOnly: [leaveBehind()] })],
  [
    "its branch deleted while checked out",
    returning({ branchMissing: true, dirty: [".gitignore", "README.md"] }, deleteBranch),
  ],
  [
    "locked by someone else",
    returning(
      { lock: "other" },
      () => git(src, "worktree", "unlock", legPath),
      () => git(src, "worktree", "lock", "--reason", "other", legPath),
    ),
  ],
];

describe("gatherLegFacts: a leg that is ours, in each state it can be in", () => {
  beforeEach(makeLeg);
  afterEach(() => removeDir(root));

  it.each(OURS_CASES)("%s", async (_name, arrange) => {
    const over = arrange();
    expect(await gather()).toEqual(factsOf(over));
  });

  it("overlay paths (an untracked copy, a hidden tracked one) are left to the sha256 check", async () => {
    writeFile(join(legPath, "copied.txt"), "c\n");
    git(legPath, "update-index", "--skip-worktree", "README.md");
    writeFileSync(join(legPath, "README.md"), "copied\n");
    const overlay = [
      ...rec.overlay,
      { path: "copied.txt", sha256: sha256("c\n") },
      { path: "README.md", sha256: sha256("other\n") },
    ];
    expect(await gather({ ...rec, overlay })).toEqual(factsOf({ overlayChanged: ["README.md"] }));
  });

  it("git's list given (the source's, or the leg's own linked entry): the same answer", async () => {
    const wts = await listWorktrees(faultyPorts(), src);
    const own = wts.find((w) => w.path === legPath)!;
    expect(await gather(rec, wts)).toEqual(factsOf());
    expect(await gather(rec, { linked: own })).toEqual(factsOf());
  });
});

/** The source's `git worktree list`, with the leg's own entry changed by `change`. */
async function listWith(change: (own: WorktreeEntry) => WorktreeEntry | null): Promise<WorktreeEntry[]> {
  const wts = await listWorktrees(faultyPorts(), src);
  return wts.flatMap((w) => (w.path === legPath ? (change(w) ?? []) : [w]));
}
const unknownToGit = { lock: null, checkedOut: null };
/** A case's leg, worktree root and worktree list (defaults: the record's, `.ariel/worktrees`, none); `path` the leg's. */
interface Arranged {
  leg?: Leg;
  at?: string;
  list?: Parameters<typeof gatherLegFacts>[3];
  path?: string;
}

/** gatherLegFacts cases answered with the base facts only: the arrangement, then what differs from the fresh leg's. */
const NOT_FULL_CASES: [string, () => Promise<Arranged>, Partial<LegFacts>][] = [
  [
    "gone (git still lists it): ours",
    async () => {
      removeDir(legPath);
      return {};
    },
    { present: false },
  ],
  [
    "a symbolic link where it was: not ours",
    async () => {
      renameSync(legPath, `${legPath}.moved`);
      symlinkSync(`${legPath}.moved`, legPath);
      return {};
    },
    { present: false, owned: false },
  ],
  [
    "a directory git does not know: not ours",
    async () => {
      git(src, "worktree", "remove", "-f", "-f", legPath);
      mkdirSync(legPath);
      return {};
    },
    { owned: false, ...unknownToGit },
  ],
  ["outside the worktree root: not ours", async () => ({ at: join(root, "elsewhere") }), { owned: false }],
  ["the worktree root itself: not ours", async () => ({ at: legPath }), { owned: false }],
  [
    "the source checkout: main",
    async () => ({ leg: { ...rec, worktreePath: src }, path: src }),
    { main: true, owned: false, lock: null, checkedOut: "refs/heads/main" },
  ],
  [
    "recorded as its own source: main",
    async () => ({ leg: { ...rec, sourcePath: legPath } }),
    { main: true },
  ],
  [
    "git's entry for it says main",
    async () => ({ list: await listWith((w) => ({ ...w, main: true })) }),
    { main: true },
  ],
  [
    "first in git's list: main",
    async () => ({ list: (await listWorktrees(faultyPorts(), src)).reverse() }),
    { main: true },
  ],
  [
    "missing from git's list: not ours",
    async () => ({ list: await listWith(() => null) }),
    { owned: false, ...unknownToGit },
  ],
  ["an empty list: not ours", async () => ({ list: [] }), { owned: false, ...unknownToGit }],
  [
    "a source git cannot list: not ours",
    async () => ({ leg: { ...rec, sourcePath: join(root, "nowhere") } }),
    { owned: false, ...unknownToGit },
  ],
  [
    "a linked entry of another path: not ours",
    async () => ({ list: { linked: { ...(await listWith((w) => w))[1]!, path: join(root, "other") } } }),
    { owned: false, ...unknownToGit },
  ],
  [
    "its linked entry, recorded as its own source: main",
    async () => ({
      leg: { ...rec, sourcePath: legPath },
      list: { linked: (await listWorktrees(faultyPorts(), src))[1]! },
    }),
    { main: true },
  ],
];

describe("gatherLegFacts: only what every answer has when the leg is gone, main or not ours", () => {
  beforeEach(makeLeg);
  afterEach(() => removeDir(root));

  it.each(NOT_FULL_CASES)("%s", async (_name, arrange, over) => {
    const { leg, at, list, path } = await arrange();
    expect(await gather(leg, list ?? null, at)).toEqual(
      factsOf({ worktreePath: path ?? legPath, ...over }, false),
    );
  });
});

// ---------------------------------------------------------------------------------------------
// A leg whose source has a submodule `lib` (from the repository `<root>/lib`).

let sub = "";
async function makeLegWithSubmodule(): Promise<void> {
  root = makeRoot(["api"]);
  src = join(root, "api");
  initRepo(join(root, "lib"), { "lib.txt": "lib\n", ".gitignore": "*.log\n" });
  git(src, "submodule", "add", "-q", join(root, "lib"), "lib");
  commitAll(src, "submodule");
  const { record } = await addTask(faultyPorts(), { root, taskId: "t1", sources: ["api"] });
  rec = record.legs[0]!;
  legPath = rec.worktreePath;
  sub = join(legPath, "lib");
}
/** `git submodule update --init` in the leg: its repository goes in the leg's admin dir. */
const initSub = () => git(legPath, "submodule", "update", "--init", "-q");
/** The submodule's git dir, in the leg's admin dir. */
const subGitDir = () => join(adminDir(), "modules/lib");
const SUB_STATUS = [
  "status",
  "--porcelain=v2",
  "-z",
  "--untracked-files=all",
  "--ignored=no",
  "--ignore-submodules=all",
];
const SUB_REV_LIST = ["rev-list", "--max-count=1000", "--all", "--not", "--remotes"];
/** lib's `.git` replaced by a file naming `target`. */
const pointSubAt = (target: string) => {
  rmSync(join(sub, ".git"), { recursive: true, force: true });
  writeFileSync(join(sub, ".git"), `gitdir: ${target}\n`);
};

/** submoduleCommits cases: the arrangement returning the answer, then how many rev-list runs the private view makes. */
const SUBMODULE_CASES: [string, () => string[], number][] = [
  ["not initialized: skipped", () => [], 0],
  ["initialized, every commit on a remote-tracking ref: nothing", returning([], initSub), 1],
  [
    "initialized, commits of its own: each as lib@<commit>, newest first",
    () => {
      initSub();
      const one = commitAll(sub, "one");
      const two = commitAll(sub, "two");
      return [`lib@${two}`, `lib@${one}`];
    },
    1,
  ],
  [
    "a repository made inside the worktree in its place: its commits",
    () => {
      rmSync(sub, { recursive: true, force: true });
      return [`lib@${initRepo(sub)}`];
    },
    1,
  ],
  [
    "a repository outside the worktree and its admin dir: it survives removal, nothing",
    returning([], initSub, () => pointSubAt(join(root, "lib/.git"))),
    0,
  ],
  [
    "a .git naming no git dir: git cannot say, the path alone",
    returning(["lib"], initSub, () => pointSubAt(join(root, "nowhere"))),
    0,
  ],
  [
    "a ref naming a missing object: rev-list fails, the path alone",
    returning(["lib"], initSub, () =>
      writeFileSync(join(subGitDir(), "refs/heads/bad"), `${"1".repeat(40)}\n`),
    ),
    1,
  ],
];

describe("submoduleCommits: commits of the leg's submodules that only the leg's copy holds", () => {
  beforeEach(makeLegWithSubmodule);
  afterEach(() => removeDir(root));

  it.each(SUBMODULE_CASES)("%s", async (_name, arrange, revLists) => {
    const want = arrange();
    const ports = recordingPorts();
    expect(await submoduleCommits(ports, legPath)).toEqual(want);
    const [lsFiles, revParse, ...inView] = ports.calls;
    expect([lsFiles, revParse]).toEqual([
      ["ls-files", "-s", "-v", "-z"],
      ["rev-parse", "--absolute-git-dir"],
    ]);
    expect(inView.map((c) => c.slice(8))).toEqual(Array(revLists).fill(SUB_REV_LIST));
  });

  it("the index given is the one used: none with a gitlink, nothing, no git process", async () => {
    initSub();
    commitAll(sub, "own");
    const index = (await indexEntries(faultyPorts(), legPath)).filter((e) => e.path !== "lib");
    const ports = recordingPorts();
    expect(await submoduleCommits(ports, legPath, index)).toEqual([]);
    expect(ports.calls).toEqual([]);
  });
});

describe("nestedWork: untracked repositories by their directory, a submodule's changes by file", () => {
  beforeEach(makeLegWithSubmodule);
  afterEach(() => removeDir(root));

  it.each<[string, () => string[], number]>([
    ["not initialized: skipped", () => [], 0],
    ["initialized and clean: nothing", returning([], initSub), 1],
    [
      "changed, untracked (each file) and ignored files: the first two",
      () => {
        initSub();
        writeFileSync(join(sub, "lib.txt"), "changed\n");
        writeFile(join(sub, "new/f.txt"), "f\n");
        writeFile(join(sub, "new/g.txt"), "g\n");
        writeFile(join(sub, "x.log"), "ignored\n");
        return ["lib/lib.txt", "lib/new/f.txt", "lib/new/g.txt"];
      },
      1,
    ],
    [
      "a .git naming no git dir: the path alone",
      returning(["lib"], initSub, () => pointSubAt(join(root, "nowhere"))),
      0,
    ],
    [
      "an index git cannot read: the path alone",
      returning(["lib"], initSub, () => writeFileSync(join(subGitDir(), "index"), "garbage")),
      1,
    ],
  ])("%s", async (_name, arrange, statuses) => {
    const want = arrange();
    const ports = recordingPorts();
    expect(await nestedWork(ports, legPath, [], await indexEntries(faultyPorts(), legPath))).toEqual(want);
    // git runs on a private view (options and --git-dir/--work-tree first), never in the submodule.
    expect(ports.calls.map((c) => c.slice(8))).toEqual(Array(statuses).fill(SUB_STATUS));
  });

  it("of the dirty paths only directories; index entries that are no gitlink never entered", async () => {
    initSub();
    writeFileSync(join(sub, "lib.txt"), "changed\n");
    const index = (await indexEntries(faultyPorts(), legPath)).map((e) => ({ ...e, mode: "100644" }));
    const ports = recordingPorts();
    const dirty = ["README.md", "made/", "deep/er/", "lib"];
    expect(await nestedWork(ports, legPath, dirty, index)).toEqual(["made/", "deep/er/"]);
    expect(ports.calls).toEqual([]);
  });

  it("gatherLegFacts: a submodule's own commit and changes, its moved commit dirty in the leg", async () => {
    initSub();
    const own = commitAll(sub, "own");
    writeFileSync(join(sub, "lib.txt"), "changed\n");
    expect(await gather()).toEqual(
      factsOf({ dirty: ["lib"], submoduleCommits: [`lib@${own}`], nestedWork: ["lib/lib.txt"] }),
    );
  });
});
