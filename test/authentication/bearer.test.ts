/**
 * Bearer token verification on the API (docs/api.md section 3; RFC 6750, RFC 9068): every bad token
 * is 401 `invalid_token` with `WWW-Authenticate`, a missing scope is 403 `insufficient_scope`.
 */
import { afterAll, beforeAll, describe, expect, test } from '@jest/globals';
import request from 'supertest';
import { API_URL, apiAs, closeHarness, newTenant, tokenFor, type TestTenant } from '../support/harness.js';
import { claimsFor, hs256WithPublicKey, issuerKey, signRs256, strangerKey, unsignedToken, type IssuerKey } from './forge.js';

afterAll(closeHarness);

let tenant: TestTenant;
let key: IssuerKey;

beforeAll(async () => {
  [tenant, key] = await Promise.all([newTenant(), issuerKey()]);
});

/** GET /debts with `authorization` as the raw Authorization header (omitted when undefined). */
function listDebts(authorization?: string) {
  const req = request(API_URL).get('/debts');
  return authorization === undefined ? req : req.set('Authorization', authorization);
}

/** Asserts the RFC 6750 401 and the API error body of docs/api.md section 3. */
function expectInvalidToken(res: request.Response) {
  expect(res.status).toBe(401);
  expect(res.headers['www-authenticate']).toMatch(/^Bearer .*error="invalid_token"/);
  expect(res.body).toMatchObject({ object: 'error', type: 'authentication_error', code: 'invalid_token' });
  expect(res.body.request_id).toBe(res.headers['request-id']);
  expect(res.body).not.toHaveProperty('data');
}

describe('accepted', () => {
  test('a token from the issuer', async () => {
    await listDebts(`Bearer ${await tokenFor(tenant)}`).expect(200);
  });

  test("a token built here with the issuer key and the issuer's claims (the forging baseline is sound)", async () => {
    await listDebts(`Bearer ${signRs256(claimsFor(tenant), key.privateKey, key.kid)}`).expect(200);
  });
});

describe('rejected with 401 invalid_token', () => {
  test('no Authorization header', async () => {
    expectInvalidToken(await listDebts());
  });

  test('another authentication scheme or a malformed header', async () => {
    for (const header of ['Basic Y2xpZW50OnNlY3JldA==', 'Bearer', 'Bearer ', 'Bearer a b', 'Token abc']) {
      expectInvalidToken(await listDebts(header));
    }
  });

  test('a bearer value that is not a JWT', async () => {
    for (const token of ['not-a-jwt', 'a.b.c', 'eyJhbGciOiJSUzI1NiJ9.e30']) {
      expectInvalidToken(await listDebts(`Bearer ${token}`));
    }
  });

  test('a token whose signature was tampered with', async () => {
    const token = await tokenFor(tenant);
    const [h, p, s] = token.split('.');
    const other = JSON.parse(Buffer.from(p!, 'base64url').toString());
    other.tenant_id = 'ten_000000000000000000000000';
    expectInvalidToken(await listDebts(`Bearer ${h}.${Buffer.from(JSON.stringify(other)).toString('base64url')}.${s}`));
  });

  test('an expired token', async () => {
    const now = Math.floor(Date.now() / 1000);
    const res = await listDebts(`Bearer ${signRs256({ ...claimsFor(tenant), iat: now - 7200, exp: now - 3600 }, key.privateKey, key.kid)}`);
    expectInvalidToken(res);
    expect(res.body.message).toMatch(/expired/);
  });

  test('a token signed by a key that is not in the JWKS (unknown kid, and a known kid with a stranger key)', async () => {
    const stranger = strangerKey();
    expectInvalidToken(await listDebts(`Bearer ${signRs256(claimsFor(tenant), stranger, 'not-a-published-kid')}`));
    expectInvalidToken(await listDebts(`Bearer ${signRs256(claimsFor(tenant), stranger, key.kid)}`));
  });

  test('a token for another audience', async () => {
    expectInvalidToken(await listDebts(`Bearer ${signRs256({ ...claimsFor(tenant), aud: 'https://other-api.example.com' }, key.privateKey, key.kid)}`));
  });

  test('a token from another issuer', async () => {
    expectInvalidToken(await listDebts(`Bearer ${signRs256({ ...claimsFor(tenant), iss: 'https://evil.example.com' }, key.privateKey, key.kid)}`));
  });

  test('an unsigned token (alg: none)', async () => {
    expectInvalidToken(await listDebts(`Bearer ${unsignedToken(claimsFor(tenant), key.kid)}`));
  });

  test("HS256 signed with the issuer's public key as the HMAC secret", async () => {
    expectInvalidToken(await listDebts(`Bearer ${hs256WithPublicKey(claimsFor(tenant), key.kid, key.publicPem)}`));
  });

  test('a JWT that is not an access token (typ other than at+jwt, RFC 9068 section 4)', async () => {
    expectInvalidToken(await listDebts(`Bearer ${signRs256(claimsFor(tenant), key.privateKey, key.kid, 'JWT')}`));
  });

  test('a token without exp (RFC 9068 section 2.2: required), which would never expire', async () => {
    const { exp: _omit, ...claims } = claimsFor(tenant);
    void _omit;
    expectInvalidToken(await listDebts(`Bearer ${signRs256(claims, key.privateKey, key.kid)}`));
  });

  test('a token without tenant_id', async () => {
    const { tenant_id: _omit, ...claims } = claimsFor(tenant);
    void _omit;
    expectInvalidToken(await listDebts(`Bearer ${signRs256(claims, key.privateKey, key.kid)}`));
  });

  test('the operational endpoints stay open without a token', async () => {
    await request(API_URL).get('/healthz').expect(200);
    await request(API_URL).get('/readyz').expect(200);
  });
});

describe('scopes', () => {
  test("a token without the route's scope is 403 insufficient_scope naming the scope", async () => {
    const t = await newTenant('debts:read');
    const api = apiAs(await tokenFor(t));
    await api.get('/debts').expect(200);
    for (const [res, scope] of [
      [await api.get('/customers'), 'customers:read'],
      [await api.get('/organisations'), 'organisations:read'],
      [await api.post('/organisations', { name: 'Nope Ltd' }), 'organisations:write'],
    ] as const) {
      expect(res.status).toBe(403);
      expect(res.body).toMatchObject({ object: 'error', type: 'permission_error', code: 'insufficient_scope' });
      expect(res.body.message).toContain(scope);
      expect(res.headers['www-authenticate']).toMatch(new RegExp(`^Bearer .*error="insufficient_scope".*scope="${scope}"`));
    }
  });

  test('a token narrowed at the token endpoint carries only the scopes asked for', async () => {
    const api = apiAs(await tokenFor(tenant, { scope: 'customers:read' }));
    await api.get('/customers').expect(200);
    expect((await api.get('/debts')).status).toBe(403);
    expect((await api.post('/customers', { kind: 'company', full_name: 'Nope Ltd' })).status).toBe(403);
  });
});
