/**
 * snapshot.ts on real repositories: what a snapshot's tree holds of each kind of local work (and
 * leaves out), its parents and trailers, the overlay rules, the parsing of its trailers, the
 * worktree's own refs and HEAD's reflog written back, and applySnapshot giving back exactly the
 * files, modes, links and deletions in a new worktree of the branch.
 */
import {
  chmodSync,
  existsSync,
  lstatSync,
  mkdirSync,
  readdirSync,
  readFileSync,
  readlinkSync,
  renameSync,
  rmSync,
  symlinkSync,
  writeFileSync,
} from "node:fs";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { arielErrorOf } from "../../_fixture.ts";
import type { GitPort, Ports } from "../../ports.ts";
import { GIT_TEST_ENV, gitRaw, initRepo, removeDir, tempDir, writeFile } from "../_fixture.ts";
import { nodeGit } from "../git.ts";
import { faultyPorts, git } from "./_fixture.ts";
import {
  applySnapshot,
  KEPT_REF_TRAILER,
  KEPT_TRAILER,
  keptCommits,
  keptRefs,
  makeSnapshot,
  ownRefsOf,
  restoreReflog,
  restoreRefs,
  snapshotPaths,
  worktreeTree,
} from "./snapshot.ts";

let root: string;
let api: string;
let wt: string;
afterEach(() => removeDir(root));

const REF = "refs/ariel/snapshots/t1/api";
const NONE = { all: [], changed: [] } as const;
const GITIGNORE = ".env\ncache/\nbuild/\n*.secret\n";
/** The committer line git writes with GIT_TEST_ENV's identity and date. */
const IDENT = "Ariel Test <ariel@example.invalid> 1767225600 +0000";

/** Host ports whose git runs with `env` on top (a fixed identity and date by default); `calls` logs each git argv. */
function portsWith(env: Record<string, string> = GIT_TEST_ENV, calls?: string[][]): Ports {
  const run: GitPort["run"] = (args, o) => {
    calls?.push([...args]);
    return nodeGit.run(args, { ...o, env: { ...env, ...o.env } });
  };
  return { ...faultyPorts(), git: { run } };
}

/** Git with no identity anywhere: no environment names, no global or system config, config only. */
const NO_IDENT: Record<string, string> = {
  GIT_CONFIG_GLOBAL: "/dev/null",
  GIT_CONFIG_NOSYSTEM: "1",
  GIT_CONFIG_COUNT: "1",
  GIT_CONFIG_KEY_0: "user.useConfigOnly",
  GIT_CONFIG_VALUE_0: "true",
  GIT_AUTHOR_DATE: GIT_TEST_ENV.GIT_AUTHOR_DATE!,
  GIT_COMMITTER_DATE: GIT_TEST_ENV.GIT_COMMITTER_DATE!,
};

/** Run `fn` with the identity variables git would read taken out of this process's environment. */
async function withoutIdentityEnv<T>(fn: () => Promise<T>): Promise<T> {
  const keys = ["GIT_AUTHOR_NAME", "GIT_AUTHOR_EMAIL", "GIT_COMMITTER_NAME", "GIT_COMMITTER_EMAIL", "EMAIL"];
  const saved = keys.map((k) => [k, process.env[k]] as const);
  for (const k of keys) delete process.env[k];
  try {
    return await fn();
  } finally {
    for (const [k, v] of saved) if (v !== undefined) process.env[k] = v;
  }
}

/**
 * api: a repository with a tracked symlink and a tracked file under an ignored directory; wt: a
 * linked worktree of it on branch ariel/t1 (what a leg is).
 */
function workspace(): void {
  root = tempDir("ariel-snapshot-");
  api = join(root, "api");
  initRepo(api, {
    ".gitignore": GITIGNORE,
    "README.md": "# api\n",
    "src/keep.txt": "keep\n",
    "src/gone.txt": "gone\n",
    "staged-gone.txt": "staged gone\n",
    "run.sh": "echo run\n",
    "with space.txt": "space\n",
    "becomes-link.txt": "plain\n",
    "old-name.txt": "rename me\n",
  });
  symlinkSync("README.md", join(api, "tracked-link"));
  writeFile(join(api, "build/out.txt"), "built\n");
  git(api, "add", "-f", "tracked-link", "build/out.txt");
  git(api, "commit", "-q", "-m", "links");
  wt = join(root, "wt");
  git(api, "worktree", "add", "-q", "-b", "ariel/t1", wt);
}

