/**
 * Run `work(i)` for i in [0, count) with at most `jobs` at once, in order of i. Once
 * `shouldStop()` turns true no new item starts; the running ones are awaited.
 *
 * @example
 * ```ts
 * await runPool(3, 2, async (i) => console.log(i), () => false); // 0 1 2
 * ```
 */
export async function runPool(
  count: number,
  jobs: number,
  work: (index: number) => Promise<void>,
  shouldStop: () => boolean,
): Promise<void> {
  let next = 0;
  const worker = async () => {
    while (next < count && !shouldStop()) {
      const i = next++;
      await work(i);
    }
  };
  await Promise.all(Array.from({ length: Math.max(1, Math.min(jobs, count)) }, worker));
}
