/**
 * `expand[]` of docs/api.md section 10 through the expansion registry: debts (`customer`,
 * `organisation`, `payments`), payments (`debt`), customers (`debts`) on reads and writes; an
 * unknown value is 400 naming `expand[]`; a page costs one query per expanded relation.
 */
import { afterAll, beforeAll, describe, expect, test } from '@jest/globals';
import { closeHarness, seedParties, signedInTenant, testDb } from '../support/harness.js';
import { createDebt, type Parties } from '../support/debts.js';
import { expandObjects } from '../../services/api/src/operations/expansion.js';
import { DEBT_EXPANSIONS } from '../../services/api/src/resources/debts/expansion.js';
import { CUSTOMER_EXPANSIONS } from '../../services/api/src/resources/customers/expansion.js';
import { PAYMENT_EXPANSIONS } from '../../services/api/src/resources/payments/expansion.js';
import { toDebt } from '../../libs/domain/src/debts/store.js';
import { toPayment } from '../../libs/domain/src/payments/store.js';

afterAll(closeHarness);

let me: Awaited<ReturnType<typeof signedInTenant>>;
let parties: Parties;
let debt: { id: string };
let payment: { id: string };

beforeAll(async () => {
  me = await signedInTenant();
  parties = await seedParties(me.api);
  debt = await createDebt(me.api, parties);
  await me.api.post(`/debts/${debt.id}/ready`).expect(200);
  payment = (await me.api.post(`/debts/${debt.id}/payments`, { amount: 100, currency: 'GBP' }).expect(201)).body;
});

describe('over HTTP', () => {
  test('a debt expands its payments (newest first), with customer and organisation', async () => {
    const second = (await me.api.post(`/debts/${debt.id}/payments`, { amount: 200, currency: 'GBP' }).expect(201)).body;
    const res = await me.api.get(`/debts/${debt.id}?expand[]=payments&expand[]=customer`).expect(200);
    expect(res.body.payments.map((p: { id: string }) => p.id)).toEqual([second.id, payment.id]);
    expect(res.body.payments[0]).toMatchObject({ object: 'payment', debt: debt.id, amount: 200 });
    expect(res.body.customer).toMatchObject({ id: parties.customerId, object: 'customer', contact_details: [] });
    expect((await me.api.get(`/debts/${debt.id}`).expect(200)).body.payments).toBeUndefined();
    const fresh = await createDebt(me.api, parties);
    expect((await me.api.get(`/debts/${fresh.id}?expand[]=payments`).expect(200)).body.payments).toEqual([]);
  });

  test('debt create and update take expand[] too', async () => {
    const res = await me.api
      .post('/debts?expand[]=organisation', {
        customer_id: parties.customerId,
        organisation_id: parties.organisationId,
        currency: 'GBP',
        breakdown: { principal: 10 },
      })
      .expect(201);
    expect(res.body.organisation).toMatchObject({ id: parties.organisationId, object: 'organisation' });
    const upd = await me.api.patch(`/debts/${res.body.id}?expand[]=customer`, { account_number: 'E-1' }).expect(200);
    expect(upd.body.customer).toMatchObject({ id: parties.customerId, object: 'customer' });
    const put = await me.api.put(`/debts/${res.body.id}?expand[]=payments`, { account_number: 'E-2' }).expect(200);
    expect(put.body.payments).toEqual([]);
  });

  test('a payment expands its debt (references as ids) on retrieve, list and create', async () => {
    const one = await me.api.get(`/debts/${debt.id}/payments/${payment.id}?expand[]=debt`).expect(200);
    expect(one.body.debt).toMatchObject({ id: debt.id, object: 'debt', customer: parties.customerId, organisation: parties.organisationId });
    const list = await me.api.get(`/debts/${debt.id}/payments?expand[]=debt`).expect(200);
    for (const p of list.body.data) expect(p.debt.id).toBe(debt.id);
    const created = await me.api.post(`/debts/${debt.id}/payments?expand[]=debt`, { amount: 1, currency: 'GBP' }).expect(201);
    expect(created.body.debt).toMatchObject({ id: debt.id, summary: { amount_paid: 301 } });
  });

  test('a customer expands its debts on retrieve, list, search, create and update', async () => {
    const res = await me.api.get(`/customers/${parties.customerId}?expand[]=debts`).expect(200);
    expect(res.body.debts.map((d: { id: string }) => d.id)).toContain(debt.id);
    expect(res.body.debts[0]).toMatchObject({ object: 'debt', customer: parties.customerId });
    const list = await me.api.get('/customers?expand[]=debts').expect(200);
    expect(list.body.data.find((c: { id: string }) => c.id === parties.customerId).debts.length).toBeGreaterThan(0);
    const search = await me.api.get('/customers/search').query({ query: 'full_name:Ada', 'expand[]': 'debts' }).expect(200);
    expect(search.body.data[0].debts.length).toBeGreaterThan(0);
    const created = await me.api.post('/customers?expand[]=debts', { full_name: 'New' }).expect(201);
    expect(created.body.debts).toEqual([]);
    expect((await me.api.patch(`/customers/${parties.customerId}?expand[]=debts`, { first_name: 'Ada' }).expect(200)).body.debts.length).toBeGreaterThan(0);
  });

  test.each([['/debts?expand[]=debt'], ['/customers?expand[]=customer'], ['/customers/cus_000000000000000000000000?expand[]=payments']])(
    'unknown value %s is 400 naming expand[]',
    async (path) => {
      expect((await me.api.get(path).expect(400)).body).toMatchObject({ code: 'parameter_invalid', param: 'expand[]' });
    },
  );

  test('an unknown expansion on a write is 400 and writes nothing', async () => {
    const before = (await me.api.get('/customers').expect(200)).headers['x-total-count'];
    expect((await me.api.post('/customers?expand[]=nope', { full_name: 'Nope' }).expect(400)).body.param).toBe('expand[]');
    expect((await me.api.get('/customers').expect(200)).headers['x-total-count']).toBe(before);
  });
});

