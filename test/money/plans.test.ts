/**
 * Payment plans (docs/api.md section 9): schedules, one active plan per debt, reschedule, delay,
 * cancel, payments paying the oldest instalments, completion, and the debt statuses around them.
 */
import { afterAll, beforeAll, describe, expect, test } from '@jest/globals';
import { closeHarness, seedParties, signedInTenant, testDb } from '../support/harness.js';
import { createDebt, debtIn, eventTypesFor, type Parties } from '../support/debts.js';

afterAll(closeHarness);

let me: Awaited<ReturnType<typeof signedInTenant>>;
let parties: Parties;
const today = new Date().toISOString().slice(0, 10);
const inDays = (n: number) => new Date(Date.now() + n * 86_400_000).toISOString().slice(0, 10);

beforeAll(async () => {
  me = await signedInTenant();
  parties = await seedParties(me.api);
});

async function readyDebt(amount = 10000): Promise<string> {
  const debt = await createDebt(me.api, parties, { breakdown: { principal: amount } });
  await me.api.post(`/debts/${debt.id}/ready`).expect(200);
  return debt.id;
}

const status = async (id: string) => (await me.api.get(`/debts/${id}`).expect(200)).body.status;

describe('create', () => {
  test('by count: equal instalments, the last takes the remainder; debt moves to paying', async () => {
    const id = await readyDebt(10000);
    const res = await me.api.post(`/debts/${id}/payment_plans`, { frequency: 'weekly', start_on: inDays(1), instalment_count: 3 }).expect(201);
    expect(res.body).toMatchObject({
      object: 'payment_plan',
      debt: id,
      status: 'active',
      frequency: 'weekly',
      grace_days: 5,
      amount_total: 10000,
      amount_paid: 0,
    });
    expect(res.body.id).toMatch(/^pp_[0-9A-Za-z]{24}$/);
    expect(res.body.schedule.map((i: { amount: number; due_on: string }) => [i.amount, i.due_on])).toEqual([
      [3333, inDays(1)],
      [3333, inDays(8)],
      [3334, inDays(15)],
    ]);
    const st = await status(id);
    expect(st).toMatchObject({ value: 'paying', whodunnit: me.tenant.clientId });
    expect(await eventTypesFor(me.tenant.tenantId, res.body.id)).toEqual(['payment_plan.created']);
    expect((await eventTypesFor(me.tenant.tenantId, id)).slice(-1)).toEqual(['debt.paying']);
  });

  test('by amount, monthly: calendar month ends; a start today shows as due', async () => {
    const id = await readyDebt(10000);
    const res = await me.api.post(`/debts/${id}/payment_plans`, { frequency: 'monthly', start_on: today, instalment_amount: 4000 }).expect(201);
    expect(res.body.schedule.map((i: { amount: number }) => i.amount)).toEqual([4000, 4000, 2000]);
    expect(res.body.schedule[0].status).toBe('due');
    expect(res.body.schedule[1].status).toBe('upcoming');
  });

  test.each([
    [{ frequency: 'daily', start_on: inDays(1), instalment_count: 2 }, 'frequency', 400],
    [{ frequency: 'weekly', start_on: '2026-02-30', instalment_count: 2 }, 'start_on', 400],
    [{ frequency: 'weekly', start_on: '2020-01-01', instalment_count: 2 }, 'start_on', 422],
    [{ frequency: 'weekly', start_on: inDays(1) }, 'instalment_amount', 400],
    [{ frequency: 'weekly', start_on: inDays(1), instalment_count: 2, instalment_amount: 5 }, 'instalment_amount', 400],
    [{ frequency: 'weekly', start_on: inDays(1), instalment_count: 0 }, 'instalment_count', 400],
    [{ frequency: 'weekly', start_on: inDays(1), instalment_amount: 1 }, 'instalment_amount', 422],
    [{ frequency: 'weekly', start_on: inDays(1), instalment_count: 2, grace_days: 31 }, 'grace_days', 400],
  ])('bad terms %j: %s named, %d, nothing changes', async (body, param, code) => {
    const id = await readyDebt();
    const res = await me.api.post(`/debts/${id}/payment_plans`, body);
    expect(res.status).toBe(code);
    expect(res.body.param).toBe(param);
    expect((await status(id)).value).toBe('prepared');
    expect(await testDb()('payment_plans').where({ debt_id: id }).count({ n: '*' })).toEqual([{ n: 0 }]);
  });

  test('terminal or initializing debt: 409; a second active plan: 409 resource_conflict; racing creates: one wins', async () => {
    const settled = await debtIn(me.api, parties, 'settled');
    await me.api.post(`/debts/${settled}/payment_plans`, { frequency: 'weekly', start_on: inDays(1), instalment_count: 2 }).expect(409);
    const id = await readyDebt();
    const results = await Promise.all(
      [1, 2, 3, 4].map(() => me.api.post(`/debts/${id}/payment_plans`, { frequency: 'weekly', start_on: inDays(1), instalment_count: 2 })),
    );
    expect(results.map((r) => r.status).sort()).toEqual([201, 409, 409, 409]);
    expect(results.filter((r) => r.status === 409).every((r) => r.body.code === 'resource_conflict')).toBe(true);
  });
});

