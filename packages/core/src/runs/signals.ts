/** The signals a kill may start with (`ariel-runs kill --signal`, the fleet's kill), without `SIG`. */
export const KILL_SIGNALS: readonly string[] = ["TERM", "INT", "HUP", "KILL", "QUIT", "USR1", "USR2"];

/**
 * A kill's first signal as the user spelt it (`term`, `SIGINT`, absent: TERM) as a signal name
 * (`SIGTERM`), or null when it is none of {@link KILL_SIGNALS}: the caller says how it refuses.
 *
 * @example
 * ```ts
 * parseKillSignal(undefined); // "SIGTERM"
 * parseKillSignal("int");     // "SIGINT"
 * parseKillSignal("STOP");    // null
 * ```
 */
export function parseKillSignal(raw: unknown): string | null {
  const name = String(raw ?? "TERM")
    .toUpperCase()
    .replace(/^SIG/, "");
  return KILL_SIGNALS.includes(name) ? `SIG${name}` : null;
}

/**
 * The default time between a kill's first signal and SIGKILL to the run's group: `ariel-runs
 * kill/respawn/rm --grace`, a detached run's `--timeout`, the fleet's kill and respawn (10 s).
 */
export const DEFAULT_KILL_GRACE_MS = 10_000;
