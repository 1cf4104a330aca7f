/**
 * The worker for time-driven changes (docs/api.md section 9), as real processes over the real
 * database, time driven by the worker's clock offset (no sleeping until dates come): missed
 * instalments break plans and default debts, timed pauses end; two workers at once make each
 * change exactly once; a worker killed midway leaves nothing half done and another completes it;
 * health, readiness, metrics and a clean stop on SIGTERM.
 */
import { readFileSync } from 'node:fs';
import { afterAll, beforeAll, expect, test } from '@jest/globals';
import type { RunningService } from '@dms/tools/processes';
import { closeHarness, seedParties, signedInTenant, testDb } from '../support/harness.js';
import { eventTypesFor, type Parties } from '../support/debts.js';
import { eventually } from '../support/eventually.js';
import { TWO_DAYS, inDays, payingDebt, readyDebt, startWorker } from './support.js';

type Tenant = Awaited<ReturnType<typeof signedInTenant>>;
const started: RunningService[] = [];

afterAll(async () => {
  await Promise.all(started.map((w) => w.stop('SIGKILL')));
  await closeHarness();
});

async function worker(t: Tenant, env: Record<string, string> = {}): Promise<RunningService> {
  const w = await startWorker([t.tenant.tenantId], TWO_DAYS, env);
  started.push(w);
  return w;
}

const debtRow = (id: string) => testDb()('debts').where({ id }).first();
const planRow = (id: string) => testDb()('payment_plans').where({ id }).first();

/** Counts of each event type recorded for the tenant, by object id. */
async function eventCounts(tenantId: string): Promise<Map<string, number>> {
  const rows = await testDb()('events').where({ tenant_id: tenantId }).select('type', testDb().raw(`data->'object'->>'id' AS object_id`));
  const counts = new Map<string, number>();
  for (const r of rows as Array<{ type: string; object_id: string }>) counts.set(`${r.type} ${r.object_id}`, (counts.get(`${r.type} ${r.object_id}`) ?? 0) + 1);
  return counts;
}

let t: Tenant;
let parties: Parties;
beforeAll(async () => {
  t = await signedInTenant();
  parties = await seedParties(t.api);
});

test('two workers at once: every missed instalment and ended pause changed exactly once, by system, with its events', async () => {
  const overdue = await Promise.all(Array.from({ length: 6 }, () => payingDebt(t.api, parties, { start_on: inDays(0), grace_days: 0 })));
  const notYet = await payingDebt(t.api, parties, { start_on: inDays(1), grace_days: 5 });
  const pauseEnds = await Promise.all(
    Array.from({ length: 4 }, async () => {
      const id = await readyDebt(t.api, parties);
      await t.api.post(`/debts/${id}/pause`, { reason: 'holiday', end_at: new Date(Date.now() + 3_600_000).toISOString() }).expect(200);
      return id;
    }),
  );
  // Paused while paying: the pause's end returns it to its plan (`paying`), not to `resumed`.
  const pausedPlan = await payingDebt(t.api, parties, { start_on: inDays(7), grace_days: 5 });
  await t.api.post(`/debts/${pausedPlan.debtId}/pause`, { end_at: new Date(Date.now() + 3_600_000).toISOString() }).expect(200);
  const longPause = await readyDebt(t.api, parties);
  await t.api.post(`/debts/${longPause}/pause`, { end_at: new Date(Date.now() + 10 * 86_400_000).toISOString() }).expect(200);
  const openPause = await readyDebt(t.api, parties);
  await t.api.post(`/debts/${openPause}/pause`).expect(200);

  const [a, b] = await Promise.all([worker(t), worker(t)]);
  await eventually(
    async () => {
      const rows = await testDb()('debts')
        .whereIn('id', [...overdue.map((o) => o.debtId), ...pauseEnds])
        .select('status');
      const waiting = rows.some((r: { status: string }) => r.status === 'paying' || r.status === 'paused');
      return !waiting && (await debtRow(pausedPlan.debtId)).status === 'paying';
    },
    'all due changes made',
    20_000,
  );
  // A few more checks by both workers change nothing further.
  await new Promise((r) => setTimeout(r, 1000));

  const counts = await eventCounts(t.tenant.tenantId);
  for (const { debtId, planId } of overdue) {
    const debt = (await t.api.get(`/debts/${debtId}`).expect(200)).body;
    expect(debt.status).toMatchObject({ value: 'defaulted', whodunnit: 'system' });
    expect(debt.status.context).toMatch(new RegExp(`^payment_plan\\.broken: ${planId}, instalment 1 due ${inDays(0)}`));
    const plan = (await t.api.get(`/payment_plans/${planId}`).expect(200)).body;
    expect(plan.status).toBe('broken');
    expect(plan.schedule.map((i: { status: string }) => i.status)).toEqual(['missed', 'upcoming']);
    expect(counts.get(`payment_plan.broken ${planId}`)).toBe(1);
    expect(counts.get(`debt.defaulted ${debtId}`)).toBe(1);
    // Broken, then defaulted, in one transaction: the plan event comes first.
    expect((await eventTypesFor(t.tenant.tenantId, planId)).slice(-1)).toEqual(['payment_plan.broken']);
  }
  for (const id of pauseEnds) {
    const debt = (await t.api.get(`/debts/${id}`).expect(200)).body;
    expect(debt.status).toMatchObject({ value: 'resumed', whodunnit: 'system', end_at: null });
    expect(debt.status.context).toMatch(/^pause ended: end_at /);
    expect(counts.get(`debt.resumed ${id}`)).toBe(1);
  }
  expect((await debtRow(pausedPlan.debtId)).status).toBe('paying');
  expect(counts.get(`debt.paying ${pausedPlan.debtId}`)).toBe(2); // the plan's create, then the pause's end
  expect((await planRow(pausedPlan.planId)).status).toBe('active');
  // Not yet due: untouched.
  expect((await debtRow(notYet.debtId)).status).toBe('paying');
  expect((await planRow(notYet.planId)).status).toBe('active');
  expect((await debtRow(longPause)).status).toBe('paused');
  expect((await debtRow(openPause)).status).toBe('paused');

  // Both workers' counters together: 6 broken plans, 5 pauses ended, each once.
  const made = { instalment_missed: 0, pause_ended: 0 };
  for (const w of [a, b]) {
    const text = await (await fetch(`${w.url}/metrics`)).text();
    for (const kind of Object.keys(made) as Array<keyof typeof made>) {
      const m = new RegExp(`^worker_changes_total\\{[^}]*change="${kind}"[^}]*\\} (\\d+)`, 'm').exec(text);
      made[kind] += m ? Number(m[1]) : 0;
    }
  }
  expect(made).toEqual({ instalment_missed: 6, pause_ended: 5 });
});

