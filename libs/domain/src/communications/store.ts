/**
 * Communications (docs/api.md section 13): the one writer of their rows. Outbound ones are
 * inserted by the collection engine (one per debt and strategy step: the unique index
 * `communications_one_per_step`) and marked handed over just before each hand-over; inbound ones
 * are inserted once per provider message (`communications_inbound_once`: a replayed callback
 * inserts nothing). Their moves by their machine (states.ts) are in moves.ts, their lookups in
 * lookups.ts, the contact lock in contact-lock.ts. Each write records its event in the caller's
 * transaction (outbox).
 */
import type { Knex } from '@dms/db';
import { newId } from '@dms/ids';
import { recordEvent } from '../kernel/outbox.js';
import { tenantRows } from '../kernel/scoped.js';
import { iso } from '../kernel/schemas.js';
import type { DeliveryMethod } from '../communication-templates/schemas.js';
import { communicationsResource as communications } from './resource.js';
import type { Communication, CommunicationMethod, CommunicationRow } from './schemas.js';

/** Maps a row to the public object (references as ids). */
export function toCommunication(row: CommunicationRow): Communication {
  return {
    id: row.id,
    object: 'communication',
    debt: row.debt_id,
    customer: row.customer_id,
    template: row.template_id,
    template_version: row.template_version,
    status: row.status,
    status_reason: row.status_reason,
    direction: row.direction,
    delivery_method: row.delivery_method,
    contact_detail: row.contact_detail_id,
    provider: row.provider,
    provider_reference: row.provider_reference,
    subject: row.subject,
    body: row.body,
    classification: row.classification,
    metadata: row.metadata,
    created_at: iso(row.created_at)!,
    updated_at: iso(row.updated_at)!,
  };
}

/** What an outbound communication is made of (the engine's rendered step). */
export interface OutboundInput {
  debtId: string;
  customerId: string;
  deliveryMethod: DeliveryMethod;
  /** The strategy step it is made for (one per debt and step), or null for a message outside the strategy (a promise's reminder). */
  step: number | null;
  templateId: string | null;
  templateVersion: number | null;
  /** The built-in template's name when `templateId` is null. */
  templateName: string;
  contactDetailId: string | null;
  subject: string | null;
  body: string | null;
  /** Set for a communication that could not be made (a render failure): it is stored `failed`. */
  failure?: string;
}

/** The row an outbound communication is inserted as. */
function outboundRow(tenantId: string, input: OutboundInput, now: Date, leaseSeconds: number): Record<string, unknown> {
  return {
    id: newId(communications.idPrefix),
    tenant_id: tenantId,
    debt_id: input.debtId,
    customer_id: input.customerId,
    template_id: input.templateId,
    template_version: input.templateVersion,
    contact_detail_id: input.contactDetailId,
    direction: 'outbound',
    delivery_method: input.deliveryMethod,
    status: input.failure ? 'failed' : 'queued',
    status_reason: input.failure ?? null,
    step: input.step,
    subject: input.subject,
    body: input.body,
    metadata: JSON.stringify({ template_name: input.templateName }),
    handed_at: input.failure ? null : now,
    next_attempt_at: input.failure ? null : new Date(now.getTime() + leaseSeconds * 1000),
  };
}

/**
 * Seconds a worker has, by default, to hand over a `queued` communication it made or claimed
 * before another worker may take it (its `next_attempt_at` is pushed this far ahead: a worker
 * killed before the hand-over leaves it to the others after this).
 */
export const HAND_OVER_LEASE_SECONDS = 60;

/**
 * Marks the `queued` communication `com` handed over, just before its hand-over (docs/api.md
 * section 13), in one statement of its own: `sending_at` and `handed_at` the engine's clock (the
 * tenant's clock plus `offsetSeconds`), one more attempt. Only a communication not being handed
 * over already is marked, so two workers never hand one over at once.
 * @returns the hand-over's time and the first attempt's, or undefined when it was not marked
 *   (another worker has it, or it is no longer `queued`): it must not be handed over
 */
