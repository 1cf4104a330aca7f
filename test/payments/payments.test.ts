/**
 * Payments (docs/api.md sections 5 and 6): `POST /debts/{id}/payments` updates the debt's summary in
 * the same transaction, the payment that clears the balance moves the debt to `paid`, and every
 * rejected payment (wrong state, wrong currency, overpayment, bad body) changes nothing.
 * `GET /debts/{id}/payments` is a paginated list like every other.
 */
import { afterAll, beforeAll, describe, expect, test } from '@jest/globals';
import { closeHarness, seedParties, signedInTenant, testDb } from '../support/harness.js';
import { debtIn, eventTypesFor, type Parties, type Status } from '../support/debts.js';

afterAll(closeHarness);

let me: Awaited<ReturnType<typeof signedInTenant>>;
let other: Awaited<ReturnType<typeof signedInTenant>>;
let parties: Parties;

beforeAll(async () => {
  [me, other] = await Promise.all([signedInTenant(), signedInTenant()]);
  parties = await seedParties(me.api);
});

/** The debt as stored plus its payment count, to show a rejection changed nothing. */
async function snapshot(id: string) {
  const debt = (await me.api.get(`/debts/${id}`).expect(200)).body;
  const payments = await testDb()('payments').where({ debt_id: id }).count({ n: '*' }).first();
  return { debt, payments: Number(payments!.n), events: await eventTypesFor(me.tenant.tenantId, id) };
}

describe('POST /debts/{id}/payments', () => {
  test('a partial payment raises amount_paid and keeps the status; payment.created recorded', async () => {
    const id = await debtIn(me.api, parties, 'prepared');
    const res = await me.api
      .post(`/debts/${id}/payments`, {
        amount: 2500,
        currency: 'GBP',
        transaction_at: '2026-11-20T10:00:00Z',
        transaction_ref: 'BANK-1',
        metadata: { channel: 'sepa' },
      })
      .expect(201);
    expect(res.body).toEqual({
      id: expect.stringMatching(/^pay_[0-9A-Za-z]{24}$/),
      object: 'payment',
      livemode: true,
      debt: id,
      amount: 2500,
      currency: 'GBP',
      // docs/api.md section 8: the outcome fields (a payment is succeeded unless created pending)
      status: 'succeeded',
      payment_provider: null,
      payment_plan: null,
      amount_refunded: 0,
      transaction_at: '2026-11-20T10:00:00.000Z',
      transaction_ref: 'BANK-1',
      metadata: { channel: 'sepa' },
      created_at: expect.any(String),
      updated_at: expect.any(String),
    });
    const debt = (await me.api.get(`/debts/${id}`).expect(200)).body;
    expect(debt.status.value).toBe('prepared');
    expect(debt.summary).toMatchObject({ amount_total: 10000, amount_paid: 2500, amount_remaining: 7500 });
    expect(await eventTypesFor(me.tenant.tenantId, res.body.id)).toEqual(['payment.created']);
  });

  test('transaction_at defaults to now', async () => {
    const id = await debtIn(me.api, parties, 'paused');
    const before = Date.now();
    const res = await me.api.post(`/debts/${id}/payments`, { amount: 1, currency: 'GBP' }).expect(201);
    expect(Date.parse(res.body.transaction_at)).toBeGreaterThanOrEqual(before - 5000);
    expect(res.body.transaction_ref).toBeNull();
  });

  test('the payment that clears the balance moves the debt to paid (debt.paid after payment.created)', async () => {
    const id = await debtIn(me.api, parties, 'resumed');
    await me.api.post(`/debts/${id}/payments`, { amount: 4000, currency: 'GBP' }).expect(201);
    const last = await me.api.post(`/debts/${id}/payments`, { amount: 6000, currency: 'GBP' }).expect(201);
    const debt = (await me.api.get(`/debts/${id}`).expect(200)).body;
    expect(debt.status.value).toBe('paid');
    expect(debt.summary).toMatchObject({ amount_paid: 10000, amount_remaining: 0 });
    const rows = await testDb()('events')
      .where({ tenant_id: me.tenant.tenantId })
      .whereIn('type', ['payment.created', 'debt.paid'])
      .orderBy('seq')
      .select('type', 'data');
    const mine = rows.filter((r: { data: { object: { id: string } } }) => [last.body.id, id].includes(r.data.object.id));
    expect(mine.map((r: { type: string }) => r.type)).toEqual(['payment.created', 'debt.paid']);
  });

  test.each<[Status]>([['initializing'], ['disputed'], ['settled'], ['withdrawn'], ['paid']])(
    'a payment on a %s debt is 409 and changes nothing',
    async (status) => {
      const id = await debtIn(me.api, parties, status);
      const before = await snapshot(id);
      const res = await me.api.post(`/debts/${id}/payments`, { amount: 100, currency: 'GBP' }).expect(409);
      expect(res.body.code).toBe('invalid_state_transition');
      expect(await snapshot(id)).toEqual(before);
    },
  );

  test('a wrong currency is 422 on currency and changes nothing', async () => {
    const id = await debtIn(me.api, parties, 'prepared');
    const before = await snapshot(id);
    const res = await me.api.post(`/debts/${id}/payments`, { amount: 100, currency: 'EUR' }).expect(422);
    expect(res.body).toMatchObject({ type: 'invalid_request_error', code: 'business_rule_violation', param: 'currency' });
    expect(await snapshot(id)).toEqual(before);
  });

  test('an overpayment is 422 on amount and changes nothing', async () => {
    const id = await debtIn(me.api, parties, 'prepared');
    await me.api.post(`/debts/${id}/payments`, { amount: 9000, currency: 'GBP' }).expect(201);
    const before = await snapshot(id);
    const res = await me.api.post(`/debts/${id}/payments`, { amount: 1001, currency: 'GBP' }).expect(422);
    expect(res.body).toMatchObject({ code: 'business_rule_violation', param: 'amount' });
    expect(res.body.message).toContain('1000');
    expect(await snapshot(id)).toEqual(before);
  });

  test.each([
    [{ currency: 'GBP' }, 'amount'],
    [{ amount: 0, currency: 'GBP' }, 'amount'],
    [{ amount: -5, currency: 'GBP' }, 'amount'],
    [{ amount: 10.5, currency: 'GBP' }, 'amount'],
    [{ amount: '100', currency: 'GBP' }, 'amount'],
    [{ amount: 100 }, 'currency'],
    [{ amount: 100, currency: 'gbp' }, 'currency'],
    [{ amount: 100, currency: 'GBP', transaction_at: '20/11/2026' }, 'transaction_at'],
    [{ amount: 100, currency: 'GBP', fee: 1 }, 'fee'],
  ])('rejects %j with 400 naming %s, changing nothing', async (body, param) => {
    const id = await debtIn(me.api, parties, 'prepared');
    const before = await snapshot(id);
    const res = await me.api.post(`/debts/${id}/payments`, body).expect(400);
    expect(res.body).toMatchObject({ code: 'validation_failed', param });
    expect(await snapshot(id)).toEqual(before);
  });

  test("another tenant's debt is 404 and unchanged", async () => {
    const theirs = await debtIn(other.api, await seedParties(other.api), 'prepared');
    await me.api.post(`/debts/${theirs}/payments`, { amount: 100, currency: 'GBP' }).expect(404);
    expect((await other.api.get(`/debts/${theirs}`).expect(200)).body.summary.amount_paid).toBe(0);
  });

  test('needs debts:write', async () => {
    const id = await debtIn(me.api, parties, 'prepared');
    const { api } = await signedInTenant('debts:read');
    await api.post(`/debts/${id}/payments`, { amount: 100, currency: 'GBP' }).expect(403);
  });
});