test('a worker killed midway leaves no half change; another worker completes it once', async () => {
  const own = await signedInTenant();
  const ownParties = await seedParties(own.api);
  const { debtId, planId } = await payingDebt(own.api, ownParties, { start_on: inDays(0), grace_days: 0 });
  const held = await startWorker([own.tenant.tenantId], TWO_DAYS, { WORKER_TEST_HOLD_MS: '60000' });
  started.push(held);
  await eventually(() => readFileSync(held.logFile, 'utf8').includes('holding change before commit'), 'the change written, not committed');
  // Written inside the open transaction, invisible outside it.
  expect((await debtRow(debtId)).status).toBe('paying');
  await held.stop('SIGKILL');
  expect((await debtRow(debtId)).status).toBe('paying');
  expect((await planRow(planId)).status).toBe('active');
  expect(await eventTypesFor(own.tenant.tenantId, planId)).toEqual(['payment_plan.created']);

  const other = await startWorker([own.tenant.tenantId], TWO_DAYS);
  started.push(other);
  await eventually(async () => (await debtRow(debtId)).status === 'defaulted', 'the other worker completes the change');
  expect((await planRow(planId)).status).toBe('broken');
  expect(await eventTypesFor(own.tenant.tenantId, planId)).toEqual(['payment_plan.created', 'payment_plan.broken']);
  expect((await eventTypesFor(own.tenant.tenantId, debtId)).filter((e) => e === 'debt.defaulted')).toHaveLength(1);
});

test('health, readiness and metrics; SIGTERM drains and exits 0', async () => {
  const w = await worker(t);
  expect(await (await fetch(`${w.url}/healthz`)).json()).toEqual({ status: 'ok' });
  expect(await (await fetch(`${w.url}/readyz`)).json()).toEqual({ status: 'ready' });
  const metricsText = async () => (await fetch(`${w.url}/metrics`)).text();
  await eventually(async () => /^worker_checks_total\{[^}]*outcome="ok"/m.test(await metricsText()), 'a check counted');
  const metrics = await metricsText();
  expect(metrics).toContain('worker_check_duration_seconds_bucket');
  expect((await fetch(`${w.url}/metrics`, { method: 'POST' })).status).toBe(405);
  const exited = new Promise<number | null>((res) => w.child.once('exit', (code) => res(code)));
  await w.stop('SIGTERM');
  expect(await exited).toBe(0);
  expect(readFileSync(w.logFile, 'utf8')).toContain('"msg":"stopped"');
});
