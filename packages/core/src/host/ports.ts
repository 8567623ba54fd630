import type { Clock, Ports, Random } from "../ports.ts";
import { randomBytes } from "./builtins.ts";
import { nodeFs } from "./fs.ts";
import { nodeGit } from "./git.ts";

export const systemClock: Clock = { now: () => Date.now() };

export const cryptoRandom: Random = { bytes: (n) => randomBytes(n) };

/** The real ports: node:fs, git without a shell, the system clock, crypto randomness. */
export function hostPorts(overrides: Partial<Ports> = {}): Ports {
  return {
    fs: nodeFs,
    git: nodeGit,
    clock: systemClock,
    random: cryptoRandom,
    env: process.env,
    cwd: process.cwd(),
    ...overrides,
  };
}
