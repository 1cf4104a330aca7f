/**
 * Several workers and a crash (docs/api.md section 16): two workers share one import's rows and
 * no row is applied twice (each account placed once, each event once, the workers' counts adding
 * up to the rows); a worker killed in the middle of a row leaves nothing of that row, and another
 * worker resumes after the last committed row, applying exactly the rows that were left.
 */
import { afterAll, beforeAll, expect, test } from '@jest/globals';
import type { RunningService } from '@dms/tools/processes';
import { closeHarness, signedInTenant, testDb } from '../support/harness.js';
import { eventually } from '../support/eventually.js';
import { PLACEMENT_HEADER, csvOf, finished, placementRow, startImportWorker, upload } from './support.js';

type Tenant = Awaited<ReturnType<typeof signedInTenant>>;
const started: RunningService[] = [];

afterAll(async () => {
  await Promise.all(started.map((s) => s.stop('SIGKILL')));
  await closeHarness();
});

async function worker(t: Tenant, env: Record<string, string> = {}): Promise<RunningService> {
  const w = await startImportWorker([t.tenant.tenantId], env);
  started.push(w);
  return w;
}

/** Rows this worker applied, from its metrics. */
async function appliedBy(w: RunningService): Promise<number> {
  const text = await (await fetch(`${w.url}/metrics`)).text();
  const m = /^worker_import_rows_total(?:\{[^}]*\})? (\d+)/m.exec(text);
  return m ? Number(m[1]) : 0;
}

/** A tenant with an organisation and an uploaded placement file of `n` accounts `<prefix>-<i>`. */
async function placed(prefix: string, n: number): Promise<{ t: Tenant; id: string }> {
  const t = await signedInTenant();
  const org = (await t.api.post('/organisations', { name: `${prefix} Ltd` }).expect(201)).body.id as string;
  const rows = Array.from({ length: n }, (_, i) => placementRow(`${prefix}-${i + 1}`));
  const res = await upload(t.api, 'placement', csvOf(PLACEMENT_HEADER, rows), { organisation_id: org }).expect(201);
  return { t, id: res.body.id };
}

/** Every account placed exactly once, with exactly one of each event. */
async function placedOnce(t: Tenant, n: number): Promise<void> {
  const perAccount = (await testDb()('debts')
    .where({ tenant_id: t.tenant.tenantId })
    .select('account_number')
    .count('* as n')
    .groupBy('account_number')) as Array<{
    n: string;
  }>;
  expect(perAccount).toHaveLength(n);
  expect(perAccount.every((r) => Number(r.n) === 1)).toBe(true);
  const events = (await testDb()('events').where({ tenant_id: t.tenant.tenantId }).select('type').count('* as n').groupBy('type')) as Array<{
    type: string;
    n: string;
  }>;
  const counts = Object.fromEntries(events.map((e) => [e.type, Number(e.n)]));
  expect(counts).toMatchObject({ 'customer.created': n, 'debt.created': n, 'debt.prepared': n, 'import.completed': 1 });
  expect(await testDb()('customers').where({ tenant_id: t.tenant.tenantId })).toHaveLength(n);
}

let two: { t: Tenant; id: string };
beforeAll(async () => {
  two = await placed('TWO', 80);
});

test('two workers share one import: every row applied once, by one of them', async () => {
  // Each batch holds its lane a while before committing, so neither worker can take every lane
  // alone before the other is up (a batch of placements is a few statements). Three rows per
  // transaction: the set-wise batch path (the kill test below keeps the default, one per row).
  const env = { IMPORT_BATCH_SIZE: '3', IMPORT_ROWS_PER_TRANSACTION: '3', IMPORT_TEST_HOLD_MS: '200' };
  const [a, b] = await Promise.all([worker(two.t, env), worker(two.t, env)]);
  const done = await finished(two.t.api, two.id);
  expect(done).toMatchObject({ status: 'completed', rows_total: 80, rows_processed: 80, rows_succeeded: 80, rows_failed: 0 });
  await placedOnce(two.t, 80);
  const [byA, byB] = [await appliedBy(a), await appliedBy(b)];
  expect(byA + byB).toBe(80);
  expect(byA).toBeGreaterThan(0);
  expect(byB).toBeGreaterThan(0);
}, 1_000_000);

test('a worker killed in the middle of a row: nothing of that row stays, another resumes after the last committed row', async () => {
  const { t, id } = await placed('KILL', 40);
  const held = await worker(t, { IMPORT_TEST_HOLD_MS: '500', IMPORT_LEASE_SECONDS: '2', IMPORT_BATCH_SIZE: '50' });
  await eventually(async () => (await t.api.get(`/imports/${id}`).expect(200)).body.rows_processed >= 3, 'a few rows applied', 120_000);
  await held.stop('SIGKILL');
  const stopped = (await t.api.get(`/imports/${id}`).expect(200)).body;
  expect(stopped.status).toBe('processing');
  // What was committed is whole: one debt per processed row, no customer without its debt.
  const debts = await testDb()('debts').where({ tenant_id: t.tenant.tenantId });
  expect(debts).toHaveLength(stopped.rows_processed);
  expect(await testDb()('customers').where({ tenant_id: t.tenant.tenantId })).toHaveLength(stopped.rows_processed);

  const other = await worker(t, { IMPORT_LEASE_SECONDS: '2' });
  const done = await finished(t.api, id);
  expect(done).toMatchObject({ status: 'completed', rows_processed: 40, rows_succeeded: 40 });
  await placedOnce(t, 40);
  expect(await appliedBy(other)).toBe(40 - stopped.rows_processed);
}, 1_000_000);
