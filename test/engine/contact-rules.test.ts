/**
 * The contact rules of docs/api.md section 12, each with a test that fails if the engine breaks
 * it, clocks moved by the workers' offsets: no communication outside 08:00-21:00 in the
 * customer's zone (Europe/London by default, from `preferred_locale` otherwise); at most the
 * strategy's contacts per customer per 7 days; none while a debt is paused or under legal
 * protection; never to an undeliverable or deleted contact detail; no interest or fees under
 * legal protection. Also: a worker killed while making a step leaves no communication, and
 * another makes it once.
 */
import { readFileSync } from 'node:fs';
import { afterAll, beforeAll, expect, test } from '@jest/globals';
import { closeHarness, newOperator, operatorAs, signedInTenant, testDb, tokenFor } from '../support/harness.js';
import { eventually } from '../support/eventually.js';
import { communicationsOf, customerWith, debtRow, engineRig, offsetToLondon, preparedDebt, statusBecomes, type EngineRig } from './support.js';

type Tenant = Awaited<ReturnType<typeof signedInTenant>>;
let rig: EngineRig;
const DAY = 86_400;

beforeAll(async () => {
  rig = await engineRig();
});

afterAll(async () => {
  await rig?.stop();
  await closeHarness();
});

async function tenantWithOrg(strategy?: Record<string, unknown>): Promise<{ t: Tenant; org: string }> {
  const t = await signedInTenant();
  const body = { name: 'Rules Ltd', ...(strategy ? { configurations: { collection_strategy: strategy } } : {}) };
  return { t, org: (await t.api.post('/organisations', body).expect(201)).body.id };
}

/** Waits until the debt's engine has scheduled it later than `atLeast` (it decided to wait). */
async function waitsUntilAfter(id: string, atLeast: Date): Promise<Date> {
  // The engine's own "due now" is about `atLeast`: a decision to wait is at least an hour later.
  atLeast = new Date(atLeast.getTime() + 3_600_000);
  return eventually(
    async () => {
      const row = await debtRow(id);
      if (!(row.engine_due_at && row.engine_due_at > atLeast)) throw new Error(`debt ${id}: status ${row.status}, due ${row.engine_due_at}`);
      return row.engine_due_at as Date;
    },
    `debt ${id} to wait until after ${atLeast.toISOString()}`,
    60_000,
  );
}

test('08:00-21:00 in the customer zone: at 22:00 London, and at 10:00 London for a New York customer, nothing goes out; at 10:00 London two days later the London debt goes out', async () => {
  const { t, org } = await tenantWithOrg();
  const london = await preparedDebt(t.api, org, await customerWith(t.api, [{ type: 'email', value: 'late@example.org' }]));
  const late = await rig.worker([t.tenant.tenantId], offsetToLondon(22));
  const nextMorning = await waitsUntilAfter(london, new Date(Date.now() + offsetToLondon(22) * 1000));
  expect((await debtRow(london)).status).toBe('analysing');
  expect(await communicationsOf(london)).toHaveLength(0);
  // It waits for 08:00 London.
  expect(nextMorning.toLocaleTimeString('en-GB', { timeZone: 'Europe/London', hour: '2-digit', minute: '2-digit' })).toBe('08:00');
  await late.stop('SIGKILL');

  const newYork = await preparedDebt(t.api, org, await customerWith(t.api, [{ type: 'email', value: 'ny@example.org' }], { preferred_locale: 'en-US' }));
  const ten = offsetToLondon(10, 2);
  const morning = await rig.worker([t.tenant.tenantId], ten);
  const nyMorning = await waitsUntilAfter(newYork, new Date(Date.now() + ten * 1000));
  expect(nyMorning.toLocaleTimeString('en-GB', { timeZone: 'America/New_York', hour: '2-digit', minute: '2-digit' })).toBe('08:00');
  expect(await communicationsOf(newYork)).toHaveLength(0);
  // London at 10:00 is inside its window: the first debt goes out.
  await statusBecomes(london, 'contacted');
  await morning.stop('SIGKILL');
});

test('at most contacts_per_7_days per customer: the second debt of the customer waits a week', async () => {
  const { t, org } = await tenantWithOrg({ steps: [{ day: 0, delivery_method: 'email', template: 'default-email-first' }], contacts_per_7_days: 1 });
  const customer = await customerWith(t.api, [{ type: 'email', value: 'limit@example.org' }]);
  const [a, b] = [await preparedDebt(t.api, org, customer), await preparedDebt(t.api, org, customer)];
  const noon = offsetToLondon(12);
  const w = await rig.worker([t.tenant.tenantId], noon);
  const sixDays = new Date(Date.now() + (noon + 6 * DAY) * 1000);
  const waiting = await eventually(
    async () => ((await debtRow(a!)).status === 'contacted' ? b : (await debtRow(b!)).status === 'contacted' ? a : undefined),
    'one of the two debts contacted',
    60_000,
  );
  await waitsUntilAfter(waiting!, sixDays);
  expect((await debtRow(waiting!)).status).toBe('analysing');
  expect(await communicationsOf(waiting!)).toHaveLength(0);
  await w.stop('SIGKILL');
});