describe('GET /debts/{id}/payments', () => {
  test('lists the debt’s payments newest first with totals, links and cursors', async () => {
    const id = await debtIn(me.api, parties, 'prepared');
    const otherDebt = await debtIn(me.api, parties, 'prepared');
    await me.api.post(`/debts/${otherDebt}/payments`, { amount: 1, currency: 'GBP' }).expect(201);
    const ids: string[] = [];
    for (const amount of [100, 200, 300]) ids.push((await me.api.post(`/debts/${id}/payments`, { amount, currency: 'GBP' }).expect(201)).body.id);

    const first = await me.api.get(`/debts/${id}/payments?limit=2`).expect(200);
    expect(first.body.object).toBe('list');
    expect(first.body.data.map((p: { id: string }) => p.id)).toEqual([ids[2], ids[1]]);
    expect(first.headers['x-total-count']).toBe('3');
    expect(first.headers['x-page-items']).toBe('2');
    expect(first.headers.link).toContain(`/debts/${id}/payments?after=${ids[1]}&limit=2>; rel="next"`);

    const second = await me.api.get(`/debts/${id}/payments?limit=2&after=${ids[1]}`).expect(200);
    expect(second.body.data.map((p: { id: string }) => p.id)).toEqual([ids[0]]);
    expect(second.headers.link).toContain(`before=${ids[0]}`);
  });

  test('a cursor from another debt is 400 invalid_cursor; bad limit is 400 on limit', async () => {
    const a = await debtIn(me.api, parties, 'prepared');
    const b = await debtIn(me.api, parties, 'prepared');
    const pay = (await me.api.post(`/debts/${b}/payments`, { amount: 1, currency: 'GBP' }).expect(201)).body.id;
    expect((await me.api.get(`/debts/${a}/payments?after=${pay}`).expect(400)).body).toMatchObject({ code: 'invalid_cursor', param: 'after' });
    expect((await me.api.get(`/debts/${a}/payments?limit=0`).expect(400)).body.param).toBe('limit');
  });

  test("another tenant's debt is 404; a missing one too", async () => {
    const theirs = await debtIn(other.api, await seedParties(other.api), 'prepared');
    await me.api.get(`/debts/${theirs}/payments`).expect(404);
    await me.api.get('/debts/deb_000000000000000000000000/payments').expect(404);
  });

  test('needs debts:read', async () => {
    const id = await debtIn(me.api, parties, 'prepared');
    const { api } = await signedInTenant('customers:read');
    await api.get(`/debts/${id}/payments`).expect(403);
  });
});

describe('GET /debts/{id}/payments/{id}', () => {
  test('answers the payment as listed; under another debt, another tenant or unknown it is 404', async () => {
    const a = await debtIn(me.api, parties, 'prepared');
    const b = await debtIn(me.api, parties, 'prepared');
    const pay = (await me.api.post(`/debts/${a}/payments`, { amount: 5, currency: 'GBP' }).expect(201)).body;
    expect((await me.api.get(`/debts/${a}/payments/${pay.id}`).expect(200)).body).toEqual(pay);
    expect((await me.api.get(`/debts/${b}/payments/${pay.id}`).expect(404)).body.code).toBe('resource_missing');
    await other.api.get(`/debts/${a}/payments/${pay.id}`).expect(404);
    await me.api.get(`/debts/${a}/payments/pay_000000000000000000000000`).expect(404);
  });

  test('needs debts:read', async () => {
    const id = await debtIn(me.api, parties, 'prepared');
    const pay = (await me.api.post(`/debts/${id}/payments`, { amount: 1, currency: 'GBP' }).expect(201)).body.id;
    const { api } = await signedInTenant('customers:read');
    await api.get(`/debts/${id}/payments/${pay}`).expect(403);
  });
});
