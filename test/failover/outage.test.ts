/**
 * The API and the issuer while their database goes away and comes back, as in a failover
 * (deploy/README.md, "High availability"): an API and an issuer reach the test database through a
 * proxy that drops every connection and refuses new ones until restored (test/support/db-proxy.ts).
 * Meanwhile they answer 503 with `Retry-After` (never a 500), an idempotent write retried with its
 * key after the outage runs exactly once, and both serve again without a restart.
 */
import { randomBytes } from 'node:crypto';
import pg from 'pg';
import request from 'supertest';
import { afterAll, beforeAll, describe, expect, test } from '@jest/globals';
import { startService, type RunningService } from '@dms/tools/processes';
import { AUDIENCE, SERVICE_ENV, apiAs, closeHarness, newTenant, seedParties, testDb, tokenFor, type TestTenant } from '../support/harness.js';
import { startDbProxy, type DbProxy } from '../support/db-proxy.js';
import { eventually } from '../support/eventually.js';

let proxy: DbProxy;
let api: RunningService;
let issuer: RunningService;
let tenant: TestTenant;
let token: string;
let parties: { organisationId: string; customerId: string };

beforeAll(async () => {
  proxy = await startDbProxy(SERVICE_ENV.DATABASE_URL!);
  const viaProxy = { ...SERVICE_ENV, DATABASE_URL: proxy.via(SERVICE_ENV.DATABASE_URL!) };
  // A long lock wait, so the request held on a row lock below is still waiting when the proxy cuts it.
  [api, issuer] = await Promise.all([startService('api', { ...viaProxy, DATABASE_LOCK_TIMEOUT_MS: '30000' }), startService('auth', viaProxy)]);
  tenant = await newTenant();
  token = await tokenFor(tenant);
  parties = await seedParties(apiAs(token));
});

afterAll(async () => {
  await Promise.all([api?.stop(), issuer?.stop()]);
  await proxy?.close();
  await closeHarness();
});

const viaApi = () => request(api.url);
const debtBody = (marker: string) => ({
  customer_id: parties.customerId,
  organisation_id: parties.organisationId,
  currency: 'GBP',
  breakdown: { principal: 10000 },
  metadata: { marker },
});

function expectRetryLater(res: request.Response): void {
  expect(res.status).toBe(503);
  expect(res.body).toMatchObject({ object: 'error', code: 'service_unavailable' });
  expect(Number(res.headers['retry-after'])).toBeGreaterThan(0);
}

async function timed<T>(run: () => Promise<T>): Promise<{ value: T; seconds: number }> {
  const t0 = performance.now();
  const value = await run();
  return { value, seconds: (performance.now() - t0) / 1000 };
}

/** Debts of the tenant carrying `marker` in their metadata. */
const debtsMarked = async (marker: string) =>
  (await testDb()('debts').where({ tenant_id: tenant.tenantId }).whereRaw(`metadata->>'marker' = ?`, [marker])).length;

const alive = (s: RunningService) => s.child.exitCode === null && s.child.signalCode === null;

