/**
 * A small promise pool: runs an async task for each index with a fixed number in flight, so a bulk
 * load overlaps its requests' round trips without opening thousands of transactions at once.
 */

/**
 * Calls `task(i)` for i = 0..count-1, at most `concurrency` at a time.
 * @param onDone called after each finished task with the number finished so far
 * @returns the results in index order
 * @throws the first task error (tasks already started are awaited, none is started after it)
 */
export async function mapPool<T>(
  count: number,
  concurrency: number,
  task: (index: number) => Promise<T>,
  onDone: (done: number) => void = () => {},
): Promise<T[]> {
  const results = new Array<T>(count);
  let next = 0;
  let done = 0;
  let failed = false;
  const worker = async () => {
    while (!failed && next < count) {
      const i = next++;
      try {
        results[i] = await task(i);
      } catch (err) {
        failed = true;
        throw err;
      }
      onDone(++done);
    }
  };
  const settled = await Promise.allSettled(Array.from({ length: Math.min(concurrency, count) }, worker));
  const rejected = settled.find((s): s is PromiseRejectedResult => s.status === 'rejected');
  if (rejected) throw rejected.reason;
  return results;
}
