/**
 * `X-Total-Count` from sharded list counters (migration 008_counter_shards, docs/api.md section 4):
 * concurrent writes bump different shards of one list (one per database connection), removals may
 * land on another shard than the additions, and the total is the exact sum of every shard.
 */
import { afterAll, expect, test } from '@jest/globals';
import { API_POOL_MAX, closeHarness, signedInTenant, testDb } from '../support/harness.js';
import { mapPool } from '../../tools/src/seed/pool.js';

afterAll(closeHarness);

const CREATED = 24;
const DELETED = 8;

async function customerShards(tenantId: string): Promise<Array<{ shard: number; count: string }>> {
  return testDb()('list_counters').where({ tenant_id: tenantId, list: 'customers', parent_id: '' }).select('shard', 'count');
}

test('concurrent creates and deletes of one tenant keep X-Total-Count exact', async () => {
  const { api, tenant } = await signedInTenant();
  // Concurrent, no more at once than the API has connections (see API_POOL_MAX).
  const created = await mapPool(CREATED, API_POOL_MAX, async (i) => api.post('/customers', { kind: 'company', full_name: `Parallel ${i} Ltd` }).expect(201));
  await Promise.all(created.slice(0, DELETED).map((res) => api.delete(`/customers/${res.body.id}`).expect(200)));

  const list = await api.get('/customers').query({ limit: 100 }).expect(200);
  expect(list.body.data).toHaveLength(CREATED - DELETED);
  expect(list.headers['x-total-count']).toBe(String(CREATED - DELETED));
  const shards = await customerShards(tenant.tenantId);
  expect(shards.reduce((sum, s) => sum + Number(s.count), 0)).toBe(CREATED - DELETED);
  expect(shards.every((s) => s.shard >= 0 && s.shard < 16)).toBe(true);
});

test('the total is the sum of all shards, negative ones included', async () => {
  const { api, tenant } = await signedInTenant();
  for (let i = 0; i < 3; i++) await api.post('/customers', { kind: 'company', full_name: `Serial ${i} Ltd` }).expect(201);
  // What two other connections would leave behind: one added 5, the other removed 5.
  await testDb().raw(
    `INSERT INTO list_counters (tenant_id, list, parent_id, shard, count) VALUES (?, 'customers', '', 3, 5), (?, 'customers', '', 11, -5)
     ON CONFLICT (tenant_id, list, parent_id, shard) DO UPDATE SET count = list_counters.count + EXCLUDED.count`,
    [tenant.tenantId, tenant.tenantId],
  );
  expect((await customerShards(tenant.tenantId)).length).toBeGreaterThanOrEqual(2);
  expect((await api.get('/customers').expect(200)).headers['x-total-count']).toBe('3');
  await api.post('/customers', { kind: 'company', full_name: 'One more Ltd' }).expect(201);
  expect((await api.get('/customers').expect(200)).headers['x-total-count']).toBe('4');
});

test('a list without any counter row totals 0', async () => {
  const { api } = await signedInTenant();
  const res = await api.get('/customers').expect(200);
  expect(res.body.data).toEqual([]);
  expect(res.headers['x-total-count']).toBe('0');
});
