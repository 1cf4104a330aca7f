/**
 * The issuer's token endpoint, metadata and JWKS (docs/api.md section 2; RFC 6749 4.4 and 5.2,
 * RFC 8707, RFC 9068, RFC 8414, RFC 7517).
 */
import { afterAll, beforeAll, describe, expect, test } from '@jest/globals';
import request from 'supertest';
import jwt from 'jsonwebtoken';
import { SCOPES } from '@dms/scopes';
import { revokeClient, rotateClientSecret } from '@dms/auth/domain';
import { SecretBox } from '@dms/secrets';
import { AUDIENCE, AUTH_URL, SERVICE_ENV, closeHarness, newTenant, testDb, type TestTenant } from '../support/harness.js';
import { eventually } from '../support/eventually.js';

afterAll(closeHarness);

const ISSUER = SERVICE_ENV.AUTH_ISSUER!;

/** POSTs a form to the token endpoint, optionally with HTTP Basic client authentication. */
function tokenRequest(form: Record<string, string>, basic?: { id: string; secret: string }) {
  const req = request(AUTH_URL).post('/oauth/token').type('form');
  if (basic) req.auth(basic.id, basic.secret);
  return req.send(form);
}

const basicOf = (t: TestTenant) => ({ id: t.clientId, secret: t.clientSecret });
const grant = (extra: Record<string, string> = {}) => ({ grant_type: 'client_credentials', audience: AUDIENCE, ...extra });

let tenant: TestTenant;
let readOnly: TestTenant;

beforeAll(async () => {
  [tenant, readOnly] = await Promise.all([newTenant(), newTenant('debts:read customers:read')]);
});

describe('success', () => {
  test('HTTP Basic client authentication returns the RFC 6749 5.1 body with Cache-Control: no-store', async () => {
    const res = await tokenRequest(grant(), basicOf(tenant)).expect(200);
    expect(res.headers['content-type']).toMatch(/^application\/json/);
    expect(res.headers['cache-control']).toBe('no-store');
    expect(Object.keys(res.body).sort()).toEqual(['access_token', 'expires_in', 'scope', 'token_type']);
    expect(res.body).toMatchObject({ token_type: 'Bearer', expires_in: 3600 });
    expect(typeof res.body.access_token).toBe('string');
  });

  test('client_id and client_secret in the form body work as well', async () => {
    const res = await tokenRequest(grant({ client_id: tenant.clientId, client_secret: tenant.clientSecret })).expect(200);
    expect(res.headers['cache-control']).toBe('no-store');
    expect(res.body.token_type).toBe('Bearer');
  });

  test('the access token is an RS256 at+jwt with the claims of docs/api.md section 2', async () => {
    const before = Math.floor(Date.now() / 1000);
    const res = await tokenRequest(grant({ scope: 'debts:read debts:write' }), basicOf(tenant)).expect(200);
    const decoded = jwt.decode(res.body.access_token, { complete: true })!;
    const jwks = await request(AUTH_URL).get('/.well-known/jwks.json').expect(200);
    expect(decoded.header.alg).toBe('RS256');
    expect(decoded.header.typ).toBe('at+jwt');
    expect(jwks.body.keys.map((k: { kid: string }) => k.kid)).toContain(decoded.header.kid);

    const claims = decoded.payload as Record<string, unknown>;
    expect(claims).toMatchObject({
      iss: ISSUER,
      sub: tenant.clientId,
      aud: AUDIENCE,
      client_id: tenant.clientId,
      tenant_id: tenant.tenantId,
      scope: 'debts:read debts:write',
    });
    expect(typeof claims.jti).toBe('string');
    expect(claims.iat).toBeGreaterThanOrEqual(before - 5);
    expect((claims.exp as number) - (claims.iat as number)).toBe(3600);
    // Verifies with the published key: the token is really signed by the JWKS key of its kid.
    const jwk = jwks.body.keys.find((k: { kid: string }) => k.kid === decoded.header.kid);
    const { createPublicKey } = await import('node:crypto');
    expect(() => jwt.verify(res.body.access_token, createPublicKey({ key: jwk, format: 'jwk' }), { algorithms: ['RS256'] })).not.toThrow();
  });

  test('each token has its own jti', async () => {
    const [a, b] = await Promise.all([tokenRequest(grant(), basicOf(tenant)), tokenRequest(grant(), basicOf(tenant))]);
    expect((jwt.decode(a.body.access_token) as { jti: string }).jti).not.toBe((jwt.decode(b.body.access_token) as { jti: string }).jti);
  });

  test('an omitted scope grants every scope the client is allowed', async () => {
    const all = await tokenRequest(grant(), basicOf(tenant)).expect(200);
    expect(all.body.scope.split(' ').sort()).toEqual([...SCOPES].sort());
    const limited = await tokenRequest(grant(), basicOf(readOnly)).expect(200);
    expect(limited.body.scope.split(' ').sort()).toEqual(['customers:read', 'debts:read']);
    expect((jwt.decode(limited.body.access_token) as { scope: string }).scope.split(' ').sort()).toEqual(['customers:read', 'debts:read']);
  });

  test('a narrower scope is granted as asked', async () => {
    const res = await tokenRequest(grant({ scope: 'debts:read' }), basicOf(readOnly)).expect(200);
    expect(res.body.scope).toBe('debts:read');
  });

  test('RFC 8707 `resource` is accepted in place of `audience`', async () => {
    const res = await tokenRequest({ grant_type: 'client_credentials', resource: AUDIENCE }, basicOf(tenant)).expect(200);
    expect((jwt.decode(res.body.access_token) as { aud: string }).aud).toBe(AUDIENCE);
  });
});

