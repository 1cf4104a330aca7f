/**
 * Idempotency-Key on POST and PATCH (docs/api.md section 3): replay of the stored response, 422 for
 * another request under the same key, 409 while the first is in flight, keys scoped per client,
 * 24 h expiry, and what is (not) stored.
 */
import { randomUUID } from 'node:crypto';
import { request as httpRequest } from 'node:http';
import request from 'supertest';
import { afterAll, describe, expect, test } from '@jest/globals';
import { SecretBox } from '@dms/secrets';
import { startService, type RunningService } from '@dms/tools/processes';
import { API_URL, SERVICE_ENV, apiAs, closeHarness, newTenant, signedInTenant, testDb, tokenFor } from '../support/harness.js';
import { eventually } from '../support/eventually.js';
import { requestFingerprint } from '../../services/api/src/http/fingerprint.js';
import { createIdempotencyStore } from '../../services/api/src/db/idempotency-store.js';

const started: RunningService[] = [];
afterAll(async () => {
  await Promise.all(started.map((s) => s.stop()));
  await closeHarness();
});

const key = () => `test-${randomUUID()}`;

async function organisationCount(tenantId: string): Promise<number> {
  const row = await testDb()('organisations').where({ tenant_id: tenantId }).count({ n: '*' }).first();
  return Number(row!.n);
}

async function eventCount(tenantId: string, type: string): Promise<number> {
  const row = await testDb()('events').where({ tenant_id: tenantId, type }).count({ n: '*' }).first();
  return Number(row!.n);
}

describe('replay', () => {
  test('the same key and body return the stored response, byte for byte, without running again', async () => {
    const { tenant, api } = await signedInTenant();
    const k = key();
    const first = await api
      .post('/organisations', { name: 'Acme Collections', metadata: { a: '1' } })
      .set('Idempotency-Key', k)
      .expect(201);
    expect(first.headers['idempotent-replayed']).toBeUndefined();

    const again = await api
      .post('/organisations', { name: 'Acme Collections', metadata: { a: '1' } })
      .set('Idempotency-Key', k)
      .expect(201);
    expect(again.headers['idempotent-replayed']).toBe('true');
    expect(again.text).toBe(first.text);
    expect(again.headers['content-type']).toMatch(/^application\/json/);
    // A replay is a new request: its own Request-Id, the version and rate-limit headers of now.
    expect(again.headers['request-id']).not.toBe(first.headers['request-id']);
    expect(again.headers['api-version']).toBe('2026-11-01');
    expect(again.headers.ratelimit).toBeDefined();

    expect(await organisationCount(tenant.tenantId)).toBe(1);
    expect(await eventCount(tenant.tenantId, 'organisation.created')).toBe(1);
  });

  test('a stored response is sealed at rest: a webhook signing secret is replayed but never kept in plain text', async () => {
    const { tenant, api } = await signedInTenant();
    const k = key();
    const body = { url: 'https://example.com/hooks', enabled_events: ['*'] };
    const first = await api.post('/webhooks', body).set('Idempotency-Key', k).expect(201);
    expect(first.body.signing_secret).toMatch(/^whsec_/);
    const again = await api.post('/webhooks', body).set('Idempotency-Key', k).expect(201);
    expect(again.headers['idempotent-replayed']).toBe('true');
    expect(again.body.signing_secret).toBe(first.body.signing_secret);
    const row = await testDb()('idempotency_keys').where({ tenant_id: tenant.tenantId, key: k }).first();
    expect(row.response_body).toMatch(/^v1\./);
    expect(JSON.stringify(row)).not.toContain(first.body.signing_secret);
  });

  test('key order and whitespace of the JSON body do not make another request', async () => {
    const { tenant, api } = await signedInTenant();
    const k = key();
    await api.post('/organisations', { name: 'Order Ltd', customer_facing_name: 'Order' }).set('Idempotency-Key', k).expect(201);
    const again = await api
      .post('/organisations')
      .set('Idempotency-Key', k)
      .set('Content-Type', 'application/json')
      .send('{ "customer_facing_name" : "Order",\n  "name": "Order Ltd" }')
      .expect(201);
    expect(again.headers['idempotent-replayed']).toBe('true');
    expect(await organisationCount(tenant.tenantId)).toBe(1);
  });

  test('PATCH is idempotent too', async () => {
    const { tenant, api } = await signedInTenant();
    const org = await api.post('/organisations', { name: 'Before' }).expect(201);
    const k = key();
    const first = await api.patch(`/organisations/${org.body.id}`, { name: 'After' }).set('Idempotency-Key', k).expect(200);
    const again = await api.patch(`/organisations/${org.body.id}`, { name: 'After' }).set('Idempotency-Key', k).expect(200);
    expect(again.headers['idempotent-replayed']).toBe('true');
    expect(again.text).toBe(first.text);
    expect(await eventCount(tenant.tenantId, 'organisation.updated')).toBe(1);
  });

  test('a business 4xx is stored and replayed as well', async () => {
    const { api } = await signedInTenant();
    const k = key();
    const first = await api.post('/organisations', { name: '' }).set('Idempotency-Key', k).expect(400);
    expect(first.body.code).toBe('validation_failed');
    const again = await api.post('/organisations', { name: '' }).set('Idempotency-Key', k).expect(400);
    expect(again.headers['idempotent-replayed']).toBe('true');
    expect(again.body).toEqual(first.body);
  });

  test('many concurrent requests with one key run the operation exactly once', async () => {
    const { tenant, api } = await signedInTenant();
    const k = key();
    const results = await Promise.all(Array.from({ length: 6 }, () => api.post('/organisations', { name: 'Concurrent Ltd' }).set('Idempotency-Key', k)));
    const executed = results.filter((r) => r.status === 201 && r.headers['idempotent-replayed'] === undefined);
    expect(executed).toHaveLength(1);
    for (const r of results) {
      if (r.status === 201) expect(r.body.id).toBe(executed[0]!.body.id);
      else expect([r.status, r.body.code]).toEqual([409, 'idempotency_key_in_use']);
    }
    expect(await organisationCount(tenant.tenantId)).toBe(1);
  });
});

