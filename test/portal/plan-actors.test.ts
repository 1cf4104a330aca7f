/**
 * Who made each payment plan change (docs/api.md section 9, "Payment plans"; sections 17 and 18),
 * over HTTP against the real API, portal, worker and dispatcher on PostgreSQL: every
 * `payment_plan.*` event's plan carries `whodunnit` and `source` — the tenant's client id and `api`
 * for a plan made and delayed through the API, `operator:<client id>` and `api` for an operator's
 * rewrite and cancel, `customer:<cus_id>` and `portal` for a plan agreed, a payment delayed and
 * the card authority cancelled on the portal, `system` and `worker` for the worker's charge of an
 * instalment — read from `GET /events` and from the webhook deliveries.
 */
import { afterAll, beforeAll, expect, test } from '@jest/globals';
import type { RunningService } from '@dms/tools/processes';
import { closeHarness, newOperator, operatorAs, seedParties, signedInTenant, testDb, tokenFor } from '../support/harness.js';
import { eventually } from '../support/eventually.js';
import { startDispatcher, startReceiver, type Receiver } from '../support/webhook-receiver.js';
import { inDays, payingDebt, readyDebt, startWorker } from '../worker/support.js';
import { confirm, csrfOf, signedIn, startPortal, walk } from './steps-support.js';

type Tenant = Awaited<ReturnType<typeof signedInTenant>>;
/** What an event says about its plan: its type and the actor of the change. */
type Seen = { type: string; whodunnit: unknown; source: unknown };
type PlanEvent = { type: string; data: { object: { id: string; whodunnit?: unknown; source?: unknown } } };

const DOB = '1980-03-27';
const ONE_DAY = 86_400;
const processes: RunningService[] = [];
let me: Tenant;
let parties: { organisationId: string; customerId: string };
let portal: Awaited<ReturnType<typeof startPortal>>;
let receiver: Receiver;
let operator: { clientId: string; token: string };

beforeAll(async () => {
  me = await signedInTenant();
  parties = await seedParties(me.api);
  await me.api.patch(`/customers/${parties.customerId}`, { date_of_birth: DOB }).expect(200);
  const options = { payment_plans_permitted: true, max_instalments: 2, min_instalment_amount: 1000 };
  await me.api.patch(`/organisations/${parties.organisationId}`, { payment_options_configuration: options }).expect(200);
  const op = await newOperator();
  operator = { clientId: op.clientId, token: await tokenFor(op) };
  receiver = await startReceiver();
  receiver.onHook((r) => (r.verified ? 204 : 401));
  const endpoint = (
    await me.api
      .post('/webhooks', { url: receiver.hookUrl, enabled_events: ['payment_plan.created', 'payment_plan.updated', 'payment_plan.canceled'] })
      .expect(201)
  ).body;
  receiver.setSigningSecret(endpoint.signing_secret);
  processes.push(await startDispatcher([me.tenant.tenantId]));
  portal = await startPortal();
});

afterAll(async () => {
  await portal.stop();
  await Promise.all(processes.map((p) => p.stop()));
  await receiver.close();
  await closeHarness();
});

const seen = (e: PlanEvent): Seen => ({ type: e.type, whodunnit: e.data.object.whodunnit, source: e.data.object.source });

/** The tenant's events about plan `id` from `GET /events`, oldest first. */
async function eventsOf(id: string): Promise<Seen[]> {
  const page = (await me.api.get('/events').query({ limit: 100 }).expect(200)).body.data as PlanEvent[];
  return page
    .filter((e) => e.data.object.id === id)
    .reverse()
    .map(seen);
}

/** The verified webhook deliveries about plan `id`, once there are `count`, in the order recorded. */
function deliveredOf(id: string, count: number): Promise<Seen[]> {
  return eventually(() => {
    const got = receiver.received.filter((r) => r.verified && r.event.data.object.id === id);
    return got.length >= count && got.map((r) => seen(r.event as unknown as PlanEvent));
  }, `${count} deliveries about ${id}`);
}

