/**
 * Requests without valid credentials are limited per source address (docs/api.md sections 1 and
 * 3): on the API, requests whose token fails authentication; at the issuer, failed token requests
 * per client and address.
 * Over the budget: 429 with `Retry-After` and `RateLimit` headers. Valid clients are never limited
 * by these budgets, and a client cannot pick its address with a forged `X-Forwarded-For`.
 *
 * Extra API and issuer instances with tiny budgets run beside the suite's own. Each test speaks
 * from addresses of its own (random documentation prefixes in `X-Forwarded-For`, believed from
 * loopback by the default TRUST_PROXY), so no test shares a budget with another or an earlier run.
 */
import { randomBytes } from 'node:crypto';
import request from 'supertest';
import { REDIS_URL, canReachRedis } from './redis.js';
import { afterAll, beforeAll, describe, expect, test } from '@jest/globals';
import { startService, type RunningService } from '@dms/tools/processes';
import { AUDIENCE, SERVICE_ENV, closeHarness, newTenant, signedInTenant, type TestTenant } from '../support/harness.js';

const started: RunningService[] = [];

afterAll(async () => {
  await Promise.all(started.map((s) => s.stop()));
  await closeHarness();
});

async function extra(name: 'api' | 'auth', env: Record<string, string>): Promise<RunningService> {
  const service = await startService(name, { ...SERVICE_ENV, ...env });
  started.push(service);
  return service;
}

/** A fresh address in its own IPv6 /56 of the documentation prefix 2001:db8::/32. */
const address = () => `2001:db8:${randomBytes(2).toString('hex')}:${randomBytes(1).toString('hex')}00::1`;

/** Parses `"unauthenticated"; r=2; t=60` into its parameters. */
function params(header: string | undefined): Record<string, string> {
  expect(header).toMatch(/^"unauthenticated"(; [a-z]+=[^;]+)+$/);
  return Object.fromEntries(
    header!
      .split('; ')
      .slice(1)
      .map((p) => p.split('=') as [string, string]),
  );
}

function expectRetryAfter(res: request.Response, windowSeconds: number): void {
  const retryAfter = Number(res.headers['retry-after']);
  expect(Number.isInteger(retryAfter)).toBe(true);
  expect(retryAfter).toBeGreaterThan(0);
  expect(retryAfter).toBeLessThanOrEqual(windowSeconds);
}

const apiGet = (base: string, from: string, authorization: string) =>
  request(base).get('/organisations').set('X-Forwarded-For', from).set('Authorization', authorization);

describe('API: failed authentication per source address', () => {
  let api: RunningService;
  let valid: string;
  beforeAll(async () => {
    [api, { token: valid }] = await Promise.all([extra('api', { AUTH_FAILURE_LIMIT: '3', AUTH_FAILURE_WINDOW_SECONDS: '60' }), signedInTenant()]);
  });

  test('failures count down in RateLimit headers; the one over the budget is 429 rate_limit_error with Retry-After', async () => {
    const from = address();
    const remaining: number[] = [];
    for (const authorization of ['Bearer not-a-token', 'Basic Y2xpZW50OnNlY3JldA==', 'Bearer a.b.c']) {
      const res = await apiGet(api.url, from, authorization).expect(401);
      expect(res.body.code).toBe('invalid_token');
      remaining.push(Number(params(res.headers['ratelimit']).r));
    }
    expect(remaining).toEqual([2, 1, 0]);

    const res = await apiGet(api.url, from, 'Bearer not-a-token').expect(429);
    expect(res.body).toMatchObject({ object: 'error', type: 'rate_limit_error', code: 'rate_limited' });
    expect(res.body.message).toMatch(/from this address without a valid token/);
    expect(res.body.request_id).toBe(res.headers['request-id']);
    expectRetryAfter(res, 60);
    expect(Number(params(res.headers['ratelimit']).r)).toBe(0);
    expect(Number(params(res.headers['ratelimit-policy']).q)).toBe(3);
    // No header at all counts the same as a bad one.
    await request(api.url).get('/organisations').set('X-Forwarded-For', from).expect(429);
  });

  test('a valid token from an address over its budget still passes, with the per-client headers only', async () => {
    const from = address();
    for (let i = 0; i < 4; i++) await apiGet(api.url, from, 'Bearer nope');
    await apiGet(api.url, from, 'Bearer nope').expect(429);
    const ok = await apiGet(api.url, from, `Bearer ${valid}`).expect(200);
    expect(ok.headers['ratelimit']).toMatch(/^"client"/);
  });

  test('valid requests never spend the budget, and each address has its own', async () => {
    const from = address();
    for (let i = 0; i < 10; i++) await apiGet(api.url, from, `Bearer ${valid}`).expect(200);
    for (let i = 0; i < 3; i++) await apiGet(api.url, from, 'Bearer nope').expect(401);
    await apiGet(api.url, from, 'Bearer nope').expect(429);
    await apiGet(api.url, address(), 'Bearer nope').expect(401);
  });

  test('the operational and documentation endpoints stay open to an address over its budget', async () => {
    const from = address();
    for (let i = 0; i < 4; i++) await apiGet(api.url, from, 'Bearer nope');
    await request(api.url).get('/healthz').set('X-Forwarded-For', from).expect(200);
    await request(api.url).get('/openapi.json').set('X-Forwarded-For', from).expect(200);
  });

  test('X-Forwarded-For from a peer that is not a trusted proxy is ignored: forged addresses share the real one', async () => {
    const strict = await extra('api', { AUTH_FAILURE_LIMIT: '3', TRUST_PROXY: '' });
    for (let i = 0; i < 3; i++) await apiGet(strict.url, address(), 'Bearer nope').expect(401);
    await apiGet(strict.url, address(), 'Bearer nope').expect(429);
  });
});

