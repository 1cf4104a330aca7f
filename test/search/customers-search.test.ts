/**
 * `GET /customers/search` (docs/api.md section 4): `email` (any e-mail contact, case-insensitive),
 * `full_name` (case-insensitive contains, `%` and `_` literal), `created_at`; injection attempts
 * stay plain values.
 */
import { afterAll, beforeAll, describe, expect, test } from '@jest/globals';
import { closeHarness, signedInTenant, testDb } from '../support/harness.js';

afterAll(closeHarness);

let me: Awaited<ReturnType<typeof signedInTenant>>;
let other: Awaited<ReturnType<typeof signedInTenant>>;
const ids: Record<string, string> = {};

async function customer(api: typeof me.api, full_name: string, emails: string[] = []) {
  const res = await api
    .post('/customers', {
      kind: 'individual',
      full_name,
      contact_details: [{ type: 'phone_number', value: '+447911123456' }, ...emails.map((value) => ({ type: 'email', value }))],
    })
    .expect(201);
  return res.body.id as string;
}

beforeAll(async () => {
  [me, other] = await Promise.all([signedInTenant(), signedInTenant()]);
  ids.ada = await customer(me.api, 'Ada Lovelace', ['Ada@Example.com', 'ada.work@example.org']);
  ids.grace = await customer(me.api, 'Grace Hopper', ['grace@example.com']);
  ids.pct = await customer(me.api, '100% Real_Name Ltd');
  ids.plain = await customer(me.api, '100 RealXName Ltd');
  await testDb()('customers').where({ id: ids.ada }).update({ created_at: '2026-01-01T10:00:00Z' });
  await customer(other.api, 'Ada Lovelace', ['ada@example.com']);
});

async function found(query: string): Promise<string[]> {
  const res = await me.api.get('/customers/search').query({ query }).expect(200);
  expect(res.headers['x-total-count']).toBe(String(res.body.data.length));
  return res.body.data.map((d: { id: string }) => d.id);
}

describe('fields', () => {
  test('email equals any e-mail contact, case-insensitively, never a phone number', async () => {
    expect(await found('email:ada@example.com')).toEqual([ids.ada]);
    expect(await found('email:ADA.WORK@EXAMPLE.ORG')).toEqual([ids.ada]);
    expect(await found('email:example.com')).toEqual([]);
    expect(await found('email:"+4400000"')).toEqual([]);
  });

  test('full_name contains, case-insensitively', async () => {
    expect(await found('full_name:lovelace')).toEqual([ids.ada]);
    expect(await found('full_name:"ACE"')).toEqual([ids.grace, ids.ada]);
    expect(await found('full_name:"e h"')).toEqual([ids.grace]);
  });

  test('% and _ in full_name are literal characters, not wildcards', async () => {
    expect(await found('full_name:"100%"')).toEqual([ids.pct]);
    expect(await found('full_name:Real_Name')).toEqual([ids.pct]);
    expect(await found('full_name:"%"')).toEqual([ids.pct]);
    expect(await found('full_name:"_"')).toEqual([ids.pct]);
  });

  test('created_at', async () => {
    expect(await found('created_at:2026-01-01')).toEqual([ids.ada]);
    expect(await found('created_at<2026-01-01T10:00:01Z AND full_name:a')).toEqual([ids.ada]);
    expect((await found('created_at>2026-01-01')).sort()).toEqual([ids.grace, ids.pct, ids.plain].sort());
  });

  test('debt fields are unknown here', async () => {
    const res = await me.api.get('/customers/search').query({ query: 'full_name:ada AND status:prepared' }).expect(400);
    expect(res.body).toMatchObject({ code: 'invalid_search_query', param: 'query' });
    expect(res.body.message).toMatch(/Unknown field 'status'.*at position 19\.$/);
  });

  test('email and full_name take only ":"', async () => {
    expect((await me.api.get('/customers/search').query({ query: 'full_name>a' }).expect(400)).body.message).toContain('position 10');
  });
});

test("another tenant's customers never appear; needs customers:read", async () => {
  expect(await found('full_name:Ada')).toEqual([ids.ada]);
  const { api } = await signedInTenant('debts:read');
  await api.get('/customers/search').query({ query: 'full_name:Ada' }).expect(403);
});

test.each([`full_name:"'; DROP TABLE customers; --"`, `email:"x' OR '1'='1"`, `full_name:"\\\\' OR 1=1 --"`])(
  '%s returns an empty list and the tables stay',
  async (query) => {
    const res = await me.api.get('/customers/search').query({ query }).expect(200);
    expect(res.body.data).toEqual([]);
    const { rows } = await testDb().raw(`SELECT to_regclass('public.customers') AS c, to_regclass('public.debts') AS d`);
    expect(rows[0]).toEqual({ c: 'customers', d: 'debts' });
    expect((await me.api.get('/customers').expect(200)).headers['x-total-count']).toBe('4');
  },
);
