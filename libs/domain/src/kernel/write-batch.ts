/**
 * A write batch: a transaction handle that collects the rows many domain writes would make one by
 * one (events, the collection engine's bookkeeping), so that they are written set-wise before the
 * commit (docs/api.md section 13, "Throughput"). The batch travels explicitly with the handle:
 * `batchWrites(trx)` returns a `BatchedTransaction` (the same transaction, carrying `writeBatch`),
 * the caller passes it down like any transaction, and flushes it (`flushEvents`,
 * `flushEngineState`) before it commits. Writers that receive a plain transaction write at once.
 */
import type { Knex } from '@dms/db';

/** Engine bookkeeping collected for one debt (`debts/engine-state.ts` gives its columns). */
export interface CollectedEngineState {
  tenantId: string;
  state: Record<string, unknown>;
}

/** What a batch holds until it is flushed; a flushed part is closed, and its writers write at once again. */
export interface WriteBatch {
  /** Event rows in the order recorded (`recordEvent`), null once flushed. */
  events: Array<Record<string, unknown>> | null;
  /** Engine bookkeeping by debt id (`setEngineState`), null once flushed. */
  engineStates: Map<string, CollectedEngineState> | null;
}

/** A transaction that carries its write batch. */
export type BatchedTransaction = Knex.Transaction & { readonly writeBatch: WriteBatch };

/** The parts of a write batch: what its handle collects instead of writing at once. */
export type BatchedPart = 'events' | 'engineState';

/**
 * Returns `trx` carrying a new write batch that collects `parts` (the owner flushes each part it
 * asked for before the commit: `flushEvents`, `flushEngineState`); statements made through the
 * returned handle run in `trx` itself. A handle that already carries a batch is returned as it is
 * (nested batches join the outer one, whose owner flushes).
 */
export function batchWrites(trx: Knex.Transaction, parts: readonly BatchedPart[]): BatchedTransaction {
  if (writeBatchOf(trx)) return trx as BatchedTransaction;
  const batch: WriteBatch = {
    events: parts.includes('events') ? [] : null,
    engineStates: parts.includes('engineState') ? new Map() : null,
  };
  return new Proxy(trx, {
    get: (target, key) => (key === 'writeBatch' ? batch : Reflect.get(target, key, target)),
  }) as BatchedTransaction;
}

/** The write batch `trx` carries, if it is a handle from `batchWrites`. */
export function writeBatchOf(trx: Knex.Transaction): WriteBatch | undefined {
  return (trx as unknown as { writeBatch?: WriteBatch }).writeBatch;
}
