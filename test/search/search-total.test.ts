/**
 * Search totals (docs/api.md section 4, "Search totals"): every search endpoint counts its matches
 * up to `SEARCH_TOTAL_CAP` and says in `X-Total-Count-Relation` whether `X-Total-Count` is the
 * exact number of matches (`eq`) or the cap with more matching (`gte`); pages still reach every
 * match, lists keep their exact totals, bad input is answered as before, and the OpenAPI document
 * says so on every search operation.
 *
 * An extra API instance with `SEARCH_TOTAL_CAP=3` runs beside the suite's own (default 10,000), so
 * four rows cross its cap.
 */
import request from 'supertest';
import { afterAll, beforeAll, describe, expect, test } from '@jest/globals';
import { startService, type RunningService } from '@dms/tools/processes';
import { SERVICE_ENV, API_URL, closeHarness, seedParties, signedInTenant } from '../support/harness.js';
import { createDebt } from '../support/debts.js';
import { loadApiConfig } from '../../services/api/src/config.js';

const CAP = 3;
let capped: RunningService;
let me: Awaited<ReturnType<typeof signedInTenant>>;
let debtId: string;

afterAll(async () => {
  await capped?.stop();
  await closeHarness();
});

beforeAll(async () => {
  [capped, me] = await Promise.all([startService('api', { ...SERVICE_ENV, SEARCH_TOTAL_CAP: String(CAP) }), signedInTenant()]);
  const parties = await seedParties(me.api);
  // Four of each searchable kind: one more than the cap.
  const debts = [];
  for (const n of [1, 2, 3, 4]) debts.push(await createDebt(me.api, parties, { account_number: `CAP-${n}`, tags: ['cap'] }));
  debtId = debts[0].id;
  await me.api.post(`/debts/${debtId}/ready`).expect(200);
  for (const n of [1, 2, 3, 4]) {
    await me.api.post(`/debts/${debtId}/payments`, { amount: 1000, currency: 'GBP' }).expect(201);
    await me.api.post(`/debts/${debtId}/invoices`, { reference: `INV-${n}` }).expect(201);
    await me.api.post('/customers', { kind: 'individual', full_name: `Capped Customer ${n}` }).expect(201);
  }
});

/** `GET base + path` as the test tenant. */
const get = (base: string, path: string, query: Record<string, string> = {}) => request(base).get(path).query(query).set('Authorization', `Bearer ${me.token}`);

/** The total headers and the ids of one page of `path?query=…` on `base`. */
async function search(base: string, path: string, query: string, extra: Record<string, string> = {}) {
  const res = await get(base, path, { query, ...extra }).expect(200);
  return {
    total: res.headers['x-total-count'],
    relation: res.headers['x-total-count-relation'],
    items: res.headers['x-page-items'],
    ids: res.body.data.map((o: { id: string }) => o.id) as string[],
    link: res.headers.link as string,
  };
}

describe('at or below the cap: the exact count, eq', () => {
  test.each([
    ['account_number:CAP-1', '1'],
    ['account_number:CAP-1 OR account_number:CAP-2 OR account_number:CAP-3', '3'],
    ['tag:none', '0'],
  ])('%s', async (query, total) => {
    expect(await search(capped.url, '/debts/search', query)).toMatchObject({ total, relation: 'eq', items: total });
  });
});

describe('above the cap: the cap, gte', () => {
  test('on every search endpoint', async () => {
    const cases: Array<[string, string]> = [
      ['/debts/search', 'tag:cap'],
      ['/customers/search', 'full_name:capped'],
      ['/payments/search', 'currency:GBP'],
      [`/debts/${debtId}/payments/search`, 'currency:GBP'],
      [`/debts/${debtId}/invoices/search`, 'status:open'],
    ];
    for (const [path, query] of cases) {
      // Only the total is capped: the page holds all four matches.
      expect([path, await search(capped.url, path, query)]).toEqual([path, expect.objectContaining({ total: String(CAP), relation: 'gte', items: '4' })]);
      expect(await search(API_URL, path, query)).toMatchObject({ total: '4', relation: 'eq', items: '4' });
    }
  });

  test('pages still reach every match; each page says gte', async () => {
    const first = await search(capped.url, '/debts/search', 'tag:cap', { limit: '3' });
    expect(first).toMatchObject({ total: '3', relation: 'gte', items: '3' });
    const next = /<([^>]+)>; rel="next"/.exec(first.link)![1]!;
    const second = await search(capped.url, '/debts/search', 'tag:cap', { limit: '3', after: new URL(next).searchParams.get('after')! });
    expect(second).toMatchObject({ total: '3', relation: 'gte', items: '1' });
    expect(second.link).not.toContain('rel="next"');
    expect(new Set([...first.ids, ...second.ids]).size).toBe(4);
  });
});

describe('unchanged', () => {
  test('lists keep their exact maintained totals, without the relation header', async () => {
    // seedParties made one customer besides the four.
    const totals = { '/debts': '4', '/customers': '5', [`/debts/${debtId}/payments`]: '4' };
    for (const [path, total] of Object.entries(totals)) {
      const res = await get(capped.url, path).expect(200);
      expect([path, res.headers['x-total-count'], res.headers['x-total-count-relation']]).toEqual([path, total, undefined]);
    }
  });

  test.each([
    ['a malformed query', { query: 'tag:cap AND' }],
    ['an unknown field', { query: 'colour:red' }],
    ['a bad limit', { query: 'tag:cap', limit: '0' }],
    ['an unknown cursor', { query: 'tag:cap', after: 'deb_000000000000000000000000' }],
    ['no query', {}],
  ])('%s: the same 400 with or without the cap, and no relation header', async (_name, query) => {
    const [small, usual] = await Promise.all([get(capped.url, '/debts/search', query), get(API_URL, '/debts/search', query)]);
    expect(small.status).toBe(400);
    const { request_id: _a, ...body } = small.body;
    const { request_id: _b, ...expected } = usual.body;
    expect(body).toEqual(expected);
    expect(small.headers['x-total-count-relation']).toBeUndefined();
  });
});

describe('OpenAPI document', () => {
  test('every list and search response documents X-Total-Count-Relation with the server cap (a list takes `query` too, docs/api.md section 15)', async () => {
    const doc = (await request(capped.url).get('/openapi.json').expect(200)).body;
    const header = doc.components.headers['X-Total-Count-Relation'];
    expect(header.schema).toEqual({ type: 'string', enum: ['eq', 'gte'] });
    expect(header.description).toContain(`more than ${CAP} match`);
    const paged = Object.entries<Record<string, any>>(doc.paths).filter(([, item]) => item.get?.responses['200'].headers?.['X-Total-Count']);
    const documenting = paged.filter(([, item]) => item.get.responses['200'].headers['X-Total-Count-Relation']).map(([path]) => path);
    expect(documenting.sort()).toEqual(paged.map(([path]) => path).sort());
    expect(documenting.filter((path) => path.endsWith('/search')).length).toBeGreaterThanOrEqual(5);
  });
});

describe('SEARCH_TOTAL_CAP', () => {
  test('defaults to 10,000 and takes only whole numbers >= 1', () => {
    expect(loadApiConfig({}, false).SEARCH_TOTAL_CAP).toBe(10_000);
    expect(loadApiConfig({ SEARCH_TOTAL_CAP: '25' }, false).SEARCH_TOTAL_CAP).toBe(25);
    for (const bad of ['0', '-1', '2.5', 'many']) expect(() => loadApiConfig({ SEARCH_TOTAL_CAP: bad }, false)).toThrow(/^config error: SEARCH_TOTAL_CAP: /);
  });
});
