/**
 * The search language of docs/api.md section 10 over HTTP, on every search endpoint: AND / OR in
 * any case and spaces (= AND), `:` and `=`, single or double quotes, mixing AND and OR refused at
 * the second connective; debt fields `metadata['key']`, `customer.email`, `amount`, `kind`; old
 * queries unchanged; injection attempts in every new field stay plain values and change nothing.
 */
import { afterAll, beforeAll, describe, expect, test } from '@jest/globals';
import { closeHarness, signedInTenant, testDb } from '../support/harness.js';
import { createDebt, searchedDebtIds } from '../support/debts.js';

afterAll(closeHarness);

let me: Awaited<ReturnType<typeof signedInTenant>>;
let other: Awaited<ReturnType<typeof signedInTenant>>;
const ids: Record<string, string> = {};

beforeAll(async () => {
  [me, other] = await Promise.all([signedInTenant(), signedInTenant()]);
  const org = (await me.api.post('/organisations', { name: 'Org' }).expect(201)).body.id;
  const ada = (await me.api.post('/customers', { full_name: "Ada O'Brien", contact_details: [{ type: 'email', value: 'Ada@Example.com' }] }).expect(201)).body
    .id;
  const bob = (await me.api.post('/customers', { full_name: 'Bob', contact_details: [{ type: 'email', value: 'bob@example.com' }] }).expect(201)).body.id;
  ids.ada = ada;
  ids.bob = bob;
  ids.rent = (
    await createDebt(me.api, { customerId: ada, organisationId: org }, { kind: 'rent', breakdown: { principal: 500 }, metadata: { crm: 'A 1', "it's": 'x' } })
  ).id;
  ids.card = (
    await createDebt(
      me.api,
      { customerId: bob, organisationId: org },
      { kind: 'credit_card', breakdown: { principal: 1000, fees: 200 }, metadata: { crm: 'B' } },
    )
  ).id;
  ids.loan = (
    await createDebt(me.api, { customerId: bob, organisationId: org }, { kind: 'consumer_loan', breakdown: { principal: 5000 }, currency: 'EUR' })
  ).id;
  // Another tenant's look-alike must never show.
  const theirOrg = (await other.api.post('/organisations', { name: 'Org' }).expect(201)).body.id;
  const theirCus = (await other.api.post('/customers', { full_name: 'Ada', contact_details: [{ type: 'email', value: 'ada@example.com' }] }).expect(201)).body
    .id;
  await createDebt(other.api, { customerId: theirCus, organisationId: theirOrg }, { kind: 'rent', metadata: { crm: 'A 1' } });
});

const debts = (query: string) => searchedDebtIds(me.api, query);

const sorted = (...names: string[]) => names.map((n) => ids[n]!).sort();

describe('connectives, operators and quotes', () => {
  test.each([
    ['kind:rent OR kind:credit_card', ['rent', 'card']],
    ['kind:rent or kind:credit_card or currency:EUR', ['rent', 'card', 'loan']],
    ['currency:GBP kind:credit_card', ['card']],
    ['currency:GBP and kind:credit_card', ['card']],
    ['currency:GBP AnD kind:credit_card', ['card']],
    ['kind=rent', ['rent']],
    ["kind='credit_card'", ['card']],
    ['kind="consumer_loan"', ['loan']],
    ['amount>=1200', ['card', 'loan']],
    ['amount=1200', ['card']],
    ['amount<1200 OR currency=EUR', ['rent', 'loan']],
    ["metadata['crm']:'A 1'", ['rent']],
    ['metadata["crm"]=B', ['card']],
    ["metadata['it\\'s']:x", ['rent']],
    ["metadata['crm']:nothing", []],
    ['customer.email:ada@example.com', ['rent']],
    ['customer.email=BOB@EXAMPLE.COM', ['card', 'loan']],
    ['customer.email:bob@example.com AND amount>1000', ['card', 'loan']],
    // Old queries keep their meaning.
    ['currency:GBP AND amount_remaining>=1000', ['card']],
    ['tag:none', []],
  ])('%s', async (query, expected) => {
    expect(await debts(query)).toEqual(sorted(...expected));
  });

  test('customers search takes the grammar too (OR, =, single quotes, lower-case and)', async () => {
    const found = async (query: string) =>
      ((await me.api.get('/customers/search').query({ query }).expect(200)).body.data as Array<{ id: string }>).map((c) => c.id).sort();
    expect(await found("email='ada@example.com' or email=bob@example.com")).toEqual([ids.ada, ids.bob].sort());
    expect(await found("full_name:'O\\'Brien' and email:ada@example.com")).toEqual([ids.ada]);
    expect(await found("full_name:O'Brien")).toEqual([ids.ada]);
  });

  test('expand[] and the links keep working with OR queries', async () => {
    const res = await me.api.get('/debts/search').query({ query: 'kind:rent OR kind:credit_card', limit: 1, 'expand[]': 'customer' }).expect(200);
    expect(res.headers['x-total-count']).toBe('2');
    expect(res.body.data[0].customer.object).toBe('customer');
    expect(res.headers.link).toContain('rel="next"');
  });
});

