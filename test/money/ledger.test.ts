/**
 * The money of a debt (docs/api.md section 8): line items make the summary, invoices carry new
 * items, payments have outcomes and refunds, and racing money-moving writes never both win.
 * Every rejection names the field and changes nothing.
 */
import { afterAll, beforeAll, describe, expect, test } from '@jest/globals';
import { closeHarness, seedParties, signedInTenant, testDb } from '../support/harness.js';
import { createDebt, eventTypesFor, type Parties } from '../support/debts.js';

afterAll(closeHarness);

let me: Awaited<ReturnType<typeof signedInTenant>>;
let other: Awaited<ReturnType<typeof signedInTenant>>;
let parties: Parties;

beforeAll(async () => {
  [me, other] = await Promise.all([signedInTenant(), signedInTenant()]);
  parties = await seedParties(me.api);
});

/** A debt made of line items, moved to `prepared`. */
async function readyDebt(lineItems: object[] = [{ kind: 'debt', amount: 10000 }]): Promise<string> {
  const debt = await createDebt(me.api, parties, { breakdown: undefined, line_items: lineItems });
  await me.api.post(`/debts/${debt.id}/ready`).expect(200);
  return debt.id;
}

/** Debt, line items and payments as stored, to show that a rejection changed nothing. */
async function snapshot(id: string) {
  return {
    debt: (await me.api.get(`/debts/${id}`).expect(200)).body,
    items: await testDb()('line_items').where({ debt_id: id }).count({ n: '*' }),
    payments: await testDb()('payments').where({ debt_id: id }).select('id', 'status', 'amount_refunded').orderBy('seq'),
  };
}

describe('line items and the summary', () => {
  test('create with line_items: summary by kind, items listed, GET /summary agrees', async () => {
    const items = [
      { kind: 'debt', amount: 10000, description: 'Principal' },
      { kind: 'interest', amount: 500 },
      { kind: 'fee', amount: 250 },
      { kind: 'vat', amount: 50 },
      { kind: 'discount', amount: -300 },
      { kind: 'credit', amount: -200 },
      { kind: 'refund', amount: 100 },
      { kind: 'creditor_refund', amount: -400 },
    ];
    const debt = await createDebt(me.api, parties, { breakdown: undefined, line_items: items, kind: 'purchased' });
    expect(debt.kind).toBe('purchased');
    const summary = {
      amount_total: 10000,
      amount_paid: 0,
      amount_remaining: 10000,
      breakdown: { principal: 10000, interest: 500, fees: 250, value_added_tax: 50, discounts: -500, refunds: -300 },
    };
    expect(debt.summary).toEqual(summary);
    expect((await me.api.get(`/debts/${debt.id}/summary`).expect(200)).body).toEqual(summary);
    const list = await me.api.get(`/debts/${debt.id}/line_items?limit=100`).expect(200);
    expect(list.headers['x-total-count']).toBe('8');
    expect(list.body.data[7]).toMatchObject({
      object: 'line_item',
      debt: debt.id,
      invoice: null,
      kind: 'debt',
      amount: 10000,
      currency: 'GBP',
      description: 'Principal',
    });
    expect(list.body.data[7].id).toMatch(/^li_[0-9A-Za-z]{24}$/);
    const events = await eventTypesFor(me.tenant.tenantId, debt.id);
    expect(events[0]).toBe('debt.created');
  });

  test('breakdown shorthand and neither: a debt of 0 filled in later', async () => {
    const short = await createDebt(me.api, parties, { breakdown: { principal: 700, interest: 20, fees: 5 } });
    const kinds = (await me.api.get(`/debts/${short.id}/line_items`).expect(200)).body.data.map((i: { kind: string; amount: number }) => [i.kind, i.amount]);
    expect(kinds.sort()).toEqual([
      ['debt', 700],
      ['fee', 5],
      ['interest', 20],
    ]);
    const empty = await createDebt(me.api, parties, { breakdown: undefined });
    expect(empty.summary.amount_total).toBe(0);
    const item = await me.api.post(`/debts/${empty.id}/line_items`, { kind: 'debt', amount: 900 }).expect(201);
    expect((await me.api.get(`/debts/${empty.id}`).expect(200)).body.summary.amount_remaining).toBe(900);
    expect(await eventTypesFor(me.tenant.tenantId, item.body.id)).toEqual(['line_item.created']);
    expect((await eventTypesFor(me.tenant.tenantId, empty.id)).slice(-1)).toEqual(['debt.updated']);
  });

  test.each([
    [{ kind: 'debt', amount: -5 }, 'amount'],
    [{ kind: 'discount', amount: 5 }, 'amount'],
    [{ kind: 'fee', amount: 0 }, 'amount'],
    [{ kind: 'debt', amount: 5, currency: 'EUR' }, 'currency'],
    [{ kind: 'penalty', amount: 5 }, 'kind'],
  ])('bad item %j names %s and changes nothing', async (body, param) => {
    const id = await readyDebt();
    const before = await snapshot(id);
    const res = await me.api.post(`/debts/${id}/line_items`, body);
    expect([400, 422]).toContain(res.status);
    expect(res.body.param).toBe(param);
    expect(await snapshot(id)).toEqual(before);
  });

  test('an item bringing amount_total below amount_paid is 422; a terminal debt is 409; items in create are checked', async () => {
    const id = await readyDebt();
    await me.api.post(`/debts/${id}/payments`, { amount: 9000, currency: 'GBP' }).expect(201);
    expect((await me.api.post(`/debts/${id}/line_items`, { kind: 'credit', amount: -1500 }).expect(422)).body.param).toBe('amount');
    await me.api.post(`/debts/${id}/payments`, { amount: 1000, currency: 'GBP' }).expect(201);
    await me.api.post(`/debts/${id}/line_items`, { kind: 'fee', amount: 10 }).expect(409);
    const bad = await me.api.post('/debts', {
      customer_id: parties.customerId,
      organisation_id: parties.organisationId,
      currency: 'GBP',
      line_items: [
        { kind: 'debt', amount: 1 },
        { kind: 'credit', amount: 3 },
      ],
    });
    expect(bad.status).toBe(422);
    expect(bad.body.param).toBe('line_items[1].amount');
  });

  test("another tenant's debt is 404 for line items and summary", async () => {
    const id = await readyDebt();
    await other.api.get(`/debts/${id}/line_items`).expect(404);
    await other.api.get(`/debts/${id}/summary`).expect(404);
    await other.api.post(`/debts/${id}/line_items`, { kind: 'fee', amount: 1 }).expect(404);
  });
});

