/**
 * `expand[]` of docs/api.md section 10 on the money objects over HTTP: debts (`line_items`,
 * `invoices`, `payment_plans`, also on the lifecycle actions), payments (`payment_plan`, null when
 * none), invoices (`line_items`, `debt`) and payment plans (`debt`, `payments`) on every retrieve,
 * list, search, create and update; an unknown value is 400 naming `expand[]` and changes nothing.
 */
import { afterAll, beforeAll, describe, expect, test } from '@jest/globals';
import { closeHarness, seedParties, signedInTenant } from '../support/harness.js';
import { createDebt, type Parties } from '../support/debts.js';

afterAll(closeHarness);

let me: Awaited<ReturnType<typeof signedInTenant>>;
let parties: Parties;
const inDays = (n: number) => new Date(Date.now() + n * 86_400_000).toISOString().slice(0, 10);
/** The debt with everything: a fee item, an invoice with one item, a plan, a payment before the plan and one to it. */
const f = {} as { debt: string; fee: string; invoice: string; invoiceItem: string; plan: string; before: string; toPlan: string };

const ids = (list: Array<{ id: string }>) => list.map((o) => o.id);

beforeAll(async () => {
  me = await signedInTenant();
  parties = await seedParties(me.api);
  f.debt = (await createDebt(me.api, parties, { breakdown: { principal: 10000 } })).id;
  await me.api.post(`/debts/${f.debt}/ready`).expect(200);
  f.fee = (await me.api.post(`/debts/${f.debt}/line_items`, { kind: 'fee', amount: 500 }).expect(201)).body.id;
  const invoice = (await me.api.post(`/debts/${f.debt}/invoices`, { reference: 'INV-1', line_items: [{ kind: 'interest', amount: 300 }] }).expect(201)).body;
  [f.invoice, f.invoiceItem] = [invoice.id, invoice.line_items[0]];
  f.before = (await me.api.post(`/debts/${f.debt}/payments`, { amount: 800, currency: 'GBP' }).expect(201)).body.id;
  f.plan = (await me.api.post(`/debts/${f.debt}/payment_plans`, { frequency: 'weekly', start_on: inDays(1), instalment_count: 2 }).expect(201)).body.id;
  f.toPlan = (await me.api.post(`/debts/${f.debt}/payments`, { amount: 1000, currency: 'GBP' }).expect(201)).body.id;
});

describe('debts: line_items, invoices, payment_plans', () => {
  const all = 'expand[]=line_items&expand[]=invoices&expand[]=payment_plans';

  test('retrieve embeds the lists, newest first, their references as ids', async () => {
    const debt = (await me.api.get(`/debts/${f.debt}?${all}`).expect(200)).body;
    expect(ids(debt.line_items)).toHaveLength(3);
    expect(debt.line_items.slice(0, 2)).toEqual([
      expect.objectContaining({ id: f.invoiceItem, object: 'line_item', debt: f.debt, invoice: f.invoice, kind: 'interest', amount: 300 }),
      expect.objectContaining({ id: f.fee, kind: 'fee', amount: 500, invoice: null }),
    ]);
    expect(debt.line_items[2]).toMatchObject({ kind: 'debt', amount: 10000 });
    expect(debt.invoices).toEqual([
      expect.objectContaining({ id: f.invoice, object: 'invoice', debt: f.debt, reference: 'INV-1', line_items: [f.invoiceItem] }),
    ]);
    expect(debt.payment_plans).toEqual([expect.objectContaining({ id: f.plan, object: 'payment_plan', debt: f.debt, status: 'active', amount_paid: 1000 })]);
    expect(debt.payment_plans[0].schedule).toHaveLength(2);
    const plain = (await me.api.get(`/debts/${f.debt}`).expect(200)).body;
    for (const name of ['line_items', 'invoices', 'payment_plans']) expect(plain[name]).toBeUndefined();
  });

  test('list and search embed on every row; a debt without any gets empty lists', async () => {
    const empty = (await createDebt(me.api, parties, { breakdown: undefined, tags: ['bare'] })).id;
    const list = (await me.api.get(`/debts?limit=100&${all}`).expect(200)).body.data;
    expect(list.find((d: { id: string }) => d.id === f.debt).payment_plans).toHaveLength(1);
    expect(list.find((d: { id: string }) => d.id === empty)).toMatchObject({ line_items: [], invoices: [], payment_plans: [] });
    const found = (await me.api.get(`/debts/search?${all}`).query({ query: 'payment_plan.status:active' }).expect(200)).body.data;
    expect(ids(found)).toEqual([f.debt]);
    expect(ids(found[0].invoices)).toEqual([f.invoice]);
  });

  test('create, update and the lifecycle actions take expand[] too', async () => {
    const created = await me.api
      .post('/debts?expand[]=line_items&expand[]=payment_plans', {
        customer_id: parties.customerId,
        organisation_id: parties.organisationId,
        currency: 'GBP',
        line_items: [{ kind: 'debt', amount: 70 }],
      })
      .expect(201);
    expect(created.body.line_items).toEqual([expect.objectContaining({ object: 'line_item', debt: created.body.id, amount: 70 })]);
    expect(created.body.payment_plans).toEqual([]);
    expect((await me.api.patch(`/debts/${created.body.id}?expand[]=invoices`, { account_number: 'X-1' }).expect(200)).body.invoices).toEqual([]);
    const paused = await me.api.post(`/debts/${f.debt}/pause?expand[]=payment_plans&expand[]=customer`, { reason: 'call' }).expect(200);
    expect(paused.body).toMatchObject({ status: { value: 'paused' }, customer: { id: parties.customerId, object: 'customer' } });
    expect(ids(paused.body.payment_plans)).toEqual([f.plan]);
    const resumed = await me.api.post(`/debts/${f.debt}/resume?expand[]=line_items`).expect(200);
    expect(resumed.body.status.value).toBe('paying');
    expect(resumed.body.line_items).toHaveLength(3);
  });
});