export async function markSending(db: Knex, com: CommunicationRow, offsetSeconds: number): Promise<{ handedAt: Date; firstAttemptAt: Date } | undefined> {
  const at = 'tenant_now(communications.tenant_id) + make_interval(secs => ?)';
  const [row]: Array<{ handed_at: Date; first_attempt_at: Date }> = await tenantRows(db, communications, com.tenant_id)
    .where({ 'communications.id': com.id, 'communications.status': 'queued' })
    .whereNull('communications.sending_at')
    .update({
      sending_at: db.raw(at, [offsetSeconds]),
      handed_at: db.raw(at, [offsetSeconds]),
      first_attempt_at: db.raw(`coalesce(communications.first_attempt_at, ${at})`, [offsetSeconds]),
      attempts: db.raw('communications.attempts + 1'),
      next_attempt_at: null,
      updated_at: db.fn.now(),
    })
    .returning(['handed_at', 'first_attempt_at']);
  return row ? { handedAt: row.handed_at, firstAttemptAt: row.first_attempt_at } : undefined;
}

/**
 * Inserts outbound communications in one statement (a worker's batch of steps): each `queued`
 * with `handed_at` its `now` (its place in the 7-day count) and its hand-over leased to the
 * worker for `leaseSeconds` (the engine hands it to its provider right after commit), or
 * `failed` with its reason. Records `communication.created` (and `communication.failed`) for
 * each, in the order given.
 * @returns each row in the order given, or undefined where the step already has its communication
 *   (the unique index `communications_one_per_step`: nothing is written for it)
 */
export async function insertOutbounds(
  trx: Knex.Transaction,
  items: ReadonlyArray<{ tenantId: string; input: OutboundInput; now: Date }>,
  leaseSeconds = HAND_OVER_LEASE_SECONDS,
): Promise<Array<CommunicationRow | undefined>> {
  if (!items.length) return [];
  const values = items.map(({ tenantId, input, now }) => outboundRow(tenantId, input, now, leaseSeconds));
  const inserted = new Map(
    (
      (await trx(communications.table)
        .insert(values)
        .onConflict(trx.raw(`(debt_id, step) WHERE direction = 'outbound' AND step IS NOT NULL`))
        .ignore()
        .returning('*')) as CommunicationRow[]
    ).map((r) => [r.id, r]),
  );
  const rows: Array<CommunicationRow | undefined> = [];
  for (const [i, v] of values.entries()) {
    const row = inserted.get(v.id as string);
    rows.push(row);
    if (!row) continue;
    await recordEvent(trx, communications, row.tenant_id, 'communication.created', toCommunication({ ...row, status: 'queued', status_reason: null }));
    if (items[i]!.input.failure) await recordEvent(trx, communications, row.tenant_id, 'communication.failed', toCommunication(row));
  }
  return rows;
}

/**
 * `insertOutbounds` for one communication.
 * @returns the row, or undefined when the step already has its communication (another worker's)
 */
export async function insertOutbound(trx: Knex.Transaction, tenantId: string, input: OutboundInput, now: Date): Promise<CommunicationRow | undefined> {
  const [row] = await insertOutbounds(trx, [{ tenantId, input, now }]);
  return row;
}

/** What an inbound communication carries. */
export interface InboundInput {
  debtId: string;
  customerId: string;
  deliveryMethod: CommunicationMethod;
  provider: string;
  providerReference: string;
  contactDetailId: string | null;
  subject: string | null;
  body: string;
  metadata?: Record<string, string>;
}

/**
 * Inserts an inbound communication (`received`, `communication.received`), once per
 * `(provider, provider_reference)`.
 * @returns the row, or undefined when that provider message was already recorded (a replay)
 */
export async function insertInbound(trx: Knex.Transaction, tenantId: string, input: InboundInput): Promise<CommunicationRow | undefined> {
  const [row] = (await trx(communications.table)
    .insert({
      id: newId(communications.idPrefix),
      tenant_id: tenantId,
      debt_id: input.debtId,
      customer_id: input.customerId,
      contact_detail_id: input.contactDetailId,
      direction: 'inbound',
      delivery_method: input.deliveryMethod,
      status: 'received',
      provider: input.provider,
      provider_reference: input.providerReference,
      subject: input.subject,
      body: input.body,
      metadata: JSON.stringify(input.metadata ?? {}),
    })
    .onConflict(trx.raw(`(provider, provider_reference) WHERE direction = 'inbound'`))
    .ignore()
    .returning('*')) as CommunicationRow[];
  if (!row) return undefined;
  await recordEvent(trx, communications, tenantId, 'communication.received', toCommunication(row));
  return row;
}
