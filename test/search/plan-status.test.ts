/**
 * The debt search field `payment_plan.status` (docs/api.md section 10) over HTTP: the debts with
 * any payment plan in that status, with the other fields, OR and the tenant's own rows only;
 * equality only; injection attempts stay plain values and change nothing.
 */
import { afterAll, beforeAll, describe, expect, test } from '@jest/globals';
import { closeHarness, seedParties, signedInTenant, testDb } from '../support/harness.js';
import { createDebt, searchedDebtIds, type Parties } from '../support/debts.js';

afterAll(closeHarness);

let me: Awaited<ReturnType<typeof signedInTenant>>;
const ids: Record<string, string> = {};
const tomorrow = new Date(Date.now() + 86_400_000).toISOString().slice(0, 10);

async function readyDebt(api: typeof me.api, parties: Parties): Promise<string> {
  const id = (await createDebt(api, parties)).id;
  await api.post(`/debts/${id}/ready`).expect(200);
  return id;
}

async function plan(api: typeof me.api, debt: string): Promise<string> {
  return (await api.post(`/debts/${debt}/payment_plans`, { frequency: 'weekly', start_on: tomorrow, instalment_count: 2 }).expect(201)).body.id;
}

beforeAll(async () => {
  const other = await signedInTenant();
  me = await signedInTenant();
  const parties = await seedParties(me.api);
  ids.active = await readyDebt(me.api, parties);
  await plan(me.api, ids.active);
  ids.canceled = await readyDebt(me.api, parties);
  await me.api.post(`/payment_plans/${await plan(me.api, ids.canceled)}/cancel`).expect(200);
  // A canceled plan, then a new active one: the debt matches both statuses.
  ids.both = await readyDebt(me.api, parties);
  await me.api.post(`/payment_plans/${await plan(me.api, ids.both)}/cancel`).expect(200);
  await plan(me.api, ids.both);
  ids.broken = await readyDebt(me.api, parties);
  await testDb()('payment_plans')
    .where({ id: await plan(me.api, ids.broken) })
    .update({ status: 'broken' });
  ids.none = await readyDebt(me.api, parties);
  // Another tenant's debt with an active plan must never show.
  await plan(other.api, await readyDebt(other.api, await seedParties(other.api)));
});

const debts = (query: string) => searchedDebtIds(me.api, query);

const sorted = (...names: string[]) => names.map((n) => ids[n]!).sort();

test.each([
  ['payment_plan.status:active', ['active', 'both']],
  ['payment_plan.status=canceled', ['canceled', 'both']],
  ["payment_plan.status:'broken'", ['broken']],
  ['payment_plan.status:completed', []],
  ['payment_plan.status:active AND status:paying', ['active', 'both']],
  ['payment_plan.status:canceled status:resumed', ['canceled']],
  ['payment_plan.status:broken OR payment_plan.status:canceled', ['broken', 'canceled', 'both']],
  ['payment_plan.status:active or status:prepared', ['active', 'both', 'none']],
])('%s', async (query, expected) => {
  expect(await debts(query)).toEqual(sorted(...expected));
});

test('equality only: another operator is 400 at its position', async () => {
  const res = await me.api.get('/debts/search').query({ query: 'payment_plan.status>active' }).expect(400);
  expect(res.body).toMatchObject({ code: 'invalid_search_query', param: 'query' });
  expect(res.body.message).toMatch(/Operator '>' is not allowed for 'payment_plan.status'.* at position 20\.$/);
});

describe('injection attempts are plain values and change nothing', () => {
  const ATTEMPTS = ["active' OR '1'='1", "'); DROP TABLE payment_plans; --", ') OR 1=1 --', 'active) OR (1=1', '1; SELECT pg_sleep(5)', '?', '$1', '\\'];
  const q = (v: string) => `'${v.replace(/[\\']/g, (c) => `\\${c}`)}'`;

  test.each(ATTEMPTS)('%s', async (value) => {
    const count = async () => (await testDb()('payment_plans').where({ tenant_id: me.tenant.tenantId }).count({ n: '*' }).first())!.n;
    const before = await count();
    const started = Date.now();
    expect(await debts(`payment_plan.status:${q(value)}`)).toEqual([]);
    expect(await debts(`payment_plan.status:${q(value)} OR kind:${q(value)}`)).toEqual([]);
    expect(Date.now() - started).toBeLessThan(4000);
    expect(await count()).toEqual(before);
    expect(await debts('payment_plan.status:active')).toEqual(sorted('active', 'both'));
  });
});