describe('errors: 400 invalid_search_query at the position', () => {
  test.each([
    ['kind:rent AND amount>1 OR currency:EUR', 'AND and OR cannot be mixed', 24],
    ['kind:rent OR amount>1 AND currency:EUR', 'found AND after OR', 23],
    ['kind:rent amount>1 or currency:EUR', 'found OR after AND', 20],
    ['kind:rent OR amount>1 currency:EUR', 'found a space (AND) after OR', 23],
    ['metadata:x', "needs a key: metadata['key']", 1],
    ["kind['x']:rent", 'takes no key', 6],
    ['metadata[crm]:x', 'Expected a quoted key', 10],
    ["metadata['crm']>x", "Operator '>' is not allowed for 'metadata'", 16],
    ['customer.email>a', "Operator '>' is not allowed for 'customer.email'", 15],
    ['customer.name:x', "Unknown field 'customer.name'", 1],
    ['amount>ten', 'Expected an integer', 8],
    ["kind:'rent", 'Unterminated quoted value', 6],
    ['kind:rent OR', 'Expected a field name', 13],
  ])('%j -> %s at %d', async (query, message, position) => {
    const res = await me.api.get('/debts/search').query({ query }).expect(400);
    expect(res.body).toMatchObject({ code: 'invalid_search_query', param: 'query' });
    expect(res.body.message).toContain(message);
    expect(res.body.message).toMatch(new RegExp(`at position ${position}\\.$`));
  });

  test('the customers search refuses mixing too', async () => {
    const res = await me.api.get('/customers/search').query({ query: 'email:a@b.c OR full_name:x AND created_at>2026-01-01' }).expect(400);
    expect(res.body.message).toMatch(/AND and OR cannot be mixed.* at position 28\.$/);
  });
});

describe('injection attempts are plain values in every new field, and change nothing', () => {
  const ATTEMPTS = ["x' OR '1'='1", "'); DROP TABLE debts; --", '") OR 1=1 --', '1; SELECT pg_sleep(5)', '?', '$1', '\\'];
  const q = (v: string) => `'${v.replace(/[\\']/g, (c) => `\\${c}`)}'`;

  test.each(ATTEMPTS)('%s', async (value) => {
    // This tenant's rows (other test files write debts meanwhile); DROP TABLE would fail the count.
    const count = () => testDb()('debts').where({ tenant_id: me.tenant.tenantId }).count({ n: '*' }).first();
    const before = await count();
    for (const query of [
      `metadata[${q(value)}]:${q(value)}`,
      `metadata['crm']:${q(value)} OR kind:${q(value)}`,
      `customer.email:${q(value)}`,
      `kind=${q(value)}`,
    ]) {
      expect(await debts(query)).toEqual([]);
    }
    const started = Date.now();
    expect(await debts(`kind:${q(value)} OR metadata['crm']:${q(value)}`)).toEqual([]);
    expect(Date.now() - started).toBeLessThan(4000);
    expect(await count()).toEqual(before);
  });
});
