/**
 * Reads the next row while the consumer is still working on the current one. A synchronous
 * driver (better-sqlite3) blocks the thread while it reads a cold database; fetched from a
 * setImmediate callback, that read runs whenever the consumer awaits something (a LOB being
 * written to disk), so reading the database and writing the archive overlap. One row ahead at
 * most: memory grows by one row (with its LOBs), never more.
 */
export async function* readAhead<T>(rows: AsyncIterable<T>): AsyncGenerator<T> {
  const it = rows[Symbol.asyncIterator]();
  let pending: Promise<IteratorResult<T>> = it.next();
  let done = false;
  try {
    for (;;) {
      const r = await pending;
      if (r.done) {
        done = true;
        return;
      }
      pending = new Promise<IteratorResult<T>>((resolve, reject) => setImmediate(() => it.next().then(resolve, reject)));
      pending.catch(() => {}); // a failure surfaces where the row is awaited, in order
      yield r.value;
    }
  } finally {
    // The consumer stopped early (or a read failed): let the read in flight end, then close the source.
    if (!done) {
      await pending.catch(() => {});
      await it.return?.(undefined);
    }
  }
}
