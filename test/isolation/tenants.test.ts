/**
 * Tenant isolation (docs/api.md section 3): tenant B's token never reaches tenant A's objects, by
 * list, by id (404, indistinguishable from a missing object), as a cursor (400 invalid_cursor), or
 * as a reference in a create (404 naming the field, nothing written).
 */
import { afterAll, beforeAll, describe, expect, test } from '@jest/globals';
import { apiAs, closeHarness, seedParties, signedInTenant } from '../support/harness.js';

afterAll(closeHarness);

type Api = ReturnType<typeof apiAs>;
const LISTS = ['organisations', 'customers', 'debts'] as const;
type List = (typeof LISTS)[number];

let a: Api;
let b: Api;
const ofA: Record<List, string> = { organisations: '', customers: '', debts: '' };
const ofB: Record<List, string> = { organisations: '', customers: '', debts: '' };

async function fill(api: Api, into: Record<List, string>) {
  const { organisationId, customerId } = await seedParties(api);
  const debt = await api
    .post('/debts', { customer_id: customerId, organisation_id: organisationId, currency: 'EUR', breakdown: { principal: 5000 } })
    .expect(201);
  Object.assign(into, { organisations: organisationId, customers: customerId, debts: debt.body.id });
}

beforeAll(async () => {
  [{ api: a }, { api: b }] = await Promise.all([signedInTenant(), signedInTenant()]);
  await Promise.all([fill(a, ofA), fill(b, ofB)]);
});

describe.each(LISTS)('/%s', (list) => {
  test('each tenant lists only its own objects, and counts only them', async () => {
    for (const [api, own] of [
      [a, ofA],
      [b, ofB],
    ] as const) {
      const res = await api.get(`/${list}?limit=100`).expect(200);
      expect(res.body.data.map((o: { id: string }) => o.id)).toEqual([own[list]]);
      expect(res.headers['x-total-count']).toBe('1');
    }
  });

  test("another tenant's object is 404, exactly like one that does not exist", async () => {
    const foreign = await b.get(`/${list}/${ofA[list]}`);
    const missing = await b.get(`/${list}/${ofA[list].slice(0, 4)}000000000000000000000000`);
    for (const res of [foreign, missing]) {
      expect(res.status).toBe(404);
      expect(res.body).toMatchObject({ object: 'error', type: 'not_found', code: 'resource_missing' });
      expect(JSON.stringify(res.body)).not.toContain('ten_');
    }
    expect(Object.keys(foreign.body).sort()).toEqual(Object.keys(missing.body).sort());
    // The owner still sees it.
    await a.get(`/${list}/${ofA[list]}`).expect(200);
  });

  test("another tenant's object as a cursor is 400 invalid_cursor", async () => {
    for (const param of ['after', 'before']) {
      const res = await b.get(`/${list}?${param}=${ofA[list]}`);
      expect(res.status).toBe(400);
      expect(res.body).toMatchObject({ code: 'invalid_cursor', param });
    }
  });
});

describe('references in a create', () => {
  test("a debt naming another tenant's customer or organisation is 404 naming the field, and nothing is created", async () => {
    for (const [body, param] of [
      [{ customer_id: ofA.customers, organisation_id: ofB.organisations }, 'customer_id'],
      [{ customer_id: ofB.customers, organisation_id: ofA.organisations }, 'organisation_id'],
    ] as const) {
      const res = await b.post('/debts', { ...body, currency: 'GBP', breakdown: { principal: 100 } });
      expect(res.status).toBe(404);
      expect(res.body).toMatchObject({ code: 'resource_missing', param });
    }
    for (const api of [a, b]) {
      const list = await api.get('/debts').expect(200);
      expect(list.headers['x-total-count']).toBe('1');
      expect(list.body.data).toHaveLength(1);
    }
  });
});