describe('issuer: failed token requests per client and source address', () => {
  let issuer: RunningService;
  let client: TestTenant;
  const token = (from: string, secret = client.clientSecret) =>
    request(issuer.url)
      .post('/oauth/token')
      .set('X-Forwarded-For', from)
      .auth(client.clientId, secret)
      .type('form')
      .send({ grant_type: 'client_credentials', audience: AUDIENCE });

  beforeAll(async () => {
    [issuer, client] = await Promise.all([extra('auth', { TOKEN_FAILURE_LIMIT: '3', TOKEN_FAILURE_WINDOW_SECONDS: '60' }), newTenant()]);
  });

  test('after the budget of failures, every token request of the address is 429 with Retry-After and an RFC 6749 error body', async () => {
    const from = address();
    for (let i = 0; i < 3; i++) {
      const res = await token(from, 'cs_wrong').expect(401);
      expect(res.body.error).toBe('invalid_client');
      expect(Number(params(res.headers['ratelimit']).r)).toBe(2 - i);
    }
    // Refused before the credentials are checked: guessing stops, even with the right secret.
    for (const secret of ['cs_wrong', client.clientSecret]) {
      const res = await token(from, secret).expect(429);
      expect(res.headers['content-type']).toMatch(/^application\/json/);
      expect(res.headers['cache-control']).toBe('no-store');
      expect(res.body).toEqual({ error: 'temporarily_unavailable', error_description: expect.stringMatching(/too many failed token requests/) });
      expect(res.body.error_description).not.toContain(client.clientSecret);
      expectRetryAfter(res, 60);
      expect(Number(params(res.headers['ratelimit-policy']).q)).toBe(3);
    }
  });

  test('a valid client is not affected: successes never count, and another address keeps its budget', async () => {
    const busy = address();
    for (let i = 0; i < 8; i++) await token(busy).expect(200);
    const attacker = address();
    for (let i = 0; i < 4; i++) await token(attacker, 'cs_wrong');
    await token(attacker).expect(429);
    const res = await token(address()).expect(200);
    expect(res.body.token_type).toBe('Bearer');
    await token(busy).expect(200);
  });

  test('budgets are per client as well as address: one client locked out does not lock out another behind the same proxy', async () => {
    const other = await newTenant();
    const from = address();
    for (let i = 0; i < 3; i++) await token(from, 'cs_wrong').expect(401);
    await token(from).expect(429);
    // Another client at the same address (one ingress, TRUST_PROXY not naming it): unaffected, over Basic and in the body.
    const basic = await request(issuer.url)
      .post('/oauth/token')
      .set('X-Forwarded-For', from)
      .auth(other.clientId, other.clientSecret)
      .type('form')
      .send({ grant_type: 'client_credentials', audience: AUDIENCE })
      .expect(200);
    expect(basic.body.access_token).toEqual(expect.any(String));
    const post = (secret: string) =>
      request(issuer.url)
        .post('/oauth/token')
        .set('X-Forwarded-For', from)
        .type('form')
        .send({ grant_type: 'client_credentials', audience: AUDIENCE, client_id: other.clientId, client_secret: secret });
    expect((await post(other.clientSecret).expect(200)).body.token_type).toBe('Bearer');
    // That client's own failures, sent in the body (client_secret_post), spend its own budget only.
    for (let i = 0; i < 3; i++) await post('cs_wrong').expect(401);
    await post(other.clientSecret).expect(429);
    await token(from).expect(429);
    await token(address()).expect(200);
  });

  test('the JWKS and metadata stay open to an address over its budget', async () => {
    const from = address();
    for (let i = 0; i < 4; i++) await token(from, 'cs_wrong');
    await request(issuer.url).get('/.well-known/jwks.json').set('X-Forwarded-For', from).expect(200);
    await request(issuer.url).get('/.well-known/oauth-authorization-server').set('X-Forwarded-For', from).expect(200);
  });
});

const redisUp = await canReachRedis(REDIS_URL);

describe('shared through Redis (REDIS_URL)', () => {
  (redisUp ? test : test.skip)('two API instances and two issuers share the per-address budgets', async () => {
    const env = { REDIS_URL, AUTH_FAILURE_LIMIT: '3', TOKEN_FAILURE_LIMIT: '3' };
    const [api1, api2, auth1, auth2, client] = await Promise.all([extra('api', env), extra('api', env), extra('auth', env), extra('auth', env), newTenant()]);
    const from = address();
    await apiGet(api1.url, from, 'Bearer nope').expect(401);
    await apiGet(api2.url, from, 'Bearer nope').expect(401);
    await apiGet(api1.url, from, 'Bearer nope').expect(401);
    await apiGet(api2.url, from, 'Bearer nope').expect(429);

    const wrong = (base: string) =>
      request(base)
        .post('/oauth/token')
        .set('X-Forwarded-For', from)
        .auth(client.clientId, 'cs_wrong')
        .type('form')
        .send({ grant_type: 'client_credentials', audience: AUDIENCE });
    await wrong(auth1.url).expect(401);
    await wrong(auth2.url).expect(401);
    await wrong(auth1.url).expect(401);
    await wrong(auth2.url).expect(429);
  });
});