test('a page is expanded with one query per expanded relation, whatever its size', async () => {
  const { api, tenant } = await signedInTenant();
  const org = (await api.post('/organisations', { name: 'Org' }).expect(201)).body.id;
  for (let i = 0; i < 12; i++) {
    const cus = (await api.post('/customers', { full_name: `C ${i}`, contact_details: [{ type: 'email', value: `c${i}@example.com` }] }).expect(201)).body.id;
    const d = await createDebt(api, { customerId: cus, organisationId: org });
    await api.post(`/debts/${d.id}/ready`).expect(200);
    await api.post(`/debts/${d.id}/payments`, { amount: 10, currency: 'GBP' }).expect(201);
  }
  const db = testDb();
  const debts = (await db('debts').where({ tenant_id: tenant.tenantId })).map((r) => toDebt(r));
  const payments = (await db('payments').where({ tenant_id: tenant.tenantId })).map(toPayment);
  const customers = (await api.get('/customers?limit=100').expect(200)).body.data;
  const queries: string[] = [];
  const count = (q: { sql: string }) => queries.push(q.sql);
  db.on('query', count);
  try {
    const expanded = await expandObjects(db, tenant.tenantId, debts, ['customer', 'organisation', 'payments'], DEBT_EXPANSIONS);
    expect(expanded.every((d) => (d.customer as { contact_details: unknown[] }).contact_details.length === 1 && d.payments!.length === 1)).toBe(true);
    expect(queries).toHaveLength(3);
    queries.length = 0;
    const withDebts = await expandObjects(db, tenant.tenantId, customers, ['debts'], CUSTOMER_EXPANSIONS);
    expect(withDebts.every((c: { debts?: unknown[] }) => c.debts!.length === 1)).toBe(true);
    expect(queries).toHaveLength(1);
    queries.length = 0;
    await expandObjects(db, tenant.tenantId, payments, ['debt'], PAYMENT_EXPANSIONS);
    expect(queries).toHaveLength(1);
  } finally {
    db.off('query', count);
  }
  expect(queries.every((sql) => sql.includes(' in ('))).toBe(true);
});