describe('invoices', () => {
  test('create with line items, retrieve, list, patch, search; reference unique within the debt', async () => {
    const id = await readyDebt();
    const inv = await me.api
      .post(`/debts/${id}/invoices`, {
        reference: 'INV-1',
        invoiced_on: '2026-11-01',
        due_on: '2026-11-30',
        line_items: [
          { kind: 'fee', amount: 300 },
          { kind: 'vat', amount: 60 },
        ],
      })
      .expect(201);
    expect(inv.body).toMatchObject({ object: 'invoice', debt: id, reference: 'INV-1', status: 'open', due_on: '2026-11-30', invoiced_on: '2026-11-01' });
    expect(inv.body.line_items).toHaveLength(2);
    expect((await me.api.get(`/debts/${id}`).expect(200)).body.summary.amount_total).toBe(10360);
    const items = (await me.api.get(`/debts/${id}/line_items`).expect(200)).body.data;
    expect(items.filter((i: { invoice: string | null }) => i.invoice === inv.body.id)).toHaveLength(2);
    expect((await me.api.post(`/debts/${id}/invoices`, { reference: 'INV-1' }).expect(409)).body.param).toBe('reference');
    await me.api.post(`/debts/${id}/invoices`, { reference: 'INV-2', due_on: '2026-02-30' }).expect(400);
    const patched = await me.api.patch(`/debts/${id}/invoices/${inv.body.id}`, { status: 'paid', metadata: { k: 'v' } }).expect(200);
    expect(patched.body).toMatchObject({ status: 'paid', metadata: { k: 'v' }, line_items: inv.body.line_items });
    expect((await me.api.get(`/debts/${id}/invoices/${inv.body.id}`).expect(200)).body).toEqual(patched.body);
    expect((await me.api.get(`/debts/${id}/invoices`).expect(200)).headers['x-total-count']).toBe('1');
    const found = await me.api.get(`/debts/${id}/invoices/search?query=${encodeURIComponent('status:paid AND due_on<2026-12-01')}`).expect(200);
    expect(found.body.data.map((i: { id: string }) => i.id)).toEqual([inv.body.id]);
    expect(await eventTypesFor(me.tenant.tenantId, inv.body.id)).toEqual(['invoice.created', 'invoice.updated']);
    await other.api.get(`/debts/${id}/invoices/${inv.body.id}`).expect(404);
  });

  test('two concurrent creates with one reference: exactly one wins', async () => {
    const id = await readyDebt();
    const results = await Promise.all(
      [1, 2, 3].map(() => me.api.post(`/debts/${id}/invoices`, { reference: 'SAME', line_items: [{ kind: 'fee', amount: 5 }] })),
    );
    expect(results.map((r) => r.status).sort()).toEqual([201, 409, 409]);
    expect((await me.api.get(`/debts/${id}`).expect(200)).body.summary.amount_total).toBe(10005);
  });
});

