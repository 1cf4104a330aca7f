/**
 * Migration 080_contact_preferences (docs/api.md section 10, "Contact preferences") on data made
 * with the old schema: a customer inserted at 079 keeps every column and gets no preferences
 * (null: every channel, the whole window); a preference that is not a JSON object is refused.
 */
import { expect, test } from '@jest/globals';
import { migrateTo } from '@dms/db';
import { insertOldParties, scratchDatabase } from './support.js';

const scratch = scratchDatabase();

test('old customers keep their rows with no preferences; a non-object is refused', async () => {
  const db = await scratch.at('079_webhook_fan_out');
  await insertOldParties(db);
  const before = await db('customers').orderBy('id').select('*');
  expect(before.length).toBeGreaterThan(0);

  await migrateTo(db, '080_contact_preferences');

  const after = await db('customers').orderBy('id').select('*');
  expect(after).toEqual(before.map((c) => ({ ...c, contact_preferences: null })));
  await expect(
    db('customers')
      .where({ id: before[0].id })
      .update({ contact_preferences: JSON.stringify(['sms']) }),
  ).rejects.toThrow(/customers_contact_preferences_object/);
});
