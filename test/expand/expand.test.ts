/**
 * `expand[]=customer` and `expand[]=organisation` on debt retrieve, list and search (docs/api.md
 * section 4): the object replaces its id, links keep the expansion, unknown values are 400 on
 * `expand[]`, and a page is expanded with one query per expanded type, never one per debt.
 */
import { afterAll, beforeAll, describe, expect, test } from '@jest/globals';
import { closeHarness, seedParties, signedInTenant, testDb } from '../support/harness.js';
import { createDebt, type Parties } from '../support/debts.js';
import { serializeDebts } from '../../services/api/src/resources/debts/expansion.js';

afterAll(closeHarness);

let me: Awaited<ReturnType<typeof signedInTenant>>;
let parties: Parties;
let debt: { id: string };
let customer: Record<string, unknown>;
let organisation: Record<string, unknown>;

beforeAll(async () => {
  me = await signedInTenant();
  parties = await seedParties(me.api);
  debt = await createDebt(me.api, parties, { tags: ['x'] });
  customer = (await me.api.get(`/customers/${parties.customerId}`).expect(200)).body;
  organisation = (await me.api.get(`/organisations/${parties.organisationId}`).expect(200)).body;
});

describe('retrieve', () => {
  test('without expand the ids stay', async () => {
    const res = await me.api.get(`/debts/${debt.id}`).expect(200);
    expect(res.body).toMatchObject({ customer: parties.customerId, organisation: parties.organisationId });
  });

  test('expand[]=customer embeds the customer; expand[]=organisation the organisation; both together', async () => {
    expect((await me.api.get(`/debts/${debt.id}?expand[]=customer`).expect(200)).body).toMatchObject({ customer, organisation: parties.organisationId });
    expect((await me.api.get(`/debts/${debt.id}?expand[]=organisation`).expect(200)).body).toMatchObject({ customer: parties.customerId, organisation });
    expect((await me.api.get(`/debts/${debt.id}?expand[]=customer&expand[]=organisation`).expect(200)).body).toMatchObject({ customer, organisation });
  });

  test('unknown expansions and unknown parameters are 400 naming them', async () => {
    expect((await me.api.get(`/debts/${debt.id}?expand[]=nope`).expect(400)).body).toMatchObject({ code: 'parameter_invalid', param: 'expand[]' });
    expect((await me.api.get(`/debts/${debt.id}?expand[]=customer&expand[]=tenant`).expect(400)).body.param).toBe('expand[]');
    expect((await me.api.get(`/debts/${debt.id}?expand=customer`).expect(400)).body.param).toBe('expand');
  });

  test('a customer deleted since shows as its deleted stub', async () => {
    const p = await seedParties(me.api);
    const d = await createDebt(me.api, p);
    await me.api.delete(`/customers/${p.customerId}`).expect(200);
    const res = await me.api.get(`/debts/${d.id}?expand[]=customer`).expect(200);
    expect(res.body.customer).toEqual({ id: p.customerId, object: 'customer', livemode: true, deleted: true });
  });
});

describe('list and search', () => {
  test('list embeds on every row and keeps expand[] in the links', async () => {
    const { api } = await signedInTenant();
    const p = await seedParties(api);
    for (let i = 0; i < 3; i++) await createDebt(api, p);
    const res = await api.get('/debts?limit=2&expand[]=customer&expand[]=organisation').expect(200);
    expect(res.body.data).toHaveLength(2);
    for (const d of res.body.data)
      expect(d).toMatchObject({ customer: { id: p.customerId, object: 'customer' }, organisation: { id: p.organisationId, object: 'organisation' } });
    const next = /<([^>]+)>; rel="next"/.exec(res.headers.link!)![1]!;
    expect(new URL(next).searchParams.getAll('expand[]')).toEqual(['customer', 'organisation']);
    const url = new URL(next);
    const page2 = await api.get(`${url.pathname}${url.search}`).expect(200);
    expect(page2.body.data[0].customer.object).toBe('customer');
  });

  test('search embeds too; unknown expansions are 400 there as well', async () => {
    const res = await me.api.get('/debts/search').query({ query: 'tag:x', 'expand[]': 'organisation' }).expect(200);
    expect(res.body.data).toEqual([expect.objectContaining({ id: debt.id, organisation })]);
    expect((await me.api.get('/debts/search').query({ query: 'tag:x', 'expand[]': 'nope' }).expect(400)).body.param).toBe('expand[]');
    expect((await me.api.get('/debts').query({ 'expand[]': 'nope' }).expect(400)).body.param).toBe('expand[]');
  });
});

test('a page of 30 debts over 30 customers is expanded with one query per expanded type', async () => {
  const { api, tenant } = await signedInTenant();
  const org = (await api.post('/organisations', { name: 'Org' }).expect(201)).body.id;
  for (let i = 0; i < 30; i++) {
    const cus = (await api.post('/customers', { kind: 'company', full_name: `Company ${i}` }).expect(201)).body.id;
    await createDebt(api, { customerId: cus, organisationId: org });
  }
  const db = testDb();
  const rows = await db('debts').where({ tenant_id: tenant.tenantId }).orderBy('seq', 'desc');
  const queries: string[] = [];
  const count = (q: { sql: string }) => queries.push(q.sql);
  db.on('query', count);
  try {
    const debts = await serializeDebts(db, tenant.tenantId, rows, new Set(['customer', 'organisation'] as const));
    expect(debts).toHaveLength(30);
    expect(new Set(debts.map((d) => (d.customer as { id: string }).id)).size).toBe(30);
    expect(debts.every((d) => (d.organisation as { id: string }).id === org)).toBe(true);
  } finally {
    db.off('query', count);
  }
  expect(queries).toHaveLength(2);
  expect(queries.every((sql) => sql.includes(' in ('))).toBe(true);
});
