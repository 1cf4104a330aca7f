/**
 * HTTP hardening of the API and the issuer (docs/api.md sections 3 and 11): a URL over Node's
 * header limit gets the service's JSON error with a request id and the security headers (not a
 * bare 431); tenant data is `Cache-Control: no-store`; the issuer sends `nosniff` and HSTS; no
 * browser origin is allowed by default and a listed one is, on both services; a wrong method on a
 * path that exists is 405 with `Allow`.
 */
import { afterAll, beforeAll, describe, expect, test } from '@jest/globals';
import request from 'supertest';
import type { RunningService } from '@dms/tools/processes';
import { API_URL, AUTH_URL, SERVICE_ENV, closeHarness, seedParties, signedInTenant } from '../support/harness.js';
import { serviceSet } from '../support/services.js';

const services = serviceSet();
const APP = 'https://app.example.com';
let t: Awaited<ReturnType<typeof signedInTenant>>;

beforeAll(async () => {
  t = await signedInTenant();
});

afterAll(async () => {
  await services.stopAll();
  await closeHarness();
});

/** Sends a GET whose URL is `length` characters of query: over Node's 16 KiB header limit. */
async function longUrl(base: string, length = 20_000): Promise<Response> {
  return fetch(`${base}/organisations?q=${'a'.repeat(length)}`);
}

describe('a URL over the header limit', () => {
  test('API: 431 with the error body, a request id and the security headers', async () => {
    const res = await longUrl(API_URL);
    expect(res.status).toBe(431);
    expect(res.headers.get('content-type')).toMatch(/^application\/json/);
    const body = (await res.json()) as { object: string; code: string; request_id: string };
    expect(body).toMatchObject({ object: 'error', type: 'invalid_request_error', code: 'request_header_too_large' });
    expect(body.request_id).toMatch(/^req_/);
    expect(res.headers.get('request-id')).toBe(body.request_id);
    expect(res.headers.get('x-content-type-options')).toBe('nosniff');
    expect(res.headers.get('strict-transport-security')).toMatch(/max-age=\d+/);
    expect(res.headers.get('cache-control')).toBe('no-store');
    // The service still answers afterwards.
    expect((await fetch(`${API_URL}/healthz`)).status).toBe(200);
  });

  test('issuer: 431 with an RFC 6749 error body and the security headers', async () => {
    const res = await longUrl(AUTH_URL);
    expect(res.status).toBe(431);
    expect(await res.json()).toMatchObject({ error: 'invalid_request' });
    expect(res.headers.get('x-content-type-options')).toBe('nosniff');
  });

  test('a URL under the limit is served as usual', async () => {
    expect((await longUrl(API_URL, 1000)).status).not.toBe(431);
  });
});

test('responses carrying tenant data are Cache-Control: no-store', async () => {
  const { customerId } = await seedParties(t.api);
  for (const path of ['/customers', `/customers/${customerId}`, '/debts', '/organisations']) {
    expect((await t.api.get(path).expect(200)).headers['cache-control']).toBe('no-store');
  }
  const created = await t.api.post('/customers', { kind: 'individual', first_name: 'Grace', last_name: 'Hopper' }).expect(201);
  expect(created.headers['cache-control']).toBe('no-store');
});

test('issuer answers carry nosniff and HSTS, the token response no-store', async () => {
  for (const path of ['/.well-known/oauth-authorization-server', '/.well-known/jwks.json', '/healthz', '/no-such-path']) {
    const res = await request(AUTH_URL).get(path);
    expect(res.headers['x-content-type-options']).toBe('nosniff');
    expect(res.headers['strict-transport-security']).toMatch(/max-age=\d+/);
  }
  const token = await request(AUTH_URL)
    .post('/oauth/token')
    .auth(t.tenant.clientId, t.tenant.clientSecret)
    .type('form')
    .send({ grant_type: 'client_credentials', audience: SERVICE_ENV.API_AUDIENCE });
  expect(token.status).toBe(200);
  expect(token.headers['x-content-type-options']).toBe('nosniff');
  expect(token.headers['cache-control']).toMatch(/no-store/);
});

