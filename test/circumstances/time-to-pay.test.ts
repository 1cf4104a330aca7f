/**
 * The customer's time to pay on a payment plan (docs/api.md section 19), over HTTP: the next
 * instalment delayed by 1 to 14 days and the day of future instalments changed, each once per
 * instalment (409 `resource_conflict` the second time, nothing changed), bad input 400 naming the
 * field with nothing changed, each change a `payment_plan.updated` event; the worker's
 * missed-instalment rule follows the new dates (the tenant's test clock run forward).
 */
import { afterAll, beforeAll, describe, expect, test } from '@jest/globals';
import type { RunningService } from '@dms/tools/processes';
import { closeHarness, seedParties, signedInTenant } from '../support/harness.js';
import { eventTypesFor, type Parties } from '../support/debts.js';
import { eventually } from '../support/eventually.js';
import { checksDone, inDays, payingDebt, startWorker } from '../worker/support.js';
import { bothModes } from '../test-mode/support.js';

let acme: Awaited<ReturnType<typeof signedInTenant>>;
let parties: Parties;
const started: RunningService[] = [];

beforeAll(async () => {
  acme = await signedInTenant();
  parties = await seedParties(acme.api);
});
afterAll(async () => {
  await Promise.all(started.map((w) => w.stop('SIGKILL')));
  await closeHarness();
});

const planOf = async (id: string) => (await acme.api.get(`/payment_plans/${id}`).expect(200)).body;
const dates = (plan: { schedule: Array<{ due_on: string }> }) => plan.schedule.map((i) => i.due_on);

describe('PATCH /payment_plans/{id}/delay_next', () => {
  test('delays the next instalment and those after it, once per instalment, with payment_plan.updated', async () => {
    const { planId } = await payingDebt(acme.api, parties, { start_on: inDays(1), grace_days: 2 });
    const delayed = (await acme.api.patch(`/payment_plans/${planId}/delay_next`, { days: 14 }).expect(200)).body;
    expect(dates(delayed)).toEqual([inDays(15), inDays(22)]);
    expect(delayed.schedule[0]).toMatchObject({ delayed: true });
    expect(delayed.schedule[1].delayed).toBeUndefined();
    expect(await eventTypesFor(acme.tenant.tenantId, planId)).toEqual(['payment_plan.created', 'payment_plan.updated']);

    const again = await acme.api.patch(`/payment_plans/${planId}/delay_next`, { days: 1 }).expect(409);
    expect(again.body.code).toBe('resource_conflict');
    expect(again.body.message).toMatch(/Instalment 1 .* already delayed; this is offered once per instalment/);
    expect(dates(await planOf(planId))).toEqual([inDays(15), inDays(22)]);
    expect(await eventTypesFor(acme.tenant.tenantId, planId)).toHaveLength(2);
  });

  test.each([[{ days: 0 }], [{ days: 15 }], [{ days: 'seven' }], [{}], [{ days: 3, extra: 1 }]])(
    'bad input %j is 400 naming the field; nothing changed',
    async (body) => {
      const { planId } = await payingDebt(acme.api, parties, { start_on: inDays(1), grace_days: 2 });
      const before = await planOf(planId);
      const res = await acme.api.patch(`/payment_plans/${planId}/delay_next`, body).expect(400);
      expect(res.body).toMatchObject({ code: 'validation_failed', param: 'extra' in body ? 'extra' : 'days' });
      expect(await planOf(planId)).toEqual(before);
    },
  );
});

describe('PATCH /payment_plans/{id}/change_day', () => {
  test('moves the next instalment to the new day and the later ones follow; once per instalment', async () => {
    const { planId } = await payingDebt(acme.api, parties, { start_on: inDays(1), grace_days: 2 });
    const changed = (await acme.api.patch(`/payment_plans/${planId}/change_day`, { next_due_on: inDays(4) }).expect(200)).body;
    expect(dates(changed)).toEqual([inDays(4), inDays(11)]);
    expect(changed.schedule.map((i: { amount: number }) => i.amount)).toEqual([5000, 5000]);
    expect(changed.schedule[0]).toMatchObject({ day_changed: true });
    const again = await acme.api.patch(`/payment_plans/${planId}/change_day`, { next_due_on: inDays(5) }).expect(409);
    expect(again.body.code).toBe('resource_conflict');
    // The other time to pay is still offered for this instalment.
    const delayed = (await acme.api.patch(`/payment_plans/${planId}/delay_next`, { days: 2 }).expect(200)).body;
    expect(dates(delayed)).toEqual([inDays(6), inDays(13)]);
    expect(await eventTypesFor(acme.tenant.tenantId, planId)).toEqual(['payment_plan.created', 'payment_plan.updated', 'payment_plan.updated']);
  });

  test('a date out of range is 422 naming next_due_on; malformed is 400; nothing changed', async () => {
    const { planId } = await payingDebt(acme.api, parties, { start_on: inDays(1), grace_days: 2 });
    const before = await planOf(planId);
    for (const next_due_on of [inDays(-1), inDays(1), inDays(8)]) {
      const res = await acme.api.patch(`/payment_plans/${planId}/change_day`, { next_due_on }).expect(422);
      expect(res.body).toMatchObject({ code: 'business_rule_violation', param: 'next_due_on' });
    }
    for (const body of [{ next_due_on: 'next Tuesday' }, {}]) {
      const res = await acme.api.patch(`/payment_plans/${planId}/change_day`, body).expect(400);
      expect(res.body).toMatchObject({ code: 'validation_failed', param: 'next_due_on' });
    }
    expect(await planOf(planId)).toEqual(before);
  });

  test('a canceled plan is 409; another tenant’s plan is 404', async () => {
    const { planId } = await payingDebt(acme.api, parties, { start_on: inDays(1), grace_days: 2 });
    const other = await signedInTenant();
    await other.api.patch(`/payment_plans/${planId}/delay_next`, { days: 2 }).expect(404);
    await acme.api.post(`/payment_plans/${planId}/cancel`).expect(200);
    const res = await acme.api.patch(`/payment_plans/${planId}/change_day`, { next_due_on: inDays(3) }).expect(409);
    expect(res.body.code).toBe('invalid_state_transition');
  });
});

test("the worker's missed-instalment rule follows the delayed date (the test clock)", async () => {
  const { test: mode } = await bothModes();
  const tp = await seedParties(mode.api);
  const { debtId, planId } = await payingDebt(mode.api, tp, { start_on: inDays(0), grace_days: 0 });
  await mode.api.patch(`/payment_plans/${planId}/delay_next`, { days: 14 }).expect(200);
  const w = await startWorker([mode.tenant.tenantId], 0);
  started.push(w);
  // Two days on, the original date is long past its grace: the delayed one is not.
  await mode.api.post('/test_helpers/clock/advance', { seconds: 2 * 86_400 }).expect(200);
  const after = await checksDone(w);
  await eventually(async () => (await checksDone(w)) >= after + 2, 'two more checks');
  expect((await mode.api.get(`/debts/${debtId}`).expect(200)).body.status.value).toBe('paying');
  // A day after the delayed date (grace 0), it is missed.
  await mode.api.post('/test_helpers/clock/advance', { seconds: 13 * 86_400 }).expect(200);
  await eventually(async () => (await mode.api.get(`/debts/${debtId}`).expect(200)).body.status.value === 'defaulted', 'the debt defaulted');
  const plan = (await mode.api.get(`/payment_plans/${planId}`).expect(200)).body;
  expect(plan.status).toBe('broken');
  expect(plan.schedule[0]).toMatchObject({ due_on: inDays(14), status: 'missed', delayed: true });
});
