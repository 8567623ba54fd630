/**
 * The generic "agent that asks" rule (decision 0109): how a program ariel has no preset for shows
 * that it waits for an answer, read from a still screen. Right more often than wrong, never sure:
 *
 * - the cursor sits at the end of the last line, and that line asks: a yes/no choice (`[y/N]`,
 *   `(yes/no)`), a question (`Proceed?`, `#? `, `Overwrite? [a]`), or a labelled input
 *   (`Password:`, `package name: (x)`, `Enter file in which to save the key (…):`);
 * - or the bottom of the screen is a numbered choice with one selection mark (`❯ 1. Yes`).
 *
 * A shell's or a REPL's prompt (`$ `, `>>> `, `> `, `In [1]: `) and a pager's (`:`, `(END)`)
 * ask nothing: they wait for a command, which is what every program does when it is idle.
 *
 * @example
 * ```ts
 * askingPrompt(["Proceed? [y/N]"], { x: 15, y: 0 }); // "yes/no"
 * askingPrompt(["$ "], { x: 2, y: 0 });               // null
 * ```
 */

/** Where the terminal's cursor is (0-based column and row of the screen). */
export interface Cursor {
  x: number;
  y: number;
}

/** How many lines, up to the last non-empty one, the numbered-choice rule looks at. */
const MENU_TAIL = 12;

/** A line that starts with a shell's or a REPL's prompt: text after it is a command being typed. */
const COMMAND_PROMPT = /^(?:\S*[$#%>❯➜»λ]|>>>|\.\.\.|In \[\d+\]:|\(\w+\))(?:\s|$)/u;
/** `[y/N]`, `(Y/n)`, `(yes/no)`, `(yes/no/[fingerprint])`, `[y,n,q,a,d,?]` near the end. */
const YES_NO = /[[(]\s*y(?:es)?\s*[/,|]\s*n(?:o)?\b[^\])]{0,40}[\])]+\s*[:?]?\s*$/iu;
/** Ends with a question mark, maybe a default after it: `Proceed?`, `Name? [anon]`, `#?`. */
const QUESTION = /\?\s*(?:[[(][^\])]{0,60}[\])])?\s*:?$/u;
/** A labelled input: a word that asks for something, then `:` at the end (a default in brackets may follow). */
const LABELLED =
  /\b(?:password|passphrase|pin|username|user ?name|login|name|e-?mail|token|key|code|enter|type|choose|select|pick|answer|input|reply|confirm|value)\b[^:]{0,80}:\s*(?:[[(][^\])]{0,60}[\])])?$/iu;
/** A numbered option: `1. Yes`, `2) No`, `[3] Skip`. */
const OPTION = /^\s*(?:[│|]\s*)?(?:[❯›▸▶→>*●◉]\s*)?(?:\d{1,2}[.)]|\[\d{1,2}\])\s+\S/u;
/** The same, marked as the one selected. */
const MARKED_OPTION = /^\s*(?:[│|]\s*)?[❯›▸▶→>*●◉]\s*(?:\d{1,2}[.)]|\[\d{1,2}\])\s+\S/u;

/** The index of the last line with something on it, or -1. */
function lastNonEmpty(lines: readonly string[]): number {
  for (let i = lines.length - 1; i >= 0; i--) if (lines[i]!.trim() !== "") return i;
  return -1;
}

/** The kind of question the line the cursor ends says it asks, or null. */
function questionAt(lines: readonly string[], cursor: Cursor): string | null {
  const last = lastNonEmpty(lines);
  if (last < 0 || cursor.y !== last) return null;
  const line = lines[last]!.trimEnd();
  // At the end of what it printed (after the space a prompt ends with), not inside it, nor
  // after an answer being typed (then the line no longer ends with the question).
  if (cursor.x < line.length || cursor.x > line.length + 2) return null;
  if (COMMAND_PROMPT.test(line)) return null;
  if (YES_NO.test(line)) return "yes/no";
  if (QUESTION.test(line)) return "question";
  if (LABELLED.test(line)) return "input";
  return null;
}

/** A numbered choice with exactly one option marked, at the bottom of the screen. */
function numberedChoice(lines: readonly string[]): boolean {
  const last = lastNonEmpty(lines);
  const tail = lines.slice(Math.max(0, last + 1 - MENU_TAIL), last + 1);
  const options = tail.filter((l) => OPTION.test(l));
  return options.length >= 2 && options.filter((l) => MARKED_OPTION.test(l)).length === 1;
}

/**
 * What the still screen asks, by the generic rule: `yes/no`, `question`, `input` (the line at the
 * cursor) or `choice` (a numbered menu), else null. Without a cursor only a menu is seen.
 *
 * @example
 * ```ts
 * askingPrompt(["Do you want to continue? [Y/n] "], { x: 31, y: 0 }); // "yes/no"
 * askingPrompt([">>> "], { x: 4, y: 0 });                            // null
 * ```
 */
export function askingPrompt(lines: readonly string[], cursor?: Cursor): string | null {
  const asked = cursor ? questionAt(lines, cursor) : null;
  if (asked !== null) return asked;
  return numberedChoice(lines) ? "choice" : null;
}
