/**
 * The syntax of a task id, in one place: names.ts validates with it (adding the rules a regex
 * cannot say well: no `..`, no `.lock` or `.` at the end), the record schemas check it, and the
 * error table quotes it. A leaf module, so errors.ts can import it without a cycle.
 *
 * @example
 * ```ts
 * TASK_ID_PATTERN.test("fix-login-3k9x2a"); // true
 * TASK_ID_PATTERN.test("-x");               // false
 * ```
 */
export const TASK_ID_PATTERN: RegExp = /^[A-Za-z0-9][A-Za-z0-9._-]{0,127}$/;
