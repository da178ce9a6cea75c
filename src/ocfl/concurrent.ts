/**
 * Running many small filesystem operations at once. Each one is a round trip to libuv's thread
 * pool; one after another, a million files pay a million latencies. A fixed number in flight
 * keeps the pool busy with bounded memory, and unlike fixed batches no slot waits for the
 * slowest operation of its batch.
 */

/**
 * Calls `fn` on every item, at most `width` at a time, in order of start. Stops starting new
 * work at the first failure and rejects with it once the running calls have settled (so no
 * operation is still writing when the caller cleans up).
 */
export async function forEachConcurrent<T>(
  items: Iterable<T>,
  width: number,
  fn: (item: T, index: number) => Promise<void>,
): Promise<void> {
  const iterator = items[Symbol.iterator]();
  let index = 0;
  let failure: { error: unknown } | undefined;
  const lane = async (): Promise<void> => {
    while (!failure) {
      const next = iterator.next();
      if (next.done) return;
      try {
        await fn(next.value, index++);
      } catch (error) {
        failure ??= { error };
      }
    }
  };
  await Promise.all(Array.from({ length: Math.max(1, width) }, lane));
  if (failure) throw failure.error;
}