/** Every kind of local work in wt: staged, unstaged, deleted, modes, links, odd names, ignored files. */
function localWork(): void {
  writeFile(join(wt, "README.md"), "edited\n");
  writeFile(join(wt, "src/keep.txt"), "staged edit\n");
  git(wt, "add", "src/keep.txt");
  rmSync(join(wt, "src/gone.txt"));
  git(wt, "rm", "-q", "staged-gone.txt");
  chmodSync(join(wt, "run.sh"), 0o755);
  writeFile(join(wt, "new dir/untracked.txt"), "untracked\n");
  writeFile(join(wt, "new dir/exec.sh"), "#!/bin/sh\n");
  chmodSync(join(wt, "new dir/exec.sh"), 0o755);
  symlinkSync("../README.md", join(wt, "new dir/up-link"));
  symlinkSync("nowhere", join(wt, "dangling"));
  writeFile(join(wt, "with space.txt"), "space edited\n");
  writeFile(join(wt, "line\nbreak.txt"), "newline name\n");
  writeFile(join(wt, "ünïcødé ✓.txt"), "unicode\n");
  writeFile(join(wt, "added.txt"), "staged new\n");
  git(wt, "add", "added.txt");
  rmSync(join(wt, "tracked-link"));
  symlinkSync("src/keep.txt", join(wt, "tracked-link"));
  rmSync(join(wt, "becomes-link.txt"));
  symlinkSync("README.md", join(wt, "becomes-link.txt"));
  renameSync(join(wt, "old-name.txt"), join(wt, "new-name.txt"));
  writeFile(join(wt, "build/out.txt"), "rebuilt\n"); // tracked, under an ignored directory
  // Ignored, not overlay: not work (docs/worktree.md), left out.
  writeFile(join(wt, ".env"), "SECRET=1\n");
  writeFile(join(wt, "cache/x.log"), "log\n");
  writeFile(join(wt, "b.secret"), "ignored\n");
}

/** What a snapshot of localWork() must hold: path → "<x|-> content" or "link -> target". */
const WORK_TREE: Record<string, string> = {
  ".gitignore": `- ${GITIGNORE}`,
  "README.md": "- edited\n",
  "added.txt": "- staged new\n",
  "becomes-link.txt": "link -> README.md",
  "build/out.txt": "- rebuilt\n",
  dangling: "link -> nowhere",
  "line\nbreak.txt": "- newline name\n",
  "new dir/exec.sh": "x #!/bin/sh\n",
  "new dir/untracked.txt": "- untracked\n",
  "new dir/up-link": "link -> ../README.md",
  "new-name.txt": "- rename me\n",
  "run.sh": "x echo run\n",
  "src/keep.txt": "- staged edit\n",
  "tracked-link": "link -> src/keep.txt",
  "with space.txt": "- space edited\n",
  "ünïcødé ✓.txt": "- unicode\n",
};

/** Files and links under `dir` (its `.git` left out), in the format of {@link treeOf}. */
function picture(dir: string, rel = ""): Record<string, string> {
  const out: Record<string, string> = {};
  for (const name of readdirSync(join(dir, rel)).sort()) {
    if (rel === "" && name === ".git") continue;
    const r = rel === "" ? name : `${rel}/${name}`;
    const p = join(dir, r);
    const st = lstatSync(p);
    if (st.isSymbolicLink()) out[r] = `link -> ${readlinkSync(p)}`;
    else if (st.isDirectory()) Object.assign(out, picture(dir, r));
    else out[r] = `${st.mode & 0o100 ? "x" : "-"} ${readFileSync(p, "utf8")}`;
  }
  return out;
}

/** Every entry of a commit's tree: "<x|-> content", "link -> target", or "gitlink <sha>". */
function treeOf(repo: string, commit: string): Record<string, string> {
  const out: Record<string, string> = {};
  for (const entry of gitRaw(repo, "ls-tree", "-r", "-z", commit).stdout.split("\0")) {
    if (entry === "") continue;
    const tab = entry.indexOf("\t");
    const [mode, , oid] = entry.slice(0, tab).split(" ");
    const path = entry.slice(tab + 1);
    if (mode === "160000") {
      out[path] = `gitlink ${oid}`;
      continue;
    }
    const blob = gitRaw(repo, "cat-file", "blob", oid!).stdout;
    out[path] = mode === "120000" ? `link -> ${blob}` : `${mode === "100755" ? "x" : "-"} ${blob}`;
  }
  return out;
}

/** Porcelain v1 status of a checkout, one entry per path, sorted. */
const status = (dir: string) =>
  gitRaw(dir, "status", "--porcelain", "-z", "--untracked-files=all")
    .stdout.split("\0")
    .filter(Boolean)
    .sort();
const adminDir = (dir: string) => git(dir, "rev-parse", "--absolute-git-dir");
const tempIndexes = (dir: string) =>
  readdirSync(adminDir(dir)).filter((n) => n.startsWith("ariel-snapshot-"));
const parentsOf = (commit: string) => git(api, "rev-list", "--parents", "-n1", commit).split(" ").slice(1);
/** The message of a commit, exactly as stored (after the header's blank line). */
const messageOf = (commit: string) => {
  const raw = gitRaw(api, "cat-file", "commit", commit).stdout;
  return raw.slice(raw.indexOf("\n\n") + 2);
};
/** A commit no ref holds, made in api. */
const loose = (msg: string) => git(api, "commit-tree", "-m", msg, git(api, "rev-parse", "HEAD^{tree}"));

