/**
 * Top-level transactions run again when PostgreSQL rolled them back for colliding with another
 * (a deadlock's victim, 40P01; a serialization failure, 40001): nothing of the attempt remains, so
 * its handler runs from the start on a new transaction, as PostgreSQL's docs prescribe. Two
 * writers that take the same rows in opposite orders (the list counters of a refund and of a
 * payout run, say) then both succeed instead of one failing.
 */
import type { Knex } from 'knex';
import { isTransactionConflict } from './errors.js';

/** Runs of one top-level transaction at most: the first and two more after a conflict. */
export const TRANSACTION_ATTEMPTS = 3;

/** Pause before the `attempt`-th run (2, 3, …), milliseconds: growing, with jitter so the two sides part. */
const pauseBefore = (attempt: number) => 20 * (attempt - 1) + Math.floor(Math.random() * 30);

/**
 * Makes `db.transaction(handler)` run `handler` again, up to `TRANSACTION_ATTEMPTS` runs in all,
 * when its transaction fails with a conflict (`isTransactionConflict`). Savepoints (`trx.transaction`)
 * are not retried: a conflict ends the whole transaction, which the outermost run repeats. A
 * handler must therefore keep its effects inside the transaction (or after it), as every handler
 * of this code base does. `db.transaction()` without a handler is left as it is.
 * @returns `db`, changed in place
 * @throws the conflict of the last run, and any other error at once
 */
export function retryTransactionConflicts(db: Knex): Knex {
  const begin = db.transaction.bind(db) as (handler?: unknown, config?: unknown) => Promise<unknown>;
  const transaction = async (handler: unknown, config?: unknown): Promise<unknown> => {
    for (let attempt = 1; ; attempt++) {
      try {
        return await begin(handler, config);
      } catch (err) {
        if (attempt >= TRANSACTION_ATTEMPTS || !isTransactionConflict(err)) throw err;
        await new Promise((resolve) => setTimeout(resolve, pauseBefore(attempt + 1)));
      }
    }
  };
  // Knex defines `transaction` on the instance as a configurable, read-only property.
  Object.defineProperty(db, 'transaction', {
    value: (handler?: unknown, config?: unknown) => (typeof handler === 'function' ? transaction(handler, config) : begin(handler, config)),
    configurable: true,
  });
  return db;
}
