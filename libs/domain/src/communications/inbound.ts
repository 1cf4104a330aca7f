/**
 * What comes back from customers and providers (docs/api.md sections 12 and 13), each in one
 * transaction that locks the debt first:
 * - a reply (email to the per-debt reply address, SMS to our number) becomes an inbound
 *   communication, once per provider message, and moves the debt to `contact_established`; an
 *   SMS `STOP` also removes `sms` from the customer's accepted channels (`customer.updated`);
 * - a delivery receipt moves the outbound communication to `delivered` or `failed`, a bounce to
 *   `bounced`, which marks its contact detail `undeliverable` and, when the customer has no usable
 *   detail left, moves the debt to `enriching` or `contact_failed`. A receipt the machine no longer
 *   allows (a replay) changes nothing.
 * Callbacks name no tenant: the objects are found across tenants by the ids the messages carry,
 * after the caller has authenticated the callback.
 */
import type { Knex } from '@dms/db';
import { DELIVERY_METHODS, type DeliveryMethod } from '../communication-templates/schemas.js';
import type { ContactPreferences } from '../customers/schemas.js';
import { setContactPreferences } from '../customers/store.js';
import { changeContactDetail, recordDetailEvents } from '../contact-details/store.js';
import { contactDetailsResource } from '../contact-details/resource.js';
import { lockCustomer } from '../customers/contacts.js';
import { SYSTEM_ACTOR, lockDebt, moveLockedDebt } from '../debts/moves.js';
import { debtsResource } from '../debts/resource.js';
import type { DebtRow } from '../debts/schemas.js';
import { DEBT_MACHINE } from '../debts/states.js';
import { acrossTenants } from '../kernel/scoped.js';
import { communicationsResource } from './resource.js';
import { noDetailLeft } from './engine.js';
import { pickDetail, usableDetails, METHOD_DETAIL_TYPES } from './details.js';
import type { CommunicationRow } from './schemas.js';
import { findOutboundFor, loadCommunication } from './lookups.js';
import { moveCommunication } from './moves.js';
import { insertInbound } from './store.js';

/** The outcome of a callback: what was recorded, or why nothing was. */
export type CallbackOutcome = { recorded: true; communication: string } | { recorded: false; reason: string };

/** A reply as the channel parsers give it. */
export interface Reply {
  deliveryMethod: DeliveryMethod;
  provider: string;
  providerReference: string;
  /** The debt it answers, when its address says (email); else found from the sender. */
  debtId: string | null;
  /** Sender: an email address or an E.164 number. */
  from: string;
  subject: string | null;
  text: string;
}

/** The most recent outbound communication to a detail whose value is `from`, across tenants (an SMS reply names no debt). */
async function debtAnsweredBy(db: Knex | Knex.Transaction, method: DeliveryMethod, from: string): Promise<string | undefined> {
  const row: { debt_id: string } | undefined = await acrossTenants(db, communicationsResource)
    .join(`${contactDetailsResource.table} as d`, 'd.id', 'communications.contact_detail_id')
    .where({ 'communications.direction': 'outbound', 'communications.delivery_method': method, 'd.value': from })
    .orderBy('communications.seq', 'desc')
    .first('communications.debt_id');
  return row?.debt_id;
}

/** An SMS whose whole text is `STOP` (any case, spaces around): the customer refuses SMS. */
export function isStop(reply: Pick<Reply, 'deliveryMethod' | 'text'>): boolean {
  return reply.deliveryMethod === 'sms' && /^\s*stop\s*$/i.test(reply.text);
}

/** The preferences after an SMS `STOP`: every channel accepted before but `sms`. */
function withoutSms(current: ContactPreferences | null): ContactPreferences {
  const channels = (current?.channels ?? DELIVERY_METHODS).filter((c) => c !== 'sms');
  return { channels, hours: current?.hours ?? null, language: current?.language ?? null };
}

/** Moves a locked debt to `contact_established` when the table allows it (the customer answered, paid or made a plan). */
export async function establishContact(trx: Knex.Transaction, debt: DebtRow, context: string): Promise<void> {
  if (DEBT_MACHINE.allows(debt.status, 'establish-contact'))
    await moveLockedDebt(trx, debt.tenant_id, debt, 'establish-contact', { whodunnit: SYSTEM_ACTOR, context });
}