describe("makeSnapshot: what the tree holds", () => {
  it("every kind of local work, and nothing ignored; the worktree, its index and HEAD untouched", async () => {
    workspace();
    localWork();
    mkdirSync(join(wt, "emptydir")); // git keeps no empty directory: not part of the contract
    const head = git(wt, "rev-parse", "HEAD");
    const index = readFileSync(join(adminDir(wt), "index"));
    const files = picture(wt);
    const staged = git(wt, "diff", "--cached", "--name-status");

    const snap = await makeSnapshot(portsWith(), wt, REF, NONE, "snap");
    expect(snap).toEqual({ ref: REF, commit: git(api, "rev-parse", REF), parent: head });
    expect(treeOf(api, snap.commit)).toEqual(WORK_TREE);
    // The same as the files on disk, minus the ignored ones.
    const { ".env": _e, "cache/x.log": _c, "b.secret": _s, ...notIgnored } = files;
    expect(treeOf(api, snap.commit)).toEqual(notIgnored);
    expect(parentsOf(snap.commit)).toEqual([head]);
    expect(messageOf(snap.commit)).toBe("snap\n");

    expect(picture(wt)).toEqual(files);
    expect(readFileSync(join(adminDir(wt), "index"))).toEqual(index);
    expect(git(wt, "diff", "--cached", "--name-status")).toBe(staged);
    expect(git(wt, "rev-parse", "HEAD", "--abbrev-ref", "HEAD")).toBe(`${head}\nariel/t1`);
    expect(tempIndexes(wt)).toEqual([]);
    // worktreeTree (what remove's re-check compares) gives the very tree.
    expect(await worktreeTree(portsWith(), wt, NONE, head)).toBe(git(api, "rev-parse", `${REF}^{tree}`));
  });

  it("applySnapshot in a new worktree of the branch: exactly those files, modes and links; deletions; unstaged; HEAD and index at the branch", async () => {
    workspace();
    localWork();
    const head = git(wt, "rev-parse", "HEAD");
    const snap = await makeSnapshot(portsWith(), wt, REF, NONE, "snap");
    git(api, "worktree", "remove", "--force", wt);
    git(api, "worktree", "add", "-q", wt, "ariel/t1");

    expect((await snapshotPaths(portsWith(), wt, snap.commit)).sort()).toEqual(
      [
        "README.md",
        "added.txt",
        "becomes-link.txt",
        "build/out.txt",
        "dangling",
        "line\nbreak.txt",
        "new dir/exec.sh",
        "new dir/untracked.txt",
        "new dir/up-link",
        "new-name.txt",
        "old-name.txt",
        "run.sh",
        "src/gone.txt",
        "src/keep.txt",
        "staged-gone.txt",
        "tracked-link",
        "with space.txt",
        "ünïcødé ✓.txt",
      ].sort(),
    );
    await applySnapshot(portsWith(), wt, snap.commit);
    expect(picture(wt)).toEqual(WORK_TREE);
    expect(git(wt, "rev-parse", "HEAD", "--abbrev-ref", "HEAD")).toBe(`${head}\nariel/t1`);
    expect(git(wt, "write-tree")).toBe(git(wt, "rev-parse", "HEAD^{tree}")); // index back at HEAD
    expect(status(wt)).toEqual(
      [
        " M README.md",
        " M build/out.txt",
        " M run.sh",
        " M src/keep.txt",
        " M tracked-link",
        " M with space.txt",
        " T becomes-link.txt",
        " D src/gone.txt",
        " D staged-gone.txt",
        " D old-name.txt",
        "?? added.txt",
        "?? dangling",
        "?? line\nbreak.txt",
        "?? new dir/exec.sh",
        "?? new dir/untracked.txt",
        "?? new dir/up-link",
        "?? new-name.txt",
        "?? ünïcødé ✓.txt",
      ].sort(),
    );
    expect(git(api, "rev-parse", REF)).toBe(snap.commit); // the ref is kept
  });

  it("applySnapshot refuses to overwrite an untracked file or a local edit in its way: ERR_GIT, both kept, index at HEAD", async () => {
    workspace();
    writeFile(join(wt, "README.md"), "edited\n");
    writeFile(join(wt, "new.txt"), "from the snapshot\n");
    const snap = await makeSnapshot(portsWith(), wt, REF, NONE, "snap");
    git(api, "worktree", "remove", "--force", wt);

    git(api, "worktree", "add", "-q", wt, "ariel/t1");
    writeFile(join(wt, "new.txt"), "someone else's\n");
    const e1 = await arielErrorOf(applySnapshot(portsWith(), wt, snap.commit));
    expect([e1.code, e1.context.git]).toEqual(["ERR_GIT", "read-tree"]);
    expect(readFileSync(join(wt, "new.txt"), "utf8")).toBe("someone else's\n");
    expect(readFileSync(join(wt, "README.md"), "utf8")).toBe("# api\n");
    expect(status(wt)).toEqual(["?? new.txt"]);

    rmSync(join(wt, "new.txt"));
    writeFile(join(wt, "README.md"), "a local edit\n");
    const e2 = await arielErrorOf(applySnapshot(portsWith(), wt, snap.commit));
    expect([e2.code, e2.context.git]).toEqual(["ERR_GIT", "read-tree"]);
    expect(readFileSync(join(wt, "README.md"), "utf8")).toBe("a local edit\n");
    expect(existsSync(join(wt, "new.txt"))).toBe(false);
    expect(status(wt)).toEqual([" M README.md"]);
  });

  // The tree is `git read-tree HEAD` + `git add -A` in a temporary index: a version of a file
  // staged and then edited again was in no snapshot (unreachable after remove, as `git stash`
  // never loses it). It is kept now as a commit of the index, an extra parent named in a trailer.
  it("a partly staged file: the staged version is kept too, as a commit of the index", async () => {
    workspace();
    writeFile(join(wt, "README.md"), "staged version\n");
    git(wt, "add", "README.md");
    writeFile(join(wt, "README.md"), "worktree version\n");
    const staged = git(wt, "rev-parse", ":README.md");
    const snap = await makeSnapshot(portsWith(), wt, REF, NONE, "snap");
    expect(treeOf(api, snap.commit)["README.md"]).toBe("- worktree version\n");
    expect(
      git(api, "rev-list", "--objects", snap.commit)
        .split("\n")
        .map((l) => l.split(" ")[0]),
    ).toContain(staged);
  });
});

