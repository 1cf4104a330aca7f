/**
 * Dates of birth encrypted at rest (libs/db/src/migrations/101_sealed_birth_dates.ts, docs/api.md
 * section 20): customers written with the schema before 101 keep their clear date through the
 * migration; `sealLegacyBirthDates` then seals each one with the personal-data box and clears it,
 * batch by batch, reads give the same date back, and a second run changes nothing.
 */
import { expect, test } from '@jest/globals';
import { migrateLatest } from '@dms/db';
import { birthDateOf, sealLegacyBirthDates } from '@dms/domain/customers';
import { personalDataBox } from '@dms/domain/kernel';
import { MIGRATIONS } from '../../libs/db/src/migrations/index.js';
import { insertOldParties, scratchDatabase } from './support.js';

const scratch = scratchDatabase();
/** The migration 101 follows, whichever it is once other migrations are merged in. */
const BEFORE = MIGRATIONS[MIGRATIONS.findIndex(([name]) => name === '101_sealed_birth_dates') - 1]![0];

test('clear dates of birth written before 101 are sealed in batches, read back the same, and cleared; a second run does nothing', async () => {
  const db = await scratch.at(BEFORE);
  await insertOldParties(db);
  await db('customers').update({ date_of_birth: '1961-02-28' }).where({ id: 'cus_old' });
  const dates = ['1970-01-01', '1999-12-31', '2001-07-04', '1948-11-30', '1985-06-15'];
  await db('customers').insert(dates.map((d, i) => ({ id: `cus_old${i}`, tenant_id: 'ten_old', kind: 'individual', date_of_birth: d })));
  await db('customers').insert({ id: 'cus_none', tenant_id: 'ten_old', kind: 'company' });

  await migrateLatest(db);
  // The migration itself rewrites nothing: it has no key.
  expect(await db('customers').whereNotNull('date_of_birth').pluck('id')).toHaveLength(6);

  expect(await sealLegacyBirthDates(db, 4)).toBe(6);
  const rows = await db('customers').orderBy('id').select('id', 'date_of_birth', 'date_of_birth_encrypted');
  const byId = Object.fromEntries(rows.map((r) => [r.id, r]));
  expect(rows.every((r) => r.date_of_birth === null)).toBe(true);
  expect(birthDateOf(byId.cus_old)).toBe('1961-02-28');
  dates.forEach((d, i) => {
    const sealed = byId[`cus_old${i}`].date_of_birth_encrypted as string;
    expect(sealed).toMatch(/^v1\./);
    expect(sealed).not.toContain(d);
    expect(personalDataBox().open(sealed)).toBe(d);
  });
  expect(byId.cus_none.date_of_birth_encrypted).toBeNull();

  const before = await db('customers').orderBy('id').select('id', 'date_of_birth_encrypted');
  expect(await sealLegacyBirthDates(db)).toBe(0);
  expect(await db('customers').orderBy('id').select('id', 'date_of_birth_encrypted')).toEqual(before);
});
