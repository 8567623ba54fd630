/**
 * Is stdout or stderr a terminal? Progress lines and "nothing found" notes are for a person at a
 * terminal, never for a pipe. Tests cannot give a child a terminal cheaply, so with
 * `ARIEL_TEST_HOOKS=1` (the crash-test switch, see test-hooks.ts) `ARIEL_TEST_TTY` names the
 * streams to treat as terminals (`stderr`, `stdout,stderr`, or empty for none).
 *
 * @example
 * ```ts
 * if (isTerminal("stderr", ctx.env)) showProgress();
 * ```
 */
export function isTerminal(
  stream: "stdout" | "stderr",
  env: Readonly<Record<string, string | undefined>> = process.env,
): boolean {
  const forced = env.ARIEL_TEST_HOOKS === "1" ? env.ARIEL_TEST_TTY : undefined;
  if (forced !== undefined) return forced.split(",").includes(stream);
  return process[stream].isTTY === true;
}
