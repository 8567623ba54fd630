/**
 * The contract in brief, bundled into every bin: what `ariel-<cli> help contract` prints, so an
 * installed user (who has no docs/ folder) can read the exit statuses and the record rules. The
 * whole contract is docs/contract.md; a test holds the exit table here to the one there.
 */

/** Where the whole contract lives. */
export const CONTRACT_URL = "https://github.com/ariel-dev/ariel/blob/main/docs/contract.md";

/** The text of `ariel-<cli> help contract`. */
export const CONTRACT_SUMMARY = `ariel's output contract (v1), in brief

Streams
  stdout carries data only (records, table rows, paths, help when asked for); messages,
  warnings, errors and progress go to stderr. A command that fails, refuses or keeps something
  for you ends with one summary line on stderr naming what and the next command to run.

Records (--json)
  stdout is NDJSON: one JSON object per line, each starting with "v":1 and "type". Ignore fields
  you do not know; an incompatible change bumps v. With --json, errors and warnings on stderr
  are NDJSON records too: {"v":1,"type":"error","code":"ERR_...","message":"...","hint":"...",
  "exit":N,...}. Error codes are stable; messages are one line; hints say what to do next.

Tables (without --json)
  An aligned table on a terminal; in a pipe, stable tab-separated lines, no header (\\, tab,
  newline and carriage return inside a cell escaped as \\\\, \\t, \\n, \\r).

Plans
  -n/--dry-run prints plan records from the same code path and changes nothing;
  --detailed-exitcode with it exits 2 when the plan has changes, 0 when nothing would be done.

A closed stdout (| head) ends the command quietly with status 0.

Exit statuses
| exit        | name            | meaning                                                                        |
| ----------- | --------------- | ------------------------------------------------------------------------------ |
| 0           | OK              | done (an empty result is fine)                                                 |
| 1           | FAILED          | ran to the end; at least one record or child failed (the stream is complete)   |
| 2           | CHANGES_PENDING | only with \`--detailed-exitcode\`: the plan is not empty                         |
| 2           | NOT_A_TERMINAL  | \`ariel\` (the terminal UI) started without a terminal; nothing was drawn        |
| 3           | REFUSED         | a safety refusal (would lose work, or touch what is not ours); nothing changed |
| 64          | USAGE           | bad flags or arguments                                                         |
| 65          | DATAERR         | bad input: a malformed stdin record, an invalid name, branch or task id        |
| 66          | NOINPUT         | workspace, source or task not found                                            |
| 69          | UNAVAILABLE     | git missing or too old; the run monitor cannot start; \`--detach\` on Deno       |
| 70          | SOFTWARE        | internal error (a bug)                                                         |
| 73          | CANTCREAT       | a path that must be created exists or cannot be made                           |
| 75          | TEMPFAIL        | lock or lease held elsewhere, or fenced out; safe to retry                     |
| 77          | NOPERM          | path escape or containment violation                                           |
| 78          | CONFIG          | invalid config                                                                 |
| 124         | TIMEOUT         | \`ariel-runs wait --timeout\` only: the runs did not end in time (they go on)    |
| 125/126/127 | spawn, wait     | spawn failed before exec / command not executable / not found                  |
| 128+N       | spawn, wait     | the single child was killed by signal N (130 also: interrupted)                |

The whole contract, with every error code: ${CONTRACT_URL}
`;
