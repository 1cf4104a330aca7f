/**
 * The collection engine's claims walk an index in claim order and stop after their limit
 * (docs/api.md section 13), on a book the size that matters: a scratch database with 20,000
 * `prepared` debts, 2,000 `enriching` ones (older), 20,000 `contacted` ones whose next step is days away
 * and 300 `analysing` ones whose first step is due, analyzed. Each claim takes the 100
 * longest-waiting due debts, and the plan PostgreSQL makes for it is an index scan of the claim's
 * own index with no sort above it; the step claim's scan is bounded by the clock furthest ahead
 * (`engine_due_at <=` in its index condition), so it never reads the debts not yet due. A claim
 * that reads and sorts every waiting debt (the intake and waiting statuses asked together, a
 * per-tenant clock without a bound) fails here.
 */
import { afterAll, beforeAll, expect, test } from '@jest/globals';
import { migrateLatest, type Knex } from '@dms/db';
import { readClock } from '../../services/worker/src/changes/clock.js';
import { claimQuery, dueIntake, dueSteps, type DueQuery } from '../../services/worker/src/engine/due.js';
import { insertOldParties, scratchDatabase } from '../migrations/support.js';

const scratch = scratchDatabase();
let db: Knex;

beforeAll(async () => {
  db = await scratch.at('001_core');
  await migrateLatest(db);
  await insertOldParties(db);
  // Debt i of a status: waiting since `since` plus i seconds, next step at `due` plus i seconds.
  const fill = (status: string, count: number, since: string, due: string | null) =>
    db.raw(
      `INSERT INTO debts (id, tenant_id, customer_id, organisation_id, currency, status, status_updated_at, engine_due_at)
       SELECT ? || i, 'ten_old', 'cus_old', 'org_old', 'GBP', ?, now() + ?::interval + make_interval(secs => i),
              now() + ?::interval + make_interval(secs => i)
       FROM generate_series(1, ?) AS i`,
      [`deb_${status}_`, status, since, due, count],
    );
  await fill('prepared', 20_000, '-2 days', null);
  await fill('enriching', 2_000, '-3 days', null);
  await fill('contacted', 20_000, '-5 days', '3 days');
  await fill('analysing', 300, '-1 hour', '-1 hour');
  await db.raw('ANALYZE debts');
}, 60_000);

afterAll(async () => {
  await db?.destroy();
});

interface PlanNode {
  'Node Type': string;
  'Index Name'?: string;
  'Index Cond'?: string;
  Plans?: PlanNode[];
}

/** Every node of a plan, depth first. */
const nodesOf = (node: PlanNode): PlanNode[] => [node, ...(node.Plans ?? []).flatMap(nodesOf)];

/** The ids `due`'s claim of 100 takes, and the plan PostgreSQL makes for it. */
async function claim(due: (trx: Knex.Transaction, clock: Awaited<ReturnType<typeof readClock>>) => DueQuery): Promise<{ ids: string[]; plan: PlanNode[] }> {
  return db.transaction(async (trx) => {
    const clock = await readClock(trx, 0);
    const query = claimQuery(trx, clock, due(trx, clock), 100);
    const { sql, bindings } = query.toSQL();
    const { rows } = await trx.raw(`EXPLAIN (FORMAT JSON) ${sql}`, bindings);
    const ids = ((await query) as Array<{ id: string }>).map((r) => r.id);
    return { ids, plan: nodesOf((rows[0]['QUERY PLAN'] as Array<{ Plan: PlanNode }>)[0]!.Plan) };
  });
}

/** `deb_<status>_<from>` … the next `count`. */
const idsOf = (status: string, from: number, count: number) => Array.from({ length: count }, (_, k) => `deb_${status}_${from + k}`);

test('the intake claim takes the 100 longest-waiting prepared debts through debts_engine_intake, in order: no sort', async () => {
  const { ids, plan } = await claim((trx) => dueIntake(trx, []));
  expect(ids).toEqual(idsOf('prepared', 1, 100));
  expect(plan.map((n) => n['Node Type'])).not.toContain('Sort');
  expect(plan.some((n) => n['Node Type'] === 'Index Scan' && n['Index Name'] === 'debts_engine_intake')).toBe(true);
});

test('the step claim takes the 100 longest-due debts through debts_engine_due, bounded by the clock furthest ahead: no sort', async () => {
  const { ids, plan } = await claim((trx, clock) => dueSteps(trx, clock, []));
  expect(ids).toEqual(idsOf('analysing', 1, 100));
  expect(plan.map((n) => n['Node Type'])).not.toContain('Sort');
  const scan = plan.find((n) => n['Node Type'] === 'Index Scan' && n['Index Name'] === 'debts_engine_due');
  expect(scan?.['Index Cond']).toMatch(/engine_due_at <=/);
});
