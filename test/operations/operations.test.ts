/**
 * What operators rely on: `/healthz`, `/readyz` (database reachable), `/metrics` (Prometheus), and
 * one structured request log line per request with request id, tenant, client, status and
 * duration, never a token.
 */
import { spawn } from 'node:child_process';
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import request from 'supertest';
import { afterAll, describe, expect, test } from '@jest/globals';
import { REPO_ROOT, freePort } from '@dms/tools/processes';
import { API_URL, SERVICE_ENV, closeHarness, signedInTenant } from '../support/harness.js';
import { eventually } from '../support/eventually.js';

afterAll(closeHarness);

const API_LOG = join(SERVICE_ENV.TEST_LOG_DIR!, `api-${new URL(API_URL).port}.log`);

type LogLine = Record<string, any>;

/** Waits until the API's log file has the line of request `requestId` (logs are written async). */
async function logLineOf(requestId: string): Promise<LogLine> {
  return eventually(async () => {
    const lines = (await readFile(API_LOG, 'utf8')).split('\n').filter(Boolean);
    return lines.map((l) => JSON.parse(l) as LogLine).find((l) => l.req?.id === requestId);
  }, `the log line of ${requestId} in ${API_LOG}`);
}

describe('probes', () => {
  test('/healthz answers 200 without a token', async () => {
    const res = await request(API_URL).get('/healthz').expect(200);
    expect(res.body).toEqual({ status: 'ok' });
    expect(res.headers['request-id']).toMatch(/^req_/);
  });

  test('/readyz answers 200 while the database is reachable', async () => {
    const res = await request(API_URL).get('/readyz').expect(200);
    expect(res.body).toEqual({ status: 'ready' });
  });

  test('/readyz answers 503 when the database is not reachable, while /healthz stays 200', async () => {
    const port = await freePort();
    const url = `http://127.0.0.1:${port}`;
    const badDb = new URL(SERVICE_ENV.DATABASE_URL!);
    badDb.pathname = '/dms_no_such_database';
    // Spawned directly: startService would wait for a readiness that never comes.
    const child = spawn(process.execPath, [join(REPO_ROOT, 'services', 'api', 'dist', 'server.js')], {
      env: { ...process.env, ...SERVICE_ENV, DATABASE_URL: badDb.href, PORT: String(port), LOG_LEVEL: 'silent' },
      stdio: 'ignore',
    });
    try {
      let alive = false;
      // Up to 30 s: process start-up is slow on a loaded 2-core machine.
      for (let i = 0; i < 300 && !alive; i++) {
        alive = await fetch(`${url}/healthz`).then(
          (r) => r.status === 200,
          () => false,
        );
        if (!alive) await new Promise((r) => setTimeout(r, 100));
      }
      expect(alive).toBe(true);
      const res = await request(url).get('/readyz').expect(503);
      expect(res.body).toEqual({ status: 'unavailable' });
    } finally {
      const exited = new Promise((r) => child.once('exit', r));
      child.kill('SIGTERM');
      await exited;
    }
  });
});

describe('/metrics', () => {
  test('exposes the request-duration histogram by method, route template and status', async () => {
    const { api } = await signedInTenant();
    const org = await api.post('/organisations', { name: 'Metered Ltd' }).expect(201);
    await api.get(`/organisations/${org.body.id}`).expect(200);

    const res = await request(API_URL).get('/metrics').expect(200);
    expect(res.headers['content-type']).toMatch(/^text\/plain/);
    expect(res.text).toContain('# TYPE http_request_duration_seconds histogram');
    expect(res.text).toMatch(/http_request_duration_seconds_bucket\{[^}]*method="GET"[^}]*route="\/organisations\/\{id\}"[^}]*status="200"/);
    expect(res.text).toMatch(/http_request_duration_seconds_count\{[^}]*method="POST"[^}]*route="\/organisations"[^}]*status="201"[^}]*\} [1-9]/);
    // Labels are templates, never ids: the series count stays bounded.
    expect(res.text).not.toContain(org.body.id);
    expect(res.text).toContain('process_cpu_seconds_total');
  });

  test('labels every request with its operation template, whatever the path and wherever it failed', async () => {
    const { api } = await signedInTenant();
    const unknownDebt = 'deb_000000000000000000000000';
    await api.get(`/debts/${unknownDebt}/payments`).expect(404);
    await api.get('/debts/search?query=no_such_field%3A1').expect(400);
    await request(API_URL).get(`/debts/${unknownDebt}`).expect(401);
    await api.get('/no/such/path/deb_1').expect(404);

    const text = (await request(API_URL).get('/metrics').expect(200)).text;
    const routes = new Set([...text.matchAll(/http_request_duration_seconds_count\{[^}]*route="([^"]*)"/g)].map((m) => m[1]));
    expect([...routes]).toEqual(expect.arrayContaining(['/debts/{debtId}/payments', '/debts/search', '/debts/{id}', 'unmatched']));
    // No label carries an id or a raw path: each is a documented template or one of two fixed words.
    const doc = (await request(API_URL).get('/openapi.json').expect(200)).body as { paths: Record<string, unknown> };
    for (const route of routes) expect(route! in doc.paths || route === 'unmatched' || route === 'replayed').toBe(true);
    expect(text).not.toContain(unknownDebt);
  });
});

describe('request logs', () => {
  test('carry request id, tenant, client, method, path, status and duration', async () => {
    const { tenant, api } = await signedInTenant();
    const res = await api.post('/organisations', { name: 'Logged Ltd' }).expect(201);
    const line = await logLineOf(res.headers['request-id']!);
    expect(line).toMatchObject({
      service: 'api',
      req: { id: res.headers['request-id'], method: 'POST', path: '/organisations' },
      tenant_id: tenant.tenantId,
      client_id: tenant.clientId,
      res: { status: 201 },
    });
    expect(typeof line.responseTime).toBe('number');
    expect(line.responseTime).toBeGreaterThanOrEqual(0);
  });

  test('log failures too, with their status', async () => {
    const { tenant, api } = await signedInTenant();
    const res = await api.get('/debts/deb_000000000000000000000000').expect(404);
    const line = await logLineOf(res.headers['request-id']!);
    expect(line).toMatchObject({ tenant_id: tenant.tenantId, client_id: tenant.clientId, res: { status: 404 } });
  });

  test('never contain the bearer token, valid or not, nor the query string', async () => {
    const { token, api } = await signedInTenant();
    const ok = await api.get('/organisations?limit=5').expect(200);
    const forged = `${token.slice(0, -8)}AAAAAAAA`;
    const bad = await request(API_URL).get('/organisations').set('Authorization', `Bearer ${forged}`).expect(401);

    const okLine = await logLineOf(ok.headers['request-id']!);
    expect(okLine.req.path).toBe('/organisations');
    const badLine = await logLineOf(bad.headers['request-id']!);
    expect(badLine.res.status).toBe(401);
    expect(badLine.tenant_id).toBeUndefined();

    const log = await readFile(API_LOG, 'utf8');
    for (const secret of [token, forged, token.split('.')[1]!, token.split('.')[2]!]) expect(log).not.toContain(secret);
    expect(log).not.toMatch(/authorization/i);
  });
});
