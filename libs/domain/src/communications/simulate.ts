/**
 * What a test client may simulate of its customers and providers (docs/api.md section 15, test
 * helpers): a customer's reply to a debt and a bounce of an email (or SMS) the engine sent. Each
 * goes through the code path of the real thing (inbound.ts: `recordReply` as a reply by email or
 * SMS does, `applyReceipt` as a provider's bounce does), so its effects are the same: an inbound
 * communication and `contact_established`; a `bounced` communication, its contact detail
 * `undeliverable` and, with none left, `contact_failed` (or `enriching`). Only the tenant's own
 * objects are reached (another tenant's or mode's is 404).
 */
import { randomUUID } from 'node:crypto';
import type { Knex } from '@dms/db';
import { ApiError } from '@dms/errors';
import { debtsResource } from '../debts/resource.js';
import type { DebtRow } from '../debts/schemas.js';
import { findOwned } from '../kernel/scoped.js';
import { Nullable, StringEnum, Type, textSchema, type Static } from '../kernel/schemas.js';
import { pickDetail, usableDetails } from './details.js';
import { applyReceipt, recordReply } from './inbound.js';
import { COMMUNICATION_MACHINE } from './states.js';
import { loadCommunication } from './lookups.js';
import type { CommunicationRow } from './schemas.js';

/** The provider name simulated messages are recorded under. */
export const TEST_HELPER_PROVIDER = 'test_helper';

/** `POST /test_helpers/debts/{id}/inbound` body (every field optional). */
export const SimulatedReply = Type.Object(
  {
    delivery_method: Type.Optional(StringEnum(['email', 'sms'] as const, { description: 'How the customer answered (default `email`).' })),
    from: Type.Optional(
      textSchema(320, "The sender: an e-mail address or an E.164 number (default: the customer's detail the engine would write to by that method)."),
    ),
    subject: Type.Optional(Nullable(textSchema(998, 'Subject of an e-mail reply.'))),
    text: Type.Optional(textSchema(10_000, 'What the customer wrote (default `Test reply`).')),
  },
  { additionalProperties: false },
);
export type SimulatedReply = Static<typeof SimulatedReply>;

/** `POST /test_helpers/communications/{id}/bounce` body. */
export const SimulatedBounce = Type.Object(
  { reason: Type.Optional(textSchema(500, 'The bounce as the provider states it (default `5.1.1 test helper: mailbox unavailable`).')) },
  { additionalProperties: false },
);
export type SimulatedBounce = Static<typeof SimulatedBounce>;

/**
 * A reply from the customer of the tenant's debt `debtId`, recorded as a real one is.
 * @returns the inbound communication (`received`)
 * @throws ApiError 404 `resource_missing` for another tenant's (or mode's) or no debt
 */
export async function simulateReply(db: Knex, tenantId: string, debtId: string, input: SimulatedReply): Promise<CommunicationRow> {
  const debt = await findOwned<DebtRow>(db, debtsResource, tenantId, debtId);
  const method = input.delivery_method ?? 'email';
  const from = input.from ?? pickDetail(await usableDetails(db, tenantId, debt.customer_id), method)?.value ?? '';
  const outcome = await recordReply(db, {
    deliveryMethod: method,
    provider: TEST_HELPER_PROVIDER,
    providerReference: randomUUID(),
    debtId: debt.id,
    from,
    subject: input.subject ?? null,
    text: input.text ?? 'Test reply',
  });
  // A fresh reference is never a replay, and the debt was found above: only a deleted debt remains.
  if (!outcome.recorded) throw new ApiError('resource_missing', `No such debt: '${debtId}'`);
  return loadCommunication(db, tenantId, outcome.communication);
}

/**
 * A bounce of the tenant's outbound email or SMS `communicationId`, applied as a provider's is.
 * @returns the communication (`bounced`)
 * @throws ApiError 404 `resource_missing` for another tenant's (or mode's) or no communication;
 *   409 `invalid_state_transition` for a letter, an inbound one, or one not `sent` or `delivered`
 */
export async function simulateBounce(db: Knex, tenantId: string, communicationId: string, input: SimulatedBounce): Promise<CommunicationRow> {
  const row = await loadCommunication(db, tenantId, communicationId);
  if (row.direction !== 'outbound' || row.delivery_method === 'letter') {
    throw new ApiError('invalid_state_transition', `Only an outbound email or SMS can bounce; '${row.id}' is an ${row.direction} ${row.delivery_method}.`);
  }
  COMMUNICATION_MACHINE.require(row.status, 'bounce');
  const outcome = await applyReceipt(db, {
    communicationId: row.id,
    providerReference: row.provider_reference ?? '',
    status: 'bounced',
    reason: input.reason ?? '5.1.1 test helper: mailbox unavailable',
  });
  // Another request moved it first (a receipt, a bounce): refused as the machine refuses it.
  if (!outcome.recorded) COMMUNICATION_MACHINE.require((await loadCommunication(db, tenantId, row.id)).status, 'bounce');
  return loadCommunication(db, tenantId, row.id);
}
