/**
 * Test clients from the admin CLI (docs/api.md sections 2 and 15): `clients create --test` makes a
 * client of the live tenant's paired test-mode tenant (the same one every time), whose tokens say
 * `livemode: false`; a live client's say `livemode: true`. Mistakes exit non-zero and create nothing.
 */
import { afterAll, expect, test } from '@jest/globals';
import { adminJson, runAdmin } from '../support/admin-cli.js';
import { closeHarness, testDb, tokenFor } from '../support/harness.js';

afterAll(closeHarness);

const claims = (token: string) => JSON.parse(Buffer.from(token.split('.')[1]!, 'base64url').toString()) as Record<string, unknown>;

interface Issued {
  client_id: string;
  client_secret: string;
  tenant_id: string;
  scope: string;
  livemode: boolean;
}

test('clients create --test: a client of the paired test tenant, whose tokens carry livemode false', async () => {
  const tenant = await adminJson<{ id: string; livemode: boolean }>(['tenants', 'create', '--name', 'Sandbox Ltd']);
  expect(tenant.livemode).toBe(true);
  const liveClient = await adminJson<Issued>(['clients', 'create', '--tenant', tenant.id, '--name', 'backend']);
  const first = await adminJson<Issued>(['clients', 'create', '--tenant', tenant.id, '--name', 'sandbox', '--test']);
  const second = await adminJson<Issued>(['clients', 'create', '--tenant', tenant.id, '--name', 'ci', '--test', '--scope', 'debts:read']);
  expect(liveClient).toMatchObject({ tenant_id: tenant.id, livemode: true });
  expect(first).toMatchObject({ livemode: false });
  expect(first.tenant_id).not.toBe(tenant.id);
  expect(second).toMatchObject({ tenant_id: first.tenant_id, livemode: false, scope: 'debts:read' });
  expect(await testDb()('tenants').where({ id: first.tenant_id }).first('name', 'livemode', 'live_tenant_id')).toEqual({
    name: 'Sandbox Ltd',
    livemode: false,
    live_tenant_id: tenant.id,
  });

  const asTenant = (c: Issued) => ({ tenantId: c.tenant_id, clientId: c.client_id, clientSecret: c.client_secret, scope: c.scope });
  expect(claims(await tokenFor(asTenant(first)))).toMatchObject({ tenant_id: first.tenant_id, livemode: false });
  expect(claims(await tokenFor(asTenant(liveClient)))).toMatchObject({ tenant_id: tenant.id, livemode: true });
});

test('--test with --operator, or naming a test tenant, or an unknown tenant: exit 1, nothing created', async () => {
  const tenant = await adminJson<{ id: string }>(['tenants', 'create', '--name', 'Sandbox Two']);
  const testClient = await adminJson<Issued>(['clients', 'create', '--tenant', tenant.id, '--name', 'sandbox', '--test']);
  // Other test files share the database: count only what these commands could have made.
  const name = `refused-${Date.now()}`;
  const made = async () => ({
    clients: Number((await testDb()('oauth_clients').where({ name }).count({ n: '*' }))[0]!.n),
    pairs: Number((await testDb()('tenants').whereIn('live_tenant_id', [testClient.tenant_id, 'ten_000000000000000000000000']).count({ n: '*' }))[0]!.n),
  });
  for (const [args, message] of [
    [['--operator', '--test'], /--test/],
    [['--tenant', testClient.tenant_id, '--test'], /test-mode tenant/],
    [['--tenant', 'ten_000000000000000000000000', '--test'], /no tenant/],
  ] as const) {
    const run = await runAdmin(['clients', 'create', ...args, '--name', name]);
    expect(run.code).toBe(1);
    expect(run.stdout).toBe('');
    expect(run.stderr).toMatch(message);
  }
  expect(await made()).toEqual({ clients: 0, pairs: 0 });
});