test('through the API: the client id and `api`; an operator: `operator:<client id>` and `api` (events and webhooks)', async () => {
  const { planId } = await payingDebt(me.api, parties, { start_on: inDays(1), grace_days: 2 });
  await me.api.patch(`/payment_plans/${planId}/delay`, { days: 2 }).expect(200);
  const ops = operatorAs(operator.token, me.tenant.tenantId);
  const rescheduled = await ops.patch(`/payment_plans/${planId}/reschedule`, { frequency: 'monthly', start_on: inDays(5), instalment_count: 2 }).expect(200);
  expect(rescheduled.body).toMatchObject({ whodunnit: `operator:${operator.clientId}`, source: 'api' });
  await ops.post(`/payment_plans/${planId}/cancel`).expect(200);

  const client = { whodunnit: me.tenant.clientId, source: 'api' };
  const byOperator = { whodunnit: `operator:${operator.clientId}`, source: 'api' };
  const expected = [
    { type: 'payment_plan.created', ...client },
    { type: 'payment_plan.updated', ...client },
    { type: 'payment_plan.updated', ...byOperator },
    { type: 'payment_plan.canceled', ...byOperator },
  ];
  expect(await eventsOf(planId)).toEqual(expected);
  expect(await deliveredOf(planId, 4)).toEqual(expected);
  expect((await me.api.get(`/payment_plans/${planId}`).expect(200)).body).toMatchObject(byOperator);
});

test('through the portal and the worker: `customer:<cus_id>`/`portal` for the plan, the delay and the cancelled authority, `system`/`worker` for the charge', async () => {
  const debtId = await readyDebt(me.api, parties);
  const agent = await signedIn(portal.base, me.tenant.tenantId, parties.customerId, DOB);
  const today = (await testDb().raw(`SELECT (tenant_now(?) AT TIME ZONE 'UTC')::date::text AS d`, [me.tenant.tenantId])).rows[0].d as string;
  // Agree a weekly plan of two from today, its card saved with 4242 at the local checkout.
  const offers = `/debts/${debtId}/offers`;
  await walk(agent, offers, [{ choice: 'weekly-2' }, { date: today }]);
  const checkout = await agent
    .post(`${offers}/check`)
    .type('form')
    .send({ _csrf: await csrfOf(agent, `${offers}/check`) })
    .expect(303);
  const card = checkout.headers.location as string;
  await agent
    .post(card)
    .type('form')
    .send({ _csrf: await csrfOf(agent, card), card_number: '4242 4242 4242 4242' })
    .expect(303);
  const [{ id: planId }] = await testDb()('payment_plans').where({ debt_id: debtId }).select('id');

  // The worker, its clock a day ahead, charges the first instalment with the saved card.
  processes.push(await startWorker([me.tenant.tenantId], ONE_DAY));
  await eventually(async () => (await testDb()('payment_plans').where({ id: planId }).first()).amount_paid === 5000, 'the first instalment charged');

  // The customer delays the next payment (due in 7 days) by 3 days, then stops the card payments.
  const delay = `/debts/${debtId}/plan/delay`;
  const later = new Date(Date.parse(`${today}T00:00:00Z`) + 10 * 86_400_000).toISOString().slice(0, 10);
  await walk(agent, delay, [{ due_on: later }]);
  await confirm(agent, delay);
  const cancel = `/debts/${debtId}/plan/authority/cancel`;
  await agent
    .post(cancel)
    .type('form')
    .send({ _csrf: await csrfOf(agent, cancel) })
    .expect(200);

  const customer = { whodunnit: `customer:${parties.customerId}`, source: 'portal' };
  const expected = [
    { type: 'payment_plan.created', ...customer },
    { type: 'payment_plan.updated', whodunnit: 'system', source: 'worker' },
    { type: 'payment_plan.updated', ...customer },
    { type: 'payment_plan.updated', ...customer },
  ];
  expect(await eventsOf(planId)).toEqual(expected);
  expect(await deliveredOf(planId, 4)).toEqual(expected);
  const plan = (await me.api.get(`/payment_plans/${planId}`).expect(200)).body;
  expect(plan).toMatchObject(customer);
  expect(plan.schedule.map((i: { due_on: string }) => i.due_on)).toEqual([today, later]);
});
