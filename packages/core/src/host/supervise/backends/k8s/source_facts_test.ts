/**
 * What a Job needs from a source's checkout (source_facts.ts), against real repositories in a
 * temp dir: which remote (origin, or the only one), its URL redacted, the base commit (HEAD, a
 * branch, a tag), whether a remote-tracking branch of that remote holds it, the exact git
 * commands run, and each refusal whole (no remote, several without origin, a remote without a
 * URL, a base that is not a commit; the workspace root named as such).
 */
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { arielErrorOf } from "../../../../_fixture.ts";
import type { GitPort } from "../../../../ports.ts";
import { git, initRepo, removeDir, tempDir } from "../../../_fixture.ts";
import { hostPorts } from "../../../ports.ts";
import { sourceFacts } from "./source_facts.ts";

let dir = "";
afterEach(() => {
  if (dir) removeDir(dir);
  dir = "";
});

/** The host's git, recording each command's arguments. */
function recordingGit(): { g: GitPort; calls: string[][] } {
  const real = hostPorts().git;
  const calls: string[][] = [];
  return {
    calls,
    g: {
      run: (args, options) => {
        calls.push([...args]);
        return real.run(args, options);
      },
    },
  };
}

/** A checkout `api` with one commit and `remotes` (name → URL); returns its path and HEAD. */
function checkout(remotes: Record<string, string>): { path: string; head: string } {
  dir = tempDir("ariel-k8s-facts-");
  const path = join(dir, "api");
  const head = initRepo(path);
  for (const [name, url] of Object.entries(remotes)) git(path, "remote", "add", name, url);
  return { path, head };
}

const SECRET_URL = "https://bot:s3cret@git.example.com/acme/api.git";
const CLEAN_URL = "https://git.example.com/acme/api.git";

/** The commands sourceFacts runs for remote `r`, base `ref` resolved to `sha`. */
const commands = (r: string, ref: string, sha: string) => [
  ["remote"],
  ["remote", "get-url", "--", r],
  ["rev-parse", "--verify", "--quiet", "--end-of-options", `${ref}^{commit}`],
  ["for-each-ref", "--count=1", "--format=%(refname)", `--contains=${sha}`, `refs/remotes/${r}/`],
];

describe("sourceFacts: the remote and the base", () => {
  it("origin, its URL redacted, HEAD pushed on a branch of origin", async () => {
    const { path, head } = checkout({ origin: SECRET_URL });
    git(path, "update-ref", "refs/remotes/origin/main", head);
    const { g, calls } = recordingGit();
    expect(await sourceFacts(g, { name: "api", path, checkout: true }, undefined)).toEqual({
      remoteName: "origin",
      remote: CLEAN_URL,
      base: head,
      basePushed: true,
    });
    expect(calls).toEqual(commands("origin", "HEAD", head));
  });

  // origin wins among several; a branch of another remote holding the base does not count.
  it("origin among several; the base on another remote's branch only is not pushed", async () => {
    const { path, head } = checkout({ upstream: "https://up.example.com/x.git", origin: CLEAN_URL });
    git(path, "update-ref", "refs/remotes/upstream/main", head);
    const { g } = recordingGit();
    expect(await sourceFacts(g, { name: "api", path, checkout: true }, undefined)).toEqual({
      remoteName: "origin",
      remote: CLEAN_URL,
      base: head,
      basePushed: false,
    });
  });

  // The only remote, whatever its name; a named base (a tag) resolved to its commit.
  it("the only remote, not named origin; a tag as base", async () => {
    const { path, head } = checkout({ upstream: "git@github.com:acme/api.git" });
    git(path, "tag", "-a", "-m", "one", "v1");
    git(path, "commit", "-q", "--allow-empty", "-m", "later");
    git(path, "update-ref", "refs/remotes/upstream/old", head);
    const { g, calls } = recordingGit();
    expect(await sourceFacts(g, { name: "api", path, checkout: true }, "v1")).toEqual({
      remoteName: "upstream",
      remote: "git@github.com:acme/api.git",
      base: head,
      basePushed: true,
    });
    expect(calls).toEqual(commands("upstream", "v1", head));
  });
});

/** What an error says, whole. */
async function refusal(p: Promise<unknown>) {
  const e = await arielErrorOf(p);
  return { code: e.code, message: e.message, hint: e.hint, exit: e.exit, context: e.context };
}

describe("sourceFacts: refusals", () => {
  const noRemote = (what: string, source: string) => ({
    code: "ERR_NO_REMOTE",
    message: `${what} has no remote: a Kubernetes Job has nothing to clone from`,
    hint: "add a remote the cluster can reach, push the base",
    exit: 3,
    context: { source, remotes: [] },
  });

  it("no remote: ERR_NO_REMOTE, nothing more asked of git", async () => {
    const { path } = checkout({});
    const { g, calls } = recordingGit();
    expect(await refusal(sourceFacts(g, { name: "api", path, checkout: true }, undefined))).toEqual(
      noRemote('source "api"', "api"),
    );
    expect(calls).toEqual([["remote"]]);
  });

  it("not a repository (git fails): no remote; the workspace root is named by its path", async () => {
    dir = tempDir("ariel-k8s-facts-");
    const { g } = recordingGit();
    expect(await refusal(sourceFacts(g, { name: ".", path: dir, checkout: false }, undefined))).toEqual(
      noRemote(`workspace root ${dir}`, "."),
    );
  });
});

describe("sourceFacts: refusals of a remote or a base", () => {
  it("several remotes, none named origin", async () => {
    const { path } = checkout({ b: CLEAN_URL, a: CLEAN_URL });
    const { g } = recordingGit();
    expect(await refusal(sourceFacts(g, { name: "api", path, checkout: true }, undefined))).toEqual({
      code: "ERR_NO_REMOTE",
      message: `source "api" has several remotes and none is named origin: which one a Job clones is not clear`,
      hint: "add a remote the cluster can reach, push the base",
      exit: 3,
      context: { source: "api", remotes: ["a", "b"] },
    });
  });

  it("a remote whose URL is empty", async () => {
    const { path } = checkout({});
    git(path, "config", "remote.origin.url", "");
    const { g } = recordingGit();
    expect(await refusal(sourceFacts(g, { name: "api", path, checkout: true }, undefined))).toEqual({
      code: "ERR_NO_REMOTE",
      message: `source "api": remote "origin" has no URL`,
      hint: "add a remote the cluster can reach, push the base",
      exit: 3,
      context: { source: "api" },
    });
  });

  it.each([
    ["HEAD of a repository without a commit", undefined, "HEAD", "make a first commit"],
    ["a base that names nothing", "nope", "nope", "name a branch, tag or commit of that source"],
  ])("%s: ERR_INVALID_INPUT", async (_what, base, ref, hint) => {
    dir = tempDir("ariel-k8s-facts-");
    const path = join(dir, "api");
    if (base === undefined) git(dir, "init", "-q", "api");
    else initRepo(path);
    git(path, "remote", "add", "origin", CLEAN_URL);
    const { g } = recordingGit();
    expect(await refusal(sourceFacts(g, { name: "api", path, checkout: true }, base))).toEqual({
      code: "ERR_INVALID_INPUT",
      message: `source "api": "${ref}" is not a commit`,
      hint,
      exit: 65,
      context: { source: "api", base: ref },
    });
  });
});
