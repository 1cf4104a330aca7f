/**
 * SIGTERM drains a service: it stops accepting connections at once, answers requests already in
 * flight (here a request whose body is still arriving), reports /readyz 503 to connections that
 * are still open, closes them after their last response, and exits 0 without needing the grace
 * period; a request that never completes is cut off when the grace period ends, and the process
 * still exits 0. Logs are JSON lines throughout.
 */
import { afterAll, describe, expect, test } from '@jest/globals';
import { readFileSync } from 'node:fs';
import type { RunningService } from '@dms/tools/processes';
import { AUDIENCE, SERVICE_ENV, closeHarness, newTenant, signedInTenant } from '../support/harness.js';
import { serviceSet } from '../support/services.js';
import { openConnection, requestHead, type RawConnection } from './raw-http.js';

const services = serviceSet();
const start = services.start;

afterAll(async () => {
  await services.stopAll();
  await closeHarness();
});

const exited = (s: RunningService) => new Promise<number | null>((resolve) => s.child.once('exit', (code) => resolve(code)));
const pause = (ms: number) => new Promise((r) => setTimeout(r, ms));

/**
 * Sends `head` and the first half of `body`, SIGTERMs the service, then checks that new
 * connections are refused before sending the rest of the body and a pipelined `GET /readyz`.
 */
async function drainWithRequestInFlight(service: RunningService, head: string, body: string) {
  const exit = exited(service);
  const conn: RawConnection = await openConnection(service.port);
  conn.write(head + body.slice(0, 5));
  await pause(300);
  service.child.kill('SIGTERM');
  await pause(300);
  await expect(openConnection(service.port)).rejects.toThrow(/ECONNREFUSED/);
  conn.write(body.slice(5) + requestHead('GET', '/readyz', {}, 0));
  const responses = await conn.closed;
  return { responses, code: await exit, log: readFileSync(service.logFile, 'utf8') };
}

/** oidc-provider's notice on Node.js 20 (the images run Node 22, where it is not printed). */
const RUNTIME_NOTICE = /^oidc-provider WARNING: Unsupported runtime\./;

function expectJsonLogs(log: string) {
  const lines = log.split('\n').filter((l) => l && !RUNTIME_NOTICE.test(l));
  expect(lines.length).toBeGreaterThan(2);
  for (const line of lines)
    expect(JSON.parse(line)).toEqual(
      expect.objectContaining({ level: expect.any(Number), time: expect.any(String), service: expect.any(String), msg: expect.any(String) }),
    );
  return lines.map((l) => JSON.parse(l) as { msg: string });
}

describe('api', () => {
  test('SIGTERM with a request in flight: it completes, readiness turns 503, exit 0 before the grace period', async () => {
    const { token } = await signedInTenant();
    const api = await start('api', { ...SERVICE_ENV, SHUTDOWN_GRACE_SECONDS: '20' });
    const body = JSON.stringify({ name: 'Drained Utilities' });
    const head = requestHead('POST', '/organisations', { Authorization: `Bearer ${token}`, 'Content-Type': 'application/json' }, Buffer.byteLength(body));
    const { responses, code, log } = await drainWithRequestInFlight(api, head, body);

    expect(responses.map((r) => r.status)).toEqual([201, 503]);
    expect(JSON.parse(responses[0]!.body)).toMatchObject({ name: 'Drained Utilities' });
    expect(responses[1]!.headers.connection).toBe('close');
    expect(code).toBe(0);
    const msgs = expectJsonLogs(log).map((l) => l.msg);
    expect(msgs).toEqual(expect.arrayContaining(['draining', 'stopped']));
    expect(msgs).not.toContain('grace period over, closing remaining connections');
  });

  test('a request that never completes is cut off at the end of the grace period; exit 0', async () => {
    const { token } = await signedInTenant();
    const api = await start('api', { ...SERVICE_ENV, SHUTDOWN_GRACE_SECONDS: '1' });
    const exit = exited(api);
    const conn = await openConnection(api.port);
    conn.write(requestHead('POST', '/organisations', { Authorization: `Bearer ${token}`, 'Content-Type': 'application/json' }, 100) + '{"na');
    await pause(200);
    api.child.kill('SIGTERM');
    expect(await conn.closed).toEqual([]);
    expect(await exit).toBe(0);
    expect(readFileSync(api.logFile, 'utf8')).toContain('grace period over, closing remaining connections');
  });
});

describe('auth', () => {
  test('SIGTERM with a token request in flight: the token is issued, readiness turns 503, exit 0', async () => {
    const tenant = await newTenant();
    const auth = await start('auth', { ...SERVICE_ENV, SHUTDOWN_GRACE_SECONDS: '20' });
    const body = new URLSearchParams({ grant_type: 'client_credentials', audience: AUDIENCE }).toString();
    const basic = Buffer.from(`${tenant.clientId}:${tenant.clientSecret}`).toString('base64');
    const head = requestHead(
      'POST',
      '/oauth/token',
      { Authorization: `Basic ${basic}`, 'Content-Type': 'application/x-www-form-urlencoded' },
      Buffer.byteLength(body),
    );
    const { responses, code, log } = await drainWithRequestInFlight(auth, head, body);

    expect(responses.map((r) => r.status)).toEqual([200, 503]);
    expect(JSON.parse(responses[0]!.body)).toMatchObject({ token_type: 'Bearer', access_token: expect.any(String) });
    expect(code).toBe(0);
    const msgs = expectJsonLogs(log).map((l) => l.msg);
    expect(msgs).toEqual(expect.arrayContaining(['draining', 'stopped']));
    expect(msgs).not.toContain('grace period over, closing remaining connections');
  });
});

describe('metrics', () => {
  test('the issuer counts issued tokens; the API times requests by route', async () => {
    const authUrl = process.env.TEST_AUTH_URL!;
    const { api } = await signedInTenant();
    await api.get('/organisations').expect(200);
    const authMetrics = await (await fetch(`${authUrl}/metrics`)).text();
    expect(authMetrics).toMatch(/^oauth_tokens_issued_total\{grant_type="client_credentials",service="auth"\} [1-9]/m);
    const apiMetrics = await (await fetch(`${process.env.TEST_API_URL}/metrics`)).text();
    const counted = apiMetrics
      .split('\n')
      .filter((l) => l.startsWith('http_request_duration_seconds_count{'))
      .filter((l) => l.includes('method="GET"') && l.includes('status="200"') && /route="\/organisations\/?"/.test(l) && l.includes('service="api"'));
    expect(counted).toEqual([expect.stringMatching(/ [1-9]\d*$/)]);
  });
});
