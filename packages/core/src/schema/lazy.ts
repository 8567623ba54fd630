/**
 * `build` run on first use, its result kept: every zod schema of ariel is built only when a
 * command first needs it, so start-up stays near `node -e 0` (zod builds objects eagerly).
 *
 * @example
 * ```ts
 * const schemas = lazy(() => ({ name: z.string() }));
 * schemas().name === schemas().name; // true: built once
 * ```
 */
export function lazy<T>(build: () => T): () => T {
  let value: T | undefined;
  return () => {
    value ??= build();
    return value;
  };
}
