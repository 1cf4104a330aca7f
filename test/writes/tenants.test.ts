/**
 * `GET /tenants/me` (docs/api.md section 5): the token's tenant, whatever the token's scopes.
 */
import { afterAll, expect, test } from '@jest/globals';
import { closeHarness, newTenant, signedInTenant, apiAs, tokenFor } from '../support/harness.js';

afterAll(closeHarness);

test('returns the tenant of the token', async () => {
  const { api, tenant } = await signedInTenant();
  const res = await api.get('/tenants/me').expect(200);
  expect(res.body).toEqual({
    id: tenant.tenantId,
    object: 'tenant',
    name: 'Test Tenant',
    description: null,
    livemode: true,
    configurations: {},
    metadata: {},
    created_at: expect.any(String),
    updated_at: expect.any(String),
  });
});

test('any valid token may read it, even with a single unrelated scope', async () => {
  const tenant = await newTenant('events:read');
  const res = await apiAs(await tokenFor(tenant))
    .get('/tenants/me')
    .expect(200);
  expect(res.body.id).toBe(tenant.tenantId);
});

test('without a token it is 401', async () => {
  const res = await apiAs('not-a-token').get('/tenants/me').expect(401);
  expect(res.headers['www-authenticate']).toMatch(/invalid_token/);
});
