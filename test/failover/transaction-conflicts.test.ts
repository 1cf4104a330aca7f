/**
 * Transactions that collide (libs/db conflicts.ts): two writers that lock the same two rows in
 * opposite orders deadlock, and PostgreSQL rolls one back (40P01). With the pools of `createDb`
 * the victim's transaction runs again and both writes land; without the retry (a bare Knex, as
 * before) one writer fails. The API answers a conflict that outlasts its retries as 503 with
 * `Retry-After` (unit: test/unit/db-errors.test.ts).
 */
import { afterAll, beforeAll, expect, test } from '@jest/globals';
import knexFactory from 'knex';
import { createDb, isTransactionConflict, type Knex } from '@dms/db';
import { closeHarness, testDb } from '../support/harness.js';

const TABLE = `conflict_probe_${process.pid}`;
let db: Knex;
let bare: Knex;

beforeAll(async () => {
  db = createDb(process.env.TEST_DATABASE_URL!, 4);
  bare = knexFactory({ client: 'pg', connection: process.env.TEST_DATABASE_URL!, pool: { min: 0, max: 4 } });
  await testDb().raw(`CREATE TABLE ${TABLE} (id int PRIMARY KEY, n int NOT NULL)`);
});

afterAll(async () => {
  await testDb().raw(`DROP TABLE IF EXISTS ${TABLE}`);
  await db?.destroy();
  await bare?.destroy();
  await closeHarness();
});

/**
 * Two transactions on `k`: each adds 1 to one row, waits until the other has done the same to the
 * other row, then adds 1 to the row the other holds: a deadlock, found by PostgreSQL after its
 * `deadlock_timeout` (1 s by default). Returns how each ended and how often each handler ran.
 */
async function crossedWriters(k: Knex) {
  await testDb()(TABLE).del();
  await testDb()(TABLE).insert([
    { id: 1, n: 0 },
    { id: 2, n: 0 },
  ]);
  const runs = [0, 0];
  let arrived = 0;
  let release!: () => void;
  const bothHoldOne = new Promise<void>((r) => (release = r));
  const writer = (first: number, second: number, i: number) =>
    k.transaction(async (trx) => {
      runs[i]!++;
      await trx(TABLE).where({ id: first }).increment('n', 1);
      if (++arrived === 2) release();
      await bothHoldOne;
      await trx(TABLE).where({ id: second }).increment('n', 1);
    });
  const outcomes = await Promise.allSettled([writer(1, 2, 0), writer(2, 1, 1)]);
  const rows = (await testDb()(TABLE).orderBy('id')) as Array<{ n: number }>;
  return { outcomes, runs, totals: rows.map((r) => r.n) };
}

test('without the retry, one of two crossed writers is rolled back as the deadlock victim (40P01)', async () => {
  const { outcomes, totals } = await crossedWriters(bare);
  const failed = outcomes.filter((o) => o.status === 'rejected');
  expect(failed).toHaveLength(1);
  expect(isTransactionConflict((failed[0] as PromiseRejectedResult).reason)).toBe(true);
  expect(totals).toEqual([1, 1]);
});

test("with createDb's pools, the victim's transaction runs again: both writers succeed, each change made once", async () => {
  const { outcomes, runs, totals } = await crossedWriters(db);
  expect(outcomes.map((o) => o.status)).toEqual(['fulfilled', 'fulfilled']);
  expect(runs.slice().sort()).toEqual([1, 2]);
  expect(totals).toEqual([2, 2]);
});

test('a savepoint is not retried on its own: the conflict ends the whole transaction, which runs again from its start', async () => {
  await testDb()(TABLE).del();
  await testDb()(TABLE).insert({ id: 1, n: 0 });
  let outer = 0;
  let inner = 0;
  await db.transaction(async (trx) => {
    outer++;
    await trx.transaction(async (sp) => {
      inner++;
      if (outer === 1) throw Object.assign(new Error('serialization failure'), { code: '40001' });
      await sp(TABLE).where({ id: 1 }).increment('n', 1);
    });
  });
  expect({ outer, inner }).toEqual({ outer: 2, inner: 2 });
  expect((await testDb()(TABLE).where({ id: 1 }).first()).n).toBe(1);
});
