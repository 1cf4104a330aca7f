/**
 * The test clock and the test helpers (docs/api.md section 15): a test client reads and advances
 * its tenant's clock (forward only; backwards or malformed is 400 naming the field, nothing
 * changed); the worker then makes the changes due by that clock for that tenant only (a missed
 * instalment defaults the test debt while the live tenant's identical debt keeps paying; a timed
 * pause ends); a payment is made to fail. Live tokens get 404 on every helper.
 */
import { afterAll, beforeAll, describe, expect, test } from '@jest/globals';
import type { RunningService } from '@dms/tools/processes';
import { closeHarness, seedParties, testDb } from '../support/harness.js';
import { eventTypesFor, type Parties } from '../support/debts.js';
import { eventually } from '../support/eventually.js';
import { checksDone, inDays, payingDebt, readyDebt, startWorker } from '../worker/support.js';
import { bothModes, type Mode } from './support.js';

const started: RunningService[] = [];
afterAll(async () => {
  await Promise.all(started.map((w) => w.stop('SIGKILL')));
  await closeHarness();
});

let live: Mode;
let testMode: Mode;
const parties: { live?: Parties; test?: Parties } = {};

beforeAll(async () => {
  ({ live, test: testMode } = await bothModes());
  [parties.live, parties.test] = await Promise.all([seedParties(live.api), seedParties(testMode.api)]);
});

const offsetOf = async (tenantId: string) => Number((await testDb()('tenants').where({ id: tenantId }).first('clock_offset_seconds')).clock_offset_seconds);

describe('helpers are for test clients only', () => {
  const helpers: Array<['get' | 'post', string, object | undefined]> = [
    ['get', '/test_helpers/clock', undefined],
    ['post', '/test_helpers/clock/advance', { seconds: 60 }],
    ['post', '/test_helpers/payments/pay_000000000000000000000000/fail', undefined],
    ['post', '/test_helpers/debts/deb_000000000000000000000000/inbound', { text: 'hi' }],
    ['post', '/test_helpers/communications/com_000000000000000000000000/bounce', undefined],
  ];
  test.each(helpers)('a live token on %s %s is 404 route_not_found, and nothing changes', async (method, path, body) => {
    const res = method === 'get' ? await live.api.get(path) : await live.api.post(path, body);
    expect(res.status).toBe(404);
    expect(res.body).toMatchObject({ object: 'error', code: 'route_not_found' });
    expect(await offsetOf(live.tenant.tenantId)).toBe(0);
  });

  test('OpenAPI marks every test helper test-only', async () => {
    const doc = (await live.api.get('/openapi.json').expect(200)).body as { paths: Record<string, Record<string, Record<string, unknown>>> };
    const helpers = Object.entries(doc.paths).filter(([p]) => p.startsWith('/test_helpers/'));
    expect(helpers.map(([p]) => p).sort()).toEqual([
      '/test_helpers/clock',
      '/test_helpers/clock/advance',
      '/test_helpers/communications/{id}/bounce',
      '/test_helpers/debts/{id}/inbound',
      '/test_helpers/payments/{id}/fail',
    ]);
    for (const [, ops] of helpers) {
      for (const op of Object.values(ops)) {
        expect(op['x-test-only']).toBe(true);
        expect(op.description).toMatch(/^\*\*Test mode only\*\*/);
      }
    }
    expect(doc.paths['/debts']!.get!['x-test-only']).toBeUndefined();
  });
});

describe('the test clock', () => {
  test('starts at real time; advances by seconds or to a time; never backwards (400 naming the field, nothing changed)', async () => {
    const tenant = testMode.tenant.tenantId;
    const start = (await testMode.api.get('/test_helpers/clock').expect(200)).body;
    expect(start).toMatchObject({ object: 'test_clock', offset_seconds: 0, livemode: false });
    expect(Math.abs(Date.parse(start.now) - Date.now())).toBeLessThan(60_000);

    const bySeconds = (await testMode.api.post('/test_helpers/clock/advance', { seconds: 3600 }).expect(200)).body;
    expect(bySeconds.offset_seconds).toBe(3600);
    const target = new Date(Date.parse(bySeconds.now) + 86_400_000).toISOString();
    const toTime = (await testMode.api.post('/test_helpers/clock/advance', { to: target }).expect(200)).body;
    expect(toTime.offset_seconds).toBeGreaterThanOrEqual(3600 + 86_400);
    expect(Date.parse(toTime.now)).toBeGreaterThanOrEqual(Date.parse(target));

    for (const [body, param] of [
      [{ to: new Date(Date.now() + 3_600_000).toISOString() }, 'to'],
      [{ seconds: -60 }, 'seconds'],
      [{ seconds: 0 }, 'seconds'],
      [{ seconds: 10 * 366 * 86_400 }, 'seconds'],
      [{ seconds: 10, to: target }, undefined],
      [{}, undefined],
      [{ minutes: 5 }, undefined],
    ] as const) {
      const res = await testMode.api.post('/test_helpers/clock/advance', body);
      expect(res.status).toBe(400);
      expect(res.body.code).toBe('validation_failed');
      if (param) expect(res.body.param).toBe(param);
      expect(res.body.message).toBeTruthy();
    }
    expect(await offsetOf(tenant)).toBe(toTime.offset_seconds);
    expect((await testMode.api.get('/test_helpers/clock').expect(200)).body.offset_seconds).toBe(toTime.offset_seconds);
    expect(await offsetOf(live.tenant.tenantId)).toBe(0);
  });

  test('advances sent at once all count (the tenant row is locked for each)', async () => {
    const before = await offsetOf(testMode.tenant.tenantId);
    await Promise.all(Array.from({ length: 5 }, () => testMode.api.post('/test_helpers/clock/advance', { seconds: 60 }).expect(200)));
    expect(await offsetOf(testMode.tenant.tenantId)).toBe(before + 300);
  });
});