describe('CORS', () => {
  const preflight = (base: string, path: string, origin: string, method = 'POST') =>
    request(base)
      .options(path)
      .set('Origin', origin)
      .set('Access-Control-Request-Method', method)
      .set('Access-Control-Request-Headers', 'authorization, content-type');
  const corsHeaders = (res: request.Response) => Object.keys(res.headers).filter((h) => h.startsWith('access-control-'));

  test('by default no origin is allowed: preflights and requests of any origin get no Access-Control header', async () => {
    for (const [base, path] of [
      [API_URL, '/debts'],
      [AUTH_URL, '/oauth/token'],
      [AUTH_URL, '/.well-known/jwks.json'],
    ] as const) {
      const res = await preflight(base, path, 'https://evil.example');
      expect(res.status).toBe(204);
      expect(corsHeaders(res)).toEqual([]);
    }
    expect(corsHeaders(await t.api.get('/debts').set('Origin', 'https://evil.example').expect(200))).toEqual([]);
    const token = await request(AUTH_URL)
      .post('/oauth/token')
      .set('Origin', 'https://evil.example')
      .auth(t.tenant.clientId, t.tenant.clientSecret)
      .type('form')
      .send({ grant_type: 'client_credentials', audience: SERVICE_ENV.API_AUDIENCE })
      .expect(200);
    expect(corsHeaders(token)).toEqual([]);
    expect(corsHeaders(await request(AUTH_URL).get('/.well-known/jwks.json').set('Origin', 'https://evil.example'))).toEqual([]);
  });

  describe(`with CORS_ALLOWED_ORIGINS=${APP}`, () => {
    let api: RunningService;
    let auth: RunningService;
    beforeAll(async () => {
      [api, auth] = await Promise.all([
        services.start('api', { ...SERVICE_ENV, CORS_ALLOWED_ORIGINS: APP }),
        services.start('auth', { ...SERVICE_ENV, CORS_ALLOWED_ORIGINS: APP }),
      ]);
    });

    test('the listed origin is allowed on both services, by its own value', async () => {
      const apiPreflight = await preflight(api.url, '/debts', APP).expect(204);
      expect(apiPreflight.headers).toMatchObject({ 'access-control-allow-origin': APP, 'access-control-allow-methods': 'GET, HEAD, POST' });
      expect(apiPreflight.headers['access-control-allow-headers']).toMatch(/Authorization/);
      const authPreflight = await preflight(auth.url, '/oauth/token', APP).expect(204);
      expect(authPreflight.headers).toMatchObject({ 'access-control-allow-origin': APP, 'access-control-allow-methods': 'POST' });
      const token = await request(auth.url)
        .post('/oauth/token')
        .set('Origin', APP)
        .auth(t.tenant.clientId, t.tenant.clientSecret)
        .type('form')
        .send({ grant_type: 'client_credentials', audience: SERVICE_ENV.API_AUDIENCE })
        .expect(200);
      expect(token.headers['access-control-allow-origin']).toBe(APP);
      const list = await request(api.url).get('/debts').set('Origin', APP).set('Authorization', `Bearer ${t.token}`).expect(200);
      expect(list.headers['access-control-allow-origin']).toBe(APP);
      expect(list.headers['access-control-expose-headers']).toMatch(/Request-Id/);
    });

    test('another origin is still not allowed, nor echoed', async () => {
      for (const [base, path] of [
        [api.url, '/debts'],
        [auth.url, '/oauth/token'],
      ] as const) {
        const res = await preflight(base, path, 'https://evil.example');
        expect(res.status).toBe(204);
        expect(res.headers['access-control-allow-origin']).toBeUndefined();
      }
    });

    test('a setting that is not an origin stops the service at start', async () => {
      await expect(services.start('api', { ...SERVICE_ENV, CORS_ALLOWED_ORIGINS: '*' })).rejects.toThrow(/exited/);
    });
  });
});

describe('a wrong method on a path that exists', () => {
  test('is 405 with Allow listing the methods the path has', async () => {
    const res = await t.api.put('/debts', {}).expect(405);
    expect(res.body).toMatchObject({ object: 'error', code: 'method_not_allowed' });
    expect(res.headers.allow).toBe('GET, HEAD, POST, OPTIONS');
    const one = await t.api.post('/customers/cus_0000000000000000000000').expect(405);
    expect(one.headers.allow).toMatch(/^DELETE, GET, HEAD, PATCH(, PUT)?, OPTIONS$/);
  });

  test('OPTIONS on it answers Allow; a path that does not exist is still 404', async () => {
    const res = await request(API_URL).options('/debts').set('Authorization', `Bearer ${t.token}`);
    expect([200, 204]).toContain(res.status);
    expect(res.headers.allow?.replace(/\s/g, '')).toMatch(/^GET,HEAD,POST/);
    expect((await t.api.put('/no-such-path', {}).expect(404)).body.code).toBe('route_not_found');
  });
});