describe('payments with outcomes', () => {
  test('pending does not count; pending → succeeded counts; failed and canceled do not; any other move is 409', async () => {
    const id = await readyDebt();
    const p1 = (await me.api.post(`/debts/${id}/payments`, { amount: 4000, currency: 'GBP', status: 'pending', payment_provider: 'stripe' }).expect(201)).body;
    expect(p1).toMatchObject({ status: 'pending', payment_provider: 'stripe', amount_refunded: 0 });
    expect((await me.api.get(`/debts/${id}`).expect(200)).body.summary.amount_paid).toBe(0);
    // Pending money is reserved: 4000 pending + 7000 > 10000.
    expect((await me.api.post(`/debts/${id}/payments`, { amount: 7000, currency: 'GBP', status: 'pending' }).expect(422)).body.param).toBe('amount');
    const ok = await me.api.patch(`/debts/${id}/payments/${p1.id}`, { status: 'succeeded' }).expect(200);
    expect(ok.body.status).toBe('succeeded');
    expect((await me.api.get(`/debts/${id}`).expect(200)).body.summary).toMatchObject({ amount_paid: 4000, amount_remaining: 6000 });
    expect((await me.api.patch(`/debts/${id}/payments/${p1.id}`, { status: 'failed' }).expect(409)).body.code).toBe('invalid_state_transition');
    const p2 = (await me.api.post(`/debts/${id}/payments`, { amount: 100, currency: 'GBP', status: 'pending' }).expect(201)).body;
    await me.api.patch(`/debts/${id}/payments/${p2.id}`, { status: 'failed' }).expect(200);
    const p3 = (await me.api.post(`/debts/${id}/payments`, { amount: 100, currency: 'GBP', status: 'pending' }).expect(201)).body;
    await me.api.patch(`/debts/${id}/payments/${p3.id}`, { status: 'canceled' }).expect(200);
    await me.api.patch(`/debts/${id}/payments/${p3.id}`, { status: 'succeeded' }).expect(409);
    expect((await me.api.patch(`/debts/${id}/payments/${p3.id}`, { status: 'refunded' }).expect(400)).body.param).toBe('status');
    expect((await me.api.get(`/debts/${id}`).expect(200)).body.summary.amount_paid).toBe(4000);
    expect(await eventTypesFor(me.tenant.tenantId, p1.id)).toEqual(['payment.created', 'payment.succeeded']);
    expect(await eventTypesFor(me.tenant.tenantId, p2.id)).toEqual(['payment.created', 'payment.failed']);
    expect(await eventTypesFor(me.tenant.tenantId, p3.id)).toEqual(['payment.created', 'payment.canceled']);
  });

  test('refunds: partial, full, above what is left (422), and a refund reopens a paid debt', async () => {
    const id = await readyDebt();
    const pay = (await me.api.post(`/debts/${id}/payments`, { amount: 10000, currency: 'GBP' }).expect(201)).body;
    expect((await me.api.get(`/debts/${id}`).expect(200)).body.status.value).toBe('paid');
    const before = await snapshot(id);
    expect((await me.api.post(`/debts/${id}/payments/${pay.id}/refund`, { amount: 10001 }).expect(422)).body.param).toBe('amount');
    expect((await me.api.post(`/debts/${id}/payments/${pay.id}/refund`, { amount: 0 }).expect(400)).body.param).toBe('amount');
    expect(await snapshot(id)).toEqual(before);
    const part = await me.api.post(`/debts/${id}/payments/${pay.id}/refund`, { amount: 2500 }).expect(200);
    expect(part.body).toMatchObject({ status: 'partially_refunded', amount_refunded: 2500 });
    const debt = (await me.api.get(`/debts/${id}`).expect(200)).body;
    expect(debt.status.value).toBe('resumed');
    expect(debt.summary).toMatchObject({ amount_paid: 7500, amount_remaining: 2500 });
    const rest = await me.api.post(`/debts/${id}/payments/${pay.id}/refund`).expect(200);
    expect(rest.body).toMatchObject({ status: 'refunded', amount_refunded: 10000 });
    await me.api.post(`/debts/${id}/payments/${pay.id}/refund`).expect(409);
    expect((await me.api.get(`/debts/${id}/summary`).expect(200)).body).toMatchObject({ amount_paid: 0, amount_remaining: 10000 });
    expect(await eventTypesFor(me.tenant.tenantId, pay.id)).toEqual(['payment.created', 'payment.refunded', 'payment.refunded']);
  });

  test('top level /payments, /payments/{id}, /payments/search and the debt-level search and retrieve', async () => {
    const id = await readyDebt();
    const pay = (await me.api.post(`/debts/${id}/payments`, { amount: 1234, currency: 'GBP', status: 'pending' }).expect(201)).body;
    expect((await me.api.get(`/payments/${pay.id}`).expect(200)).body).toEqual(pay);
    expect((await me.api.get(`/debts/${id}/payments/${pay.id}`).expect(200)).body).toEqual(pay);
    const all = await me.api.get('/payments?limit=1').expect(200);
    expect(all.body.data[0].id).toBe(pay.id);
    expect(Number(all.headers['x-total-count'])).toBeGreaterThan(1);
    const q = encodeURIComponent(`status:pending AND amount>=1234 AND debt_id:${id}`);
    expect((await me.api.get(`/payments/search?query=${q}`).expect(200)).body.data.map((p: { id: string }) => p.id)).toEqual([pay.id]);
    expect((await me.api.get(`/debts/${id}/payments/search?query=amount:1234`).expect(200)).body.data).toHaveLength(1);
    await other.api.get(`/payments/${pay.id}`).expect(404);
    expect((await other.api.get('/payments').expect(200)).body.data).toEqual([]);
  });
});