describe("makeSnapshot: parents, trailers and the ref", () => {
  it("HEAD, then the previous snapshot, then the kept commits (each once); trailers for every kept commit and own ref, in order", async () => {
    workspace();
    const head = git(wt, "rev-parse", "HEAD");
    const [k1, k2] = [loose("k1"), loose("k2")];
    writeFile(join(wt, "a.txt"), "1\n");
    const first = await makeSnapshot(portsWith(), wt, REF, NONE, "first");
    expect(messageOf(first.commit)).toBe("first\n");
    expect(parentsOf(first.commit)).toEqual([head]);

    writeFile(join(wt, "a.txt"), "2\n");
    const own = [
      { name: "refs/worktree/x", oid: k1 },
      { name: "refs/bisect/bad", oid: k2 },
    ];
    const second = await makeSnapshot(
      portsWith(),
      wt,
      REF,
      NONE,
      "second",
      [k1, head, first.commit, k2],
      own,
    );
    expect(second).toEqual({ ref: REF, commit: git(api, "rev-parse", REF), parent: head });
    expect(parentsOf(second.commit)).toEqual([head, first.commit, k1, k2]);
    expect(messageOf(second.commit)).toBe(
      [
        "second",
        "",
        `${KEPT_TRAILER}: ${k1}`,
        `${KEPT_TRAILER}: ${head}`,
        `${KEPT_TRAILER}: ${first.commit}`,
        `${KEPT_TRAILER}: ${k2}`,
        `${KEPT_REF_TRAILER}: refs/worktree/x ${k1}`,
        `${KEPT_REF_TRAILER}: refs/bisect/bad ${k2}`,
        "",
      ].join("\n"),
    );
    expect(await keptCommits(portsWith(), api, second.commit)).toEqual([k1, head, first.commit, k2]);
    expect(await keptRefs(portsWith(), api, second.commit)).toEqual(own);
    expect(treeOf(api, second.commit)["a.txt"]).toBe("- 2\n");
    expect(treeOf(api, first.commit)["a.txt"]).toBe("- 1\n"); // the older one stays reachable
  });

  it("own refs alone still get their trailers (and no kept commit becomes a parent)", async () => {
    workspace();
    const head = git(wt, "rev-parse", "HEAD");
    const k1 = loose("k1");
    const own = [{ name: "refs/rewritten/onto", oid: k1 }];
    const snap = await makeSnapshot(portsWith(), wt, REF, NONE, "refs only", [], own);
    expect(messageOf(snap.commit)).toBe(`refs only\n\n${KEPT_REF_TRAILER}: refs/rewritten/onto ${k1}\n`);
    expect(parentsOf(snap.commit)).toEqual([head]);
    expect(await keptCommits(portsWith(), api, snap.commit)).toEqual([]);
    expect(await keptRefs(portsWith(), api, snap.commit)).toEqual(own);
  });

  it("HEAD's branch deleted: the first kept commit stands in for HEAD and the tree is built on it", async () => {
    workspace();
    writeFile(join(wt, "work.txt"), "committed\n");
    git(wt, "add", "work.txt");
    git(wt, "commit", "-q", "-m", "on the branch");
    const tip = git(wt, "rev-parse", "HEAD");
    const older = loose("older");
    git(wt, "update-ref", "-d", "refs/heads/ariel/t1");
    writeFile(join(wt, "wip.txt"), "uncommitted\n");

    const snap = await makeSnapshot(portsWith(), wt, REF, NONE, "gone", [tip, older]);
    expect(snap).toEqual({ ref: REF, commit: git(api, "rev-parse", REF), parent: tip });
    expect(parentsOf(snap.commit)).toEqual([tip, older]);
    expect(treeOf(api, snap.commit)).toEqual({ ...treeOf(api, tip), "wip.txt": "- uncommitted\n" });
    expect(await keptCommits(portsWith(), api, snap.commit)).toEqual([tip, older]);
  });

  it("no HEAD and nothing kept: a commit without parents holding every file of the worktree", async () => {
    workspace();
    writeFile(join(wt, "work.txt"), "committed\n");
    git(wt, "add", "work.txt");
    git(wt, "commit", "-q", "-m", "on the branch");
    git(wt, "update-ref", "-d", "refs/heads/ariel/t1");
    const snap = await makeSnapshot(portsWith(), wt, REF, NONE, "orphan");
    expect(snap.parent).toBeNull();
    expect(parentsOf(snap.commit)).toEqual([]);
    // build/out.txt, tracked under an ignored directory, is taken; .env, ignored and untracked, not.
    const { ".env": _e, ...files } = picture(wt);
    expect(treeOf(api, snap.commit)).toEqual(files);
    expect(files["work.txt"]).toBe("- committed\n");
    expect(files["build/out.txt"]).toBeDefined();
  });

  // With no parent (HEAD's branch deleted and no kept commit, as `remove --snapshot --allow
  // branch-missing` after the branch's commits were merged elsewhere) the tree started empty, so
  // `git add -A` passed over a tracked file that .gitignore matches, and its local edit was lost.
  // The worktree's index is the base now.
  it("no HEAD and nothing kept: a modified tracked file under an ignored directory is kept", async () => {
    workspace();
    git(wt, "update-ref", "-d", "refs/heads/ariel/t1");
    writeFile(join(wt, "build/out.txt"), "rebuilt\n");
    const snap = await makeSnapshot(portsWith(), wt, REF, NONE, "orphan");
    expect(treeOf(api, snap.commit)["build/out.txt"]).toBe("- rebuilt\n");
  });

  it("no identity configured anywhere: commits as ariel <ariel@localhost>", async () => {
    workspace();
    writeFile(join(wt, "a.txt"), "a\n");
    const calls: string[][] = [];
    const snap = await withoutIdentityEnv(() =>
      makeSnapshot(portsWith(NO_IDENT, calls), wt, REF, NONE, "no ident"),
    );
    expect(git(api, "log", "-1", "--format=%an <%ae>|%cn <%ce>", snap.commit)).toBe(
      "ariel <ariel@localhost>|ariel <ariel@localhost>",
    );
    expect(calls.filter((c) => c.includes("commit-tree")).map((c) => c.slice(0, 5))).toEqual([
      ["commit-tree", expect.stringMatching(/^[0-9a-f]{40}$/), "-p", expect.any(String), "-m"],
      ["-c", "user.name=ariel", "-c", "user.email=ariel@localhost", "commit-tree"],
    ]);
    expect(treeOf(api, snap.commit)["a.txt"]).toBe("- a\n");
  });

  it("commit-tree failing for another reason is ERR_GIT: no ref written, no temporary index left", async () => {
    workspace();
    writeFile(join(wt, "a.txt"), "a\n");
    const e = await arielErrorOf(makeSnapshot(portsWith(), wt, REF, NONE, "bad", ["1".repeat(40)]));
    expect([e.code, e.context.git]).toEqual(["ERR_GIT", "commit-tree"]);
    expect(gitRaw(api, "rev-parse", "-q", "--verify", REF).code).not.toBe(0);
    expect(tempIndexes(wt)).toEqual([]);
  });

  it.each([
    ["no snapshot yet", false],
    ["over an earlier snapshot", true],
  ])(
    "%s: a ref another writer moved meanwhile is not overwritten (ERR_GIT, theirs kept)",
    async (_n, earlier) => {
      workspace();
      if (earlier) await makeSnapshot(portsWith(), wt, REF, NONE, "earlier");
      writeFile(join(wt, "a.txt"), "a\n");
      const theirs = loose("another writer's");
      const ports = portsWith();
      const inner = ports.git.run;
      ports.git = {
        run: (args, o) => {
          if (args[0] === "update-ref" && args.includes("ariel: snapshot"))
            git(api, "update-ref", REF, theirs);
          return inner(args, o);
        },
      };
      const e = await arielErrorOf(makeSnapshot(ports, wt, REF, NONE, "mine"));
      expect([e.code, e.context.git]).toEqual(["ERR_GIT", "update-ref"]);
      expect(git(api, "rev-parse", REF)).toBe(theirs);
    },
  );
});

