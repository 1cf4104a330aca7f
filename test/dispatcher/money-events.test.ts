/**
 * Every event type of docs/api.md sections 8 and 9 delivered by the dispatcher: a receiver
 * subscribed to `*` gets each of them, signed, exactly once per recorded event — the worker's
 * `payment_plan.broken` and `debt.defaulted` included (a worker runs with its clock two days ahead).
 */
import { afterAll, beforeAll, expect, test } from '@jest/globals';
import type { RunningService } from '@dms/tools/processes';
import { closeHarness, seedParties, signedInTenant, testDb } from '../support/harness.js';
import { createDebt } from '../support/debts.js';
import { eventually } from '../support/eventually.js';
import { startDispatcher, startReceiver, type Receiver } from '../support/webhook-receiver.js';
import { TWO_DAYS, inDays, payingDebt, startWorker } from '../worker/support.js';

/** The event types of sections 8 and 9 (docs/api.md). */
const MONEY_EVENTS = [
  'line_item.created',
  'invoice.created',
  'invoice.updated',
  'payment.created',
  'payment.succeeded',
  'payment.failed',
  'payment.canceled',
  'payment.refunded',
  'debt.updated',
  'payment_plan.created',
  'payment_plan.updated',
  'payment_plan.completed',
  'payment_plan.broken',
  'payment_plan.canceled',
  'debt.paying',
  'debt.defaulted',
];

let t: Awaited<ReturnType<typeof signedInTenant>>;
let receiver: Receiver;
const processes: RunningService[] = [];

beforeAll(async () => {
  t = await signedInTenant();
  receiver = await startReceiver();
  receiver.onHook((r) => (r.verified ? 204 : 401));
  const endpoint = (await t.api.post('/webhooks', { url: receiver.hookUrl, enabled_events: ['*'] }).expect(201)).body;
  receiver.setSigningSecret(endpoint.signing_secret);
  processes.push(await startDispatcher([t.tenant.tenantId]));
});

afterAll(async () => {
  await Promise.all(processes.map((p) => p.stop()));
  await receiver.close();
  await closeHarness();
});

test('line items, invoices, payment outcomes, refunds, plans and the worker: every section 8 and 9 event type delivered', async () => {
  const parties = await seedParties(t.api);
  const debt = await createDebt(t.api, parties, { breakdown: { principal: 10000 } });
  const base = `/debts/${debt.id}`;
  await t.api.post(`${base}/ready`).expect(200);
  await t.api.post(`${base}/line_items`, { kind: 'fee', amount: 500 }).expect(201);
  const invoice = (await t.api.post(`${base}/invoices`, { reference: 'INV-1', line_items: [{ kind: 'interest', amount: 200 }] }).expect(201)).body;
  await t.api.patch(`${base}/invoices/${invoice.id}`, { status: 'void' }).expect(200);

  const pending = async () => (await t.api.post(`${base}/payments`, { amount: 1000, currency: 'GBP', status: 'pending' }).expect(201)).body.id as string;
  const succeeded = await pending();
  await t.api.patch(`${base}/payments/${succeeded}`, { status: 'succeeded' }).expect(200);
  await t.api.patch(`${base}/payments/${await pending()}`, { status: 'failed' }).expect(200);
  await t.api.patch(`${base}/payments/${await pending()}`, { status: 'canceled' }).expect(200);
  await t.api.post(`${base}/payments/${succeeded}/refund`, { amount: 400 }).expect(200);

  const first = (await t.api.post(`${base}/payment_plans`, { frequency: 'weekly', start_on: inDays(1), instalment_count: 2 }).expect(201)).body;
  await t.api.patch(`/payment_plans/${first.id}/delay`, { days: 3 }).expect(200);
  await t.api.post(`/payment_plans/${first.id}/cancel`).expect(200);
  const second = (await t.api.post(`${base}/payment_plans`, { frequency: 'monthly', start_on: inDays(0), instalment_count: 2 }).expect(201)).body;
  await t.api.post(`${base}/payments`, { amount: second.amount_total, currency: 'GBP', payment_plan_id: second.id }).expect(201);
  expect((await t.api.get(`/payment_plans/${second.id}`).expect(200)).body.status).toBe('completed');

  // The worker breaks an overdue plan and defaults its debt.
  const overdue = await payingDebt(t.api, parties, { start_on: inDays(0), grace_days: 0 });
  processes.push(await startWorker([t.tenant.tenantId], TWO_DAYS));
  await eventually(async () => (await testDb()('debts').where({ id: overdue.debtId }).first()).status === 'defaulted', 'the worker defaults the debt');

  const recorded: Array<{ id: string; type: string }> = await testDb()('events').where({ tenant_id: t.tenant.tenantId }).select('id', 'type');
  for (const type of MONEY_EVENTS) expect({ type, recorded: recorded.some((e) => e.type === type) }).toEqual({ type, recorded: true });
  await eventually(() => receiver.received.length >= recorded.length, 'every recorded event delivered');
  await new Promise((r) => setTimeout(r, 300));
  expect(receiver.received.map((r) => r.id).sort()).toEqual(recorded.map((e) => e.id).sort());
  expect(receiver.received.every((r) => r.verified)).toBe(true);
  const delivered = new Set(receiver.received.map((r) => r.event.type));
  expect(MONEY_EVENTS.filter((type) => !delivered.has(type))).toEqual([]);

  const broken = receiver.received.find((r) => r.event.type === 'payment_plan.broken')!;
  expect(broken.event.data.object).toMatchObject({ id: overdue.planId, status: 'broken' });
  const defaulted = receiver.received.find((r) => r.event.type === 'debt.defaulted')!;
  expect(defaulted.event.data.object).toMatchObject({ id: overdue.debtId, status: { value: 'defaulted', whodunnit: 'system' } });
});
