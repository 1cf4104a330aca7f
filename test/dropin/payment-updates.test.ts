/**
 * A pending payment's `amount`, `currency`, `transaction_at` and `transaction_ref` change by
 * `PATCH`/`PUT` (docs/api.md section 15), each change with its `payment.updated` in the same
 * transaction under the payment's lock: checked as a new payment's are (400 naming the field for a
 * bad value, 422 past the remaining balance or in another currency), 409 once the payment is no
 * longer pending, and every refusal changes nothing. Racing updates of one debt's pending payments
 * never reserve more than the balance.
 */
import { afterAll, beforeAll, describe, expect, test } from '@jest/globals';
import { closeHarness, seedParties, signedInTenant, testDb } from '../support/harness.js';
import { debtIn, eventTypesFor, type Parties } from '../support/debts.js';

afterAll(closeHarness);

let me: Awaited<ReturnType<typeof signedInTenant>>;
let parties: Parties;

beforeAll(async () => {
  me = await signedInTenant();
  parties = await seedParties(me.api);
});

/** A collecting debt (balance 10000) with one pending payment of `amount`. */
async function pendingPayment(amount = 3000) {
  const debt = await debtIn(me.api, parties, 'prepared');
  const body = { amount, currency: 'GBP', status: 'pending', transaction_ref: 'PSP-1' };
  const payment = (await me.api.post(`/debts/${debt}/payments`, body).expect(201)).body;
  return { debt, payment, path: `/debts/${debt}/payments/${payment.id}` };
}

/** The payment row and its events, to show a refusal changed nothing. */
async function stored(id: string) {
  const row = await testDb()('payments').where({ id }).first('amount', 'currency', 'status', 'transaction_at', 'transaction_ref', 'updated_at');
  return { row, events: await eventTypesFor(me.tenant.tenantId, id) };
}

describe('PATCH a pending payment', () => {
  test('amount and transaction_* change, with payment.updated; PUT does the same', async () => {
    const { payment, path } = await pendingPayment();
    const res = await me.api.patch(path, { amount: 4500, transaction_at: '2026-11-20T10:00:00Z', transaction_ref: 'PSP-2' }).expect(200);
    expect(res.body).toMatchObject({ id: payment.id, status: 'pending', amount: 4500, transaction_at: '2026-11-20T10:00:00.000Z', transaction_ref: 'PSP-2' });
    const put = await me.api.put(path, { transaction_ref: null, currency: 'GBP' }).expect(200);
    expect(put.body).toMatchObject({ amount: 4500, transaction_ref: null, currency: 'GBP' });
    expect(await eventTypesFor(me.tenant.tenantId, payment.id)).toEqual(['payment.created', 'payment.updated', 'payment.updated']);
    const events = await testDb()('events')
      .where({ tenant_id: me.tenant.tenantId, type: 'payment.updated' })
      .whereRaw(`data->'object'->>'id' = ?`, [payment.id]);
    expect(events.map((e: { data: { object: { amount: number } } }) => e.data.object.amount)).toEqual([4500, 4500]);
  });

  test('a new amount and the outcome in one request: succeeded counts the new amount, after payment.updated', async () => {
    const { debt, payment, path } = await pendingPayment(3000);
    const res = await me.api.patch(path, { amount: 2000, status: 'succeeded' }).expect(200);
    expect(res.body).toMatchObject({ amount: 2000, status: 'succeeded' });
    const summary = (await me.api.get(`/debts/${debt}`).expect(200)).body.summary;
    expect(summary).toMatchObject({ amount_paid: 2000, amount_remaining: 8000 });
    expect(await eventTypesFor(me.tenant.tenantId, payment.id)).toEqual(['payment.created', 'payment.updated', 'payment.succeeded']);
  });

  test('an amount past the balance (less the other pending payments) is 422 naming amount; nothing changes', async () => {
    const { debt, payment, path } = await pendingPayment(3000);
    await me.api.post(`/debts/${debt}/payments`, { amount: 5000, currency: 'GBP', status: 'pending' }).expect(201);
    const before = await stored(payment.id);
    const res = await me.api.patch(path, { amount: 5001, transaction_ref: 'PSP-9' }).expect(422);
    expect(res.body).toMatchObject({ code: 'business_rule_violation', param: 'amount' });
    expect(await stored(payment.id)).toEqual(before);
    await me.api.patch(path, { amount: 5000 }).expect(200);
  });

  test.each([
    [{ amount: 0 }, 'amount'],
    [{ amount: 12.5 }, 'amount'],
    [{ amount: '100' }, 'amount'],
    [{ currency: 'XXX' }, 'currency'],
    [{ transaction_at: 'yesterday' }, 'transaction_at'],
    [{ transaction_ref: 'x'.repeat(201) }, 'transaction_ref'],
  ])('bad value %j is 400 naming %s; nothing changes', async (body, param) => {
    const { payment, path } = await pendingPayment();
    const before = await stored(payment.id);
    const res = await me.api.patch(path, { transaction_ref: 'PSP-3', ...body }).expect(400);
    expect(res.body).toMatchObject({ code: 'validation_failed', param });
    expect(await stored(payment.id)).toEqual(before);
  });

  test("another currency than the debt's is 422 naming currency; nothing changes", async () => {
    const { payment, path } = await pendingPayment();
    const before = await stored(payment.id);
    const res = await me.api.patch(path, { currency: 'EUR', amount: 100 }).expect(422);
    expect(res.body).toMatchObject({ code: 'business_rule_violation', param: 'currency' });
    expect(await stored(payment.id)).toEqual(before);
  });
});