test("the worker makes the test tenant's due changes by its clock; the live tenant's identical debts are untouched", async () => {
  // A fresh pair: its clock starts at real time.
  const pair = await bothModes();
  const [lp, tp] = await Promise.all([seedParties(pair.live.api), seedParties(pair.test.api)]);
  const terms = { start_on: inDays(0), grace_days: 0 };
  const [livePlan, testPlan] = await Promise.all([payingDebt(pair.live.api, lp, terms), payingDebt(pair.test.api, tp, terms)]);
  const endAt = new Date(Date.now() + 3_600_000).toISOString();
  const [livePause, testPause] = await Promise.all([readyDebt(pair.live.api, lp), readyDebt(pair.test.api, tp)]);
  await pair.live.api.post(`/debts/${livePause}/pause`, { end_at: endAt }).expect(200);
  await pair.test.api.post(`/debts/${testPause}/pause`, { end_at: endAt }).expect(200);

  const w = await startWorker([pair.live.tenant.tenantId, pair.test.tenant.tenantId], 0);
  started.push(w);
  await eventually(async () => (await checksDone(w)) > 0, 'a first check');
  // Nothing is due by real time.
  expect((await pair.test.api.get(`/debts/${testPlan.debtId}`).expect(200)).body.status.value).toBe('paying');

  await pair.test.api.post('/test_helpers/clock/advance', { seconds: 2 * 86_400 }).expect(200);
  await eventually(async () => (await pair.test.api.get(`/debts/${testPlan.debtId}`).expect(200)).body.status.value === 'defaulted', 'the test debt defaulted');
  await eventually(async () => (await pair.test.api.get(`/debts/${testPause}`).expect(200)).body.status.value === 'resumed', 'the test pause ended');
  // Two more whole checks pass: the live tenant's debts were due by neither of them.
  const after = await checksDone(w);
  await eventually(async () => (await checksDone(w)) >= after + 2, 'two more checks');

  const testPlanBody = (await pair.test.api.get(`/payment_plans/${testPlan.planId}`).expect(200)).body;
  expect(testPlanBody).toMatchObject({ status: 'broken', livemode: false });
  expect(await eventTypesFor(pair.test.tenant.tenantId, testPlan.debtId)).toContain('debt.defaulted');
  expect((await pair.live.api.get(`/debts/${livePlan.debtId}`).expect(200)).body.status.value).toBe('paying');
  expect((await pair.live.api.get(`/payment_plans/${livePlan.planId}`).expect(200)).body.status).toBe('active');
  expect((await pair.live.api.get(`/debts/${livePause}`).expect(200)).body.status.value).toBe('paused');
  expect(await eventTypesFor(pair.live.tenant.tenantId, livePlan.debtId)).not.toContain('debt.defaulted');
});

test("a plan's start_on and a pause's end_at are judged by the tenant's clock", async () => {
  const pair = await bothModes();
  const tp = await seedParties(pair.test.api);
  await pair.test.api.post('/test_helpers/clock/advance', { seconds: 3 * 86_400 }).expect(200);
  const debt = await readyDebt(pair.test.api, tp);
  const tooSoon = await pair.test.api.post(`/debts/${debt}/payment_plans`, { frequency: 'weekly', instalment_count: 2, start_on: inDays(1) });
  expect(tooSoon.status).toBe(422);
  expect(tooSoon.body.param).toBe('start_on');
  const pause = await pair.test.api.post(`/debts/${debt}/pause`, { end_at: new Date(Date.now() + 86_400_000).toISOString() });
  expect(pause.status).toBe(422);
  expect(pause.body.param).toBe('end_at');
  await pair.test.api.post(`/debts/${debt}/payment_plans`, { frequency: 'weekly', instalment_count: 2, start_on: inDays(3) }).expect(201);
});

describe('POST /test_helpers/payments/{id}/fail', () => {
  test('a pending payment fails (payment.failed) and its reservation is released; any other status is 409, nothing changed', async () => {
    const debt = await readyDebt(testMode.api, parties.test!);
    const pending = (await testMode.api.post(`/debts/${debt}/payments`, { amount: 4000, currency: 'GBP', status: 'pending' }).expect(201)).body;
    const failed = (await testMode.api.post(`/test_helpers/payments/${pending.id}/fail`).expect(200)).body;
    expect(failed).toMatchObject({ id: pending.id, object: 'payment', status: 'failed', livemode: false });
    expect(await eventTypesFor(testMode.tenant.tenantId, pending.id)).toEqual(['payment.created', 'payment.failed']);
    // The whole balance can be paid again: nothing is reserved by the failed payment.
    const paid = (await testMode.api.post(`/debts/${debt}/payments`, { amount: 10000, currency: 'GBP' }).expect(201)).body;
    const again = await testMode.api.post(`/test_helpers/payments/${paid.id}/fail`);
    expect(again.status).toBe(409);
    expect(again.body.code).toBe('invalid_state_transition');
    expect((await testMode.api.get(`/payments/${paid.id}`).expect(200)).body.status).toBe('succeeded');
  });

  test("another mode's payment is 404", async () => {
    const debt = await readyDebt(live.api, parties.live!);
    const livePending = (await live.api.post(`/debts/${debt}/payments`, { amount: 100, currency: 'GBP', status: 'pending' }).expect(201)).body;
    const res = await testMode.api.post(`/test_helpers/payments/${livePending.id}/fail`);
    expect(res.status).toBe(404);
    expect(res.body.code).toBe('resource_missing');
    expect((await live.api.get(`/payments/${livePending.id}`).expect(200)).body.status).toBe('pending');
  });
});