describe("worktreeTree: the overlay", () => {
  /** A tracked overlay file (the source's local, uncommitted copy, marked skip-worktree) and an ignored one. */
  function overlayLeg(): { head: string; all: string[] } {
    workspace();
    writeFile(join(api, "config.json"), '{"v":1}\n');
    git(api, "add", "config.json");
    git(api, "commit", "-q", "-m", "config");
    git(wt, "merge", "-q", "--ff-only", "main");
    writeFile(join(wt, "config.json"), '{"secret":"from the source"}\n');
    git(wt, "update-index", "--skip-worktree", "config.json");
    writeFile(join(wt, ".env"), "SECRET=source\n");
    return { head: git(wt, "rev-parse", "HEAD"), all: ["config.json", ".env"] };
  }

  it("unchanged copies are left out: the tree is HEAD's, tracked copy at HEAD's version, the ignored one absent", async () => {
    const { head, all } = overlayLeg();
    writeFile(join(wt, "mine.txt"), "mine\n");
    const tree = await worktreeTree(portsWith(), wt, { all, changed: [] }, head);
    const snap = git(api, "commit-tree", "-p", head, "-m", "t", tree);
    expect(treeOf(api, snap)).toEqual({ ...treeOf(api, head), "mine.txt": "- mine\n" });
    expect(treeOf(api, snap)["config.json"]).toBe('- {"v":1}\n');
  });

  it("changed copies are taken (the ignored one forced in); a changed copy that is gone is a deletion, not an error", async () => {
    const { head, all } = overlayLeg();
    writeFile(join(wt, ".env"), "SECRET=edited\n");
    writeFile(join(wt, "config.json"), '{"secret":"edited"}\n');
    const tree = await worktreeTree(portsWith(), wt, { all, changed: all }, head);
    const both = treeOf(api, git(api, "commit-tree", "-m", "t", tree));
    expect([both[".env"], both["config.json"]]).toEqual(["- SECRET=edited\n", '- {"secret":"edited"}\n']);

    rmSync(join(wt, ".env"));
    rmSync(join(wt, "config.json"));
    const gone = await worktreeTree(portsWith(), wt, { all, changed: all }, head);
    const { "config.json": _c, ...rest } = treeOf(api, head);
    expect(treeOf(api, git(api, "commit-tree", "-m", "t", gone))).toEqual(rest);
  });

  it("with no parent, unchanged copies are taken out of the tree (tracked or not)", async () => {
    overlayLeg();
    const tree = await worktreeTree(portsWith(), wt, { all: ["config.json", ".env"], changed: [] }, null);
    // (build/out.txt, tracked under an ignored directory, is taken: see "no HEAD and nothing kept" above.)
    const { "config.json": _c, ".env": _e, ...notIgnored } = picture(wt);
    expect(treeOf(api, git(api, "commit-tree", "-m", "t", tree))).toEqual(notIgnored);
  });

  it.each([
    ["on HEAD", true],
    ["with no parent", false],
  ])("overlay paths are literal, never globs (%s)", async (_n, onHead) => {
    workspace();
    const head = git(wt, "rev-parse", "HEAD");
    // As globs, `x[1].txt` matches the work file `x1.txt` and `y[1].secret` the ignored `y1.secret`.
    writeFile(join(wt, "x[1].txt"), "overlay copy\n");
    writeFile(join(wt, "x1.txt"), "work\n");
    writeFile(join(wt, "y[1].secret"), "changed overlay\n");
    writeFile(join(wt, "y1.secret"), "ignored, not overlay\n");
    const overlay = { all: ["x[1].txt", "y[1].secret"], changed: ["y[1].secret"] };
    const tree = await worktreeTree(portsWith(), wt, overlay, onHead ? head : null);
    const got = treeOf(api, git(api, "commit-tree", "-m", "t", tree));
    expect([got["x1.txt"], got["y[1].secret"], got["x[1].txt"], got["y1.secret"]]).toEqual([
      "- work\n",
      "- changed overlay\n",
      undefined,
      undefined,
    ]);
  });

  it("a failing build (a parent that is no commit) is ERR_GIT and leaves no temporary index", async () => {
    workspace();
    const e = await arielErrorOf(worktreeTree(portsWith(), wt, NONE, "2".repeat(40)));
    expect([e.code, e.context.git]).toEqual(["ERR_GIT", "read-tree"]);
    expect(tempIndexes(wt)).toEqual([]);
  });
});

