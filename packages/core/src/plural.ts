/**
 * A count with its noun, pluralized with `s` (or `many` when given): the one rule for "1 task",
 * "2 tasks" in every human line.
 *
 * @example
 * ```ts
 * plural(1, "task");  // "1 task"
 * plural(3, "run");   // "3 runs"
 * ```
 */
export function plural(n: number, one: string, many = `${one}s`): string {
  return `${n} ${n === 1 ? one : many}`;
}
