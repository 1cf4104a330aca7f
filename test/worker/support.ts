/**
 * Fixtures of the worker tests (docs/api.md section 9): workers limited to a test's tenants with
 * the clock run forward, debts with overdue plans and timed pauses made through the public API.
 */
import { startService, type RunningService } from '@dms/tools/processes';
import { SERVICE_ENV, apiAs } from '../support/harness.js';
import { createDebt, type Parties } from '../support/debts.js';

type Api = ReturnType<typeof apiAs>;

/** Two days, in seconds: an instalment due today with 0 grace days is missed at this offset. */
export const TWO_DAYS = 2 * 86_400;

/** `YYYY-MM-DD`, `n` days from now (UTC). */
export const inDays = (n: number) => new Date(Date.now() + n * 86_400_000).toISOString().slice(0, 10);

/** Starts a worker serving only `tenantIds`, checking every 0.2 s, its clock `offsetSeconds` ahead, without the collection engine. */
export function startWorker(tenantIds: string[], offsetSeconds: number, env: Record<string, string> = {}): Promise<RunningService> {
  return startService('worker', {
    ...SERVICE_ENV,
    WORKER_TENANT_IDS: tenantIds.join(','),
    WORKER_POLL_SECONDS: '0.2',
    WORKER_CLOCK_OFFSET_SECONDS: String(offsetSeconds),
    // These tests are about the time-driven changes alone; the collection engine has test/engine.
    ENGINE_ENABLED: 'false',
    ...env,
  });
}

/** How many whole checks the worker `w` has made (its `worker_checks_total`, every change summed). */
export async function checksDone(w: RunningService): Promise<number> {
  const text = await (await fetch(`${w.url}/metrics`)).text();
  return [...text.matchAll(/^worker_checks_total\{[^}]*\} (\d+)/gm)].reduce((n, m) => n + Number(m[1]), 0);
}

/** A ready debt of `amount` GBP minor units; returns its id. */
export async function readyDebt(api: Api, parties: Parties, amount = 10000): Promise<string> {
  const debt = await createDebt(api, parties, { breakdown: { principal: amount } });
  await api.post(`/debts/${debt.id}/ready`).expect(200);
  return debt.id;
}

/** A `paying` debt with a weekly two-instalment plan; returns the debt and plan ids. */
export async function payingDebt(api: Api, parties: Parties, terms: { start_on: string; grace_days: number }): Promise<{ debtId: string; planId: string }> {
  const debtId = await readyDebt(api, parties);
  const plan = (await api.post(`/debts/${debtId}/payment_plans`, { frequency: 'weekly', instalment_count: 2, ...terms }).expect(201)).body;
  return { debtId, planId: plan.id };
}