/**
 * Records a reply as an inbound communication (`received`) and establishes contact.
 * @returns what was recorded; nothing for a replay or a reply to no debt we know
 */
export async function recordReply(db: Knex, reply: Reply): Promise<CallbackOutcome> {
  const debtId = reply.debtId ?? (await debtAnsweredBy(db, reply.deliveryMethod, reply.from));
  if (!debtId) return { recorded: false, reason: 'no debt matches the reply' };
  const found: { tenant_id: string } | undefined = await acrossTenants(db, debtsResource).where('debts.id', debtId).first('debts.tenant_id');
  if (!found) return { recorded: false, reason: 'no debt matches the reply' };
  return db.transaction(async (trx) => {
    const debt = await lockDebt(trx, found.tenant_id, debtId);
    const details = await usableDetails(trx, debt.tenant_id, debt.customer_id);
    const detail = details.find((d) => METHOD_DETAIL_TYPES[reply.deliveryMethod].includes(d.type) && d.value?.toLowerCase() === reply.from.toLowerCase());
    const row = await insertInbound(trx, debt.tenant_id, {
      debtId: debt.id,
      customerId: debt.customer_id,
      deliveryMethod: reply.deliveryMethod,
      provider: reply.provider,
      providerReference: reply.providerReference,
      contactDetailId: detail?.id ?? null,
      subject: reply.subject,
      body: reply.text,
    });
    if (!row) return { recorded: false, reason: 'already recorded' } as const;
    if (isStop(reply)) await setContactPreferences(trx, debt.tenant_id, debt.customer_id, withoutSms, 'sms_stop');
    await establishContact(trx, debt, `communication.received: ${row.id}`);
    return { recorded: true, communication: row.id } as const;
  });
}

/** News about one outbound message, as the channel parsers give it. */
export interface Receipt {
  communicationId: string | null;
  providerReference: string;
  status: 'delivered' | 'failed' | 'bounced' | 'pending';
  reason: string | null;
}

/**
 * Applies a delivery receipt or a bounce (see module doc).
 * @returns what was recorded; nothing for interim news, a replay, or a message we never sent
 */
export async function applyReceipt(db: Knex, receipt: Receipt): Promise<CallbackOutcome> {
  if (receipt.status === 'pending') return { recorded: false, reason: 'interim news' };
  const found = await findOutboundFor(db, receipt);
  if (!found) return { recorded: false, reason: 'no such communication' };
  return db.transaction(async (trx) => {
    const debt = await lockDebt(trx, found.tenant_id, found.debt_id);
    const row = await loadCommunication(trx, found.tenant_id, found.id, true);
    const move = receipt.status === 'delivered' ? 'deliver' : receipt.status === 'bounced' ? 'bounce' : 'fail';
    const moved = await moveCommunication(trx, row, move, receipt.reason ? { status_reason: receipt.reason } : {});
    if (!moved) return { recorded: false, reason: `already ${row.status}` } as const;
    if (move === 'bounce' && row.contact_detail_id) await markUndeliverable(trx, debt, row);
    return { recorded: true, communication: row.id } as const;
  });
}

/**
 * A bounce or a provider's permanent refusal of the recipient: the detail the locked debt's
 * communication `row` went to is `undeliverable`; with no usable detail left the debt stops being worked.
 */
export async function markUndeliverable(trx: Knex.Transaction, debt: DebtRow, row: CommunicationRow): Promise<void> {
  const customer = await lockCustomer(trx, debt.tenant_id, debt.customer_id);
  const events = await changeContactDetail(trx, debt.tenant_id, customer, row.contact_detail_id!, { status: 'undeliverable' });
  await recordDetailEvents(trx, debt.tenant_id, events);
  await failIfNoDetailLeft(trx, debt, SYSTEM_ACTOR);
}

/** Moves a locked debt being worked to `enriching`/`contact_failed` when its customer has no usable detail of any channel. */
export async function failIfNoDetailLeft(trx: Knex.Transaction, debt: DebtRow, whodunnit: string): Promise<boolean> {
  if (!['analysing', 'contacted'].includes(debt.status)) return false;
  const details = await usableDetails(trx, debt.tenant_id, debt.customer_id);
  if ((['email', 'sms', 'letter'] as const).some((m) => pickDetail(details, m))) return false;
  await noDetailLeft(trx, debt, whodunnit);
  return true;
}
