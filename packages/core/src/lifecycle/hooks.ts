/**
 * Hooks as data: what a config file says for an event, the argv that runs it, and the digest
 * that trust approves. Pure.
 *
 * @example
 * ```ts
 * hookArgv("npm ci && npm run build"); // ["sh", "-c", "npm ci && npm run build"]
 * hookArgv(["make", "setup"]);         // ["make", "setup"]
 * await hooksDigest({ "post-create": "npm ci" }); // sha256 of '{"post-create":"npm ci"}'
 * ```
 */
import { sha256Hex } from "../hash.ts";
import { HOOK_EVENTS, type HookEvent } from "./events.ts";

/** A hook as written: a string for `sh -c`, or an argv array run directly. */
export type Hook = string | readonly string[];

/** A config file's `hooks` object. */
export type HookTable = Partial<Record<HookEvent, Hook>>;

/** Where a set of hooks came from, and whether it may run. */
export interface HookSet {
  /** `workspace`: an untracked config (the user's); `repository`: one git tracks. */
  origin: "workspace" | "repository";
  /** Canonical path of the config file. */
  file: string;
  hooks: HookTable;
  /** sha256 of the hooks' content ({@link hooksDigest}). */
  sha256: string;
  /** The file's own hookTimeoutMs, if it sets one. */
  timeoutMs?: number;
  /** The user's hooks always; the repository's only once trusted with this very digest. */
  trusted: boolean;
  /** Why an untrusted set is not trusted: never approved, or approved with other content. */
  untrusted?: "never-approved" | "changed";
}

/** The argv that runs a hook: a string through `sh -c`, an array as it is. */
export function hookArgv(hook: Hook): string[] {
  return typeof hook === "string" ? ["sh", "-c", hook] : [...hook];
}

/** A hook as one line for people: the string itself, or the argv JSON-quoted. */
export function describeHook(hook: Hook): string {
  return typeof hook === "string" ? hook : JSON.stringify(hook);
}

/**
 * The digest trust approves: sha256 of the hooks object as JSON, events in their fixed order.
 * A change of any hook's text (or a hook added or dropped) changes it; JSON whitespace or the
 * order of keys in the file does not.
 */
export async function hooksDigest(hooks: HookTable): Promise<string> {
  const ordered: Record<string, Hook> = {};
  for (const e of HOOK_EVENTS) if (hooks[e] !== undefined) ordered[e] = hooks[e];
  return sha256Hex(JSON.stringify(ordered));
}

/** True when the table has at least one hook. */
export function hasHooks(hooks: HookTable | undefined): hooks is HookTable {
  return hooks !== undefined && HOOK_EVENTS.some((e) => hooks[e] !== undefined);
}

/** One config set's hook of an event for a leg, and whether it runs (`trusted`) or is skipped. */
export interface HookStep<S extends HookSet = HookSet> {
  set: S;
  hook: Hook;
  /** False for a repository's hook not approved with its current content: skipped with a warning. */
  runs: boolean;
}

/**
 * The hooks of `event` a leg's config sets hold, in the sets' order, each marked to run or to be
 * skipped as untrusted. The one rule of which hooks run: the hook runner and every dry-run plan
 * use it.
 */
export function hookSteps<S extends HookSet>(sets: readonly S[], event: HookEvent): HookStep<S>[] {
  return sets.flatMap((set) => {
    const hook = set.hooks[event];
    return hook === undefined ? [] : [{ set, hook, runs: set.trusted }];
  });
}