describe("keptCommits and keptRefs: only well-formed trailers", () => {
  it("keptCommits takes exact trailer lines of 40 or 64 lower-case hex, in message order", async () => {
    workspace();
    const a = "a".repeat(40);
    const b = "b".repeat(64);
    const msg = [
      "subject",
      "",
      `${KEPT_TRAILER}: ${a}`,
      `${KEPT_TRAILER}: ${"C".repeat(40)}`, // upper case
      `${KEPT_TRAILER}: ${"d".repeat(39)}`, // too short
      `${KEPT_TRAILER}: ${"e".repeat(40)} `, // trailing space
      ` ${KEPT_TRAILER}: ${"f".repeat(40)}`, // indented
      `${KEPT_TRAILER}:${"0".repeat(40)}`, // no space
      `${KEPT_REF_TRAILER}: refs/worktree/x ${"1".repeat(40)}`,
      `${KEPT_TRAILER}: ${b}`,
    ].join("\n");
    const c = git(api, "commit-tree", "-m", msg, git(api, "rev-parse", "HEAD^{tree}"));
    expect(await keptCommits(portsWith(), api, c)).toEqual([a, b]);
    expect(await keptCommits(portsWith(), api, git(api, "rev-parse", "HEAD"))).toEqual([]);
  });

  it("keptRefs takes names under the three per-worktree prefixes that are valid ref names, nothing else", async () => {
    workspace();
    const o = "a".repeat(40);
    const names = [
      "refs/worktree/ok",
      "refs/bisect/bad",
      "refs/rewritten/onto",
      "refs/worktree/deep/er",
      "refs/worktree/", // the bare prefix
      "refs/worktreex/a",
      "refs/heads/main",
      "refs/ariel/snapshots/t1/api",
      "refs/tags/v1",
      "HEAD",
      "refs/worktree/a..b",
      "refs/worktree/x.lock",
      "refs/worktree/a/.hidden",
      "refs/worktree/a@{1}",
      "refs/worktree/a~1",
      "refs/worktree/a^",
      "refs/worktree/a:b",
      "refs/worktree/a?b",
      "refs/worktree/a*",
      "refs/worktree/a[b",
      "refs/worktree/a\\b",
      "refs/worktree/dir/",
      "refs/worktree/a\x7fb",
    ];
    const msg = ["subject", "", ...names.map((n) => `${KEPT_REF_TRAILER}: ${n} ${o}`)].join("\n");
    const extra = [
      `${KEPT_REF_TRAILER}: refs/worktree/short ${"a".repeat(39)}`,
      `${KEPT_REF_TRAILER}: refs/worktree/upper ${"A".repeat(40)}`,
      `${KEPT_REF_TRAILER}: refs/worktree/two spaces ${o}`,
      `${KEPT_REF_TRAILER}: refs/bisect/long ${"b".repeat(64)}`,
    ].join("\n");
    const c = git(api, "commit-tree", "-m", `${msg}\n${extra}`, git(api, "rev-parse", "HEAD^{tree}"));
    expect(await keptRefs(portsWith(), api, c)).toEqual([
      { name: "refs/worktree/ok", oid: o },
      { name: "refs/bisect/bad", oid: o },
      { name: "refs/rewritten/onto", oid: o },
      { name: "refs/worktree/deep/er", oid: o },
      { name: "refs/bisect/long", oid: "b".repeat(64) },
    ]);
  });

  // docs/worktree.md: restore writes "only names under those three prefixes that git accepts".
  // Names git refuses (a component ending in `.lock`, `//`, a trailing `.`) once passed the
  // filter, and git refused restoreRefs' one transaction whole: the valid ref was lost with them.
  it("a name git refuses is left out; the valid ref beside it is restored", async () => {
    workspace();
    const head = git(api, "rev-parse", "HEAD");
    const bad = ["refs/worktree/a.lock/b", "refs/worktree/a//b", "refs/worktree/a."];
    for (const n of bad) expect(gitRaw(api, "check-ref-format", n).code).not.toBe(0);
    const msg = [
      "forged",
      "",
      ...[...bad, "refs/worktree/ok"].map((n) => `${KEPT_REF_TRAILER}: ${n} ${head}`),
    ];
    const c = git(api, "commit-tree", "-m", msg.join("\n"), git(api, "rev-parse", "HEAD^{tree}"));
    const refs = await keptRefs(portsWith(), api, c);
    expect(await restoreRefs(portsWith(), wt, refs)).toEqual([{ name: "refs/worktree/ok", oid: head }]);
    expect(git(wt, "rev-parse", "refs/worktree/ok")).toBe(head);
  });
});

