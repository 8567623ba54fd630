/**
 * The reporter's own bundle (dist/ariel-report.cjs, scripts/build.mjs): what the hooks and notify
 * programs of wired runs run. Exit status 0 whatever happened (a hook's failure would be shown to
 * the agent's user, and Claude Code reads exit 2 as "block"). It ends by itself: runReporter
 * clears its timers and closes its input and socket by its deadline, so nothing here forces an exit.
 */
import { runReporter } from "./reporter.ts";

const debug =
  process.env.ARIEL_REPORT_DEBUG === "1" ? (l: string) => process.stderr.write(`${l}\n`) : undefined;
void runReporter(process.argv.slice(2), {
  env: process.env,
  stdin: process.stdin,
  startedMs: Math.round(performance.timeOrigin),
  ...(debug ? { debug } : {}),
}).finally(() => {
  process.exitCode = 0;
});
