/**
 * Runs a bulk load as a sequence of transactions of `batchSize` items each.
 *
 * Every write of a tenant updates the tenant's list counters and events counter (CONTRACT section
 * 4), so concurrent transactions of one tenant queue on those rows anyway; what costs time is the
 * hand-over of those row locks and the commit of each transaction. Grouping items into larger
 * transactions removes most of both. The domain functions called per item open their own
 * (nested) transaction, which Knex runs as a savepoint inside the batch, so each item's change and
 * its event still commit or roll back together, exactly as in the API.
 */
import type { Knex } from '@dms/db';

/**
 * Calls `task(trx, i)` for i = 0..count-1, in order, `batchSize` calls per transaction.
 * @param onBatch called after each committed batch with the number of items done so far
 * @returns the results in index order
 * @throws the first task error (its batch is rolled back; earlier batches stay committed)
 */
export async function inBatches<T>(
  db: Knex,
  count: number,
  batchSize: number,
  task: (trx: Knex.Transaction, index: number) => Promise<T>,
  onBatch: (done: number) => void = () => {},
): Promise<T[]> {
  const results: T[] = [];
  for (let start = 0; start < count; start += batchSize) {
    const end = Math.min(count, start + batchSize);
    await db.transaction(async (trx) => {
      for (let i = start; i < end; i++) results.push(await task(trx, i));
    });
    onBatch(end);
  }
  return results;
}
