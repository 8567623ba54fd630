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

/**
 * A getter of one field of a {@link lazy} object: each schema module exports its schemas this way.
 *
 * @example
 * ```ts
 * const built = lazy(() => ({ name: z.string() }));
 * export const nameSchema = lazyField(built, "name"); // nameSchema() builds on first call
 * ```
 */
export function lazyField<T, K extends keyof T>(built: () => T, key: K): () => T[K] {
  return () => built()[key];
}
