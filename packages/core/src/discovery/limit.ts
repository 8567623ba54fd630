/**
 * A concurrency limiter: at most `n` of the functions passed to the returned `limit` run at once;
 * the rest wait in order. Use it around leaf I/O, never around work that itself waits for slots.
 *
 * @example
 * ```ts
 * const limit = createLimiter(8);
 * const heads = await Promise.all(paths.map((p) => limit(() => readHead(p))));
 * ```
 */
export function createLimiter(n: number): <T>(fn: () => Promise<T>) => Promise<T> {
  if (!Number.isInteger(n) || n < 1) throw new RangeError(`concurrency must be an integer >= 1, got ${n}`);
  let active = 0;
  const queue: (() => void)[] = [];
  const next = () => {
    active--;
    queue.shift()?.();
  };
  return <T>(fn: () => Promise<T>): Promise<T> => {
    if (active < n) {
      // Fast path (most calls): no extra promise around fn's own.
      active++;
      const p = fn();
      p.then(next, next);
      return p;
    }
    return new Promise<T>((resolve, reject) => {
      queue.push(() => {
        active++;
        const p = fn();
        p.then(next, next);
        p.then(resolve, reject);
      });
    });
  };
}

/** `Promise.all(items.map(fn))` with at most `n` calls of `fn` in flight. */
export function mapLimit<T, R>(items: readonly T[], n: number, fn: (item: T) => Promise<R>): Promise<R[]> {
  const limit = createLimiter(n);
  return Promise.all(items.map((item) => limit(() => fn(item))));
}
