/**
 * Migration 021 (docs/api.md section 11) on a database made with the old schema: rows written
 * before it (events, their fanned-out deliveries, attempts) survive with their `seq`, list totals
 * and order; the three tables come out partitioned, and writing after it fans out as before.
 */
import { randomBytes } from 'node:crypto';
import { afterAll, beforeAll, expect, test } from '@jest/globals';
import { createDb, ensureDatabase, migrateLatest, migrateTo, type Knex } from '@dms/db';

const server = new URL(process.env.TEST_DATABASE_URL!);
const name = `dms_migrate_${randomBytes(4).toString('hex')}`;
let admin: Knex;
let db: Knex;

beforeAll(async () => {
  const adminUrl = new URL(server.href);
  adminUrl.pathname = '/postgres';
  await ensureDatabase(adminUrl.href, name);
  admin = createDb(adminUrl.href, 1);
  const url = new URL(server.href);
  url.pathname = `/${name}`;
  db = createDb(url.href, 2);
});

afterAll(async () => {
  await db?.destroy();
  await admin?.raw(`DROP DATABASE IF EXISTS ?? WITH (FORCE)`, [name]);
  await admin?.destroy();
});

test('rows of the old schema survive the move into partitions', async () => {
  await migrateTo(db, '020_webhook_operations');
  await db('tenants').insert({ id: 'ten_migrate', name: 'Old' });
  await db('webhook_endpoints').insert({
    id: 'wh_migrate',
    tenant_id: 'ten_migrate',
    url: 'https://x.example',
    version: 'v20261101',
    enabled_events: ['*'],
    signing_secret_ciphertext: 'sealed',
  });
  for (const [i, at] of ['2026-01-01T10:00:00Z', '2026-01-05T10:00:00Z', '2026-01-05T11:00:00Z'].entries()) {
    await db('events').insert({
      id: `evt_m${i}`,
      tenant_id: 'ten_migrate',
      type: 'organisation.created',
      api_version: '2026-11-01',
      data: { object: { i } },
      created_at: at,
    });
  }
  const delivery = await db('webhook_deliveries').where({ event_id: 'evt_m1' }).first();
  await db('webhook_delivery_attempts').insert({ delivery_id: delivery.id, attempt: 1, status: 'failed', error: 'x', started_at: '2026-01-05T10:00:01Z' });
  const snapshot = async () => ({
    events: await db('events').orderBy('seq').select('id', 'seq', 'created_at'),
    deliveries: await db('webhook_deliveries').orderBy('seq').select('id', 'event_id', 'seq', 'status'),
    attempts: await db('webhook_delivery_attempts').select('delivery_id', 'attempt', 'status', 'error'),
    counters: await db('list_counters')
      .where({ tenant_id: 'ten_migrate' })
      .orderBy(['list', 'parent_id'])
      .select('list', 'parent_id', db.raw('sum(count)::int AS n'))
      .groupBy('list', 'parent_id'),
  });
  const before = await snapshot();
  expect(before.events).toHaveLength(3);
  expect(before.deliveries).toHaveLength(3);

  expect(await migrateLatest(db)).toContain('021_partitioned_history');
  expect(await snapshot()).toEqual(before);
  const { rows } = await db.raw(`SELECT c.relname FROM pg_partitioned_table p JOIN pg_class c ON c.oid = p.partrelid ORDER BY 1`);
  expect(rows.map((r: { relname: string }) => r.relname)).toEqual(['events', 'webhook_deliveries', 'webhook_delivery_attempts']);
  const attempt = await db('webhook_delivery_attempts').first();
  expect(attempt.delivery_created_at.toISOString()).toBe('2026-01-05T10:00:00.000Z');
  // Migration 022: no foreign key ties the history to other tables, so partition maintenance
  // locks only the history tables (a key to `tenants` made it deadlock with writers).
  const keys = await db.raw(
    `SELECT conname FROM pg_constraint WHERE contype = 'f' AND conrelid IN ('events'::regclass, 'webhook_deliveries'::regclass, 'webhook_delivery_attempts'::regclass)`,
  );
  expect(keys.rows).toEqual([]);

  // New rows continue the sequence, in today's partition, and still fan out.
  await db('events').insert({ id: 'evt_new', tenant_id: 'ten_migrate', type: 'organisation.created', api_version: '2026-11-01', data: { object: {} } });
  const [fresh] = await db('events').where({ id: 'evt_new' }).select('seq');
  expect(Number(fresh.seq)).toBeGreaterThan(Math.max(...before.events.map((e: { seq: string }) => Number(e.seq))));
  expect(await db('webhook_deliveries').where({ event_id: 'evt_new', endpoint_id: 'wh_migrate' })).toHaveLength(1);
});
