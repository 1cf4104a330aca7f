/**
 * `GET /tenants/me` (docs/api.md section 5): the token's tenant, whatever the token's scopes;
 * changing it (`PATCH`/`PUT`) needs `organisations:write`.
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

test('PATCH and PUT need organisations:write: a read-only token is 403 and changes nothing; a write token renames', async () => {
  const tenant = await newTenant();
  const readOnly = apiAs(await tokenFor(tenant, { scope: 'debts:read customers:read organisations:read webhooks:read events:read' }));
  const before = (await readOnly.get('/tenants/me').expect(200)).body;
  for (const send of [readOnly.patch, readOnly.put]) {
    const res = await send('/tenants/me', { name: 'Renamed by a reader', description: 'no' }).expect(403);
    expect(res.body).toMatchObject({ code: 'insufficient_scope' });
    expect(res.headers['www-authenticate']).toMatch(/scope="organisations:write"/);
  }
  // Another write scope is not the one either.
  const debtsWriter = apiAs(await tokenFor(tenant, { scope: 'debts:write' }));
  expect((await debtsWriter.patch('/tenants/me', { name: 'Renamed by a debts writer' }).expect(403)).body.code).toBe('insufficient_scope');
  expect((await readOnly.get('/tenants/me').expect(200)).body).toEqual(before);

  const writer = apiAs(await tokenFor(tenant, { scope: 'organisations:write' }));
  expect((await writer.patch('/tenants/me', { name: 'Renamed' }).expect(200)).body.name).toBe('Renamed');
  expect((await writer.put('/tenants/me', { description: 'Replaced' }).expect(200)).body).toMatchObject({ name: 'Renamed', description: 'Replaced' });
});
