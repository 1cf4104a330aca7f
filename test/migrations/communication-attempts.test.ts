/**
 * Migration 068_communication_attempts (docs/api.md section 13) on data made with the old schema:
 * a database migrated to 067, communications inserted as the old code wrote them (a batch's
 * messages `queued` with `handed_at` at its commit), then migrated to the latest schema. A
 * `queued` one with a hand-over is marked as being handed over (`sending_at` = `handed_at`), so it
 * is reconciled as before and never handed over again; the others keep their rows, with no
 * attempt to come.
 */
import { expect, test } from '@jest/globals';
import { migrateLatest } from '@dms/db';
import { insertOldParties, scratchDatabase } from './support.js';

const scratch = scratchDatabase();

test('old queued hand-overs are marked sending (reconciled, never resent); settled ones are unchanged', async () => {
  const db = await scratch.at('067_engine_claim_indexes');
  await insertOldParties(db);
  await db('debts').insert({ id: 'deb_old', tenant_id: 'ten_old', customer_id: 'cus_old', organisation_id: 'org_old', currency: 'GBP', status: 'analysing' });
  const handed = new Date('2026-01-05T10:00:00Z');
  const com = (id: string, status: string, step: number) => ({
    id,
    tenant_id: 'ten_old',
    debt_id: 'deb_old',
    customer_id: 'cus_old',
    direction: 'outbound',
    delivery_method: 'email',
    status,
    step,
    handed_at: handed,
  });
  await db('communications').insert([com('com_lost', 'queued', 0), com('com_sent', 'sent', 1)]);
  const before = await db('communications').orderBy('id').select('*');

  await migrateLatest(db);

  const after = await db('communications').orderBy('id').select('*');
  expect(after).toEqual([
    { ...before[0], sending_at: handed, first_attempt_at: handed, attempts: 1, next_attempt_at: null },
    { ...before[1], sending_at: null, first_attempt_at: null, attempts: 0, next_attempt_at: null },
  ]);
});
