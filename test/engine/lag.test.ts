/**
 * The collection engine's lag series (docs/api.md section 11, `dms_engine_lag_seconds`): each of
 * its changes, `debt_taken_in`, `strategy_step` and `send_reconciled`, reports 0 while nothing of
 * its kind is due, and how long its oldest due row has waited once one is, read at scrape time
 * from a worker that has done its first check and waits an hour for the next.
 */
import { expect, test } from '@jest/globals';
import { newId } from '@dms/ids';
import { signedInTenant, testDb } from '../support/harness.js';
import { eventually } from '../support/eventually.js';
import { customerWith, engineRigPerFile, preparedDebt } from './support.js';

const rig = engineRigPerFile();

/** The engine lag samples of the worker at `url`, by change. */
async function lags(url: string): Promise<Record<string, number>> {
  const text = await (await fetch(`${url}/metrics`)).text();
  return Object.fromEntries(
    [...text.matchAll(/^dms_engine_lag_seconds\{[^}]*change="(debt_taken_in|strategy_step|send_reconciled)"[^}]*\} (\S+)$/gm)].map((m) => [
      m[1]!,
      Number(m[2]),
    ]),
  );
}

test('debt_taken_in, strategy_step and send_reconciled have lag series: 0 when nothing is due, the oldest due row’s wait when it is', async () => {
  const t = await signedInTenant();
  const org = (await t.api.post('/organisations', { name: 'Lagging Ltd' }).expect(201)).body.id as string;
  const w = await rig.worker([t.tenant.tenantId], 0, { WORKER_POLL_SECONDS: '3600', ENGINE_RECONCILE_AFTER_SECONDS: '600' });
  await eventually(async () => /^worker_checks_total\{[^}]*outcome="ok"/m.test(await (await fetch(`${w.url}/metrics`)).text()), 'the worker’s first check');
  expect(await lags(w.url)).toEqual({ debt_taken_in: 0, strategy_step: 0, send_reconciled: 0 });

  // Made after the worker's only check: nothing of them is worked, so they wait.
  const intake = await preparedDebt(t.api, org, await customerWith(t.api, [{ type: 'email', value: 'intake@example.org' }]));
  await testDb()('debts')
    .where({ id: intake })
    .update({ status_updated_at: testDb().raw(`now() - interval '2 hours'`) });
  const stepped = await preparedDebt(t.api, org, await customerWith(t.api, [{ type: 'email', value: 'step@example.org' }]));
  await testDb()('debts')
    .where({ id: stepped })
    .update({ status: 'analysing', engine_due_at: testDb().raw(`now() - interval '1 hour'`) });
  const debt = await testDb()('debts').where({ id: stepped }).first();
  await testDb()('communications').insert({
    id: newId('com'),
    tenant_id: t.tenant.tenantId,
    debt_id: stepped,
    customer_id: debt.customer_id,
    direction: 'outbound',
    delivery_method: 'email',
    status: 'queued',
    step: 0,
    handed_at: testDb().raw(`now() - interval '3 hours'`),
    sending_at: testDb().raw(`now() - interval '3 hours'`),
  });

  const seen = await lags(w.url);
  // Waited since it entered `prepared` (2 h ago); due at its step time (1 h ago); due 600 s after its hand-over (3 h ago).
  expect(seen.debt_taken_in).toBeGreaterThanOrEqual(7200);
  expect(seen.debt_taken_in).toBeLessThan(7200 + 300);
  expect(seen.strategy_step).toBeGreaterThanOrEqual(3600);
  expect(seen.strategy_step).toBeLessThan(3600 + 300);
  expect(seen.send_reconciled).toBeGreaterThanOrEqual(3 * 3600 - 600);
  expect(seen.send_reconciled).toBeLessThan(3 * 3600 - 600 + 300);
  // The worker did not work them meanwhile.
  expect((await testDb()('debts').where({ id: intake }).first()).status).toBe('prepared');
});
