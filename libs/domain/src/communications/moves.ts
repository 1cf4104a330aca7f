/**
 * Communications (docs/api.md section 13): their moves. Each status change goes through the
 * machine (states.ts) and records the event of the new status in the caller's transaction
 * (outbox); the caller holds the rows' locks. Also the operator's classification of an inbound one.
 */
import type { Knex } from '@dms/db';
import { recordEvent } from '../kernel/outbox.js';
import { tenantRows } from '../kernel/scoped.js';
import { bySignature, updateFromValues } from '../kernel/set-wise.js';
import { communicationsResource as communications } from './resource.js';
import type { CommunicationRow } from './schemas.js';
import { COMMUNICATION_MACHINE, STATUS_EVENTS, type CommunicationMove } from './states.js';
import { toCommunication } from './store.js';

/**
 * Moves a communication the caller has locked, writing `changes` with it, and records the event
 * of its new status.
 * @returns the row after the move, or undefined when the machine does not allow it (a receipt
 *   that arrives again, or after a later one): nothing is written
 */
export async function moveCommunication(
  trx: Knex.Transaction,
  row: CommunicationRow,
  move: CommunicationMove,
  changes: Record<string, unknown> = {},
): Promise<CommunicationRow | undefined> {
  const next = COMMUNICATION_MACHINE.transition(row.status, move);
  if (!next.ok) return undefined;
  const [moved] = (await tenantRows(trx, communications, row.tenant_id)
    .where('communications.id', row.id)
    .update({ ...changes, status: next.to, updated_at: trx.fn.now() })
    .returning('*')) as CommunicationRow[];
  await recordEvent(trx, communications, row.tenant_id, STATUS_EVENTS[next.to], toCommunication(moved!));
  return moved;
}

/** SQL types of the communication columns a set-wise move writes. */
const MOVE_COLUMNS: Record<string, string> = {
  status: 'text',
  status_reason: 'text',
  provider: 'text',
  provider_reference: 'text',
  metadata: 'jsonb',
  sending_at: 'timestamptz',
};

/**
 * `moveCommunication` for many communications the caller has locked (a worker's batch): the
 * moves the machine allows are written in one statement per set of columns, and their events
 * recorded in the order given.
 * @returns each row after its move, or undefined where the machine does not allow it (nothing written)
 */
export async function moveCommunications(
  trx: Knex.Transaction,
  items: ReadonlyArray<{ row: CommunicationRow; move: CommunicationMove; changes?: Record<string, unknown> }>,
): Promise<Array<CommunicationRow | undefined>> {
  const planned = items.map(({ row, move, changes }) => {
    const next = COMMUNICATION_MACHINE.transition(row.status, move);
    return next.ok ? { row, to: next.to, values: { id: row.id, tenant_id: row.tenant_id, ...changes, status: next.to } } : undefined;
  });
  const allowed = planned.filter((p) => p !== undefined);
  const updated = new Map<string, CommunicationRow>();
  for (const group of bySignature(allowed, (p) => Object.keys(p.values))) {
    const rows = group.map((p) => p.values);
    for (const [id, r] of await updateFromValues<CommunicationRow>(trx, communications.table, MOVE_COLUMNS, rows, 'updated_at = now()')) updated.set(id, r);
  }
  const out: Array<CommunicationRow | undefined> = [];
  for (const p of planned) {
    const moved = p && updated.get(p.row.id);
    if (p && moved) await recordEvent(trx, communications, p.row.tenant_id, STATUS_EVENTS[p.to], toCommunication(moved));
    out.push(moved);
  }
  return out;
}

/** Writes the operator's classification of a locked inbound communication (no status change). */
export async function classifyRow(trx: Knex.Transaction, row: CommunicationRow, classification: string): Promise<CommunicationRow> {
  const [updated] = (await tenantRows(trx, communications, row.tenant_id)
    .where('communications.id', row.id)
    .update({ classification, updated_at: trx.fn.now() })
    .returning('*')) as CommunicationRow[];
  return updated!;
}
