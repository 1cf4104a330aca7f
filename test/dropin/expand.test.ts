/**
 * `expand[]` of relations of relations (docs/api.md section 15) over HTTP: two and four levels on
 * lists and retrieves, under both versions; deeper than 4 or an unknown name at any level is 400
 * naming `expand[]`, before anything is written.
 */
import { afterAll, beforeAll, expect, test } from '@jest/globals';
import { closeHarness, seedParties, signedInTenant } from '../support/harness.js';
import { createDebt, type Parties } from '../support/debts.js';

let main: Awaited<ReturnType<typeof signedInTenant>>;
let parties: Parties;
let debtId: string;
let paymentId: string;

beforeAll(async () => {
  main = await signedInTenant();
  parties = await seedParties(main.api);
  debtId = (await createDebt(main.api, parties)).id;
  await main.api.post(`/debts/${debtId}/ready`).expect(200);
  const start = new Date(Date.now() + 86_400_000).toISOString().slice(0, 10);
  await main.api.post(`/debts/${debtId}/payment_plans`, { frequency: 'weekly', start_on: start, instalment_count: 2 }).expect(201);
  paymentId = (await main.api.post(`/debts/${debtId}/payments`, { amount: 100, currency: 'GBP' }).expect(201)).body.id;
});
afterAll(closeHarness);

test('expand[]=debt.customer on payments: the debt, and in it the customer', async () => {
  const one = (await main.api.get(`/payments/${paymentId}`).query({ 'expand[]': 'debt.customer' }).expect(200)).body;
  expect(one.debt).toMatchObject({
    id: debtId,
    object: 'debt',
    customer: { id: parties.customerId, object: 'customer' },
    organisation: parties.organisationId,
  });
  const list = (
    await main.api
      .get('/payments')
      .query({ 'expand[]': ['debt.customer', 'payment_plan'] })
      .expect(200)
  ).body.data;
  expect(list[0]).toMatchObject({ id: paymentId, debt: { customer: { object: 'customer' } }, payment_plan: { object: 'payment_plan' } });
});

test('expand[]=payments.payment_plan on debts, and four levels', async () => {
  const debt = (await main.api.get(`/debts/${debtId}`).query({ 'expand[]': 'payments.payment_plan' }).expect(200)).body;
  expect(debt.payments).toEqual([
    expect.objectContaining({ id: paymentId, payment_plan: expect.objectContaining({ object: 'payment_plan', status: 'active' }) }),
  ]);
  const four = (await main.api.get('/debts').query({ 'expand[]': 'payments.debt.customer.debts' }).expect(200)).body.data;
  const own = four.find((d: { id: string }) => d.id === debtId);
  expect(own.payments[0].debt.customer.debts).toEqual([expect.objectContaining({ id: debtId, object: 'debt' })]);
  const old = (await main.api.get(`/debts/${debtId}`).query({ 'expand[]': 'payments.payment_plan' }).set('Ophelos-Version', '2025-04-01').expect(200)).body;
  expect(old.payments[0].payment_plan.object).toBe('payment_plan');
  expect(old.payment_plans).toEqual([expect.stringMatching(/^pp_/)]);
});

test.each([
  ['five levels', 'payments.debt.customer.debts.payments', /at most 4/],
  ['an unknown relation at the second level', 'payments.nope', /nope is not a relation of payments/],
  ['an unknown relation at the fourth level', 'customer.debts.payments.wallet', /wallet is not a relation of customer.debts.payments/],
  ['a relation of an object that has none', 'organisation.x', /x is not a relation of organisation \(known: none\)/],
  ['an unknown first level', 'nope', /expand\[\]/],
])('%s is 400 naming expand[], and a create with it changes nothing', async (_what, value, message) => {
  const res = await main.api.get('/debts').query({ 'expand[]': value }).expect(400);
  expect(res.body).toMatchObject({ code: 'parameter_invalid', param: 'expand[]' });
  expect(res.body.message).toMatch(message);
  const before = Number((await main.api.get('/debts').expect(200)).headers['x-total-count']);
  const body = { customer_id: parties.customerId, organisation_id: parties.organisationId, currency: 'GBP' };
  const bad = await main.api.post(`/debts?expand[]=${encodeURIComponent(value)}`, body).expect(400);
  expect(bad.body.param).toBe('expand[]');
  expect(Number((await main.api.get('/debts').expect(200)).headers['x-total-count'])).toBe(before);
});

test('payments too: five levels and an unknown second level are 400', async () => {
  for (const value of ['debt.payments.debt.customer.debts', 'debt.wallet']) {
    expect((await main.api.get('/payments').query({ 'expand[]': value }).expect(400)).body.param).toBe('expand[]');
  }
});