describe('clients that hang up', () => {
  test('a retry after the client gave up on the first request does not run the operation again', async () => {
    const { tenant, token } = await signedInTenant();
    const k = key();
    const body = JSON.stringify({ name: 'Impatient Ltd' });
    // Send the whole request, then drop the connection without waiting for the answer.
    await new Promise<void>((resolve) => {
      const req = httpRequest(`${API_URL}/organisations`, {
        method: 'POST',
        headers: { Authorization: `Bearer ${token}`, 'Content-Type': 'application/json', 'Content-Length': Buffer.byteLength(body), 'Idempotency-Key': k },
      });
      req.on('error', () => resolve());
      req.end(body, () => {
        req.destroy();
        resolve();
      });
    });
    // Retried while the first request still holds the key (409).
    const retry = await eventually(
      async () => {
        const res = await request(API_URL)
          .post('/organisations')
          .set('Authorization', `Bearer ${token}`)
          .set('Idempotency-Key', k)
          .send({ name: 'Impatient Ltd' });
        return res.status === 409 ? undefined : res;
      },
      'the key released by the abandoned request',
      { intervalMs: 100 },
    );
    // Whether the server dropped the first request (the client was gone before it was read) or ran
    // it to the end (then the retry is its replay), the organisation exists exactly once.
    expect(retry.status).toBe(201);
    expect(await organisationCount(tenant.tenantId)).toBe(1);
    expect(
      (await request(API_URL).post('/organisations').set('Authorization', `Bearer ${token}`).set('Idempotency-Key', k).send({ name: 'Impatient Ltd' })).headers[
        'idempotent-replayed'
      ],
    ).toBe('true');
  });
});

describe('across API instances', () => {
  test('concurrent requests with one key on two instances run the operation once', async () => {
    const second = await startService('api', SERVICE_ENV);
    started.push(second);
    const { tenant, token } = await signedInTenant();
    const k = key();
    const results = await Promise.all(
      [API_URL, second.url, API_URL, second.url, API_URL, second.url].map((base) =>
        request(base).post('/organisations').set('Authorization', `Bearer ${token}`).set('Idempotency-Key', k).send({ name: 'Two Instances Ltd' }),
      ),
    );
    const executed = results.filter((r) => r.status === 201 && r.headers['idempotent-replayed'] === undefined);
    expect(executed).toHaveLength(1);
    for (const r of results) expect([201, 409]).toContain(r.status);
    expect(await organisationCount(tenant.tenantId)).toBe(1);
    // Once finished, either instance replays it.
    const replay = await request(second.url)
      .post('/organisations')
      .set('Authorization', `Bearer ${token}`)
      .set('Idempotency-Key', k)
      .send({ name: 'Two Instances Ltd' })
      .expect(201);
    expect(replay.headers['idempotent-replayed']).toBe('true');
    expect(replay.body.id).toBe(executed[0]!.body.id);
  });
});