describe('payments: payment_plan', () => {
  test('the plan in place of its id, null when the payment has none, on retrieve, lists and search', async () => {
    const one = (await me.api.get(`/payments/${f.toPlan}?expand[]=payment_plan`).expect(200)).body;
    expect(one.payment_plan).toMatchObject({ id: f.plan, object: 'payment_plan', debt: f.debt, frequency: 'weekly' });
    expect(one.payment_plan.payments).toBeUndefined();
    expect((await me.api.get(`/debts/${f.debt}/payments/${f.before}?expand[]=payment_plan`).expect(200)).body.payment_plan).toBeNull();
    const page = (await me.api.get(`/debts/${f.debt}/payments?expand[]=payment_plan&expand[]=debt`).expect(200)).body.data;
    expect(page.map((p: { payment_plan: { id: string } | null }) => p.payment_plan?.id ?? null)).toEqual([f.plan, null]);
    expect(page[0].debt).toMatchObject({ id: f.debt, object: 'debt' });
    const all = (await me.api.get('/payments?expand[]=payment_plan').expect(200)).body.data;
    expect(all.find((p: { id: string }) => p.id === f.toPlan).payment_plan.id).toBe(f.plan);
    const found = (
      await me.api
        .get('/payments/search?expand[]=payment_plan')
        .query({ query: `payment_plan_id:${f.plan}` })
        .expect(200)
    ).body.data;
    expect(found.map((p: { payment_plan: { id: string } }) => p.payment_plan.id)).toEqual([f.plan]);
  });

  test('create, update and refund answer with the plan expanded', async () => {
    const created = (await me.api.post(`/debts/${f.debt}/payments?expand[]=payment_plan`, { amount: 10, currency: 'GBP', status: 'pending' }).expect(201)).body;
    expect(created.payment_plan).toMatchObject({ id: f.plan, object: 'payment_plan' });
    const updated = (await me.api.patch(`/debts/${f.debt}/payments/${created.id}?expand[]=payment_plan`, { status: 'succeeded' }).expect(200)).body;
    expect(updated.payment_plan).toMatchObject({ id: f.plan, amount_paid: 1010 });
    const refunded = (await me.api.post(`/debts/${f.debt}/payments/${f.before}/refund?expand[]=payment_plan`, { amount: 1 }).expect(200)).body;
    expect(refunded).toMatchObject({ amount_refunded: 1, payment_plan: null });
  });
});

describe('invoices: line_items, debt', () => {
  test('retrieve, list and search embed the line items (oldest first) and the debt', async () => {
    const two = (
      await me.api
        .post(`/debts/${f.debt}/invoices`, {
          reference: 'INV-2',
          line_items: [
            { kind: 'fee', amount: 20 },
            { kind: 'vat', amount: 4 },
          ],
        })
        .expect(201)
    ).body;
    const one = (await me.api.get(`/debts/${f.debt}/invoices/${two.id}?expand[]=line_items&expand[]=debt`).expect(200)).body;
    expect(one.line_items).toEqual([
      expect.objectContaining({ id: two.line_items[0], object: 'line_item', invoice: two.id, kind: 'fee', amount: 20 }),
      expect.objectContaining({ id: two.line_items[1], kind: 'vat', amount: 4 }),
    ]);
    expect(one.debt).toMatchObject({ id: f.debt, object: 'debt', customer: parties.customerId });
    const list = (await me.api.get(`/debts/${f.debt}/invoices?expand[]=line_items`).expect(200)).body.data;
    expect(list.map((i: { line_items: Array<{ amount: number }> }) => i.line_items.map((li) => li.amount))).toEqual([[20, 4], [300]]);
    expect(list[0].debt).toBe(f.debt);
    const found = (await me.api.get(`/debts/${f.debt}/invoices/search?expand[]=debt`).query({ query: 'reference:INV-1' }).expect(200)).body.data;
    expect(found).toEqual([expect.objectContaining({ id: f.invoice, debt: expect.objectContaining({ id: f.debt }), line_items: [f.invoiceItem] })]);
  });

  test('create and update answer expanded; an invoice without items expands to []', async () => {
    const created = (await me.api.post(`/debts/${f.debt}/invoices?expand[]=line_items&expand[]=debt`, { reference: 'INV-3' }).expect(201)).body;
    expect(created).toMatchObject({ line_items: [], debt: { id: f.debt, object: 'debt' } });
    const put = (await me.api.put(`/debts/${f.debt}/invoices/${f.invoice}?expand[]=line_items`, { status: 'paid' }).expect(200)).body;
    expect(put).toMatchObject({ status: 'paid', line_items: [{ id: f.invoiceItem, object: 'line_item', amount: 300 }] });
  });
});