describe('racing money-moving writes', () => {
  test('parallel payments of the whole balance: exactly one wins, the database never goes negative', async () => {
    const id = await readyDebt();
    const results = await Promise.all(Array.from({ length: 6 }, () => me.api.post(`/debts/${id}/payments`, { amount: 10000, currency: 'GBP' })));
    expect(results.map((r) => r.status).sort()).toEqual([201, 409, 409, 409, 409, 409]);
    expect((await me.api.get(`/debts/${id}`).expect(200)).body.summary).toMatchObject({ amount_paid: 10000, amount_remaining: 0 });
  });

  test('parallel partial payments: exactly as many win as fit', async () => {
    const id = await readyDebt();
    const results = await Promise.all(Array.from({ length: 7 }, () => me.api.post(`/debts/${id}/payments`, { amount: 3000, currency: 'GBP' })));
    expect(results.filter((r) => r.status === 201)).toHaveLength(3);
    expect((await me.api.get(`/debts/${id}`).expect(200)).body.summary.amount_paid).toBe(9000);
  });

  test('parallel full refunds of one payment: exactly one wins', async () => {
    const id = await readyDebt();
    const pay = (await me.api.post(`/debts/${id}/payments`, { amount: 5000, currency: 'GBP' }).expect(201)).body;
    const results = await Promise.all(Array.from({ length: 5 }, () => me.api.post(`/debts/${id}/payments/${pay.id}/refund`)));
    expect(results.map((r) => r.status).sort()).toEqual([200, 409, 409, 409, 409]);
    expect((await me.api.get(`/debts/${id}`).expect(200)).body.summary.amount_paid).toBe(0);
  });

  test('the database itself refuses amount_remaining < 0', async () => {
    const id = await readyDebt();
    await expect(testDb()('debts').where({ id }).update({ amount_paid: 10001 })).rejects.toThrow(/debts_amount_remaining_nonnegative/);
  });
});