describe('payments, completion, reschedule, delay, cancel', () => {
  test('payments pay the oldest instalments first; the last completes the plan and pays the debt', async () => {
    const id = await readyDebt(9000);
    const plan = (await me.api.post(`/debts/${id}/payment_plans`, { frequency: 'fortnightly', start_on: inDays(1), instalment_count: 3 }).expect(201)).body;
    const p = await me.api.post(`/debts/${id}/payments`, { amount: 4000, currency: 'GBP', payment_plan_id: plan.id }).expect(201);
    expect(p.body.payment_plan).toBe(plan.id);
    let got = (await me.api.get(`/payment_plans/${plan.id}`).expect(200)).body;
    expect(got.schedule.map((i: { amount_paid: number; status: string }) => [i.amount_paid, i.status])).toEqual([
      [3000, 'paid'],
      [1000, 'upcoming'],
      [0, 'upcoming'],
    ]);
    expect(got.amount_paid).toBe(4000);
    await me.api.post(`/debts/${id}/payments`, { amount: 5000, currency: 'GBP' }).expect(201);
    got = (await me.api.get(`/payment_plans/${plan.id}`).expect(200)).body;
    expect(got.status).toBe('completed');
    expect((await status(id)).value).toBe('paid');
    expect(await eventTypesFor(me.tenant.tenantId, plan.id)).toEqual(['payment_plan.created', 'payment_plan.updated', 'payment_plan.completed']);
  });

  test('delay shifts unpaid instalments; reschedule rebuilds what is unpaid; cancel returns the debt to resumed and keeps history', async () => {
    const id = await readyDebt(10000);
    const plan = (await me.api.post(`/debts/${id}/payment_plans`, { frequency: 'weekly', start_on: inDays(2), instalment_count: 4 }).expect(201)).body;
    await me.api.post(`/debts/${id}/payments`, { amount: 2500, currency: 'GBP' }).expect(201);
    const delayed = (await me.api.patch(`/payment_plans/${plan.id}/delay`, { days: 3 }).expect(200)).body;
    expect(delayed.schedule[0].due_on).toBe(plan.schedule[0].due_on);
    expect(delayed.schedule[1].due_on).toBe(inDays(12));
    expect((await me.api.patch(`/payment_plans/${plan.id}/delay`, { days: 91 }).expect(400)).body.param).toBe('days');
    const re = (await me.api.patch(`/payment_plans/${plan.id}/reschedule`, { frequency: 'monthly', start_on: inDays(5), instalment_count: 2 }).expect(200))
      .body;
    expect(re.schedule.map((i: { sequence: number; amount: number; status: string }) => [i.sequence, i.amount, i.status])).toEqual([
      [1, 2500, 'paid'],
      [2, 3750, 'upcoming'],
      [3, 3750, 'upcoming'],
    ]);
    expect(re.frequency).toBe('monthly');
    const canceled = (await me.api.post(`/payment_plans/${plan.id}/cancel`).expect(200)).body;
    expect(canceled.status).toBe('canceled');
    expect(canceled.schedule).toEqual(re.schedule);
    expect((await status(id)).value).toBe('resumed');
    await me.api.post(`/payment_plans/${plan.id}/cancel`).expect(409);
    await me.api.patch(`/payment_plans/${plan.id}/delay`, { days: 1 }).expect(409);
    expect((await me.api.get(`/debts/${id}/payment_plans`).expect(200)).headers['x-total-count']).toBe('1');
    expect(Number((await me.api.get('/payment_plans').expect(200)).headers['x-total-count'])).toBeGreaterThan(1);
  });

  test('with an active plan: pause/resume returns to paying; settle cancels the plan; pause takes end_at, withdraw info', async () => {
    const id = await readyDebt();
    const plan = (await me.api.post(`/debts/${id}/payment_plans`, { frequency: 'weekly', start_on: inDays(1), instalment_count: 2 }).expect(201)).body;
    expect((await me.api.post(`/debts/${id}/pause`, { end_at: '2020-01-01T00:00:00Z' }).expect(422)).body.param).toBe('end_at');
    const end = new Date(Date.now() + 86_400_000).toISOString();
    const paused = (await me.api.post(`/debts/${id}/pause`, { end_at: end }).expect(200)).body;
    expect(paused.status).toMatchObject({ value: 'paused', end_at: end });
    expect((await me.api.post(`/debts/${id}/resume`).expect(200)).body.status.value).toBe('paying');
    await me.api.post(`/debts/${id}/settle`).expect(200);
    expect((await me.api.get(`/payment_plans/${plan.id}`).expect(200)).body.status).toBe('canceled');
    const other = await readyDebt();
    const w = (await me.api.post(`/debts/${other}/withdraw`, { info: 'creditor recalled' }).expect(200)).body;
    expect(w.status).toMatchObject({ value: 'withdrawn', context: 'creditor recalled', whodunnit: me.tenant.clientId });
  });

  test('racing cancel and payment on one plan: serial, the books balance', async () => {
    const id = await readyDebt(10000);
    const plan = (await me.api.post(`/debts/${id}/payment_plans`, { frequency: 'weekly', start_on: inDays(1), instalment_count: 2 }).expect(201)).body;
    const [cancel, pay] = await Promise.all([
      me.api.post(`/payment_plans/${plan.id}/cancel`),
      me.api.post(`/debts/${id}/payments`, { amount: 5000, currency: 'GBP' }),
    ]);
    expect(cancel.status).toBe(200);
    expect(pay.status).toBe(201);
    const after = (await me.api.get(`/payment_plans/${plan.id}`).expect(200)).body;
    expect(after.amount_paid).toBe(pay.body.payment_plan === plan.id ? 5000 : 0);
    expect((await me.api.get(`/debts/${id}`).expect(200)).body.summary.amount_paid).toBe(5000);
  });
});
