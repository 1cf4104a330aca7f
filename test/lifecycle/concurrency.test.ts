/**
 * Two concurrent moves on one debt never both win (docs/api.md section 6): the debt row is locked
 * for each move, so of many conflicting requests fired at once exactly one succeeds and the rest
 * see the new status and get 409.
 */
import { afterAll, beforeAll, expect, test } from '@jest/globals';
import { closeHarness, seedParties, signedInTenant } from '../support/harness.js';
import { debtIn, eventTypesFor, type Parties } from '../support/debts.js';

afterAll(closeHarness);

let me: Awaited<ReturnType<typeof signedInTenant>>;
let parties: Parties;

beforeAll(async () => {
  me = await signedInTenant();
  parties = await seedParties(me.api);
});

test('10 concurrent settle and withdraw requests on a prepared debt: exactly one wins', async () => {
  const id = await debtIn(me.api, parties, 'prepared');
  const actions = Array.from({ length: 10 }, (_, i) => (i % 2 ? 'settle' : 'withdraw'));
  const results = await Promise.all(actions.map((a) => me.api.post(`/debts/${id}/${a}`)));
  const statuses = results.map((r) => r.status).sort();
  expect(statuses).toEqual([200, ...Array(9).fill(409)]);
  const winner = results.find((r) => r.status === 200)!;
  const final = (await me.api.get(`/debts/${id}`).expect(200)).body;
  expect(final.status.value).toBe(winner.body.status.value);
  const events = await eventTypesFor(me.tenant.tenantId, id);
  expect(events.filter((e) => e === 'debt.settled' || e === 'debt.withdrawn')).toEqual([`debt.${final.status.value}`]);
});

test('concurrent payments that each fit but together overpay: only those that fit succeed', async () => {
  const id = await debtIn(me.api, parties, 'prepared');
  // 10000 remaining; 8 payments of 3000 fit at most 3 times.
  const results = await Promise.all(Array.from({ length: 8 }, () => me.api.post(`/debts/${id}/payments`, { amount: 3000, currency: 'GBP' })));
  expect(results.filter((r) => r.status === 201)).toHaveLength(3);
  expect(results.filter((r) => r.status === 422)).toHaveLength(5);
  const debt = (await me.api.get(`/debts/${id}`).expect(200)).body;
  expect(debt.summary).toMatchObject({ amount_paid: 9000, amount_remaining: 1000 });
  expect((await me.api.get(`/debts/${id}/payments`).expect(200)).headers['x-total-count']).toBe('3');
});