test('no contact while paused or under legal protection, and no interest or fees under legal protection; a control debt gets its next step', async () => {
  const { t, org } = await tenantWithOrg({
    steps: [
      { day: 0, delivery_method: 'email', template: 'default-email-first' },
      { day: 2, delivery_method: 'email', template: 'default-email-final' },
    ],
    contacts_per_7_days: 10,
  });
  const ids = await Promise.all(
    [0, 1, 2].map(async (i) => preparedDebt(t.api, org, await customerWith(t.api, [{ type: 'email', value: `held${i}@example.org` }]))),
  );
  const [control, paused, protectedDebt] = ids as [string, string, string];
  const first = await rig.worker([t.tenant.tenantId], offsetToLondon(12));
  for (const id of ids) await statusBecomes(id, 'contacted');
  await first.stop('SIGKILL');

  const operator = await newOperator();
  const ops = operatorAs(await tokenFor(operator), t.tenant.tenantId);
  await t.api.post(`/debts/${paused}/pause`, { reason: 'holiday' }).expect(200);
  await ops.post(`/operator/debts/${protectedDebt}/status`, { status: 'legal_protection', reason: 'breathing space' }).expect(200);
  for (const kind of ['interest', 'fee']) {
    const res = await t.api.post(`/debts/${protectedDebt}/line_items`, { kind, amount: 100, currency: 'GBP' }).expect(409);
    expect(res.body).toMatchObject({ code: 'invalid_state_transition', param: 'kind' });
  }
  expect((await debtRow(protectedDebt)).amount_total).toBe(12500);

  const later = await rig.worker([t.tenant.tenantId], offsetToLondon(12, 3));
  // The control debt gets step 1: the worker had its chance at the others.
  await eventually(async () => (await communicationsOf(control)).length >= 2, 'step 1 of the control debt', 60_000);
  expect(await communicationsOf(control)).toHaveLength(2);
  expect(await communicationsOf(paused)).toHaveLength(1);
  expect(await communicationsOf(protectedDebt)).toHaveLength(1);
  await later.stop('SIGKILL');
});

test('never to an undeliverable or deleted detail: the usable one is chosen', async () => {
  const { t, org } = await tenantWithOrg();
  const customer = await customerWith(t.api, [
    { type: 'email', value: 'bounced@example.org', primary: true, status: 'undeliverable' },
    { type: 'email', value: 'deleted@example.org' },
    { type: 'email', value: 'good@example.org' },
  ]);
  const deleted = (await testDb()('customer_contact_details').where({ customer_id: customer, value: 'deleted@example.org' }).first()).id;
  await t.api.delete(`/customers/${customer}/contact_details/${deleted}`).expect(200);
  const id = await preparedDebt(t.api, org, customer);
  const w = await rig.worker([t.tenant.tenantId], offsetToLondon(12));
  await statusBecomes(id, 'contacted');
  const [com] = await communicationsOf(id);
  expect((await testDb()('customer_contact_details').where({ id: com.contact_detail_id }).first()).value).toBe('good@example.org');
  await w.stop('SIGKILL');
});

test('a worker killed while making a step leaves no communication; another worker makes it once', async () => {
  const { t, org } = await tenantWithOrg();
  const id = await preparedDebt(t.api, org, await customerWith(t.api, [{ type: 'email', value: 'killed@example.org' }]));
  // Taken in at 22:00: analysing, its first step waiting for the morning.
  const night = await rig.worker([t.tenant.tenantId], offsetToLondon(22));
  await waitsUntilAfter(id, new Date(Date.now() + offsetToLondon(22) * 1000));
  await night.stop('SIGKILL');
  const held = await rig.worker([t.tenant.tenantId], offsetToLondon(12, 1), { WORKER_TEST_HOLD_MS: '60000' });
  await eventually(() => readFileSync(held.logFile, 'utf8').includes('holding change before commit'), 'the held worker to hold its change', 60_000);
  await held.stop('SIGKILL');
  expect(await communicationsOf(id)).toHaveLength(0);
  expect((await debtRow(id)).status).toBe('analysing');
  const w = await rig.worker([t.tenant.tenantId], offsetToLondon(12, 1));
  await statusBecomes(id, 'contacted');
  expect(await communicationsOf(id)).toHaveLength(1);
  await w.stop('SIGKILL');
});
