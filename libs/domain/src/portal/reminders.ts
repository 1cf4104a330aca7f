/**
 * The reminder of a pay-later promise (docs/api.md section 18 "Pay later"): the day before the
 * promise's date (by the tenant's clock, the calendar the charge on the day uses), the worker sends
 * the customer one communication through the collection engine's path (section 13): the same
 * contact rules (`contactGate`: statuses that forbid contact, contact pauses, contact hours and
 * preferred hours, the 7-day limit, refused channels), the same making of the message
 * (`composeMessage`: the template engine, a portal link of its own), inserted `queued` and leased
 * to the worker for its hand-over after commit, as the strategy's steps are. The promise records
 * the communication in the same transaction (`reminder_communication_id`), so it is reminded once
 * however many workers run. Held back by a contact rule, it is looked at again when the rule
 * allows (`reminder_next_at`), until its date comes; a promise no longer active (kept or broken),
 * or of a debt with nothing left to pay, gets none.
 */
import type { Knex } from '@dms/db';
import type { DebtRow } from '../debts/schemas.js';
import { composeMessage, contactGate } from '../communications/compose.js';
import type { EngineOutcome } from '../communications/engine.js';
import { insertLinks } from '../communications/portal-link.js';
import { directReads } from '../communications/reads.js';
import type { Links } from '../communications/render.js';
import { insertOutbounds } from '../communications/store.js';
import { addDays } from '../payment-plans/schedule.js';
import { PROMISES_TABLE, calendarDay, type PromiseRow } from './promises.js';

/** The built-in reminder template of each portal locale (a tenant's template of the same name replaces it). */
export const PROMISE_REMINDER_TEMPLATES = { 'en-GB': 'default-email-promise-reminder', 'fr-FR': 'default-email-promise-reminder-fr' } as const;

/** How long a reminder held back without a time of its own (its debt's status, no reachable channel) waits before it is looked at again. */
const LOOK_AGAIN_MS = 3_600_000;

/** Pure: true when calendar day `today` (`YYYY-MM-DD`) is the day before `payOn` (`YYYY-MM-DD`), the one day a promise is reminded on. */
export function isDayBefore(payOn: string, today: string): boolean {
  return addDays(payOn, -1) === today;
}

/** The reminder template for the customer's `preferred_locale`: French for `fr`, else English. */
export function promiseReminderTemplate(locale: string | null): string {
  return locale?.toLowerCase().startsWith('fr') ? PROMISE_REMINDER_TEMPLATES['fr-FR'] : PROMISE_REMINDER_TEMPLATES['en-GB'];
}

/** Sets when the promise's reminder is looked at again. */
async function lookAgain(trx: Knex.Transaction, promise: PromiseRow, at: Date, why: string): Promise<EngineOutcome> {
  await trx(PROMISES_TABLE).where({ id: promise.id }).update({ reminder_next_at: at, updated_at: trx.fn.now() });
  return { kind: 'waiting', context: `reminder of ${promise.id}: ${why}; next at ${at.toISOString()}` };
}

/**
 * Reminds the customer of the locked debt's active promise, at the engine's clock `now` on the
 * tenant's calendar day `today` (see the module doc).
 * @param links the reply address and payment link of the message
 * @param leaseSeconds how long the worker has to hand the message over before another may
 * @returns `send` with the queued communication for the worker to hand over after commit;
 *   `failed` when its template could not be rendered (the promise counts as reminded);
 *   `waiting` when it is held back, not due, or there is nothing to remind
 * @throws ApiError 404 `resource_missing` when the debt's customer is gone
 */
export async function remindPromise(
  trx: Knex.Transaction,
  debt: DebtRow,
  now: Date,
  today: string,
  links: Links,
  leaseSeconds?: number,
): Promise<EngineOutcome> {
  const promise = (await trx(PROMISES_TABLE)
    .where({ tenant_id: debt.tenant_id, debt_id: debt.id, status: 'active' })
    .whereNull('reminder_communication_id')
    .forUpdate()
    .first()) as PromiseRow | undefined;
  if (!promise) return { kind: 'waiting', context: 'no promise to remind' };
  if (!isDayBefore(calendarDay(promise.pay_on), today)) return { kind: 'waiting', context: `reminder of ${promise.id}: ${today} is not the day before` };
  if (debt.amount_remaining <= 0) return { kind: 'waiting', context: `reminder of ${promise.id}: nothing left to pay` };
  const reads = directReads(trx);
  const gate = await contactGate(debt, now, reads, 'email');
  if (gate.kind === 'wait') return lookAgain(trx, promise, gate.at ?? new Date(now.getTime() + LOOK_AGAIN_MS), gate.why);
  if (gate.kind === 'unreachable') return lookAgain(trx, promise, new Date(now.getTime() + LOOK_AGAIN_MS), 'no usable contact detail');
  const template = promiseReminderTemplate(gate.customer.preferred_locale);
  const made = await composeMessage(debt, gate, { ref: template, method: 'email' }, null, now, links, reads);
  const [communication] = await insertOutbounds(trx, [{ tenantId: debt.tenant_id, input: made.input, now }], leaseSeconds);
  await insertLinks(trx, [{ communication: made.to ? communication : undefined, link: made.link }]);
  await trx(PROMISES_TABLE)
    .where({ id: promise.id })
    .update({ reminder_communication_id: communication!.id, reminder_next_at: null, updated_at: trx.fn.now() });
  if (!made.to) return { kind: 'failed', context: `reminder of ${promise.id}: ${made.input.failure!}` };
  return { kind: 'send', context: `reminder of ${promise.id}: ${made.input.deliveryMethod} ${communication!.id}`, communication: communication!, to: made.to };
}