describe('no database for a while', () => {
  test('reads answer 503 with Retry-After within seconds, then 200 again from the same process', async () => {
    const pid = api.child.pid;
    proxy.cut();
    try {
      const { value: res, seconds } = await timed(() => viaApi().get('/debts').set('Authorization', `Bearer ${token}`));
      expectRetryLater(res);
      expect(seconds).toBeLessThan(5);
    } finally {
      proxy.restore();
    }
    await eventually(async () => (await viaApi().get('/debts').set('Authorization', `Bearer ${token}`)).status === 200, 'the API reads again', 10_000);
    expect(api.child.pid).toBe(pid);
    expect(alive(api)).toBe(true);
  });

  test('a keyed write refused during the outage answers 503 at once; retried with its key afterwards it is made exactly once', async () => {
    const marker = `outage-${randomBytes(4).toString('hex')}`;
    const key = `key-${marker}`;
    const send = () => viaApi().post('/debts').set('Authorization', `Bearer ${token}`).set('Idempotency-Key', key).send(debtBody(marker));
    proxy.cut();
    try {
      const { value: refused, seconds } = await timed(send);
      expectRetryLater(refused);
      expect(seconds).toBeLessThan(5);
    } finally {
      proxy.restore();
    }
    let created: request.Response | undefined;
    await eventually(async () => (created = await send()).status !== 503, 'the retry is served', 10_000);
    expect(created!.status).toBe(201);
    const replay = await send();
    expect(replay.status).toBe(201);
    expect(replay.headers['idempotent-replayed']).toBe('true');
    expect(replay.body.id).toBe(created!.body.id);
    expect(await debtsMarked(marker)).toBe(1);
  });

  test('a keyed write whose connection is lost mid-request gives its key back before answering 503, so its retry runs once', async () => {
    const debt = (await apiAs(token).post('/debts', debtBody('mid-request')).expect(201)).body;
    await apiAs(token).post(`/debts/${debt.id}/ready`).expect(200);
    // Another session holds the debt's row, so the pause waits inside its transaction, past its claim.
    const holder = new pg.Client({ connectionString: SERVICE_ENV.DATABASE_URL });
    await holder.connect();
    await holder.query('BEGIN');
    await holder.query('SELECT 1 FROM debts WHERE id = $1 FOR UPDATE', [debt.id]);
    const holderPid = (await holder.query('SELECT pg_backend_pid() AS pid')).rows[0].pid;
    const key = `pause-${randomBytes(4).toString('hex')}`;
    const pause = () => viaApi().post(`/debts/${debt.id}/pause`).set('Authorization', `Bearer ${token}`).set('Idempotency-Key', key).send({});
    let answered = false;
    const first = pause().then((res) => ((answered = true), res));
    try {
      await eventually(
        async () => (await testDb().raw('SELECT count(*)::int AS n FROM pg_stat_activity WHERE ? = ANY(pg_blocking_pids(pid))', [holderPid])).rows[0].n > 0,
        'the pause waits for the row',
        10_000,
      );
      proxy.cut();
      await new Promise((r) => setTimeout(r, 1500));
      // Still no primary: the API keeps trying to give the key back and has not answered yet.
      expect(answered).toBe(false);
    } finally {
      await holder.query('ROLLBACK');
      await holder.end();
      proxy.restore();
    }
    expectRetryLater(await first);
    const retried = await pause();
    expect(retried.status).toBe(200);
    expect(retried.headers['idempotent-replayed']).toBeUndefined();
    expect((await pause()).headers['idempotent-replayed']).toBe('true');
    const paused = await testDb()('events').where({ tenant_id: tenant.tenantId, type: 'debt.paused' }).whereRaw(`data->'object'->>'id' = ?`, [debt.id]);
    expect(paused).toHaveLength(1);
  });

  test('the issuer answers token requests 503 temporarily_unavailable with Retry-After, then issues again from the same process', async () => {
    const ask = () =>
      request(issuer.url)
        .post('/oauth/token')
        .auth(tenant.clientId, tenant.clientSecret)
        .type('form')
        .send({ grant_type: 'client_credentials', audience: AUDIENCE });
    expect((await ask()).status).toBe(200);
    const pid = issuer.child.pid;
    proxy.cut();
    try {
      const res = await ask();
      expect(res.status).toBe(503);
      expect(res.body).toEqual({ error: 'temporarily_unavailable', error_description: expect.stringMatching(/retry after \d+ s/) });
      expect(Number(res.headers['retry-after'])).toBeGreaterThan(0);
    } finally {
      proxy.restore();
    }
    await eventually(async () => (await ask()).status === 200, 'the issuer issues again', 10_000);
    expect(issuer.child.pid).toBe(pid);
    expect(alive(issuer)).toBe(true);
  });
});
