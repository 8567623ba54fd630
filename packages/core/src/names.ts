/**
 * Validation of the names a user or an agent hands to ariel: task ids, branch names and source
 * names. Each `validate*` returns the name unchanged or throws an {@link ArielError} (exit 65)
 * whose message quotes the offending value safely; each `*Problem` returns the reason or null,
 * for callers that skip with a warning instead of failing.
 *
 * @example
 * ```ts
 * validateTaskId("fix-login-3k9x2a"); // "fix-login-3k9x2a"
 * validateBranchName("ariel/fix-login"); // "ariel/fix-login"
 * validateSourceName("services/api"); // "services/api"
 * validateBranchName("a..b"); // throws ERR_INVALID_BRANCH: invalid branch name "a..b": contains ".."
 * ```
 */
import { ArielError } from "./errors.ts";
import type { Random } from "./ports.ts";
import { TASK_ID_PATTERN } from "./task_id.ts";

export { TASK_ID_PATTERN };

const QUOTE_MAX = 64;

/**
 * A value as a JSON string literal that is safe to print anywhere: control, non-ASCII and bidi
 * characters are `\u` escapes, and long values are cut after 64 characters with `...`.
 */
export function quoteValue(value: unknown): string {
  const s = typeof value === "string" ? value : String(value);
  const cut = s.length > QUOTE_MAX ? s.slice(0, QUOTE_MAX) : s;
  const quoted = JSON.stringify(cut).replace(
    /[^\x20-\x7e]/g,
    (c) => `\\u${c.charCodeAt(0).toString(16).padStart(4, "0")}`,
  );
  return s.length > QUOTE_MAX ? `${quoted}...` : quoted;
}

/** Why `id` is not a valid task id, or null when it is. */
export function taskIdProblem(id: string): string | null {
  if (typeof id !== "string" || id === "") return "is empty";
  if (id.length > 128) return "is longer than 128 characters";
  if (!TASK_ID_PATTERN.test(id)) return `must match ${TASK_ID_PATTERN.source}`;
  if (id.includes("..")) return 'contains ".."';
  if (id.endsWith(".lock")) return 'ends with ".lock"';
  if (id.endsWith(".")) return 'ends with "."';
  return null;
}

/** True when `id` is a valid task id (the rule {@link validateTaskId} enforces). */
export function isTaskId(id: string): boolean {
  return taskIdProblem(id) === null;
}

/** The task id itself, or ERR_INVALID_TASK_ID (exit 65). */
export function validateTaskId(id: string): string {
  const problem = taskIdProblem(id);
  if (problem) {
    throw new ArielError("ERR_INVALID_TASK_ID", `invalid task id ${quoteValue(id)}: ${problem}`);
  }
  return id;
}