describe('conflicts', () => {
  test('the same key with another body is 422 idempotency_key_reused and changes nothing', async () => {
    const { tenant, api } = await signedInTenant();
    const k = key();
    await api.post('/organisations', { name: 'First' }).set('Idempotency-Key', k).expect(201);
    const res = await api.post('/organisations', { name: 'Second' }).set('Idempotency-Key', k).expect(422);
    expect(res.body).toMatchObject({ object: 'error', type: 'invalid_request_error', code: 'idempotency_key_reused', param: 'Idempotency-Key' });
    expect(res.body.request_id).toBe(res.headers['request-id']);
    expect(await organisationCount(tenant.tenantId)).toBe(1);
  });

  test('the same key on another path is 422', async () => {
    const { tenant, api } = await signedInTenant();
    const k = key();
    await api.post('/organisations', { name: 'Org' }).set('Idempotency-Key', k).expect(201);
    const res = await api.post('/customers', { kind: 'company', full_name: 'Org' }).set('Idempotency-Key', k).expect(422);
    expect(res.body.code).toBe('idempotency_key_reused');
    const customers = await testDb()('customers').where({ tenant_id: tenant.tenantId }).count({ n: '*' }).first();
    expect(Number(customers!.n)).toBe(0);
  });

  test('a key still being processed (by this or another API instance) is 409 idempotency_key_in_use', async () => {
    const { tenant, api } = await signedInTenant();
    const k = key();
    // What another instance leaves in the table while it runs the first request.
    await testDb()('idempotency_keys').insert({
      tenant_id: tenant.tenantId,
      client_id: tenant.clientId,
      key: k,
      fingerprint: requestFingerprint('POST', '/organisations', { name: 'In flight' }),
      method: 'POST',
      path: '/organisations',
      state: 'processing',
      claim: randomUUID(),
      expires_at: testDb().raw("now() + interval '24 hours'"),
    });
    const res = await api.post('/organisations', { name: 'In flight' }).set('Idempotency-Key', k).expect(409);
    expect(res.body).toMatchObject({ type: 'conflict', code: 'idempotency_key_in_use', param: 'Idempotency-Key' });
    expect(await organisationCount(tenant.tenantId)).toBe(0);
  });

  test('a claim abandoned by a crashed process is taken over after the lock timeout', async () => {
    const { tenant, api } = await signedInTenant();
    const k = key();
    await testDb()('idempotency_keys').insert({
      tenant_id: tenant.tenantId,
      client_id: tenant.clientId,
      key: k,
      fingerprint: requestFingerprint('POST', '/organisations', { name: 'Orphan' }),
      method: 'POST',
      path: '/organisations',
      state: 'processing',
      claim: randomUUID(),
      locked_at: testDb().raw("now() - interval '10 minutes'"),
      expires_at: testDb().raw("now() + interval '24 hours'"),
    });
    const res = await api.post('/organisations', { name: 'Orphan' }).set('Idempotency-Key', k).expect(201);
    expect(res.headers['idempotent-replayed']).toBeUndefined();
    expect(await organisationCount(tenant.tenantId)).toBe(1);
  });
});

