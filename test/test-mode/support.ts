/**
 * Fixtures of the test-mode tests (docs/api.md section 15): a live tenant with a live client and a
 * test client (the test client acts in the live tenant's paired test-mode tenant).
 */
import { SecretBox } from '@dms/secrets';
import { createClient } from '@dms/auth/domain';
import { AUDIENCE, SERVICE_ENV, apiAs, newTenant, testDb, tokenFor, type TestTenant } from '../support/harness.js';

type Api = ReturnType<typeof apiAs>;

/** One mode of a tenant: its client, the tenant id its data lives under, and an API agent. */
export interface Mode {
  tenant: TestTenant;
  api: Api;
}

/** A test client (`clients create --test`) of live tenant `liveTenantId`, allowed `scope` (default: all). */
export async function newTestClient(liveTenantId: string, scope?: string): Promise<TestTenant> {
  const box = new SecretBox(SERVICE_ENV.SECRETS_KEY!);
  const issuer = { issuer: SERVICE_ENV.AUTH_ISSUER!, audience: AUDIENCE };
  const client = await createClient(testDb(), box, issuer, { tenantId: liveTenantId, test: true, name: 'test-mode tests', scope });
  return { tenantId: client.tenant_id!, clientId: client.client_id, clientSecret: client.client_secret, scope: client.scope };
}

/** A live tenant's live mode and test mode, each signed in. */
export async function bothModes(): Promise<{ live: Mode; test: Mode }> {
  const liveTenant = await newTenant(undefined, 'Acme Test Mode');
  const testTenant = await newTestClient(liveTenant.tenantId);
  const [liveToken, testToken] = await Promise.all([tokenFor(liveTenant), tokenFor(testTenant)]);
  return { live: { tenant: liveTenant, api: apiAs(liveToken) }, test: { tenant: testTenant, api: apiAs(testToken) } };
}
