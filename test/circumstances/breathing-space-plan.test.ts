/**
 * The end of a breathing space with a payment plan (docs/api.md section 19), by a real worker
 * whose clock runs three days ahead: the instalment that fell due while the debt was under
 * `legal_protection` is not missed when the protection ends; the unpaid instalments move so the
 * oldest is due on the day it ends (`payment_plan.updated`), and the debt is back to `paying`.
 */
import { afterAll, beforeAll, expect, test } from '@jest/globals';
import type { RunningService } from '@dms/tools/processes';
import { closeHarness, seedParties, signedInTenant, testDb } from '../support/harness.js';
import { eventTypesFor, type Parties } from '../support/debts.js';
import { eventually } from '../support/eventually.js';
import { inDays, payingDebt, startWorker } from '../worker/support.js';

let acme: Awaited<ReturnType<typeof signedInTenant>>;
let parties: Parties;
let worker: RunningService | undefined;

beforeAll(async () => {
  acme = await signedInTenant();
  parties = await seedParties(acme.api);
});
afterAll(async () => {
  await worker?.stop('SIGKILL');
  await closeHarness();
});

test('an instalment due during a breathing space is not missed when it ends: the schedule moves to the end day', async () => {
  const { debtId, planId } = await payingDebt(acme.api, parties, { start_on: inDays(0), grace_days: 0 });
  // Started 58 days ago: the standard 60 days end in two days (by the customer's clock).
  const body = { kind: 'standard', start_on: inDays(-58), adviser_reference: 'DRS-58' };
  await acme.api.post(`/debts/${debtId}/breathing_space`, body).expect(200);
  worker = await startWorker([acme.tenant.tenantId], 3 * 86_400);
  await eventually(async () => (await testDb()('debts').where({ id: debtId }).first()).status !== 'legal_protection', 'the protection ended', 20_000);
  // A few more checks: the missed-instalment rule has had its chance to run on the moved plan.
  await new Promise((r) => setTimeout(r, 1500));

  const debt = (await acme.api.get(`/debts/${debtId}`).expect(200)).body;
  expect(debt.status).toMatchObject({ value: 'paying', whodunnit: 'system' });
  expect(debt.status.context).toMatch(/^legal protection ended: end_at .*; unpaid instalments moved \d days later$/);
  const plan = (await acme.api.get(`/payment_plans/${planId}`).expect(200)).body;
  expect(plan.status).toBe('active');
  const [first, second] = plan.schedule as Array<{ status: string; due_on: string }>;
  const moved = Number(/moved (\d) days/.exec(debt.status.context)![1]);
  expect(moved).toBeGreaterThanOrEqual(2);
  expect(first).toMatchObject({ status: 'upcoming', due_on: inDays(moved) });
  expect(second!.due_on).toBe(inDays(moved + 7));
  const events = await eventTypesFor(acme.tenant.tenantId, planId);
  expect(events).toContain('payment_plan.updated');
  expect(events).not.toContain('payment_plan.broken');
  expect(await eventTypesFor(acme.tenant.tenantId, debtId)).not.toContain('debt.defaulted');
});
