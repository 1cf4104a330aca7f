/**
 * `GET /debts/search` (docs/api.md section 4): every debt field, paging with the list headers and
 * cursors, `X-Total-Count` = number of matches, tenant isolation, and SQL injection attempts that
 * stay plain values.
 */
import { afterAll, beforeAll, describe, expect, test } from '@jest/globals';
import { closeHarness, seedParties, signedInTenant, testDb } from '../support/harness.js';
import { createDebt, debtIn, type Parties } from '../support/debts.js';

afterAll(closeHarness);

let me: Awaited<ReturnType<typeof signedInTenant>>;
let other: Awaited<ReturnType<typeof signedInTenant>>;
let parties: Parties;
let second: Parties;
const ids: Record<string, string> = {};

beforeAll(async () => {
  [me, other] = await Promise.all([signedInTenant(), signedInTenant()]);
  [parties, second] = await Promise.all([seedParties(me.api), seedParties(me.api)]);
  ids.jan = (await createDebt(me.api, parties, { account_number: 'JAN-1', tags: ['q1'] })).id;
  ids.feb = (await createDebt(me.api, second, { account_number: 'FEB-1', tags: ['q1', 'vip'], currency: 'USD' })).id;
  ids.prepared = await debtIn(me.api, parties, 'prepared');
  ids.deleted = await debtIn(me.api, parties, 'deleted');
  const at = (id: string, iso: string) => testDb()('debts').where({ id }).update({ created_at: iso, updated_at: iso });
  await at(ids.jan!, '2026-01-15T12:00:00Z');
  await at(ids.feb!, '2026-02-01T00:00:00Z');
  await at(ids.prepared, '2026-03-10T08:30:00Z');
  // The other tenant has a debt matching everything, which must never show.
  await createDebt(other.api, await seedParties(other.api), { account_number: 'JAN-1', tags: ['q1'] });
});

async function found(query: string): Promise<string[]> {
  const res = await me.api.get('/debts/search').query({ query }).expect(200);
  expect(res.headers['x-total-count']).toBe(String(res.body.data.length));
  return res.body.data.map((d: { id: string }) => d.id);
}

describe('fields', () => {
  test('status (deleted debts never match)', async () => {
    expect(await found('status:prepared')).toEqual([ids.prepared]);
    expect(await found('status:initializing')).toEqual([ids.feb, ids.jan]);
    expect(await found('status:deleted')).toEqual([]);
  });

  test('currency, account_number, customer_id, organisation_id', async () => {
    expect(await found('currency:USD')).toEqual([ids.feb]);
    expect(await found('account_number:JAN-1')).toEqual([ids.jan]);
    expect(await found(`customer_id:${second.customerId}`)).toEqual([ids.feb]);
    expect(await found(`organisation_id:${parties.organisationId}`)).toEqual([ids.prepared, ids.jan]);
  });

  test('tag matches debts whose tags contain it', async () => {
    expect(await found('tag:q1')).toEqual([ids.feb, ids.jan]);
    expect(await found('tag:vip')).toEqual([ids.feb]);
    expect(await found('tag:Q1')).toEqual([]);
  });

  test('created_at with dates (whole UTC days) and RFC 3339 timestamps', async () => {
    expect(await found('created_at:2026-01-15')).toEqual([ids.jan]);
    expect(await found('created_at>2026-01-15')).toEqual([ids.prepared, ids.feb]);
    expect(await found('created_at>=2026-02-01 AND created_at<2026-03-10')).toEqual([ids.feb]);
    expect(await found('created_at<=2026-02-01')).toEqual([ids.feb, ids.jan]);
    expect(await found('created_at:2026-01-15T12:00:00Z')).toEqual([ids.jan]);
    expect(await found('created_at>2026-01-15T12:00:00Z AND created_at<2026-03-10T09:30:00+01:00')).toEqual([ids.feb]);
    expect(await found('created_at<=2026-03-10T08:30:00.000Z')).toEqual([ids.prepared, ids.feb, ids.jan]);
    expect(await found('updated_at>2026-02-15')).toEqual([ids.prepared]);
  });
});