describe('errors (RFC 6749 5.2)', () => {
  /** Asserts an RFC 6749 error body with `Cache-Control: no-store`. */
  function expectOAuthError(res: request.Response, status: number, error: string) {
    expect(res.status).toBe(status);
    expect(res.body.error).toBe(error);
    expect(res.headers['cache-control']).toBe('no-store');
    expect(res.body).not.toHaveProperty('access_token');
  }

  test('a wrong secret and an unknown client get the same 401 invalid_client with WWW-Authenticate (Basic)', async () => {
    const wrong = await tokenRequest(grant(), { id: tenant.clientId, secret: `${tenant.clientSecret}x` });
    const unknown = await tokenRequest(grant(), { id: 'cli_doesnotexist0000000000000', secret: tenant.clientSecret });
    for (const res of [wrong, unknown]) {
      expectOAuthError(res, 401, 'invalid_client');
      expect(res.headers['www-authenticate']).toMatch(/^Basic /);
    }
    expect(wrong.body).toEqual(unknown.body);
  });

  test('a wrong secret and an unknown client get the same 401 invalid_client with WWW-Authenticate (form body)', async () => {
    const wrong = await tokenRequest(grant({ client_id: tenant.clientId, client_secret: 'cs_wrong' }));
    const unknown = await tokenRequest(grant({ client_id: 'cli_doesnotexist0000000000000', client_secret: 'cs_wrong' }));
    for (const res of [wrong, unknown]) {
      expectOAuthError(res, 401, 'invalid_client');
      expect(res.headers['www-authenticate']).toBeDefined();
    }
    expect(wrong.body).toEqual(unknown.body);
  });

  test('a client_id holding a NUL character is the same 401 invalid_client as any unknown client (not a 500)', async () => {
    const nul = await tokenRequest(grant({ client_id: 'cli_\u0000', client_secret: 'cs_wrong' }));
    const unknown = await tokenRequest(grant({ client_id: 'cli_doesnotexist0000000000000', client_secret: 'cs_wrong' }));
    expectOAuthError(nul, 401, 'invalid_client');
    expect(nul.body).toEqual(unknown.body);
  });

  test('no client authentication at all is invalid_client (or invalid_request), never a token', async () => {
    const res = await tokenRequest(grant());
    expect([400, 401]).toContain(res.status);
    expect(['invalid_client', 'invalid_request']).toContain(res.body.error);
  });

  test('a missing audience is 400 invalid_request', async () => {
    const res = await tokenRequest({ grant_type: 'client_credentials' }, basicOf(tenant));
    expectOAuthError(res, 400, 'invalid_request');
    expect(res.body.error_description).toMatch(/audience/);
  });

  test('an unknown audience is 400 invalid_target', async () => {
    for (const form of [grant({ audience: 'https://other.example.com' }), { grant_type: 'client_credentials', resource: 'https://other.example.com' }]) {
      expectOAuthError(await tokenRequest(form, basicOf(tenant)), 400, 'invalid_target');
    }
  });

  test('a grant type other than client_credentials is 400 unsupported_grant_type', async () => {
    for (const grantType of ['password', 'authorization_code', 'refresh_token', 'nonsense']) {
      expectOAuthError(await tokenRequest(grant({ grant_type: grantType }), basicOf(tenant)), 400, 'unsupported_grant_type');
    }
  });

  test('a missing grant_type is 400 invalid_request', async () => {
    expectOAuthError(await tokenRequest({ audience: AUDIENCE }, basicOf(tenant)), 400, 'invalid_request');
  });

  test("asking for a scope beyond the client's is 400 invalid_scope", async () => {
    expectOAuthError(await tokenRequest(grant({ scope: 'debts:read debts:write' }), basicOf(readOnly)), 400, 'invalid_scope');
    expectOAuthError(await tokenRequest(grant({ scope: 'webhooks:write' }), basicOf(readOnly)), 400, 'invalid_scope');
  });

  test('an unknown scope is 400 invalid_scope', async () => {
    expectOAuthError(await tokenRequest(grant({ scope: 'debts:read admin' }), basicOf(tenant)), 400, 'invalid_scope');
  });
});

