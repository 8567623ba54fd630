import { ArielError } from "../../../../errors.ts";
import { redactUrl } from "../../../../fingerprint.ts";
import { quoteValue } from "../../../../names.ts";
import type { GitPort } from "../../../../ports.ts";
import type { SpawnSource } from "../../../../spawn/resolve.ts";

/** What a Job needs from a source's checkout: where to clone from and at which commit. */
export interface SourceFacts {
  /** The remote's name (`origin`, or the only one). */
  remoteName: string;
  /** Its URL, redacted: a pod gets credentials only from the Secret. */
  remote: string;
  /** The base commit's full id. */
  base: string;
  /** Whether some remote-tracking branch of that remote holds the base (else the pod may not find it). */
  basePushed: boolean;
}

async function git(g: GitPort, cwd: string, args: string[]): Promise<string | null> {
  const r = await g.run(args, { cwd });
  return r.code === 0 ? r.stdout.trim() : null;
}

/**
 * The remote and base commit of one source: `origin`, or the only remote; `base` (default
 * HEAD) resolved to a commit. No remote → ERR_NO_REMOTE (3): a pod has nothing to clone from.
 */
export async function sourceFacts(
  g: GitPort,
  t: SpawnSource,
  base: string | undefined,
): Promise<SourceFacts> {
  const what = t.name === "." ? `workspace root ${t.path}` : `source ${quoteValue(t.name)}`;
  const remotes = (await git(g, t.path, ["remote"]))?.split("\n").filter((r) => r !== "") ?? [];
  const remoteName = remotes.includes("origin") ? "origin" : remotes.length === 1 ? remotes[0] : undefined;
  if (remoteName === undefined) {
    throw new ArielError(
      "ERR_NO_REMOTE",
      remotes.length === 0
        ? `${what} has no remote: a Kubernetes Job has nothing to clone from`
        : `${what} has several remotes and none is named origin: which one a Job clones is not clear`,
      { context: { source: t.name, remotes } },
    );
  }
  const url = await git(g, t.path, ["remote", "get-url", "--", remoteName]);
  if (url === null || url === "") {
    throw new ArielError("ERR_NO_REMOTE", `${what}: remote ${quoteValue(remoteName)} has no URL`, {
      context: { source: t.name },
    });
  }
  const ref = base ?? "HEAD";
  const sha = await git(g, t.path, [
    "rev-parse",
    "--verify",
    "--quiet",
    "--end-of-options",
    `${ref}^{commit}`,
  ]);
  if (sha === null) {
    throw new ArielError("ERR_INVALID_INPUT", `${what}: ${quoteValue(ref)} is not a commit`, {
      hint: base === undefined ? "make a first commit" : "name a branch, tag or commit of that source",
      context: { source: t.name, base: ref },
    });
  }
  const holder = await git(g, t.path, [
    "for-each-ref",
    "--count=1",
    "--format=%(refname)",
    `--contains=${sha}`,
    `refs/remotes/${remoteName}/`,
  ]);
  return { remoteName, remote: redactUrl(url), base: sha, basePushed: holder !== null && holder !== "" };
}
