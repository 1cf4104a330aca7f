/**
 * The webhook fan-out rule (libs/db/src/migrations/webhook-fan-out.ts, docs/api.md section 7),
 * inserting events straight into a database whose endpoints were made with the schema before
 * 079_webhook_fan_out, then migrated to the latest: each event gets one pending delivery, due at
 * once and dated as the event, for each enabled, undeleted endpoint of its tenant that subscribes
 * to its type or to `*`; none for a disabled or deleted endpoint, another tenant's (the test-mode
 * tenant of a live one included, both ways) or a `webhook.test` event. The function in force is
 * the module's, word for word.
 */
import { expect, test } from '@jest/globals';
import { migrateLatest, type Knex } from '@dms/db';
import { MIGRATIONS } from '../../libs/db/src/migrations/index.js';
import { WEBHOOK_FAN_OUT_BODY } from '../../libs/db/src/migrations/webhook-fan-out.js';
import { scratchDatabase } from './support.js';

const scratch = scratchDatabase();
/** The migration 079 follows, whichever it is once other migrations are merged in. */
const BEFORE = MIGRATIONS[MIGRATIONS.findIndex(([name]) => name === '079_webhook_fan_out') - 1]![0];

const endpoint = (id: string, tenant: string, events: string[], extra: Record<string, unknown> = {}) => ({
  id,
  tenant_id: tenant,
  url: `https://${id}.example.com/hook`,
  version: '2024-01-01',
  enabled_events: events,
  signing_secret_ciphertext: 'sealed',
  ...extra,
});

let seq = 0;
/** Inserts an event of `type` for `tenant`; returns its id and `created_at` (a minute ago, so "now" is later). */
async function insertEvent(db: Knex, tenant: string, type: string): Promise<{ id: string; at: Date }> {
  const id = `evt_fanout${String(++seq).padStart(14, '0')}`;
  const [row] = await db('events')
    .insert({ id, tenant_id: tenant, type, api_version: '2024-01-01', data: { object: { id: 'x' } }, created_at: db.raw(`now() - interval '1 minute'`) })
    .returning(['id', 'created_at']);
  return { id: row.id, at: row.created_at };
}

test('an event becomes one pending delivery per enabled, undeleted, subscribed endpoint of its own tenant', async () => {
  const db = await scratch.at(BEFORE);
  await db('tenants').insert([
    { id: 'ten_live', name: 'Live' },
    { id: 'ten_other', name: 'Other' },
  ]);
  await db('tenants').insert({ id: 'ten_test', name: 'Live', livemode: false, live_tenant_id: 'ten_live' });
  await db('webhook_endpoints').insert([
    endpoint('we_orgs', 'ten_live', ['organisation.created']),
    endpoint('we_all', 'ten_live', ['*']),
    endpoint('we_debts', 'ten_live', ['debt.created', 'debt.updated']),
    endpoint('we_disabled', 'ten_live', ['*'], { enabled: false }),
    endpoint('we_deleted', 'ten_live', ['*'], { deleted_at: new Date() }),
    endpoint('we_test_all', 'ten_test', ['*']),
    endpoint('we_other_orgs', 'ten_other', ['organisation.created']),
  ]);

  await migrateLatest(db);

  const events = {
    liveOrganisation: await insertEvent(db, 'ten_live', 'organisation.created'),
    liveDebt: await insertEvent(db, 'ten_live', 'debt.updated'),
    liveCustomer: await insertEvent(db, 'ten_live', 'customer.created'),
    liveTest: await insertEvent(db, 'ten_live', 'webhook.test'),
    testOrganisation: await insertEvent(db, 'ten_test', 'organisation.created'),
    otherDebt: await insertEvent(db, 'ten_other', 'debt.created'),
  };
  const deliveries = await db('webhook_deliveries').orderBy(['event_id', 'endpoint_id']).select('*');
  const reached = (e: { id: string }) => deliveries.filter((d) => d.event_id === e.id).map((d) => d.endpoint_id);
  expect(Object.fromEntries(Object.entries(events).map(([name, e]) => [name, reached(e)]))).toEqual({
    liveOrganisation: ['we_all', 'we_orgs'],
    liveDebt: ['we_all', 'we_debts'],
    liveCustomer: ['we_all'],
    liveTest: [],
    testOrganisation: ['we_test_all'],
    otherDebt: [],
  });
  const byId = new Map(Object.values(events).map((e) => [e.id, e]));
  const now = Date.now();
  for (const d of deliveries) {
    const e = byId.get(d.event_id)!;
    expect(d).toMatchObject({ status: 'pending', attempt_count: 0, lease_token: null, created_at: e.at });
    expect(d.tenant_id).toBe(d.event_id === events.testOrganisation.id ? 'ten_test' : 'ten_live');
    expect(d.id).toMatch(/^del_[0-9A-Za-z]{24}$/);
    expect(d.next_attempt_at.getTime()).toBeLessThanOrEqual(now + 1000);
  }

  // An endpoint enabled again, or a new one, receives the events that come after.
  await db('webhook_endpoints').where({ id: 'we_disabled' }).update({ enabled: true });
  await db('webhook_endpoints').insert(endpoint('we_new', 'ten_live', ['customer.created']));
  const later = await insertEvent(db, 'ten_live', 'customer.created');
  expect((await db('webhook_deliveries').where({ event_id: later.id }).orderBy('endpoint_id')).map((d) => d.endpoint_id)).toEqual([
    'we_all',
    'we_disabled',
    'we_new',
  ]);

  // The rule in force is the module's, and the trigger runs it.
  const { rows } = await db.raw(
    `SELECT p.prosrc, t.tgenabled FROM pg_trigger t JOIN pg_proc p ON p.oid = t.tgfoid WHERE t.tgname = 'events_webhook_fan_out' AND NOT t.tgisinternal`,
  );
  expect(rows.filter((r: { tgenabled: string }) => r.tgenabled === 'O').map((r: { prosrc: string }) => r.prosrc)).toContain(WEBHOOK_FAN_OUT_BODY);
});
