/**
 * Migration 015_contact_details on data written with the old schema (docs/api.md section 10):
 * a fresh database migrated to 009, customers inserted with the embedded `contact_details` array,
 * then migrated to the latest: every entry is a contact detail object in its original order,
 * `personal`/`other` usages became `permanent`, a string address became `{line_1}`, at most one
 * primary per type, list totals set, and the API shows them.
 */
import { randomBytes } from 'node:crypto';
import { afterAll, beforeAll, expect, test } from '@jest/globals';
import { createDb, ensureDatabase, migrateLatest, migrateTo, type Knex } from '@dms/db';

let db: Knex;
let admin: Knex;
const name = `dms_migr_${randomBytes(4).toString('hex')}`;

beforeAll(async () => {
  const url = new URL(process.env.TEST_DATABASE_URL!);
  url.pathname = '/postgres';
  await ensureDatabase(url.href, name);
  admin = createDb(url.href, 1);
  url.pathname = `/${name}`;
  db = createDb(url.href, 2);
});

afterAll(async () => {
  await db?.destroy();
  await admin?.raw(`DROP DATABASE IF EXISTS "${name}" WITH (FORCE)`);
  await admin?.destroy();
});

test('embedded contact details of the old schema become objects', async () => {
  expect(await migrateTo(db, '009_delivery_success')).toContain('009_delivery_success');
  await db('tenants').insert({ id: 'ten_old', name: 'Old' });
  const old = (details: unknown[]) => JSON.stringify(details);
  await db('customers').insert([
    {
      id: 'cus_a',
      tenant_id: 'ten_old',
      kind: 'individual',
      full_name: 'A',
      contact_details: old([
        { type: 'email', value: 'a@example.com', primary: true, usage: 'personal' },
        { type: 'email', value: 'a2@example.com', primary: true, usage: 'other' },
        { type: 'phone_number', value: '+441234567890', primary: false, usage: 'work' },
        { type: 'address', value: '1 High St, London', primary: true, usage: 'billing' },
        { type: 'mobile_number', value: '07400 123456', primary: false, usage: null },
      ]),
    },
    { id: 'cus_b', tenant_id: 'ten_old', kind: 'company', full_name: 'B', contact_details: old([]) },
  ]);

  const applied = await migrateLatest(db);
  expect(applied).toContain('015_contact_details');

  const rows = await db('customer_contact_details').where({ customer_id: 'cus_a' }).orderBy('seq');
  expect(rows.map((r) => [r.type, r.value, r.address, r.primary, r.usage, r.source, r.status])).toEqual([
    ['email', 'a@example.com', null, true, 'permanent', 'client', 'unverified'],
    ['email', 'a2@example.com', null, false, 'permanent', 'client', 'unverified'],
    ['phone_number', '+441234567890', null, false, 'work', 'client', 'unverified'],
    [
      'address',
      null,
      { line_1: '1 High St, London', line_2: null, city: null, county: null, postal_code: null, country: null },
      true,
      'billing',
      'client',
      'unverified',
    ],
    ['mobile_number', '07400 123456', null, false, null, 'client', 'unverified'],
  ]);
  for (const r of rows) expect(r.id).toMatch(/^cd_[0-9A-Za-z]{24}$/);
  expect(new Set(rows.map((r) => r.id)).size).toBe(5);
  expect(await db('customer_contact_details').where({ customer_id: 'cus_b' })).toEqual([]);
  const [total] = await db('list_counters').where({ tenant_id: 'ten_old', list: 'contact_details', parent_id: 'cus_a' }).sum({ n: 'count' });
  expect(Number(total!.n)).toBe(5);
  expect(await db.schema.hasColumn('customers', 'contact_details')).toBe(false);
  // The e-mail index serves both e-mails, case-insensitively.
  const { rows: found } = await db.raw(
    `SELECT customer_id FROM customer_contact_details WHERE type = 'email' AND status <> 'deleted' AND lower(value) = lower('A2@Example.com')`,
  );
  expect(found).toEqual([{ customer_id: 'cus_a' }]);
});
