/**
 * Keyset pagination of the lists (docs/api.md section 4): walking `next` then `prev` by the `Link`
 * headers, the count headers on every page, the exact links, and a 400 naming the parameter for
 * each invalid one.
 */
import { afterAll, beforeAll, describe, expect, test } from '@jest/globals';
import { API_URL, apiAs, closeHarness, seedParties, signedInTenant } from '../support/harness.js';
import { readPage, walk, type FetchedPage } from './links.js';

afterAll(closeHarness);

const DEBTS = 23;
const EXTRA_CUSTOMERS = 12;
const EXTRA_ORGANISATIONS = 6;

let api: ReturnType<typeof apiAs>;
/** Ids of each list, newest first (the order the API must return them in). */
const newestFirst: Record<'debts' | 'customers' | 'organisations', string[]> = { debts: [], customers: [], organisations: [] };

beforeAll(async () => {
  ({ api } = await signedInTenant());
  const { organisationId, customerId } = await seedParties(api);
  const created: Record<keyof typeof newestFirst, string[]> = { debts: [], customers: [customerId], organisations: [organisationId] };
  // One at a time: creation order is the order the lists must show, newest first.
  for (let i = 0; i < DEBTS; i++) {
    const res = await api
      .post('/debts', { customer_id: customerId, organisation_id: organisationId, currency: 'GBP', breakdown: { principal: 1000 + i } })
      .expect(201);
    created.debts.push(res.body.id);
  }
  for (let i = 0; i < EXTRA_CUSTOMERS; i++) {
    created.customers.push((await api.post('/customers', { kind: 'company', full_name: `Customer ${i} Ltd` }).expect(201)).body.id);
  }
  for (let i = 0; i < EXTRA_ORGANISATIONS; i++) {
    created.organisations.push((await api.post('/organisations', { name: `Creditor ${i}` }).expect(201)).body.id);
  }
  for (const list of Object.keys(created) as Array<keyof typeof newestFirst>) newestFirst[list] = [...created[list]].reverse();
});

const WALKS: Array<[keyof typeof newestFirst, number]> = [
  ['debts', 5],
  ['debts', 10],
  ['debts', 23],
  ['debts', 100],
  ['customers', 4],
  ['organisations', 3],
];

describe.each(WALKS)('walking /%s with limit=%i', (list, limit) => {
  let forward: FetchedPage[];

  beforeAll(async () => {
    forward = await walk(api, readPage(await api.get(`/${list}?limit=${limit}`)), 'next', API_URL);
  });

  test('`next` from the first page visits every object exactly once, newest first', () => {
    const all = newestFirst[list];
    expect(forward.flatMap((p) => p.ids)).toEqual(all);
    expect(forward.length).toBe(Math.ceil(all.length / limit));
    for (const page of forward.slice(0, -1)) expect(page.ids.length).toBe(limit);
  });

  test('X-Total-Count and X-Page-Items are right on every page', () => {
    for (const page of forward) {
      expect(page.total).toBe(newestFirst[list].length);
      expect(page.items).toBe(page.ids.length);
    }
  });

  test('Link: first has only limit; next only when older objects exist; prev only when newer ones do', () => {
    forward.forEach((page, i) => {
      expect(page.links.first).toBe(`${API_URL}/${list}?limit=${limit}`);
      const isLast = i === forward.length - 1;
      expect(page.links.next).toBe(isLast ? undefined : `${API_URL}/${list}?after=${page.ids.at(-1)}&limit=${limit}`);
      expect(page.links.prev).toBe(i === 0 ? undefined : `${API_URL}/${list}?before=${page.ids[0]}&limit=${limit}`);
      expect(Object.keys(page.links).sort()).toEqual(['first', ...(isLast ? [] : ['next']), ...(i === 0 ? [] : ['prev'])].sort());
    });
  });

  test('`prev` from the last page returns the same pages in reverse', async () => {
    const backward = await walk(api, forward.at(-1)!, 'prev', API_URL);
    expect(backward.map((p) => p.ids)).toEqual([...forward].reverse().map((p) => p.ids));
    for (const page of backward) expect(page.total).toBe(newestFirst[list].length);
  });

  test('following `first` from any page lands on the first page', async () => {
    const fromLast = readPage(await api.get(forward.at(-1)!.links.first!.slice(API_URL.length)));
    expect(fromLast.ids).toEqual(forward[0]!.ids);
  });
});