const BRANCH_ALLOW = /^[A-Za-z0-9][A-Za-z0-9._/-]*$/;
// git check-ref-format rule 4 and 5: control characters, space, ~ ^ : ? * [ and backslash.
const BRANCH_FORBIDDEN = /[\x00-\x20\x7f~^:?*[\\]/;
const BRANCH_MAX = 200;

/**
 * Why `name` is not an acceptable branch name, or null. git's check-ref-format rules,
 * re-implemented without running git, plus a stricter ASCII allowlist.
 */
export function branchNameProblem(name: string): string | null {
  if (typeof name !== "string" || name === "") return "is empty";
  if (name.length > BRANCH_MAX) return `is longer than ${BRANCH_MAX} characters`;
  const bad = BRANCH_FORBIDDEN.exec(name);
  if (bad) return `contains the forbidden character ${quoteValue(bad[0])}`;
  if (name.includes("..")) return 'contains ".."';
  if (name.includes("@{")) return 'contains "@{"';
  if (name === "@") return 'is "@"';
  if (name === "HEAD" || name.startsWith("HEAD/")) return 'is "HEAD"';
  if (name.startsWith("refs/")) return 'starts with "refs/": give the short branch name';
  if (name.startsWith("-")) return 'starts with "-"';
  if (name.startsWith("/") || name.endsWith("/")) return 'starts or ends with "/"';
  if (name.includes("//")) return 'contains "//"';
  if (name.endsWith(".")) return 'ends with "."';
  for (const component of name.split("/")) {
    if (component.startsWith(".")) return `has a component starting with "." (${quoteValue(component)})`;
    if (component.endsWith(".lock")) return `has a component ending with ".lock" (${quoteValue(component)})`;
  }
  if (!BRANCH_ALLOW.test(name)) return "must match ^[A-Za-z0-9][A-Za-z0-9._/-]*$";
  return null;
}

/** The branch name itself, or ERR_INVALID_BRANCH (exit 65). */
export function validateBranchName(name: string): string {
  const problem = branchNameProblem(name);
  if (problem) {
    throw new ArielError("ERR_INVALID_BRANCH", `invalid branch name ${quoteValue(name)}: ${problem}`);
  }
  return name;
}

// One path segment of a source name: ASCII letters, digits and . _ @ + , = -, not starting with -.
const SEGMENT = /^[A-Za-z0-9._@+][A-Za-z0-9._@+,=-]*$/;
const SOURCE_MAX = 255;

/**
 * Why `name` is not a valid source name, or null. A source name is `.` (the root) or a
 * workspace-relative POSIX path whose segments are plain ASCII names: no absolute path, no `.`,
 * `..` or empty segment, no control, whitespace, non-ASCII or shell metacharacters, no leading `-`.
 */
export function sourceNameProblem(name: string): string | null {
  if (typeof name !== "string" || name === "") return "is empty";
  if (name === ".") return null;
  if (name.length > SOURCE_MAX) return `is longer than ${SOURCE_MAX} characters`;
  if (name.startsWith("/")) return "is absolute: give the path relative to the workspace root";
  const ctl = /[\x00-\x1f\x7f]/.exec(name);
  if (ctl) return `contains the control character ${quoteValue(ctl[0])}`;
  for (const segment of name.split("/")) {
    if (segment === "") return "has an empty segment";
    if (segment === "." || segment === "..") return `has a ${quoteValue(segment)} segment`;
    if (segment.startsWith("-")) return `has a segment starting with "-" (${quoteValue(segment)})`;
    const bad = /[^A-Za-z0-9._@+,=-]/.exec(segment);
    if (bad) return `contains the character ${quoteValue(bad[0])}`;
    if (!SEGMENT.test(segment)) return `has an invalid segment ${quoteValue(segment)}`;
  }
  return null;
}

/** The source name itself, or ERR_INVALID_NAME (exit 65). */
export function validateSourceName(name: string): string {
  const problem = sourceNameProblem(name);
  if (problem) {
    throw new ArielError("ERR_INVALID_NAME", `invalid source name ${quoteValue(name)}: ${problem}`, {
      hint: "a source name is . or a workspace-relative path of letters, digits, '.', '_', '@', '+', ',', '=' and '-'",
    });
  }
  return name;
}

/** The names one request carries: each is checked when present. */
export interface RequestNames {
  taskId?: string | undefined;
  branch?: string | undefined;
}

/**
 * Check the names of a request at the entry of an operation, before anything reads or writes
 * the workspace: a bad task id is ERR_INVALID_TASK_ID, a bad branch ERR_INVALID_BRANCH (both
 * exit 65). Every operation that takes a task id or a branch calls this first, so a name that
 * could never be a task is refused the same way everywhere and leaves no file behind.
 *
 * @example
 * ```ts
 * validateRequestNames({ taskId: "t1", branch: "ariel/t1" }); // ok
 * validateRequestNames({ taskId: "a..b" }); // throws ERR_INVALID_TASK_ID
 * ```
 */
export function validateRequestNames(names: RequestNames): void {
  if (names.taskId !== undefined) validateTaskId(names.taskId);
  if (names.branch !== undefined) validateBranchName(names.branch);
}

const ID_ALPHABET = "abcdefghijklmnopqrstuvwxyz0123456789";
const SUFFIX_LEN = 6;
const SLUG_MAX = 128 - SUFFIX_LEN - 1;

/**
 * A task-id-safe slug: lower case, runs of other characters become one `-`, no `..`, no leading
 * or trailing punctuation, at most 121 characters; `task` when nothing is left.
 */
export function slugify(text: string): string {
  let s = text
    .toLowerCase()
    .replace(/[^a-z0-9._-]+/g, "-")
    .replace(/\.{2,}/g, ".")
    .replace(/-{2,}/g, "-");
  s = s.replace(/^[^a-z0-9]+/, "").slice(0, SLUG_MAX);
  s = s.replace(/[^a-z0-9]+$/, "");
  return s === "" ? "task" : s;
}

/**
 * A fresh task id `<slug>-<6 chars of [a-z0-9]>` (unbiased: bytes ≥ 252 are redrawn).
 *
 * @example
 * ```ts
 * generateTaskId("Fix login!", random); // e.g. "fix-login-k3x9q2"
 * ```
 */
export function generateTaskId(slug: string, random: Random): string {
  let suffix = "";
  while (suffix.length < SUFFIX_LEN) {
    for (const b of random.bytes(SUFFIX_LEN * 2)) {
      if (b >= 252) continue; // 252 = 7 * 36: keep the distribution uniform
      suffix += ID_ALPHABET[b % 36];
      if (suffix.length === SUFFIX_LEN) break;
    }
  }
  return validateTaskId(`${slugify(slug)}-${suffix}`);
}