describe('a payment no longer pending', () => {
  test.each([['succeeded'], ['failed'], ['canceled']])('%s: amount and transaction_* are 409, nothing changes; metadata still merges', async (outcome) => {
    const { payment, path } = await pendingPayment();
    await me.api.patch(path, { status: outcome }).expect(200);
    const before = await stored(payment.id);
    for (const body of [{ amount: 100 }, { transaction_ref: 'PSP-4' }, { transaction_at: '2026-11-20T10:00:00Z', metadata: { a: 'b' } }, { currency: 'GBP' }]) {
      const res = await me.api.patch(path, body).expect(409);
      expect(res.body).toMatchObject({ code: 'invalid_state_transition' });
    }
    expect(await stored(payment.id)).toEqual(before);
    expect((await me.api.patch(path, { metadata: { a: 'b' } }).expect(200)).body.metadata).toEqual({ a: 'b' });
  });
});

test('racing amount changes of one debt’s pending payments never reserve more than the balance', async () => {
  const debt = await debtIn(me.api, parties, 'prepared');
  const ids: string[] = [];
  for (let i = 0; i < 4; i += 1)
    ids.push((await me.api.post(`/debts/${debt}/payments`, { amount: 1000, currency: 'GBP', status: 'pending' }).expect(201)).body.id);
  // Each asks for 4000: any one fits alone, but under the debt's lock exactly two fit together
  // (4000 + 4000 + 1000 + 1000 = 10000), whichever two come first.
  const answers = await Promise.all(ids.map((id) => me.api.patch(`/debts/${debt}/payments/${id}`, { amount: 4000 })));
  expect(answers.map((r) => r.status).every((s) => s === 200 || s === 422)).toBe(true);
  const rows: Array<{ id: string; amount: number }> = await testDb()('payments').where({ debt_id: debt, status: 'pending' }).select('id', 'amount');
  const total = rows.reduce((sum, r) => sum + r.amount, 0);
  expect(total).toBeLessThanOrEqual(10000);
  const changed = answers.filter((r) => r.status === 200).length;
  expect(changed).toBe(2);
  expect(rows.filter((r) => r.amount === 4000)).toHaveLength(changed);
  // Each change has exactly its one event; refusals none.
  const updates = await testDb()('events').where({ tenant_id: me.tenant.tenantId, type: 'payment.updated' }).whereRaw(`data->'object'->>'debt' = ?`, [debt]);
  expect(updates).toHaveLength(changed);
});
