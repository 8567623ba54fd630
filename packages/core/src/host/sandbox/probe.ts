/**
 * Whether this machine can make a sandbox: Linux, bubblewrap on PATH, GNU env(1) with
 * `--ignore-signal`, and user namespaces that bubblewrap may create. Never silently
 * unsandboxed: anything missing is ERR_SANDBOX_UNAVAILABLE (exit 69) before anything starts.
 * A success is remembered for the boot (`<user state dir>/sandbox-probe.json`, keyed by the
 * tools' paths and sizes), so most runs pay two `stat`s, not a trial sandbox.
 */
import { mkdirSync, readFileSync, statSync } from "node:fs";
import { ArielError } from "../../errors.ts";
import { bwrapArgv } from "../../sandbox/mounts.ts";
import { userStateDir } from "../../state_home.ts";
import { nodeChildProcess } from "../builtins.ts";
import { writeAtomic } from "../fs.ts";
import { bootId } from "../runs/identity.ts";
import { findOnPath } from "../which.ts";

/** The programs a sandbox is made with, as found on PATH. */
export interface SandboxTools {
  bwrap: string;
  env: string;
}

const PROBE_FILE = "sandbox-probe.json";

/** `what` is not there: the error every unavailable case ends with. */
function unavailable(message: string, hint?: string, context: Record<string, unknown> = {}): ArielError {
  return new ArielError("ERR_SANDBOX_UNAVAILABLE", message, { ...(hint ? { hint } : {}), context });
}

/** A tool's identity for the probe's memory: its path, size and modification time. */
function stamp(file: string): string {
  const s = statSync(file);
  return `${file}:${s.size}:${s.mtimeMs}`;
}

/** The remembered probe, when it was for this boot and these very tools. */
function remembered(file: string | null, key: string): boolean {
  if (file === null) return false;
  try {
    const r = JSON.parse(readFileSync(file, "utf8")) as { v?: number; key?: string };
    return r.v === 1 && r.key === key;
  } catch {
    return false;
  }
}

/**
 * The sandbox's tools, or ERR_SANDBOX_UNAVAILABLE (69) with what is missing and how to get it.
 * `env` is the environment of the run (its PATH finds the tools).
 */
export async function requireSandboxTools(
  env: Readonly<Record<string, string | undefined>>,
  cwd: string,
): Promise<SandboxTools> {
  if (process.platform !== "linux") {
    throw unavailable(
      `--sandbox needs Linux (bubblewrap and user namespaces); this is ${process.platform}`,
      "run sandboxed agents on a Linux machine or in a Linux VM, or drop --sandbox",
      { platform: process.platform },
    );
  }
  const bwrap = findOnPath("bwrap", env.PATH);
  if (bwrap === null) {
    throw unavailable("--sandbox needs bubblewrap (bwrap), which is not on PATH", undefined, {
      path: env.PATH ?? null,
    });
  }
  const envTool = findOnPath("env", env.PATH);
  if (envTool === null) throw unavailable("--sandbox needs env(1) on PATH (GNU coreutils 8.31 or newer)");
  const home = userStateDir(env, cwd);
  const file = home === null ? null : `${home}/${PROBE_FILE}`;
  const key = `${bootId() ?? "?"} ${stamp(bwrap)} ${stamp(envTool)}`;
  if (remembered(file, key)) return { bwrap, env: envTool };
  probe({ bwrap, env: envTool });
  // Remembered in the state dir, made if this is its first use; a failure to write only costs
  // the next run a trial.
  if (file !== null && home !== null) {
    try {
      mkdirSync(home, { recursive: true });
      await writeAtomic(file, `${JSON.stringify({ v: 1, key })}\n`);
    } catch {
      // not remembered: the next run probes again
    }
  }
  return { bwrap, env: envTool };
}

/** A trial sandbox running `true`; its failure is the reason, in bubblewrap's (or env's) words. */
function probe(tools: SandboxTools): void {
  const argv = bwrapArgv({ ...tools, mounts: [], net: "none", cwd: "/", setenv: {} }, ["true"]);
  const r = nodeChildProcess().spawnSync(argv[0]!, argv.slice(1), {
    encoding: "utf8",
    stdio: ["ignore", "ignore", "pipe"],
    timeout: 10_000,
  });
  if (r.status === 0) return;
  const why = (r.stderr ?? "").trim().split("\n")[0] || (r.error?.message ?? `exit ${r.status}`);
  if (/ignore-signal|unrecognized option|invalid option/.test(why)) {
    throw unavailable(
      `--sandbox needs GNU env(1) 8.31 or newer (--ignore-signal): ${why}`,
      "install coreutils 8.31 or newer; docs/sandbox.md",
      { env: tools.env },
    );
  }
  throw unavailable(
    `bubblewrap cannot make a sandbox here: ${why}`,
    "allow unprivileged user namespaces (sysctl kernel.unprivileged_userns_clone=1; on Ubuntu 24.04 an AppArmor profile for bwrap), or run without --sandbox; docs/sandbox.md",
    { bwrap: tools.bwrap },
  );
}
