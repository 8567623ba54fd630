/**
 * `add --share DIR`: give a new leg its source's DIR (e.g. node_modules) as hardlinks: the
 * directories are made anew, every file is a second link to the source's inode (no bytes
 * copied), symbolic links are made again with the same target. See docs/disk.md for what a build
 * may and may not do to such a tree.
 */
import {
  linkSync,
  lstatSync,
  mkdirSync,
  readdirSync,
  readFileSync,
  readlinkSync,
  rmSync,
  symlinkSync,
} from "node:fs";
import { loadConfig } from "../../config.ts";
import {
  decideShare,
  LOCKFILES,
  type LockHashes,
  type ShareDecision,
  shareNames,
  warnNotShared,
} from "../../disk/share.ts";
import type { Ports } from "../../ports.ts";
import type { Leg } from "../../schema/task.ts";
import type { HintedWarning } from "../warn.ts";
import { sha256Hex } from "../worktree/overlay.ts";

function lockHashes(dir: string): LockHashes {
  const out: Record<string, string> = {};
  for (const name of LOCKFILES) {
    try {
      out[name] = sha256Hex(readFileSync(`${dir}/${name}`));
    } catch {
      // absent
    }
  }
  return out;
}

const isDir = (p: string) => lstatSync(p, { throwIfNoEntry: false })?.isDirectory() === true;

/** Link the tree `from` into `to` (which must not exist). Throws on the first failure. */
function linkTree(from: string, to: string): number {
  let files = 0;
  mkdirSync(to, { mode: lstatSync(from).mode & 0o7777 });
  for (const name of readdirSync(from)) {
    const a = `${from}/${name}`;
    const b = `${to}/${name}`;
    const st = lstatSync(a);
    if (st.isDirectory()) files += linkTree(a, b);
    else if (st.isSymbolicLink()) symlinkSync(readlinkSync(a), b);
    else if (st.isFile()) {
      linkSync(a, b);
      files++;
    }
    // sockets, fifos, devices: left out
  }
  return files;
}

/** What became of one shared directory of one leg. */
export type ShareOutcome = ShareDecision & { name: string; source: string; files?: number };

/**
 * Share each of `names` (directory names at the top of the checkout) from `sourcePath` into
 * `worktreePath` when the lockfiles match; else leave it out and say why. A failure part-way
 * (another filesystem: EXDEV) removes what was linked and reports it; the leg is kept.
 */
export function shareInto(
  sourceName: string,
  sourcePath: string,
  worktreePath: string,
  names: readonly string[],
): ShareOutcome[] {
  const out: ShareOutcome[] = [];
  const srcLocks = lockHashes(sourcePath);
  const legLocks = lockHashes(worktreePath);
  for (const name of names) {
    const from = `${sourcePath}/${name}`;
    const to = `${worktreePath}/${name}`;
    const d = decideShare(name, {
      sourceHasDir: isDir(from),
      legHasDir: lstatSync(to, { throwIfNoEntry: false }) !== undefined,
      source: srcLocks,
      leg: legLocks,
    });
    if (!d.share) {
      out.push({ ...d, name, source: sourceName });
      continue;
    }
    try {
      out.push({ ...d, name, source: sourceName, files: linkTree(from, to) });
    } catch (e) {
      rmSync(to, { recursive: true, force: true });
      const code = (e as NodeJS.ErrnoException).code ?? "error";
      out.push({
        share: false,
        reason: "link-failed",
        detail: `could not link (${code}${code === "EXDEV" ? ": the worktree root is on another filesystem" : ""}): run the install in the worktree`,
        name,
        source: sourceName,
      });
    }
  }
  return out;
}

/** What {@link shareLegs} did: the directories shared, and a warning for each one left out. */
export interface ShareLegsResult {
  shared: (ShareOutcome & { share: true; files: number })[];
  warnings: (HintedWarning & { code: "WARN_NOT_SHARED"; context: Record<string, unknown> })[];
}

/**
 * `--share` for new legs, the one implementation behind `ariel-worktree add` and
 * `ariel-spawn --isolate`: each of config `share` and `flags` is shared from each leg's source
 * into its worktree when the lockfiles match (see {@link shareInto}); the others come back as
 * `WARN_NOT_SHARED` warnings with the reason (a configured name the source has not got is
 * skipped quietly).
 *
 * @example
 * ```ts
 * const { shared, warnings } = await shareLegs(hostPorts(), "/w", record.legs, ["node_modules"]);
 * ```
 */
export async function shareLegs(
  ports: Ports,
  root: string,
  legs: readonly Pick<Leg, "source" | "sourcePath" | "worktreePath">[],
  flags: readonly string[],
): Promise<ShareLegsResult> {
  const names = shareNames((await loadConfig(ports.fs, root)).share, flags);
  const out: ShareLegsResult = { shared: [], warnings: [] };
  for (const leg of names.length > 0 ? legs : []) {
    for (const s of shareInto(leg.source, leg.sourcePath, leg.worktreePath, names)) {
      if (s.share) out.shared.push({ ...s, files: s.files ?? 0 });
      else if (warnNotShared(s, s.name, flags)) {
        out.warnings.push({
          code: "WARN_NOT_SHARED",
          message: `${leg.source}: ${s.name} not shared: ${s.detail}`,
          hint: `run the install in ${leg.worktreePath} to give the worktree its own ${s.name}`,
          context: { source: leg.source, dir: s.name, reason: s.reason },
        });
      }
    }
  }
  return out;
}