describe('paging', () => {
  test('matches page with limit and cursors; X-Total-Count counts all matches; links keep the query', async () => {
    const { api } = await signedInTenant();
    const p = await seedParties(api);
    const made: string[] = [];
    for (let i = 0; i < 5; i++) made.push((await createDebt(api, p, { tags: ['match'] })).id);
    await createDebt(api, p, { tags: ['other'] });
    const newestFirst = [...made].reverse();

    const first = await api.get('/debts/search').query({ query: 'tag:match', limit: 2 }).expect(200);
    expect(first.body.data.map((d: { id: string }) => d.id)).toEqual(newestFirst.slice(0, 2));
    expect(first.headers['x-total-count']).toBe('5');
    expect(first.headers['x-page-items']).toBe('2');
    const next = /<([^>]+)>; rel="next"/.exec(first.headers.link!)![1]!;
    expect(next).toContain('query=tag%3Amatch');
    expect(first.headers.link).not.toContain('rel="prev"');

    const url = new URL(next);
    const second = await api.get(`${url.pathname}${url.search}`).expect(200);
    expect(second.body.data.map((d: { id: string }) => d.id)).toEqual(newestFirst.slice(2, 4));
    expect(second.headers.link).toContain('rel="prev"');
    const third = await api.get('/debts/search').query({ query: 'tag:match', limit: 2, after: newestFirst[3] }).expect(200);
    expect(third.body.data.map((d: { id: string }) => d.id)).toEqual(newestFirst.slice(4));
    expect(third.headers.link).not.toContain('rel="next"');
    const back = await api.get('/debts/search').query({ query: 'tag:match', limit: 2, before: newestFirst[2] }).expect(200);
    expect(back.body.data.map((d: { id: string }) => d.id)).toEqual(newestFirst.slice(0, 2));
  });

  test('bad paging parameters are 400 naming them; a foreign cursor is invalid_cursor', async () => {
    expect((await me.api.get('/debts/search').query({ query: 'tag:q1', limit: 101 }).expect(400)).body.param).toBe('limit');
    expect((await me.api.get('/debts/search').query({ query: 'tag:q1', after: ids.jan, before: ids.feb }).expect(400)).body.code).toBe('parameters_exclusive');
    const foreign = (await other.api.get('/debts').expect(200)).body.data[0].id;
    expect((await me.api.get('/debts/search').query({ query: 'tag:q1', after: foreign }).expect(400)).body).toMatchObject({
      code: 'invalid_cursor',
      param: 'after',
    });
  });
});

describe('isolation and scopes', () => {
  test("another tenant's matching debts never appear", async () => {
    const theirs = await found('account_number:JAN-1');
    expect(theirs).toEqual([ids.jan]);
  });

  test('needs debts:read', async () => {
    const { api } = await signedInTenant('customers:read');
    await api.get('/debts/search').query({ query: 'tag:q1' }).expect(403);
  });
});

describe('SQL injection attempts are plain values', () => {
  test.each([
    `status:"x' OR 1=1 --"`,
    `account_number:"'; DROP TABLE debts; --"`,
    `tag:"x'] OR true --"`,
    `customer_id:"cus_x' UNION SELECT * FROM oauth_clients --"`,
    `currency:"GBP' OR 'a'='a"`,
  ])('%s returns an empty list and the tables stay', async (query) => {
    const res = await me.api.get('/debts/search').query({ query }).expect(200);
    expect(res.body.data).toEqual([]);
    expect(res.headers['x-total-count']).toBe('0');
    const { rows } = await testDb().raw(`SELECT to_regclass('public.debts') AS d, to_regclass('public.customers') AS c`);
    expect(rows[0]).toEqual({ d: 'debts', c: 'customers' });
    expect((await me.api.get('/debts').expect(200)).headers['x-total-count']).toBe('3');
  });
});
