/**
 * Migration 107_plan_actors (docs/api.md section 9, "Payment plans") on data made with the old
 * schema: a database at 102 with a payment plan, then migrated to the latest schema. The old plan
 * is unchanged, its `whodunnit` and `source` null (its last change was not recorded); a new
 * change may name its actor, and a `source` other than `api`, `portal` or `worker` is refused.
 */
import { expect, test } from '@jest/globals';
import { migrateLatest } from '@dms/db';
import { insertOldParties, insertOldPlan, scratchDatabase } from './support.js';

const scratch = scratchDatabase();

test('old plans keep their rows with no actor; the actor columns take a client, a customer or the worker', async () => {
  const db = await scratch.at('102_sealed_statement_details');
  await insertOldParties(db);
  const before = await insertOldPlan(db);

  await migrateLatest(db);

  expect(await db('payment_plans').where({ id: 'pp_old' }).first()).toEqual({ ...before, whodunnit: null, source: null });
  const write = (whodunnit: string, source: string) => db('payment_plans').where({ id: 'pp_old' }).update({ whodunnit, source });
  for (const [whodunnit, source] of [
    ['cli_1', 'api'],
    ['customer:cus_old', 'portal'],
    ['system', 'worker'],
  ] as const) {
    await write(whodunnit, source);
    expect(await db('payment_plans').where({ id: 'pp_old' }).first()).toMatchObject({ whodunnit, source });
  }
  await expect(write('cli_1', 'fax')).rejects.toThrow(/payment_plans_source/);
});
