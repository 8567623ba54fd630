/**
 * The trust store `<user state dir>/trust.json`: one entry per repository config file the user
 * approved, with the sha256 of the hooks approved (docs/lifecycle.md, Trust). A repository's hooks
 * run only while their digest equals the approved one; no entry is ever made but by
 * `ariel-worktree trust`.
 *
 * @example
 * ```ts
 * await approveHooks(ports, { file: "/ws/api/ariel.config.json", sha256, hooks });
 * (await readTrust(ports)).find((e) => e.file === "/ws/api/ariel.config.json")?.sha256; // sha256
 * ```
 */
import * as z from "zod/mini";
import { ArielError } from "../../errors.ts";
import type { HookTable } from "../../lifecycle/hooks.ts";
import type { Ports } from "../../ports.ts";
import { trustStorePath, userStateDir } from "../../state_home.ts";
import { withLockFile } from "../lock-file.ts";

/** One approval. */
export interface TrustEntry {
  /** Canonical path of the approved config file. */
  file: string;
  sha256: string;
  /** The hooks approved, kept so `trust --list` can show them. */
  hooks: HookTable;
  trustedAt: string;
}

function entrySchema() {
  return z.object({
    file: z.string().check(z.regex(/^\//)),
    sha256: z.string().check(z.regex(/^[0-9a-f]{64}$/)),
    hooks: z.record(z.string(), z.union([z.string(), z.array(z.string())])),
    trustedAt: z.string(),
  });
}

type StatePorts = Pick<Ports, "fs" | "env" | "cwd" | "clock">;

/** The store's path, or null when there is no user state dir (then nothing is trusted). */
export function trustPath(ports: Pick<Ports, "env" | "cwd">): string | null {
  const home = userStateDir(ports.env, ports.cwd);
  return home === null ? null : trustStorePath(home);
}

/** Every approval (sorted by file); an absent store is empty, a corrupt one ERR_RECORD_CORRUPT. */
export async function readTrust(ports: Pick<Ports, "fs" | "env" | "cwd">): Promise<TrustEntry[]> {
  const path = trustPath(ports);
  if (path === null) return [];
  let text: string;
  try {
    text = await ports.fs.readText(path);
  } catch (e) {
    if ((e as { code?: string }).code === "ENOENT") return [];
    throw e;
  }
  let raw: unknown;
  try {
    raw = JSON.parse(text);
  } catch {
    raw = null;
  }
  const r = z.safeParse(z.object({ v: z.literal(1), entries: z.array(entrySchema()) }), raw);
  if (!r.success) {
    throw new ArielError("ERR_RECORD_CORRUPT", `the trust store ${path} is not valid`, {
      hint: "repair or delete it (then approve the repositories' hooks again with ariel-worktree trust)",
      context: { path },
    });
  }
  return r.data.entries as TrustEntry[];
}

/** Change the store under its lock: `fn` gets the entries and returns the new ones. */
async function updateTrust(ports: StatePorts, fn: (entries: TrustEntry[]) => TrustEntry[]): Promise<void> {
  const path = trustPath(ports);
  if (path === null) {
    throw new ArielError("ERR_CANTCREAT", "no user state dir to keep approvals in", {
      hint: "set ARIEL_STATE_HOME (or HOME) so ariel has a state dir",
    });
  }
  await ports.fs.mkdirp(path.slice(0, path.lastIndexOf("/")));
  await withLockFile(`${path}.lock`, { what: "trust store lock", fs: ports.fs }, async () => {
    const next = fn(await readTrust(ports)).sort((a, b) => (a.file < b.file ? -1 : a.file > b.file ? 1 : 0));
    await ports.fs.writeAtomic(path, `${JSON.stringify({ v: 1, entries: next }, null, 2)}\n`, 0o600);
  });
}

/** Record the approval of a file's hooks (replacing an older approval of that file). */
export async function approveHooks(
  ports: StatePorts,
  entry: Omit<TrustEntry, "trustedAt">,
): Promise<TrustEntry> {
  const full: TrustEntry = { ...entry, trustedAt: new Date(ports.clock.now()).toISOString() };
  await updateTrust(ports, (entries) => [...entries.filter((e) => e.file !== entry.file), full]);
  return full;
}

/** Drop the approvals of `files`; returns those that were there. */
export async function revokeHooks(ports: StatePorts, files: readonly string[]): Promise<TrustEntry[]> {
  const gone: TrustEntry[] = [];
  await updateTrust(ports, (entries) =>
    entries.filter((e) => {
      if (!files.includes(e.file)) return true;
      gone.push(e);
      return false;
    }),
  );
  return gone;
}
