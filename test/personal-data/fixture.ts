/**
 * A customer with personal data in every table that can hold it (docs/api.md section 20): names,
 * date of birth and metadata on the customer, an e-mail, a telephone number and an address, a
 * debt with a payment and a plan, a statement of income and expenditure with figures of its own, an
 * inbound communication quoting the customer, the events all of these recorded, and their webhook
 * deliveries, one of which failed with an error echoing the receiver's body (the customer's name).
 * Every value is unique to the run (each carries the random tag, or is a date or figure no other
 * test writes), so a scan of the database finds only this customer's copies.
 */
import { randomBytes } from 'node:crypto';
import { insertInbound } from '@dms/domain/communications';
import { seedParties, testDb, type apiAs } from '../support/harness.js';
import { createDebt } from '../support/debts.js';
import { monthly, statementBody } from '../circumstances/support.js';

type Api = ReturnType<typeof apiAs>;

/** The customer, its debt, and each personal value it was given. */
export interface PersonFixture {
  customerId: string;
  organisationId: string;
  debtId: string;
  communicationId: string;
  /** The idempotent requests made about the customer (their stored responses hold its data): the creation and a PATCH. */
  idempotent: { method: 'post' | 'patch'; path: string; body: object; key: string }[];
  /**
   * Every personal value given, as stored (the telephone number in E.164): first and last name,
   * e-mail, telephone, street, postcode, metadata note, date of birth, the inbound reply, then the
   * statement's monthly earnings and housing cost (digits).
   */
  values: string[];
}

/** Creates the customer and its history through the API (the inbound reply through the domain, as the callback does). */
export async function personWithHistory(api: Api, tenantId: string): Promise<PersonFixture> {
  const tag = randomBytes(4).toString('hex');
  const first = `Ottoline${tag}`;
  const last = `Quernby${tag}`;
  const email = `ottoline.${tag}@example.com`;
  const phone = `+447400${String(parseInt(tag, 16) % 1000000).padStart(6, '0')}`;
  const street = `${parseInt(tag.slice(0, 2), 16)} Wexcombe Lane ${tag}`;
  // The whole tag: with two of its characters (256 postcodes) the person of another test file
  // sharing the database held the same postcode one run in a few dozen, and the scan found it.
  const postcode = `ZX${tag} 9QQ`.toUpperCase();
  const note = `Prefers calls after lunch ${tag}`;
  // 1941-1969: no date another test writes by hand falls there (a shared one would be found too).
  const dob = `19${String(41 + (parseInt(tag.slice(2, 4), 16) % 29))}-0${1 + (parseInt(tag.slice(4, 6), 16) % 9)}-1${parseInt(tag.slice(6, 8), 16) % 10}`;
  // Seven-digit figures of this run: the disposable income they leave (kept) contains neither.
  const earnings = 5_000_000 + (parseInt(tag.slice(0, 5), 16) % 1_000_000);
  const housing = 1_000_000 + (parseInt(tag.slice(3, 8), 16) % 1_000_000);
  const { organisationId } = await seedParties(api);
  await api.post('/webhooks', { url: 'https://example.com/hooks', enabled_events: ['*'] }).expect(201);
  // Stored idempotent responses hold copies too: the creation's names the customer in its body only.
  const created = { kind: 'individual', first_name: first, last_name: last, date_of_birth: dob, metadata: { note } };
  const customer = await api.post('/customers', created).set('Idempotency-Key', `create-${tag}`).expect(201);
  const customerId = customer.body.id as string;
  await api.patch(`/customers/${customerId}`, { metadata: { note } }).set('Idempotency-Key', `erase-${tag}`).expect(200);
  await api.post(`/customers/${customerId}/contact_details`, { type: 'email', value: email }).expect(201);
  await api.post(`/customers/${customerId}/contact_details`, { type: 'mobile_number', value: phone }).expect(201);
  await api
    .post(`/customers/${customerId}/contact_details`, { type: 'address', value: { line_1: street, city: 'Barchester', postal_code: postcode, country: 'GB' } })
    .expect(201);
  const debt = await createDebt(api, { organisationId, customerId });
  await api.post(`/debts/${debt.id}/ready`).expect(200);
  await api.post(`/debts/${debt.id}/payments`, { amount: 2500, currency: 'GBP' }).expect(201);
  await api
    .post(`/debts/${debt.id}/payment_plans`, {
      frequency: 'monthly',
      start_on: new Date(Date.now() + 86_400_000).toISOString().slice(0, 10),
      instalment_count: 3,
    })
    .expect(201);
  await api
    .post(`/debts/${debt.id}/income_and_expenditures`, statementBody({ income: { earnings: monthly(earnings) }, fixed_costs: { housing: monthly(housing) } }))
    .expect(201);
  const reply = `Hello, this is ${first} ${last}, write to ${street}`;
  const communication = await testDb().transaction((trx) =>
    insertInbound(trx, tenantId, {
      debtId: debt.id,
      customerId,
      deliveryMethod: 'email',
      provider: 'local',
      providerReference: `ref-${tag}`,
      contactDetailId: null,
      subject: `From ${first}`,
      body: reply,
    }),
  );
  await receiverEchoed(customerId, `HTTP 422: {"error":"no account for ${first} ${last}"}`);
  return {
    customerId,
    organisationId,
    debtId: debt.id,
    communicationId: communication!.id,
    idempotent: [
      { method: 'post', path: '/customers', body: created, key: `create-${tag}` },
      { method: 'patch', path: `/customers/${customerId}`, body: { metadata: { note } }, key: `erase-${tag}` },
    ],
    values: [first, last, email, phone, street, postcode, note, dob, reply, String(earnings), String(housing)],
  };
}

/** The delivery of the customer's `customer.created` event failed once with `error`, as the dispatcher records a receiver's answer. */
async function receiverEchoed(customerId: string, error: string): Promise<void> {
  const db = testDb();
  const delivery = await db('webhook_deliveries')
    .whereIn('event_id', db('events').where({ type: 'customer.created' }).whereRaw(`data->'object'->>'id' = ?`, [customerId]).select('id'))
    .first('id', 'created_at');
  await db('webhook_deliveries')
    .where({ id: delivery.id })
    .update({ attempt_count: 1, last_response_status: 422, last_error: error, last_attempt_at: db.fn.now() });
  await db('webhook_delivery_attempts').insert({
    delivery_id: delivery.id,
    attempt: 1,
    status: 'failed',
    response_status: 422,
    error,
    duration_ms: 12,
    started_at: new Date(),
    delivery_created_at: delivery.created_at,
  });
}