describe('cursor semantics', () => {
  test('the default limit is 10', async () => {
    const page = readPage(await api.get('/debts'));
    expect(page.ids).toEqual(newestFirst.debts.slice(0, 10));
    expect(page.items).toBe(10);
    expect(page.links.first).toBe(`${API_URL}/debts?limit=10`);
    expect(page.links.next).toBe(`${API_URL}/debts?after=${newestFirst.debts[9]}&limit=10`);
  });

  test('after=X returns the objects older than X; before=X the `limit` newer than X, newest first', async () => {
    const ids = newestFirst.debts;
    expect(readPage(await api.get(`/debts?after=${ids[4]}&limit=3`)).ids).toEqual(ids.slice(5, 8));
    expect(readPage(await api.get(`/debts?before=${ids[10]}&limit=3`)).ids).toEqual(ids.slice(7, 10));
    // Fewer than `limit` newer objects: the page is short and has no prev.
    const nearTop = readPage(await api.get(`/debts?before=${ids[2]}&limit=5`));
    expect(nearTop.ids).toEqual(ids.slice(0, 2));
    expect(nearTop.links.prev).toBeUndefined();
    expect(nearTop.links.next).toBe(`${API_URL}/debts?after=${ids[1]}&limit=5`);
  });

  test('after the oldest object the page is empty, without next or prev, and the total still counts all', async () => {
    const page = readPage(await api.get(`/debts?after=${newestFirst.debts.at(-1)}`));
    expect(page.ids).toEqual([]);
    expect(page.items).toBe(0);
    expect(page.total).toBe(DEBTS);
    expect(Object.keys(page.links)).toEqual(['first']);
  });

  test('before the newest object the page is empty', async () => {
    const page = readPage(await api.get(`/debts?before=${newestFirst.debts[0]}`));
    expect(page.ids).toEqual([]);
    expect(page.items).toBe(0);
  });

  test('an empty list has a total of 0 and only a first link', async () => {
    const { api: fresh } = await signedInTenant();
    const page = readPage(await fresh.get('/debts?limit=7'));
    expect(page).toEqual({ ids: [], total: 0, items: 0, links: { first: `${API_URL}/debts?limit=7` } });
  });
});

describe('other query parameters are kept in the links', () => {
  test('walking /debts with expand[]=customer keeps it on every link and every page', async () => {
    const first = readPage(await api.get('/debts?limit=10&expand[]=customer'));
    const pages = await walk(api, first, 'next', API_URL);
    expect(pages.flatMap((p) => p.ids)).toEqual(newestFirst.debts);
    for (const page of pages) {
      for (const [rel, href] of Object.entries(page.links)) {
        const url = new URL(href);
        expect({ rel, expand: url.searchParams.getAll('expand[]'), limit: url.searchParams.get('limit') }).toEqual({ rel, expand: ['customer'], limit: '10' });
        expect([...url.searchParams.keys()].sort()).toEqual(['expand[]', 'limit', ...(rel === 'next' ? ['after'] : rel === 'prev' ? ['before'] : [])].sort());
      }
    }
    // The kept parameter still takes effect on a followed page.
    const next = new URL(first.links.next!);
    const second = await api.get(`${next.pathname}${next.search}`).expect(200);
    expect(second.body.data[0].customer).toMatchObject({ object: 'customer' });
  });
});

describe('invalid parameters: 400 naming the param, on every list', () => {
  // Every row has all four members: jest passes a `done` callback to a test function that takes
  // one argument more than its row has.
  const cases: Array<[string, (list: keyof typeof newestFirst) => string, string[], string | undefined]> = [
    ['limit=0', () => 'limit=0', ['limit'], 'parameter_invalid'],
    ['limit=101', () => 'limit=101', ['limit'], 'parameter_invalid'],
    ['limit=abc', () => 'limit=abc', ['limit'], 'parameter_invalid'],
    ['limit=-1', () => 'limit=-1', ['limit'], 'parameter_invalid'],
    ['limit=2.5', () => 'limit=2.5', ['limit'], 'parameter_invalid'],
    ['limit=', () => 'limit=', ['limit'], 'parameter_invalid'],
    ['limit twice', () => 'limit=2&limit=3', ['limit'], 'parameter_invalid'],
    ['after and before together', (l) => `after=${newestFirst[l][3]}&before=${newestFirst[l][1]}`, ['after', 'before'], 'parameters_exclusive'],
    ['an unknown after cursor', (l) => `after=${newestFirst[l][0]!.slice(0, 4)}000000000000000000000000`, ['after'], 'invalid_cursor'],
    ['an unknown before cursor', (l) => `before=${newestFirst[l][0]!.slice(0, 4)}000000000000000000000000`, ['before'], 'invalid_cursor'],
    ['a cursor that is not an id', () => 'after=hello', ['after'], 'invalid_cursor'],
    ['an empty cursor', () => 'before=', ['before'], 'invalid_cursor'],
    ['an unknown query parameter', () => 'limit=5&colour=red', ['colour'], 'parameter_invalid'],
  ];

  for (const list of ['debts', 'customers', 'organisations'] as const) {
    test.each(cases)(`/${list}: %s`, async (_name, query, params, code) => {
      const res = await api.get(`/${list}?${query(list)}`);
      expect(res.status).toBe(400);
      expect(res.body).toMatchObject({ object: 'error', type: 'invalid_request_error' });
      expect(params).toContain(res.body.param);
      expect(res.body.code).toBe(code);
      expect(res.body.request_id).toBe(res.headers['request-id']);
    });
  }

  test('a cursor naming an object of another list is invalid_cursor', async () => {
    for (const [list, foreign] of [
      ['debts', newestFirst.customers[0]],
      ['customers', newestFirst.debts[0]],
      ['organisations', newestFirst.customers[0]],
    ] as const) {
      for (const param of ['after', 'before']) {
        const res = await api.get(`/${list}?${param}=${foreign}`);
        expect(res.status).toBe(400);
        expect(res.body).toMatchObject({ code: 'invalid_cursor', param });
      }
    }
  });
});
