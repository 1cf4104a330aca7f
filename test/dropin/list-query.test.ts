/**
 * `query` on every list endpoint and `metadata['key']` on every object with metadata (docs/api.md
 * section 15): each list narrowed by the search grammar with the search's headers, a bad query 400
 * naming its position, and every registry's metadata field served by the index it names.
 */
import { afterAll, beforeAll, expect, test } from '@jest/globals';
import { RESOURCES } from '@dms/domain';
import { closeHarness, seedParties, signedInTenant, testDb } from '../support/harness.js';
import { createDebt, type Parties } from '../support/debts.js';

let main: Awaited<ReturnType<typeof signedInTenant>>;
let parties: Parties;
let debtId: string;

beforeAll(async () => {
  main = await signedInTenant();
  parties = await seedParties(main.api);
  debtId = (await createDebt(main.api, parties, { metadata: { crm: 'A-1' } })).id;
  await createDebt(main.api, parties, { metadata: { crm: 'B-2' } });
  await main.api.post(`/debts/${debtId}/ready`).expect(200);
});
afterAll(closeHarness);

/** Creates two objects at `path` with `metadata.crm` A-1 and B-2; returns the first one's id. */
async function pair(path: string, body: (n: number) => object): Promise<string> {
  const a = await main.api.post(path, { ...body(1), metadata: { crm: 'A-1' } }).expect(201);
  await main.api.post(path, { ...body(2), metadata: { crm: 'B-2' } }).expect(201);
  return a.body.id;
}

test.each([
  ['/organisations', (n: number) => ({ name: `Org ${n}` })],
  ['/customers', (n: number) => ({ full_name: `Customer ${n}` })],
  ['/webhooks', (n: number) => ({ url: `https://example.com/${n}`, enabled_events: ['*'] })],
  ['/communication_templates', (n: number) => ({ name: `Template ${n}`, delivery_method: 'email', subject: 'S', body: 'B' })],
])('GET %s?query=metadata[...] narrows the list, with the search headers', async (path, body) => {
  const id = await pair(path, body);
  const res = await main.api.get(path).query({ query: "metadata['crm']:'A-1'" }).expect(200);
  expect(res.body.data.map((o: { id: string }) => o.id)).toEqual([id]);
  expect(res.headers['x-total-count']).toBe('1');
  expect(res.headers['x-total-count-relation']).toBe('eq');
  const all = await main.api.get(path).expect(200);
  expect(all.body.data.length).toBeGreaterThanOrEqual(2);
});

test('nested lists and the money objects take query too', async () => {
  const debts = (await main.api.get('/debts').query({ query: "metadata['crm']='A-1' AND status:prepared" }).expect(200)).body.data;
  expect(debts.map((d: { id: string }) => d.id)).toEqual([debtId]);
  const pay = await main.api.post(`/debts/${debtId}/payments`, { amount: 100, currency: 'GBP', metadata: { crm: 'P-1' } }).expect(201);
  await main.api.post(`/debts/${debtId}/payments`, { amount: 50, currency: 'GBP' }).expect(201);
  for (const path of [`/debts/${debtId}/payments`, '/payments']) {
    const found = (await main.api.get(path).query({ query: "metadata['crm']:P-1" }).expect(200)).body.data;
    expect(found.map((p: { id: string }) => p.id)).toEqual([pay.body.id]);
  }
  const li = (await main.api.get(`/debts/${debtId}/line_items`).query({ query: "metadata['none']:x" }).expect(200)).body.data;
  expect(li).toEqual([]);
  const plans = (await main.api.get('/payment_plans').query({ query: 'status:active' }).expect(200)).body.data;
  expect(plans).toEqual([]);
});

test('a bad query on a list is 400 invalid_search_query with its position', async () => {
  const res = await main.api.get('/organisations').query({ query: 'name:Org' }).expect(400);
  expect(res.body).toMatchObject({ code: 'invalid_search_query' });
  expect(res.body.message).toMatch(/name/);
  expect((await main.api.get('/customers').query({ query: "metadata:'x'" }).expect(400)).body.code).toBe('invalid_search_query');
});

test('every resource with metadata searches it, through the index its registry names', async () => {
  const indexes = new Set((await testDb()('pg_indexes').select('indexname')).map((r: { indexname: string }) => r.indexname));
  const withMetadata = [
    'debts',
    'customers',
    'payments',
    'invoices',
    'organisations',
    'line_items',
    'payment_plans',
    'customer_contact_details',
    'communication_templates',
    'webhook_endpoints',
  ];
  for (const table of withMetadata) {
    const resource = RESOURCES.find((r) => r.table === table) as { search?: Record<string, { keyed?: boolean }> };
    expect(resource.search?.metadata?.keyed).toBe(true);
    expect(indexes.has(`${table}_search_metadata`)).toBe(true);
  }
});
