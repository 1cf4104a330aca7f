/**
 * Payout runs in the worker (docs/api.md section 14), as real processes over the real database:
 * due on the organisation's schedule against `tenant_now(tenant_id)` (the test moves the tenant's
 * own clock, which only a test-mode tenant has: the tenant is paired with a live one first), each run once with two workers at once, and a worker killed midway leaves nothing
 * of its run (the balance items, made with the payments, wait for the next): another makes it, once.
 */
import { readFileSync } from 'node:fs';
import { afterAll, expect, test } from '@jest/globals';
import { newId } from '@dms/ids';
import type { RunningService } from '@dms/tools/processes';
import { closeHarness, seedParties, testDb } from '../support/harness.js';
import { eventually } from '../support/eventually.js';
import { startWorker } from '../worker/support.js';
import { paidDebt, payoutTenant } from './support.js';

const started: RunningService[] = [];
afterAll(async () => {
  await Promise.all(started.map((w) => w.stop('SIGKILL')));
  await closeHarness();
});

const DAY = 86_400;
const worker = async (tenantId: string, env: Record<string, string> = {}) => {
  const w = await startWorker([tenantId], 0, env);
  started.push(w);
  return w;
};
const accounts = (tenantId: string) => testDb()('payout_accounts').where({ tenant_id: tenantId });
const payouts = (tenantId: string) => testDb()('payouts').where({ tenant_id: tenantId });
/**
 * Moves the tenant's own clock (`tenant_now`) `seconds` ahead of the database's. Only a test-mode
 * tenant's clock moves (docs/api.md section 15), so the tenant first becomes the test tenant of a
 * live one made for it.
 */
const setClock = async (tenantId: string, seconds: number) => {
  const { livemode } = (await testDb()('tenants').where({ id: tenantId }).first('livemode')) as { livemode: boolean };
  if (livemode) {
    const live = newId('ten');
    await testDb()('tenants').insert({ id: live, name: 'live twin' });
    await testDb()('tenants').where({ id: tenantId }).update({ livemode: false, live_tenant_id: live });
  }
  await testDb()('tenants').where({ id: tenantId }).update({ clock_offset_seconds: seconds });
};

test('two workers at once: each due organisation and currency paid out exactly once, on its schedule', async () => {
  const t = await payoutTenant();
  const orgs = [t.parties, await seedParties(t.api), await seedParties(t.api)];
  await t.api.patch(`/organisations/${orgs[1]!.organisationId}`, { configurations: { payouts: { schedule: 'daily' } } }).expect(200);
  await t.api.patch(`/organisations/${orgs[2]!.organisationId}`, { configurations: { payouts: { schedule: 'monthly' } } }).expect(200);
  for (const parties of orgs) await paidDebt(t.api, parties, [3000, 4000]);
  const [a, b] = [await worker(t.tenant.tenantId), await worker(t.tenant.tenantId)];
  await eventually(async () => (await accounts(t.tenant.tenantId)).length === 9, 'accounts made, first runs one interval ahead');
  expect(await payouts(t.tenant.tenantId)).toEqual([]);

  await setClock(t.tenant.tenantId, 8 * DAY); // past the daily and weekly runs, before the monthly one
  await eventually(async () => (await payouts(t.tenant.tenantId)).length === 2, 'the daily and weekly organisations paid out');
  await setClock(t.tenant.tenantId, 40 * DAY);
  await eventually(async () => (await payouts(t.tenant.tenantId)).length === 3, 'the monthly organisation paid out');

  const rows = await payouts(t.tenant.tenantId);
  expect(rows.map((p) => p.organisation_id).sort()).toEqual(orgs.map((o) => o.organisationId).sort());
  expect(rows.every((p) => p.gross === 7000 && p.item_count === 2)).toBe(true);
  const events = await testDb()('events').where({ tenant_id: t.tenant.tenantId, type: 'payout.created' });
  expect(events).toHaveLength(3);
  let made = 0;
  for (const w of [a, b]) {
    const m = /^worker_changes_total\{[^}]*change="payout_run"[^}]*\} (\d+)/m.exec(await (await fetch(`${w.url}/metrics`)).text());
    made += m ? Number(m[1]) : 0;
  }
  expect(made).toBe(3);
});

test('a worker killed midway leaves no payout or event; another worker makes the run once, of the items the payments made', async () => {
  const t = await payoutTenant();
  const { payments } = await paidDebt(t.api, t.parties, [2500, 2500, 2500]);
  const held = await worker(t.tenant.tenantId, { WORKER_TEST_HOLD_MS: '60000' });
  await eventually(async () => (await accounts(t.tenant.tenantId)).length === 3, 'accounts made');
  await setClock(t.tenant.tenantId, 8 * DAY);
  await eventually(() => readFileSync(held.logFile, 'utf8').includes('holding change before commit'), 'the run written, not committed');
  await held.stop('SIGKILL');
  expect(await payouts(t.tenant.tenantId)).toEqual([]);
  // The items were made with the payments; the killed run wrote none and claimed none.
  expect(await testDb()('balance_items').whereIn('payment_id', payments)).toHaveLength(3);
  expect((await accounts(t.tenant.tenantId)).map((a) => Number(a.items_through))).toEqual([0, 0, 0]);
  expect(await testDb()('events').where({ tenant_id: t.tenant.tenantId, type: 'payout.created' })).toEqual([]);

  await worker(t.tenant.tenantId);
  await eventually(async () => (await payouts(t.tenant.tenantId)).length === 1, 'the other worker makes the run');
  expect((await payouts(t.tenant.tenantId))[0]).toMatchObject({ gross: 7500, item_count: 3 });
  expect(await testDb()('balance_items').whereIn('payment_id', payments)).toHaveLength(3);
  expect(await testDb()('events').where({ tenant_id: t.tenant.tenantId, type: 'payout.created' })).toHaveLength(1);
});