describe('scope and lifetime', () => {
  test('keys are private to a client: another tenant using the same key runs its own request', async () => {
    const a = await signedInTenant();
    const b = await signedInTenant();
    const k = key();
    const ra = await a.api.post('/organisations', { name: 'Shared Key' }).set('Idempotency-Key', k).expect(201);
    const rb = await b.api.post('/organisations', { name: 'Shared Key' }).set('Idempotency-Key', k).expect(201);
    expect(rb.headers['idempotent-replayed']).toBeUndefined();
    expect(rb.body.id).not.toBe(ra.body.id);
    const other = await b.api.post('/organisations', { name: 'Different' }).set('Idempotency-Key', k);
    expect(other.status).toBe(422);
  });

  test('after 24 hours a key is free again', async () => {
    const { tenant, api } = await signedInTenant();
    const k = key();
    await api.post('/organisations', { name: 'Old' }).set('Idempotency-Key', k).expect(201);
    await testDb()('idempotency_keys')
      .where({ tenant_id: tenant.tenantId, key: k })
      .update({ created_at: testDb().raw("now() - interval '25 hours'"), expires_at: testDb().raw("now() - interval '1 hour'") });
    const res = await api.post('/organisations', { name: 'New' }).set('Idempotency-Key', k).expect(201);
    expect(res.headers['idempotent-replayed']).toBeUndefined();
    expect(res.body.name).toBe('New');
    expect(await organisationCount(tenant.tenantId)).toBe(2);
  });

  test('a stored key expires 24 hours after first use', async () => {
    const { tenant, api } = await signedInTenant();
    const k = key();
    await api.post('/organisations', { name: 'Lifetime' }).set('Idempotency-Key', k).expect(201);
    const row = await testDb()('idempotency_keys')
      .where({ tenant_id: tenant.tenantId, key: k })
      .first(testDb().raw('extract(epoch from expires_at - created_at) AS ttl'), 'state', 'response_status');
    expect(Number(row.ttl)).toBe(24 * 60 * 60);
    expect(row).toMatchObject({ state: 'completed', response_status: 201 });
  });

  test('expired keys are purged, live ones kept', async () => {
    const { tenant, api } = await signedInTenant();
    const [live, old] = [key(), key()];
    await api.post('/organisations', { name: 'Live' }).set('Idempotency-Key', live).expect(201);
    await api.post('/organisations', { name: 'Old' }).set('Idempotency-Key', old).expect(201);
    await testDb()('idempotency_keys')
      .where({ tenant_id: tenant.tenantId, key: old })
      .update({ expires_at: testDb().raw("now() - interval '1 second'") });
    expect(await createIdempotencyStore(testDb(), new SecretBox(SERVICE_ENV.SECRETS_KEY!)).purgeExpired()).toBeGreaterThanOrEqual(1);
    const left = await testDb()('idempotency_keys').where({ tenant_id: tenant.tenantId }).pluck('key');
    expect(left).toEqual([live]);
  });

  test('a 403 is not stored: once the client has the scope, the same key runs the request', async () => {
    const tenant = await newTenant();
    const readOnly = apiAs(await tokenFor(tenant, { scope: 'organisations:read' }));
    const full = apiAs(await tokenFor(tenant));
    const k = key();
    const denied = await readOnly.post('/organisations', { name: 'Scoped' }).set('Idempotency-Key', k).expect(403);
    expect(denied.body.code).toBe('insufficient_scope');
    const res = await full.post('/organisations', { name: 'Scoped' }).set('Idempotency-Key', k).expect(201);
    expect(res.headers['idempotent-replayed']).toBeUndefined();
  });

  test('GET and DELETE ignore the header', async () => {
    const { api } = await signedInTenant();
    const k = key();
    await api.get('/organisations').set('Idempotency-Key', k).expect(200);
    const res = await api.get('/organisations').set('Idempotency-Key', k).expect(200);
    expect(res.headers['idempotent-replayed']).toBeUndefined();
    // DELETE is idempotent by nature: the second one really runs (and finds nothing).
    const customer = await api.post('/customers', { kind: 'company', full_name: 'Gone Ltd' }).expect(201);
    await api.delete(`/customers/${customer.body.id}`).set('Idempotency-Key', k).expect(200);
    const again = await api.delete(`/customers/${customer.body.id}`).set('Idempotency-Key', k).expect(404);
    expect(again.headers['idempotent-replayed']).toBeUndefined();
  });
});

describe('key format', () => {
  test.each([
    ['256 characters', 'k'.repeat(256)],
    ['empty', ''],
    ['a control character', 'abc\tdef'],
    ['a non-ASCII character', 'clé'],
  ])('%s is 400 naming Idempotency-Key, and nothing is created', async (_what, bad) => {
    const { tenant, api } = await signedInTenant();
    const res = await api.post('/organisations', { name: 'Bad Key' }).set('Idempotency-Key', bad).expect(400);
    expect(res.body).toMatchObject({ type: 'invalid_request_error', code: 'idempotency_key_invalid', param: 'Idempotency-Key' });
    expect(await organisationCount(tenant.tenantId)).toBe(0);
  });

  test('255 printable characters are accepted', async () => {
    const { api } = await signedInTenant();
    await api
      .post('/organisations', { name: 'Long Key' })
      .set('Idempotency-Key', `${'x'.repeat(254)}~`)
      .expect(201);
  });
});