describe("ownRefsOf and restoreRefs: the worktree's own refs", () => {
  it("ownRefsOf lists this worktree's refs/worktree, refs/bisect and refs/rewritten (tags as their object), no other ref", async () => {
    workspace();
    const head = git(api, "rev-parse", "HEAD");
    const [k1, k2] = [loose("k1"), loose("k2")];
    git(api, "tag", "-a", "-m", "annotated", "v1", k1);
    const tag = git(api, "rev-parse", "refs/tags/v1");
    // In wt (its admin dir), in the main worktree, and shared ones.
    git(wt, "update-ref", "refs/worktree/x", k1);
    git(wt, "update-ref", "refs/worktree/tagged", tag);
    git(wt, "update-ref", "refs/bisect/bad", k2);
    git(wt, "update-ref", `refs/bisect/good-${head}`, head);
    git(wt, "update-ref", "refs/rewritten/onto", head);
    git(api, "update-ref", "refs/worktree/main-only", k2);
    git(api, "update-ref", "refs/worktreex/shared", k1);
    git(api, "update-ref", "refs/heads/other", k1);
    git(api, "update-ref", REF, k1);

    expect(await ownRefsOf(portsWith(), wt)).toEqual([
      { name: "refs/bisect/bad", oid: k2 },
      { name: `refs/bisect/good-${head}`, oid: head },
      { name: "refs/rewritten/onto", oid: head },
      { name: "refs/worktree/tagged", oid: tag },
      { name: "refs/worktree/x", oid: k1 },
    ]);
    expect(await ownRefsOf(portsWith(), api)).toEqual([{ name: "refs/worktree/main-only", oid: k2 }]);
  });

  it("restoreRefs writes the refs whose object exists into the new worktree's admin dir and returns exactly those", async () => {
    workspace();
    const [k1, k2] = [loose("k1"), loose("k2")];
    const gone = "3".repeat(40);
    const refs = [
      { name: "refs/worktree/x", oid: k1 },
      { name: "refs/bisect/gone", oid: gone },
      { name: "refs/bisect/bad", oid: k2 },
      { name: "refs/rewritten/onto", oid: k1 },
    ];
    expect(await restoreRefs(portsWith(), wt, refs)).toEqual([refs[0], refs[2], refs[3]]);
    expect(
      git(
        wt,
        "for-each-ref",
        "--format=%(refname) %(objectname)",
        "refs/worktree",
        "refs/bisect",
        "refs/rewritten",
      ),
    ).toBe([`refs/bisect/bad ${k2}`, `refs/rewritten/onto ${k1}`, `refs/worktree/x ${k1}`].join("\n"));
    const admin = adminDir(wt);
    expect(
      ["refs/worktree/x", "refs/bisect/bad", "refs/rewritten/onto"].map((r) => existsSync(join(admin, r))),
    ).toEqual([true, true, true]);
    // Not in the shared refs: the main worktree sees none of them.
    expect(git(api, "for-each-ref", "refs/worktree", "refs/bisect", "refs/rewritten")).toBe("");
    expect(await ownRefsOf(portsWith(), wt)).toEqual([refs[2], refs[3], refs[0]]);
  });

  it("nothing to write: no update-ref at all ([] and every object gone)", async () => {
    workspace();
    const calls: string[][] = [];
    expect(await restoreRefs(portsWith(GIT_TEST_ENV, calls), wt, [])).toEqual([]);
    expect(calls).toEqual([]);
    const gone = [{ name: "refs/worktree/x", oid: "4".repeat(40) }];
    expect(await restoreRefs(portsWith(GIT_TEST_ENV, calls), wt, gone)).toEqual([]);
    expect(calls.map((c) => c[0])).toEqual(["cat-file"]);
    expect(git(wt, "for-each-ref", "refs/worktree")).toBe("");
  });

  it("a ref of that name already there: ERR_GIT, it keeps its object, and no other ref is written (one transaction)", async () => {
    workspace();
    const [k1, k2] = [loose("k1"), loose("k2")];
    git(wt, "update-ref", "refs/worktree/x", k2);
    const e = await arielErrorOf(
      restoreRefs(portsWith(), wt, [
        { name: "refs/worktree/new", oid: k1 },
        { name: "refs/worktree/x", oid: k1 },
      ]),
    );
    expect([e.code, e.context.git]).toEqual(["ERR_GIT", "update-ref"]);
    expect(git(wt, "for-each-ref", "--format=%(refname) %(objectname)", "refs/worktree")).toBe(
      `refs/worktree/x ${k2}`,
    );
  });
});

