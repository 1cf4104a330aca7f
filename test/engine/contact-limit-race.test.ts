/**
 * The 7-day contact limit of docs/api.md section 12 across workers: two workers that take two
 * debts of one customer at the same moment, each in its own transaction, must not both stay under
 * the limit. Each worker claims one debt per batch (`WORKER_BATCH_SIZE=1`), and the two debts of
 * each customer are next to each other in the queue, so the workers decide them concurrently; the
 * customer's contact lock (a transaction-scoped advisory lock) makes the second wait for the
 * first's commit and then count its hand-over.
 */
import { expect, test } from '@jest/globals';
import { signedInTenant, testDb } from '../support/harness.js';
import { eventually } from '../support/eventually.js';
import { customerWith, engineRigPerFile, offsetToLondon, preparedDebt } from './support.js';

const rig = engineRigPerFile();

test('two workers contacting one customer through two debts at once: at most contacts_per_7_days hand-overs per customer', async () => {
  const t = await signedInTenant();
  const strategy = { steps: [{ day: 0, delivery_method: 'email', template: 'default-email-first' }], contacts_per_7_days: 1 };
  const org = (await t.api.post('/organisations', { name: 'Race Ltd', configurations: { collection_strategy: strategy } }).expect(201)).body.id as string;
  const customers: string[] = [];
  for (let i = 0; i < 20; i++) {
    const customer = await customerWith(t.api, [{ type: 'email', value: `race${i}@example.org` }]);
    customers.push(customer);
    await Promise.all([preparedDebt(t.api, org, customer), preparedDebt(t.api, org, customer)]);
  }
  const noon = offsetToLondon(12);
  const only = { WORKER_BATCH_SIZE: '1' };
  const workers = await Promise.all([rig.worker([t.tenant.tenantId], noon, only), rig.worker([t.tenant.tenantId], noon, only)]);

  // Every debt decided: contacted, or waiting (due at least a day later) behind its customer's limit.
  const dayLater = new Date(Date.now() + (noon + 86_400) * 1000);
  const undecided = async () =>
    Number(
      (
        await testDb()('debts')
          .where({ tenant_id: t.tenant.tenantId })
          .whereNot('status', 'contacted')
          .where((q) => void q.whereNull('engine_due_at').orWhere('engine_due_at', '<', dayLater))
          .count({ n: '*' })
      )[0]!.n,
    );
  await eventually(async () => (await undecided()) === 0, 'every debt contacted or waiting a day', 90_000);

  const handed = await testDb()('communications')
    .where({ tenant_id: t.tenant.tenantId, direction: 'outbound' })
    .whereNotNull('handed_at')
    .groupBy('customer_id')
    .select('customer_id', testDb().raw('count(*)::int AS n'));
  expect(Object.fromEntries(handed.map((r: { customer_id: string; n: number }) => [r.customer_id, r.n]))).toEqual(
    Object.fromEntries(customers.map((c) => [c, 1])),
  );
  await Promise.all(workers.map((w) => w.stop('SIGKILL')));
});
