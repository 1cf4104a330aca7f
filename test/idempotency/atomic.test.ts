/**
 * Atomic idempotency (docs/api.md section 11): the stored response of a write commits in the same
 * transaction as the write. An API instance started with the test-only hook
 * `DMS_TEST_CRASH_AFTER_COMMIT=1` kills itself right after COMMIT, before answering; the client's
 * retry, even once the claim's lock has run out, replays the stored response and never runs the
 * write again (rows and events counted).
 */
import { randomUUID } from 'node:crypto';
import request from 'supertest';
import { afterAll, beforeAll, expect, test } from '@jest/globals';
import { startService, type RunningService } from '@dms/tools/processes';
import { SERVICE_ENV, closeHarness, signedInTenant, testDb } from '../support/harness.js';

let crashing: RunningService;
const started: RunningService[] = [];

/** Starts an API instance that dies after the next idempotent write commits. */
async function crashingApi(): Promise<RunningService> {
  const api = await startService('api', { ...SERVICE_ENV, DMS_TEST_CRASH_AFTER_COMMIT: '1' });
  started.push(api);
  return api;
}

async function count(table: string, where: Record<string, string>): Promise<number> {
  const row = await testDb()(table).where(where).count({ n: '*' }).first();
  return Number(row!.n);
}

function exited(service: RunningService): Promise<void> {
  return new Promise((resolve) => {
    if (service.child.exitCode !== null || service.child.signalCode !== null) return resolve();
    service.child.once('exit', () => resolve());
  });
}

beforeAll(async () => {
  crashing = await crashingApi();
});

afterAll(async () => {
  await Promise.all(started.map((s) => s.stop()));
  await closeHarness();
});

test('a crash between commit and response: the retry after the lock replays, the write ran once', async () => {
  const { tenant, token, api } = await signedInTenant();
  const key = `atomic-${randomUUID()}`;
  const body = { name: 'Crash Test Ltd', metadata: { run: key } };

  const lost = await request(crashing.url)
    .post('/organisations')
    .set('Authorization', `Bearer ${token}`)
    .set('Idempotency-Key', key)
    .send(body)
    .then(
      () => 'answered',
      (err: Error) => err.message,
    );
  expect(lost).not.toBe('answered'); // socket hang up: no response ever left the process
  await exited(crashing);
  expect(crashing.child.signalCode).toBe('SIGKILL');

  // The write and its stored response are both there: they committed together.
  expect(await count('organisations', { tenant_id: tenant.tenantId })).toBe(1);
  expect(await count('events', { tenant_id: tenant.tenantId, type: 'organisation.created' })).toBe(1);
  const stored = await testDb()('idempotency_keys').where({ tenant_id: tenant.tenantId, key }).first();
  expect(stored).toMatchObject({ state: 'completed', response_status: 201 });

  // Long after any lock could have run out, the retry (to a healthy instance) replays.
  await testDb()('idempotency_keys')
    .where({ tenant_id: tenant.tenantId, key })
    .update({ locked_at: testDb().raw(`now() - interval '1 hour'`) });
  const retry = await api.post('/organisations', body).set('Idempotency-Key', key).expect(201);
  expect(retry.headers['idempotent-replayed']).toBe('true');
  const [org] = await testDb()('organisations').where({ tenant_id: tenant.tenantId });
  expect(retry.body).toMatchObject({ id: org.id, name: 'Crash Test Ltd', metadata: { run: key } });
  expect(await count('organisations', { tenant_id: tenant.tenantId })).toBe(1);
  expect(await count('events', { tenant_id: tenant.tenantId, type: 'organisation.created' })).toBe(1);
});

test('writes through owned.ts and the other stores share the request transaction: a failed write stores nothing and rolls back', async () => {
  const { tenant, api } = await signedInTenant();
  const key = `atomic-${randomUUID()}`;
  // A debt for a customer that does not exist: the store's check fails inside the transaction.
  const res = await api
    .post('/debts', {
      customer_id: 'cus_000000000000000000000000',
      organisation_id: 'org_000000000000000000000000',
      currency: 'GBP',
      breakdown: { principal: 100 },
    })
    .set('Idempotency-Key', key)
    .expect(404);
  expect(res.body.code).toBe('resource_missing');
  expect(await count('debts', { tenant_id: tenant.tenantId })).toBe(0);
  expect(await count('events', { tenant_id: tenant.tenantId })).toBe(0);
  // The business error itself is stored and replayed as before.
  const again = await api
    .post('/debts', {
      customer_id: 'cus_000000000000000000000000',
      organisation_id: 'org_000000000000000000000000',
      currency: 'GBP',
      breakdown: { principal: 100 },
    })
    .set('Idempotency-Key', key)
    .expect(404);
  expect(again.headers['idempotent-replayed']).toBe('true');
});

test('a PATCH and a webhook operation through the crashing instance commit with their stored responses too', async () => {
  const { tenant, token, api } = await signedInTenant();
  const org = (await api.post('/organisations', { name: 'Before' }).expect(201)).body;
  const endpoint = (await api.post('/webhooks', { url: 'https://hooks.example.com/atomic', enabled_events: ['organisation.updated'] }).expect(201)).body;
  const cases: Array<{ path: string; method: 'patch' | 'post'; body?: object }> = [
    { method: 'patch', path: `/organisations/${org.id}`, body: { name: 'After' } },
    { method: 'post', path: `/webhooks/${endpoint.id}/test` },
  ];
  for (const c of cases) {
    const instance = await crashingApi();
    const key = `atomic-${randomUUID()}`;
    const send = (base: string) => {
      const r = request(base)[c.method](c.path).set('Authorization', `Bearer ${token}`).set('Idempotency-Key', key);
      return c.body ? r.send(c.body) : r;
    };
    await send(instance.url).then(
      () => {
        throw new Error(`${c.path} answered through the crashing instance`);
      },
      () => undefined,
    );
    await exited(instance);
    const retry = await send(SERVICE_ENV.PUBLIC_BASE_URL!);
    expect(retry.headers['idempotent-replayed']).toBe('true');
  }
  expect(await count('events', { tenant_id: tenant.tenantId, type: 'organisation.updated' })).toBe(1);
  expect(await count('webhook_deliveries', { endpoint_id: endpoint.id, event_type: 'webhook.test' })).toBe(1);
  expect((await api.get(`/organisations/${org.id}`).expect(200)).body.name).toBe('After');
});
