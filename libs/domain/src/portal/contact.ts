/**
 * A customer disputes a debt or asks a question about it from the portal (docs/api.md section 18,
 * docs/api.md section 18), in one transaction that locks the debt first: an inbound
 * communication (`delivery_method` `portal`, classified `dispute` or `query`,
 * `communication.received`), then the same lifecycle move the tenant's `POST /debts/{id}/dispute`
 * and the operator's classification make (`moveLockedDebt`): `disputed` or `queried`, with
 * `debt.disputed` / `debt.queried` and `whodunnit` `customer:<id>`. Both statuses forbid contact
 * (states.ts `forbidsContact`), so the collection engine stops.
 */
import { randomUUID } from 'node:crypto';
import type { Knex } from '@dms/db';
import { ApiError } from '@dms/errors';
import { classifyRow } from '../communications/moves.js';
import { insertInbound } from '../communications/store.js';
import { lockDebt, moveLockedDebt } from '../debts/moves.js';
import type { Debt } from '../debts/schemas.js';
import { DEBT_MACHINE, type DebtStatus } from '../debts/states.js';

/** What the customer writes: a dispute or a question. */
export const CONTACT_KINDS = ['dispute', 'question'] as const;
export type ContactKind = (typeof CONTACT_KINDS)[number];

/** The reasons offered for each kind (the portal's list; the catalogues hold their words). */
export const CONTACT_REASONS: Record<ContactKind, readonly string[]> = {
  dispute: ['not_mine', 'amount_wrong', 'already_paid', 'identity_fraud', 'other'],
  question: ['balance', 'payments', 'creditor', 'other'],
};

/** Longest free text a customer may write, characters. */
export const MAX_CONTACT_TEXT = 2000;

/** A dispute or question as the form gives it. */
export interface ContactInput {
  kind: ContactKind;
  reason: string;
  text: string;
}

/** A form field in error and the catalogue key of its message. */
export interface ContactFieldError {
  field: 'reason' | 'text';
  message: string;
}

/** Checks a dispute or question (pure): a reason from the kind's list, free text of 1 to 2,000 characters. */
export function contactErrors(input: ContactInput): ContactFieldError[] {
  const errors: ContactFieldError[] = [];
  if (!CONTACT_REASONS[input.kind].includes(input.reason)) errors.push({ field: 'reason', message: 'contact:error.reason' });
  if (input.text.trim() === '') errors.push({ field: 'text', message: 'contact:error.text_missing' });
  else if (input.text.length > MAX_CONTACT_TEXT) errors.push({ field: 'text', message: 'contact:error.text_long' });
  return errors;
}

/** The move each kind makes. */
const MOVES = { dispute: 'dispute', question: 'query' } as const;
/** The classification each kind records on the communication. */
const CLASSIFIED = { dispute: 'dispute', question: 'query' } as const;

/** True when a debt in `status` (a status name) can be disputed (or queried) now. */
export function canContact(status: string, kind: ContactKind): boolean {
  return DEBT_MACHINE.allows(status as DebtStatus, MOVES[kind]);
}

/**
 * Records the customer's dispute or question on their own debt and moves it.
 * @returns the debt after the move and the communication's id
 * @throws ApiError 400 `validation_failed` (param `reason` or `text`) for bad input, 404
 *   `resource_missing` for a debt that is not this customer's with this tenant, 409
 *   `invalid_state_transition` when the debt's status does not allow it (nothing is written)
 */
export async function customerContact(
  db: Knex,
  tenantId: string,
  customerId: string,
  debtId: string,
  input: ContactInput,
): Promise<{ debt: Debt; communication: string }> {
  const [bad] = contactErrors(input);
  if (bad) throw new ApiError('validation_failed', `Invalid ${bad.field}.`, { param: bad.field });
  return db.transaction(async (trx) => {
    const locked = await lockDebt(trx, tenantId, debtId);
    if (locked.customer_id !== customerId) throw new ApiError('resource_missing', `No such debt: '${debtId}'.`, { param: 'id' });
    const whodunnit = `customer:${customerId}`;
    const row = await insertInbound(trx, tenantId, {
      debtId,
      customerId,
      deliveryMethod: 'portal',
      provider: 'portal',
      providerReference: randomUUID(),
      contactDetailId: null,
      subject: `${input.kind}: ${input.reason}`,
      body: input.text,
      metadata: { kind: input.kind, reason: input.reason, whodunnit },
    });
    await classifyRow(trx, row!, CLASSIFIED[input.kind]);
    const debt = await moveLockedDebt(trx, tenantId, locked, MOVES[input.kind], {
      whodunnit,
      reason: input.reason,
      context: `portal ${input.kind}: ${row!.id}`,
    });
    return { debt, communication: row!.id };
  });
}
