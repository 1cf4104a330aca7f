/**
 * A scratch database for a migration test file (docs/api.md section 1: Knex migrations): created
 * on the test PostgreSQL, migrated to an old schema so the test can insert data as the old code
 * wrote it, and dropped after the file's tests.
 */
import { randomBytes } from 'node:crypto';
import { afterAll } from '@jest/globals';
import { createDb, ensureDatabase, migrateTo, type Knex } from '@dms/db';

/** The scratch database of one test file: `at(migration)` makes it and migrates it to `migration` (a name of the migrations index). */
export interface ScratchDatabase {
  at(migration: string): Promise<Knex>;
}

/**
 * Registers the cleanup (call it at the top of a test file) and returns the scratch database.
 * @throws Error from `at` when TEST_DATABASE_URL is not set (the suite's global setup sets it)
 */
export function scratchDatabase(): ScratchDatabase {
  const name = `dms_mig_${randomBytes(4).toString('hex')}`;
  const base = () => new URL(process.env.TEST_DATABASE_URL ?? '');
  let db: Knex | undefined;
  afterAll(async () => {
    await db?.destroy();
    if (!process.env.TEST_DATABASE_URL) return;
    const admin = createDb(new URL('/postgres', base()).href, 1);
    await admin.raw(`DROP DATABASE IF EXISTS "${name}" WITH (FORCE)`);
    await admin.destroy();
  });
  return {
    async at(migration) {
      if (!process.env.TEST_DATABASE_URL) throw new Error('TEST_DATABASE_URL is not set: run the migration tests through jest (global setup).');
      await ensureDatabase(new URL('/postgres', base()).href, name);
      db = createDb(new URL(`/${name}`, base()).href, 2);
      await migrateTo(db, migration);
      return db;
    },
  };
}

/** The tenant, organisation and customer old rows hang on (`ten_old`, `org_old`, `cus_old`), as the old code wrote them. */
export async function insertOldParties(db: Knex): Promise<void> {
  await db('tenants').insert({ id: 'ten_old', name: 'Old' });
  await db('organisations').insert({ id: 'org_old', tenant_id: 'ten_old', name: 'Org' });
  await db('customers').insert({ id: 'cus_old', tenant_id: 'ten_old', kind: 'individual' });
}

/**
 * A paying debt `deb_old` of the old parties (insertOldParties) with a weekly plan `pp_old` of one
 * upcoming instalment of 100 minor units, inserted as an older schema's columns allow; returns the plan's row.
 */
export async function insertOldPlan(db: Knex): Promise<Record<string, unknown>> {
  await db('debts').insert({ id: 'deb_old', tenant_id: 'ten_old', customer_id: 'cus_old', organisation_id: 'org_old', currency: 'GBP', status: 'paying' });
  const schedule = [{ sequence: 1, due_on: '2026-01-01', amount: 100, amount_paid: 0, status: 'upcoming' }];
  await db('payment_plans').insert({
    id: 'pp_old',
    tenant_id: 'ten_old',
    debt_id: 'deb_old',
    frequency: 'weekly',
    start_on: '2026-01-01',
    grace_days: 5,
    amount_total: 100,
    schedule: JSON.stringify(schedule),
    next_due_on: '2026-01-01',
  });
  return (await db('payment_plans').where({ id: 'pp_old' }).first()) as Record<string, unknown>;
}
