/**
 * A customer with personal data in every table that can hold it (docs/api.md section 20): names,
 * date of birth and metadata on the customer, an e-mail, a telephone number and an address, a
 * debt with a payment and a plan, an inbound communication quoting the customer, and the events
 * all of these recorded. Every value is unique to the run, so a scan of the database finds only
 * this customer's copies.
 */
import { randomBytes } from 'node:crypto';
import { insertInbound } from '@dms/domain/communications';
import { seedParties, testDb, type apiAs } from '../support/harness.js';
import { createDebt } from '../support/debts.js';
import { statementBody } from '../circumstances/support.js';

type Api = ReturnType<typeof apiAs>;

/** The customer, its debt, and each personal value it was given. */
export interface PersonFixture {
  customerId: string;
  organisationId: string;
  debtId: string;
  communicationId: string;
  /** Every personal value given, as stored (the telephone number in E.164). */
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
  const postcode = `ZX${tag.slice(0, 2)} 9QQ`.toUpperCase();
  const note = `Prefers calls after lunch ${tag}`;
  const dob = `19${String(40 + (parseInt(tag.slice(2, 4), 16) % 50))}-0${1 + (parseInt(tag.slice(4, 6), 16) % 9)}-1${parseInt(tag.slice(6, 8), 16) % 10}`;
  const { organisationId } = await seedParties(api);
  const customer = await api.post('/customers', { kind: 'individual', first_name: first, last_name: last, date_of_birth: dob, metadata: { note } }).expect(201);
  const customerId = customer.body.id as string;
  // A stored idempotent response holds a copy too.
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
  await api.post(`/debts/${debt.id}/income_and_expenditures`, statementBody()).expect(201);
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
  return {
    customerId,
    organisationId,
    debtId: debt.id,
    communicationId: communication!.id,
    values: [first, last, email, phone, street, postcode, note, dob, reply],
  };
}
