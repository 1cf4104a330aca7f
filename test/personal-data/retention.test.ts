/**
 * Retention erasure (docs/api.md section 20, "Retention"): with
 * `configurations.retention.erase_after_days`, the worker erases a customer once that many days
 * (by the worker's clock offset, no waiting) have passed since its last debt closed, once, with two
 * workers at once; a customer with a debt still worked, or of a tenant keeping the default 2190
 * days, is left alone; a bad setting is 400 naming it.
 */
import { afterAll, beforeAll, expect, test } from '@jest/globals';
import type { RunningService } from '@dms/tools/processes';
import { ERASED, RETENTION_REASON } from '@dms/domain/personal-data';
import { closeHarness, seedParties, signedInTenant, testDb } from '../support/harness.js';
import { eventTypesFor } from '../support/debts.js';
import { eventually } from '../support/eventually.js';
import { TWO_DAYS, readyDebt, startWorker } from '../worker/support.js';
import { personWithHistory, type PersonFixture } from './fixture.js';

type Tenant = Awaited<ReturnType<typeof signedInTenant>>;
const started: RunningService[] = [];

afterAll(async () => {
  await Promise.all(started.map((w) => w.stop('SIGKILL')));
  await closeHarness();
});

let short: Tenant;
let standard: Tenant;
let closed: PersonFixture;
let keptByDefault: PersonFixture;
let worked: string;

beforeAll(async () => {
  [short, standard] = await Promise.all([signedInTenant(), signedInTenant()]);
  closed = await personWithHistory(short.api, short.tenant.tenantId);
  keptByDefault = await personWithHistory(standard.api, standard.tenant.tenantId);
  for (const [t, p] of [
    [short, closed],
    [standard, keptByDefault],
  ] as const)
    await t.api.post(`/debts/${p.debtId}/withdraw`, { reason: 'closed' }).expect(200);
  const parties = await seedParties(short.api);
  await readyDebt(short.api, parties);
  worked = parties.customerId;
});

const customerRow = (id: string) => testDb()('customers').where({ id }).first('erased_at', 'erasure_reason', 'first_name');

test('a bad erase_after_days is 400 naming it, nothing changed', async () => {
  for (const value of [0, 1.5, 'ten']) {
    const res = await short.api.patch('/tenants/me', { configurations: { retention: { erase_after_days: value } } }).expect(400);
    expect(res.body.param).toBe('configurations.retention.erase_after_days');
  }
  const tenant = await short.api.get('/tenants/me').expect(200);
  expect(tenant.body.configurations.retention).toBeUndefined();
});

test('two workers erase a customer whose retention ran out exactly once; the others stay', async () => {
  await short.api.patch('/tenants/me', { configurations: { retention: { erase_after_days: 1 } } }).expect(200);
  const tenants = [short.tenant.tenantId, standard.tenant.tenantId];
  started.push(...(await Promise.all([startWorker(tenants, TWO_DAYS), startWorker(tenants, TWO_DAYS)])));
  await eventually(async () => (await customerRow(closed.customerId)).erased_at !== null, 'the closed customer erased', 20_000);
  // Both workers keep polling: nothing is erased twice, nothing else is erased.
  await new Promise((r) => setTimeout(r, 1500));
  expect(await customerRow(closed.customerId)).toMatchObject({ erasure_reason: RETENTION_REASON, first_name: ERASED });
  expect((await eventTypesFor(short.tenant.tenantId, closed.customerId)).filter((t) => t === 'customer.erased')).toHaveLength(1);
  expect(await customerRow(worked)).toMatchObject({ erased_at: null });
  expect(await customerRow(keptByDefault.customerId)).toMatchObject({ erased_at: null, first_name: keptByDefault.values[0] });
});
