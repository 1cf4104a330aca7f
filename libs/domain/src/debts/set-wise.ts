/**
 * Set-wise writes of debts the caller has locked, for the collection engine's batches (docs/api.md
 * section 13): `moveLockedDebts` makes many status moves in one `UPDATE … FROM (VALUES …)` and
 * records each move's `debt.<status>` event (outbox) in the order given, with the engine's
 * bookkeeping (engine-state.ts) of each debt written in the same statement.
 */
import type { Knex } from '@dms/db';
import { recordEvent } from '../kernel/outbox.js';
import type { EventOf } from '../kernel/resource.js';
import { bySignature, updateFromValues } from '../kernel/set-wise.js';
import { debtsResource } from './resource.js';
import type { DebtRow } from './schemas.js';
import { moveColumns, type StatusNote } from './moves.js';
import { PLAN_AWARE, requireTransition, type DebtMove } from './states.js';
import { ENGINE_TYPES, type EngineColumns } from './engine-state.js';
import { toDebt } from './store.js';

/** SQL types of the debt columns written through `VALUES`. */
const TYPES: Record<string, string> = {
  status: 'text',
  status_reason: 'text',
  status_whodunnit: 'text',
  status_context: 'text',
  pause_end_at: 'timestamptz',
  ...ENGINE_TYPES,
};

/** One move of a locked debt, with the engine's bookkeeping written with it. */
export interface LockedMove {
  locked: DebtRow;
  move: DebtMove;
  note: StatusNote;
  state?: EngineColumns;
}

/**
 * Makes `moves` (at most one per debt; none that depends on a plan or ends by itself) set-wise
 * and records their events in the order given.
 * @returns the debts after their moves, in the order given
 * @throws ApiError 409 `invalid_state_transition` when the table forbids a move (nothing is written)
 * @throws Error for a plan-aware move (use `moveLockedDebt`)
 */
export async function moveLockedDebts(trx: Knex.Transaction, moves: readonly LockedMove[]): Promise<DebtRow[]> {
  const planned = moves.map((m) => {
    if (PLAN_AWARE.includes(m.move)) throw new Error(`moveLockedDebts: '${m.move}' depends on the debt's plan`);
    const to = requireTransition(m.locked.status, m.move);
    return { ...m, to, values: { id: m.locked.id, tenant_id: m.locked.tenant_id, ...moveColumns(m.move, to, m.note), ...m.state } };
  });
  const updated = new Map<string, DebtRow>();
  for (const group of bySignature(planned, (p) => Object.keys(p.values))) {
    for (const [id, row] of await updateFromValues<DebtRow>(
      trx,
      'debts',
      TYPES,
      group.map((p) => p.values),
      'status_updated_at = now(), updated_at = now()',
    )) {
      updated.set(id, row);
    }
  }
  const rows: DebtRow[] = [];
  for (const p of planned) {
    const row = updated.get(p.locked.id)!;
    await recordEvent(trx, debtsResource, row.tenant_id, `debt.${p.to}` as EventOf<typeof debtsResource>, toDebt(row));
    rows.push(row);
  }
  return rows;
}