describe('client lifecycle', () => {
  const box = new SecretBox(SERVICE_ENV.SECRETS_KEY!);
  const issuerInfo = { issuer: ISSUER, audience: AUDIENCE };

  test('a revoked client can no longer get tokens', async () => {
    const t = await newTenant();
    await tokenRequest(grant(), basicOf(t)).expect(200);
    await revokeClient(testDb(), t.clientId);
    // The issuer cached the client on the first request; the revocation's NOTIFY drops it there
    // within its round trip (docs/api.md section 2), which a loaded machine can stretch past the
    // next request: wait for that (at most 5 s), never for the cache's lifetime (CLIENT_CACHE_TTL_SECONDS).
    let res: Awaited<ReturnType<typeof tokenRequest>> | undefined;
    await eventually(async () => (res = await tokenRequest(grant(), basicOf(t))).status !== 200, 'the revocation reaches the issuer', 5_000);
    expect(res?.status).toBe(401);
    expect(res?.body.error).toBe('invalid_client');
  });

  test('a rotated secret stops working at once; the new one works', async () => {
    const t = await newTenant();
    const rotated = await rotateClientSecret(testDb(), box, issuerInfo, t.clientId);
    expect(rotated.client_secret).not.toBe(t.clientSecret);
    const old = await tokenRequest(grant(), basicOf(t));
    expect(old.status).toBe(401);
    expect(old.body.error).toBe('invalid_client');
    await tokenRequest(grant(), { id: t.clientId, secret: rotated.client_secret }).expect(200);
  });
});

describe('discovery', () => {
  test('RFC 8414 metadata names the issuer, token endpoint, JWKS and what is supported', async () => {
    const res = await request(AUTH_URL).get('/.well-known/oauth-authorization-server').expect(200);
    expect(res.body).toMatchObject({
      issuer: ISSUER,
      token_endpoint: `${ISSUER}/oauth/token`,
      jwks_uri: `${ISSUER}/.well-known/jwks.json`,
      grant_types_supported: ['client_credentials'],
    });
    expect(res.body.token_endpoint_auth_methods_supported).toEqual(expect.arrayContaining(['client_secret_basic', 'client_secret_post']));
    expect([...res.body.scopes_supported].sort()).toEqual([...SCOPES].sort());
  });

  test('the JWKS publishes public signing keys only', async () => {
    const res = await request(AUTH_URL).get('/.well-known/jwks.json').expect(200);
    expect(res.body.keys.length).toBeGreaterThanOrEqual(1);
    for (const key of res.body.keys) {
      expect(typeof key.kid).toBe('string');
      expect(['RSA', 'EC']).toContain(key.kty);
      for (const privateMember of ['d', 'p', 'q', 'dp', 'dq', 'qi']) expect(key).not.toHaveProperty(privateMember);
    }
  });

  test('the issuer serves nothing else (interactive OIDC endpoints are off)', async () => {
    for (const path of ['/auth', '/.well-known/openid-configuration', '/token/introspection', '/reg']) {
      expect((await request(AUTH_URL).get(path)).status).toBe(404);
    }
  });
});