describe('payment plans: debt, payments', () => {
  test('retrieve and both lists embed the debt and the payments made to the plan', async () => {
    const one = (await me.api.get(`/payment_plans/${f.plan}?expand[]=debt&expand[]=payments`).expect(200)).body;
    expect(one.debt).toMatchObject({ id: f.debt, object: 'debt', status: { value: 'paying' } });
    expect(one.payments[0]).toMatchObject({ object: 'payment', debt: f.debt, payment_plan: f.plan });
    expect(ids(one.payments)).toContain(f.toPlan);
    expect(ids(one.payments)).not.toContain(f.before);
    const nested = (await me.api.get(`/debts/${f.debt}/payment_plans?expand[]=payments`).expect(200)).body.data;
    expect(ids(nested[0].payments)).toEqual(ids(one.payments));
    const top = (await me.api.get('/payment_plans?expand[]=debt').expect(200)).body.data;
    expect(top.find((p: { id: string }) => p.id === f.plan).debt.id).toBe(f.debt);
  });

  test('create, delay, reschedule and cancel answer expanded', async () => {
    const debt = (await createDebt(me.api, parties, { breakdown: { principal: 900 } })).id;
    await me.api.post(`/debts/${debt}/ready`).expect(200);
    const plan = (
      await me.api
        .post(`/debts/${debt}/payment_plans?expand[]=debt&expand[]=payments`, { frequency: 'monthly', start_on: inDays(2), instalment_count: 3 })
        .expect(201)
    ).body;
    expect(plan).toMatchObject({ debt: { id: debt, status: { value: 'paying' } }, payments: [] });
    await me.api.post(`/debts/${debt}/payments`, { amount: 300, currency: 'GBP' }).expect(201);
    const delayed = (await me.api.patch(`/payment_plans/${plan.id}/delay?expand[]=payments`, { days: 3 }).expect(200)).body;
    expect(delayed.payments).toEqual([expect.objectContaining({ amount: 300, payment_plan: plan.id })]);
    const moved = (
      await me.api.patch(`/payment_plans/${plan.id}/reschedule?expand[]=debt`, { frequency: 'weekly', start_on: inDays(5), instalment_count: 2 }).expect(200)
    ).body;
    expect(moved.debt.summary.amount_paid).toBe(300);
    const canceled = (await me.api.post(`/payment_plans/${plan.id}/cancel?expand[]=debt`).expect(200)).body;
    expect(canceled).toMatchObject({ status: 'canceled', debt: { id: debt, status: { value: 'resumed' } } });
  });
});

describe('unknown values', () => {
  const fill = (path: string) => path.replace(/\{(\w+)\}/g, (_m, name: keyof typeof f) => f[name]);
  test.each([
    '/debts/{debt}?expand[]=payment_plan',
    '/payments/{toPlan}?expand[]=payment_plans',
    '/debts/{debt}/invoices?expand[]=invoice',
    '/debts/{debt}/invoices/search?query=status:open&expand[]=customer',
    '/payment_plans/{plan}?expand[]=line_items',
    '/debts/{debt}/payment_plans?expand[]=nope',
    '/payment_plans?expand[]=debts',
  ])('GET %s is 400 naming expand[]', async (path) => {
    expect((await me.api.get(fill(path)).expect(400)).body).toMatchObject({ code: 'parameter_invalid', param: 'expand[]' });
  });

  test('on a write they are 400 and nothing changes', async () => {
    const before = (await me.api.get(`/debts/${f.debt}`).expect(200)).body;
    expect((await me.api.post(`/debts/${f.debt}/pause?expand[]=nope`).expect(400)).body.param).toBe('expand[]');
    expect((await me.api.post(`/debts/${f.debt}/invoices?expand[]=payments`, { reference: 'NOPE' }).expect(400)).body.param).toBe('expand[]');
    expect((await me.api.patch(`/payment_plans/${f.plan}/delay?expand[]=invoices`, { days: 1 }).expect(400)).body.param).toBe('expand[]');
    expect((await me.api.get(`/debts/${f.debt}`).expect(200)).body).toEqual(before);
    expect((await me.api.get(`/debts/${f.debt}/invoices/search`).query({ query: 'reference:NOPE' }).expect(200)).body.data).toEqual([]);
  });
});
