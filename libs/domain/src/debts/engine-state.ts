/**
 * The collection engine's bookkeeping on a debt (docs/api.md section 13): its strategy step, when
 * it is next due and when the customer was last contacted. `setEngineState` writes it for a debt
 * the caller has locked; through a write batch (`batchWrites`, kernel) the writes are collected and
 * `flushEngineState` makes them in one statement per set of columns before the commit.
 */
import type { Knex } from '@dms/db';
import { tenantRows } from '../kernel/scoped.js';
import { writeBatchOf, type BatchedTransaction } from '../kernel/write-batch.js';
import { bySignature, updateFromValues } from '../kernel/set-wise.js';
import { debtsResource } from './resource.js';
import type { DebtRow } from './schemas.js';

/** Engine bookkeeping a set-wise write may carry: times and a step, never `'now'`. */
export type EngineColumns = { engine_step?: number; engine_due_at?: Date | null; contacted_at?: Date };

/** SQL types of the bookkeeping columns, for writes through `VALUES`. */
export const ENGINE_TYPES: Record<keyof EngineColumns, string> = {
  engine_step: 'integer',
  engine_due_at: 'timestamptz',
  contacted_at: 'timestamptz',
};

/** The collection engine's bookkeeping on a debt (docs/api.md section 13); not part of the public object. */
export interface EngineState {
  engine_step?: number;
  /** A time, `'now'` (the tenant's now), or null (nothing due). */
  engine_due_at?: Date | 'now' | null;
  contacted_at?: Date | 'now';
}

/**
 * Writes the engine's bookkeeping of a debt the caller has locked: no event (nothing a client
 * sees changes; the communications and status moves it goes with record theirs). Through a write
 * batch (`batchWrites`) it is collected and written set-wise by `flushEngineState`.
 */
export async function setEngineState(trx: Knex.Transaction, tenantId: string, debtId: string, given: EngineState): Promise<void> {
  const state = collectEngineState(trx, tenantId, debtId, given);
  if (!state) return;
  const now = trx.raw('tenant_now(?)', [tenantId]);
  const columns: Record<string, unknown> = {};
  if (state.engine_step !== undefined) columns.engine_step = state.engine_step;
  if (state.engine_due_at !== undefined) columns.engine_due_at = state.engine_due_at === 'now' ? now : state.engine_due_at;
  if (state.contacted_at !== undefined) columns.contacted_at = state.contacted_at === 'now' ? now : state.contacted_at;
  if (Object.keys(columns).length) await tenantRows(trx, debtsResource, tenantId).where('debts.id', debtId).update(columns);
}

/**
 * Collects `state` for `debtId` when `trx` carries a write batch (and the state holds no `'now'`);
 * a debt's later call overrides its earlier one column by column. A status move of a debt with
 * collected state must not write engine columns itself.
 * @returns null when collected; else what the caller must write at once (with what was collected
 *   for the debt, which is then dropped, so that nothing older is written after it)
 */
export function collectEngineState(trx: Knex.Transaction, tenantId: string, debtId: string, state: EngineState): EngineState | null {
  const collected = writeBatchOf(trx)?.engineStates;
  if (!collected) return state;
  const merged: EngineState = { ...collected.get(debtId)?.state, ...state };
  if (merged.engine_due_at === 'now' || merged.contacted_at === 'now') {
    collected.delete(debtId);
    return merged;
  }
  collected.set(debtId, { tenantId, state: merged as EngineColumns & Record<string, unknown> });
  return null;
}

/** Writes the state `trx`'s write batch collected; `setEngineState` through `trx` writes at once afterwards. */
export async function flushEngineState(trx: BatchedTransaction): Promise<void> {
  const collected = trx.writeBatch.engineStates;
  trx.writeBatch.engineStates = null;
  if (!collected?.size) return;
  const rows = [...collected].map(([id, { tenantId, state }]) => ({ id, tenant_id: tenantId, ...(state as EngineColumns) }));
  for (const group of bySignature(rows, (r) => Object.keys(r))) await updateFromValues<DebtRow>(trx, 'debts', ENGINE_TYPES, group);
}