describe("restoreReflog: kept commits back into HEAD's reflog", () => {
  const logOf = (dir: string) => join(adminDir(dir), "logs/HEAD");
  const line = (c: string, ident = IDENT) => `${c} ${c} ${ident}\tariel: restored from a snapshot\n`;

  it("appends one line per commit to the worktree's logs/HEAD; HEAD and its file unchanged; git log -g lists them", async () => {
    workspace();
    const head = git(wt, "rev-parse", "HEAD");
    const headFile = readFileSync(join(adminDir(wt), "HEAD"), "utf8");
    const [k1, k2] = [loose("k1"), loose("k2")];
    const before = readFileSync(logOf(wt), "utf8");
    expect(before.endsWith("\n")).toBe(true);
    await restoreReflog(portsWith(), wt, [k1, k2]);
    expect(readFileSync(logOf(wt), "utf8")).toBe(`${before}${line(k1)}${line(k2)}`);
    expect(git(wt, "log", "-g", "--format=%H", "HEAD").split("\n").slice(0, 2)).toEqual([k2, k1]);
    expect(readFileSync(join(adminDir(wt), "HEAD"), "utf8")).toBe(headFile);
    expect(git(wt, "rev-parse", "HEAD")).toBe(head);
    // The main worktree's reflog is not the one written.
    expect(git(api, "log", "-g", "--format=%H", "HEAD").split("\n")).not.toContain(k1);
  });

  it("nothing to write: the file untouched, no git run", async () => {
    workspace();
    const before = readFileSync(logOf(wt));
    const calls: string[][] = [];
    await restoreReflog(portsWith(GIT_TEST_ENV, calls), wt, []);
    expect(readFileSync(logOf(wt))).toEqual(before);
    expect(calls).toEqual([]);
  });

  it("a missing reflog is made; one without a final newline gets one before the new lines", async () => {
    workspace();
    const k1 = loose("k1");
    rmSync(logOf(wt));
    await restoreReflog(portsWith(), wt, [k1]);
    expect(readFileSync(logOf(wt), "utf8")).toBe(line(k1));

    const k2 = loose("k2");
    writeFileSync(logOf(wt), line(k1).slice(0, -1));
    await restoreReflog(portsWith(), wt, [k2]);
    expect(readFileSync(logOf(wt), "utf8")).toBe(`${line(k1)}${line(k2)}`);
  });

  it("no committer identity: ariel <ariel@localhost> at the clock's second", async () => {
    workspace();
    const k1 = loose("k1");
    const before = readFileSync(logOf(wt), "utf8");
    const ports = { ...portsWith(NO_IDENT), clock: { now: () => 1_800_000_000_999 } };
    await withoutIdentityEnv(() => restoreReflog(ports, wt, [k1]));
    expect(readFileSync(logOf(wt), "utf8")).toBe(
      `${before}${line(k1, "ariel <ariel@localhost> 1800000000 +0000")}`,
    );
  });

  it("not a checkout (no .git): nothing written, no error", async () => {
    workspace();
    const plain = join(root, "plain");
    mkdirSync(plain);
    await restoreReflog(portsWith(), plain, [loose("k1")]);
    expect(readdirSync(plain)).toEqual([]);
  });
});
