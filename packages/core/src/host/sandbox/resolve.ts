/**
 * A run's sandbox as its record keeps it, decided before anything starts: whether there is one
 * (`--sandbox`, config `sandbox`, `--no-sandbox`), what it may write (its places, its agent's
 * state, the package caches, `--sandbox-write` and config `write`, each canonical and checked),
 * what it may not read (the default credential stores and config `hide`, those that exist), and
 * its network.
 */
import type { Config } from "../../config.ts";
import { ArielError } from "../../errors.ts";
import { joinPosix } from "../../paths.ts";
import { presetFor } from "../../runs/attention/classify.ts";
import {
  DEFAULT_HIDDEN,
  expandHome,
  PACKAGE_CACHES,
  parseSandboxNet,
  type RecordedSandbox,
  type SandboxFlags,
  sandboxWanted,
} from "../../sandbox/settings.ts";
import { planWritable, type WantedPath } from "../../sandbox/writable.ts";
import { userStateDir } from "../../state_home.ts";
import { stateDir } from "../../state_paths.ts";
import { legGit } from "./git_facts.ts";
import { requireSandboxTools } from "./probe.ts";
import { canonicalOrNull } from "./refs.ts";

/** What a spawn was asked about its sandbox (flags, MCP input, the dashboard's form). */
export interface SandboxAsk extends SandboxFlags {
  /** The agent whose state is writable (`--agent`); default: by the command's name. */
  agent?: string | null;
}

/**
 * Whether the run is sandboxed; when it is, the tools are checked (ERR_SANDBOX_UNAVAILABLE, 69)
 * and every target must be a git checkout: before any worktree is made or anything started.
 */
export async function checkSandbox(
  ask: SandboxAsk | undefined,
  config: Config,
  targets: readonly { name: string; path: string; checkout: boolean }[],
  io: { env: Readonly<Record<string, string | undefined>>; cwd: string; dryRun: boolean },
): Promise<boolean> {
  if (!sandboxWanted(config.sandbox, ask ?? {})) return false;
  parseSandboxNet(ask?.net, config.sandbox.net);
  for (const t of targets) {
    if (!t.checkout) {
      throw new ArielError(
        "ERR_NOT_A_CHECKOUT",
        `${t.name === "." ? `the workspace root ${t.path}` : `source ${JSON.stringify(t.name)}`} is not a git checkout: a sandboxed run works in a checkout or a task's worktrees`,
        {
          hint: "name a source with --source, or pass --isolate (docs/sandbox.md)",
          context: { source: t.name, path: t.path },
        },
      );
    }
  }
  if (!io.dryRun) await requireSandboxTools(io.env, io.cwd);
  return true;
}

/**
 * The recorded sandbox of one run working in `places` (its worktrees, or the checkout it runs
 * in), whose repositories are those of `sources`. `argv` chooses the agent when `ask.agent` does
 * not. A `--sandbox-write` path is relative to `cwd`; a config one to the workspace root.
 */
export function recordedSandbox(
  ask: SandboxAsk | undefined,
  config: Config,
  run: {
    root: string;
    places: readonly string[];
    sources: readonly string[];
    argv: readonly string[];
    env: Readonly<Record<string, string | undefined>>;
    cwd: string;
  },
): RecordedSandbox {
  const home = run.env.HOME?.startsWith("/") ? run.env.HOME : null;
  const preset = presetFor(ask?.agent ?? null, run.argv);
  const wanted: WantedPath[] = [
    ...preset.state.write.map((path): WantedPath => ({ path, from: "agent" })),
    ...PACKAGE_CACHES.map((path): WantedPath => ({ path, from: "cache" })),
    ...config.sandbox.write.map((path): WantedPath => ({ path, from: "config sandbox.write" })),
    ...(ask?.write ?? []).map((p): WantedPath => ({ path: joinPosix(run.cwd, p), from: "--sandbox-write" })),
  ];
  const canonical = new Map<string, string | null>();
  for (const w of wanted) {
    const e = expandHome(w.path, home, run.root);
    if (e !== null && !canonical.has(e)) canonical.set(e, canonicalOrNull(e));
  }
  const commons = run.sources.flatMap((s) => {
    try {
      return [legGit(s).common];
    } catch {
      return [];
    }
  });
  const userState = userStateDir(run.env, run.cwd);
  const write = planWritable({
    home: home === null ? null : (canonicalOrNull(home) ?? home),
    root: run.root,
    places: run.places.map((p) => canonicalOrNull(p) ?? p),
    guarded: [
      ...commons,
      stateDir(run.root),
      ...(userState ? [canonicalOrNull(userState) ?? userState] : []),
    ],
    wanted,
    canonical,
  });
  return {
    write,
    hide: hiddenPaths(config.sandbox.hide, home, run.root),
    net: parseSandboxNet(ask?.net, config.sandbox.net),
  };
}

/** The hidden list: defaults and config `hide`, expanded, canonical, those that exist. */
function hiddenPaths(extra: readonly string[], home: string | null, root: string): string[] {
  const out: string[] = [];
  for (const p of [...DEFAULT_HIDDEN, ...extra]) {
    const e = expandHome(p, home, root);
    const c = e === null ? null : canonicalOrNull(e);
    if (c !== null && c !== "/" && !out.includes(c)) out.push(c);
  }
  return out;
}
