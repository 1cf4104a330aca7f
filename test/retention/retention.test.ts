/**
 * Bounded storage (docs/api.md section 11): rows in a time partition past the retention window
 * are dropped with the whole partition by the maintenance run (the worker's retention job);
 * afterwards they answer as never existing (404, `invalid_cursor`), the list totals shrink by
 * exactly what was dropped, and everything inside the window behaves as before.
 */
import pg from 'pg';
import { afterAll, beforeAll, expect, test } from '@jest/globals';
import { listPartitions, maintainPartitions, PARTITIONED_TABLES } from '@dms/db';
import { apiAs, closeHarness, signedInTenant } from '../support/harness.js';
import { createOwnDatabase, type OwnDatabase } from '../support/own-database.js';
import { retentionPolicy } from '../../services/worker/src/retention.js';

// Partitions are created and dropped under exclusive locks on the history tables, which every
// write that records an event needs: on a database of this file's own, with an API of its own.
let own: OwnDatabase;
let apiUrl: string;

beforeAll(async () => {
  own = await createOwnDatabase('retention');
  apiUrl = (await own.startApi()).url;
});

afterAll(async () => {
  await own?.drop();
  await closeHarness();
});

/** A tenant of the suite's issuer, known to this file's database, and an agent on this file's API. */
async function tenantHere() {
  const { tenant, token } = await signedInTenant();
  await own.addTenant(tenant.tenantId);
  return { tenant, api: apiAs(token, apiUrl) };
}

const OLD_FROM = '2001-02-03T00:00:00.000Z';
const OLD_TO = '2001-02-04T00:00:00.000Z';

test('a partition past the window is dropped whole; its objects answer as never existing; totals stay exact', async () => {
  const { api } = await tenantHere();
  const endpoint = (await api.post('/webhooks', { url: 'https://hooks.example.com/retention', enabled_events: ['*'] }).expect(201)).body;
  const oldOrg = (await api.post('/organisations', { name: 'Old Ltd' }).expect(201)).body;
  const [oldEvent] = (await api.get('/events').expect(200)).body.data;
  const [oldDelivery] = (await api.get(`/webhooks/${endpoint.id}/deliveries`).expect(200)).body.data;

  // Move the first event, its delivery and an attempt into a partition of 2001, in one
  // transaction (a worker's retention run could otherwise drop the empty partition first).
  await own.db.transaction(async (trx) => {
    // Moving a row between partitions fires the INSERT triggers (fan-out, counters): not wanted here.
    await trx.raw(`SET LOCAL session_replication_role = replica`);
    // Parents locked in the writers' order (events, deliveries, attempts), as the retention job
    // does, so writers of events meanwhile wait instead of deadlocking with this.
    await trx.raw(
      `LOCK TABLE ${[...PARTITIONED_TABLES]
        .reverse()
        .map((t) => t.table)
        .join(', ')} IN ACCESS EXCLUSIVE MODE`,
    );
    for (const { table } of PARTITIONED_TABLES) {
      await trx.raw(`CREATE TABLE ?? PARTITION OF ?? FOR VALUES FROM ('${OLD_FROM}') TO ('${OLD_TO}')`, [`${table}_p20010203T000000`, table]);
    }
    const at = '2001-02-03T12:00:00.000Z';
    await trx('events').where({ id: oldEvent.id }).update({ created_at: at });
    await trx('webhook_deliveries').where({ id: oldDelivery.id }).update({ created_at: at, status: 'failed' });
    await trx('webhook_delivery_attempts').insert({ delivery_id: oldDelivery.id, attempt: 1, status: 'failed', started_at: at, delivery_created_at: at });
  });

  await api.post('/organisations', { name: 'New Ltd' }).expect(201);
  // Inside the window, old or not, everything reads as before.
  expect((await api.get(`/events/${oldEvent.id}`).expect(200)).body.id).toBe(oldEvent.id);
  const before = await api.get(`/webhooks/${endpoint.id}/deliveries`).expect(200);
  expect(before.headers['x-total-count']).toBe('2');
  expect(before.body.data.find((d: { id: string }) => d.id === oldDelivery.id).attempts).toHaveLength(1);
  expect((await api.get('/events').expect(200)).headers['x-total-count']).toBe('2');

  const result = await maintainPartitions(own.db, retentionPolicy(30));
  for (const { table } of PARTITIONED_TABLES) {
    expect((await listPartitions(own.db, table)).map((p) => p.name)).not.toContain(`${table}_p20010203T000000`);
    // Runway: a week of partitions ahead of now.
    const last = (await listPartitions(own.db, table)).at(-1)!;
    expect(last.to.getTime()).toBeGreaterThan(Date.now() + 6 * 86_400_000);
  }
  expect(result === null || Array.isArray(result.dropped)).toBe(true);

  expect((await api.get(`/events/${oldEvent.id}`).expect(404)).body.code).toBe('resource_missing');
  expect((await api.get(`/events?after=${oldEvent.id}`).expect(400)).body.code).toBe('invalid_cursor');
  expect((await api.post(`/webhooks/${endpoint.id}/deliveries/${oldDelivery.id}/retry`).expect(404)).body.code).toBe('resource_missing');
  const events = await api.get('/events').expect(200);
  expect(events.headers['x-total-count']).toBe('1');
  expect(events.body.data.map((e: { type: string }) => e.type)).toEqual(['organisation.created']);
  const after = await api.get(`/webhooks/${endpoint.id}/deliveries`).expect(200);
  expect(after.headers['x-total-count']).toBe('1');
  expect(after.body.data.map((d: { id: string }) => d.id)).not.toContain(oldDelivery.id);
  // The organisation itself is not history: it stays.
  await api.get(`/organisations/${oldOrg.id}`).expect(200);
  // Writing goes on into the current partitions.
  await api.post('/organisations', { name: 'Later Ltd' }).expect(201);
  expect((await api.get('/events').expect(200)).headers['x-total-count']).toBe('2');
});

test('a run with nothing due takes no lock: a writer holding the history tables does not hold it up', async () => {
  await maintainPartitions(own.db, retentionPolicy(30));
  // What every transaction that records an event holds until it commits.
  const writer = new pg.Client({ connectionString: own.url });
  await writer.connect();
  try {
    await writer.query('BEGIN');
    await writer.query(`LOCK TABLE ${PARTITIONED_TABLES.map((t) => t.table).join(', ')} IN ROW EXCLUSIVE MODE`);
    expect(await maintainPartitions(own.db, retentionPolicy(30))).toEqual({ created: [], dropped: [] });
  } finally {
    await writer.query('ROLLBACK');
    await writer.end();
  }
});

test('the policy: daily partitions for a month, a thirtieth of a compressed window', () => {
  expect(retentionPolicy(30)).toEqual({ retentionSeconds: 30 * 86_400, partitionSeconds: 86_400, ahead: 7, checkSeconds: 3600 });
  expect(retentionPolicy(0.01)).toMatchObject({ retentionSeconds: 864, partitionSeconds: 28, checkSeconds: 14 });
});
