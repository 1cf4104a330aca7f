/**
 * Migration 026_event_trace_context (docs/api.md section 11, "Traces") on data made with the old
 * schema: events written before it keep their rows and have no trace context; a new event may
 * carry a W3C traceparent, and a value of another length is refused.
 */
import { expect, test } from '@jest/globals';
import { migrateLatest } from '@dms/db';
import { scratchDatabase } from './support.js';

const scratch = scratchDatabase();

test('old events keep their rows with no trace context; new ones store a traceparent of 55 characters', async () => {
  const db = await scratch.at('025_tenant_clock_and_configurations');
  await db('tenants').insert({ id: 'ten_old', name: 'Old' });
  const event = (id: string) => ({ id, tenant_id: 'ten_old', type: 'debt.created', api_version: '2024-01-01', data: JSON.stringify({ object: { id } }) });
  await db('events').insert([event('evt_a'), event('evt_b')]);
  const before = await db('events').orderBy('id').select('id', 'type', 'data', 'created_at');

  await migrateLatest(db);

  const after = await db('events').orderBy('id').select('id', 'type', 'data', 'created_at', 'trace_parent');
  expect(after).toEqual(before.map((r) => ({ ...r, trace_parent: null })));
  const traceparent = '00-0af7651916cd43dd8448eb211c80319c-b7ad6b7169203331-01';
  await db('events').insert({ ...event('evt_c'), trace_parent: traceparent });
  expect((await db('events').where({ id: 'evt_c' }).first('trace_parent')).trace_parent).toBe(traceparent);
  await expect(db('events').insert({ ...event('evt_d'), trace_parent: 'not-a-traceparent' })).rejects.toThrow(/check constraint/);
});
