/**
 * What tests use to reach the running system: tenants and clients created through the issuer's
 * domain code, tokens from the real token endpoint, and supertest agents on the real API.
 */
import request from 'supertest';
import { commonSpec } from '@dms/config';
import { createDb, type Knex } from '@dms/db';
import { SecretBox } from '@dms/secrets';
import { createClient } from '@dms/auth/domain';
import { createTenant } from '@dms/domain/tenants';

/** Base URLs of the issuer and the API started by global-setup.ts. */
export const AUTH_URL = process.env.TEST_AUTH_URL!;
export const API_URL = process.env.TEST_API_URL!;
/** Environment the global services run with, for tests that start extra instances. */
export const SERVICE_ENV = JSON.parse(process.env.TEST_SERVICE_ENV!) as Record<string, string>;
/** The `aud` the API accepts (RFC 9068 section 4), which clients are created for. */
export const AUDIENCE = SERVICE_ENV.API_AUDIENCE!;
/**
 * Pooled connections of the suite's API (`DATABASE_POOL_MAX`): the most writes a test sends it at
 * once (`mapPool` of tools/src/seed/pool.ts). A larger burst queues for a connection, and on a
 * loaded machine the requests queued last wait past `DATABASE_ACQUIRE_TIMEOUT_MS` and get the
 * API's deliberate 503 (docs/api.md section 3): a load test, which belongs to the benchmarks.
 */
export const API_POOL_MAX = Number(SERVICE_ENV.DATABASE_POOL_MAX ?? commonSpec.DATABASE_POOL_MAX.default);

let db: Knex | undefined;

/** A Knex connection to the test database (for setup and for checking that nothing changed). */
export function testDb(): Knex {
  db ??= createDb(process.env.TEST_DATABASE_URL!, 3);
  return db;
}

/** Closes the test file's database pool; call in `afterAll`. */
export async function closeHarness(): Promise<void> {
  await db?.destroy();
  db = undefined;
}

/** A tenant with one OAuth client. */
export interface TestTenant {
  tenantId: string;
  clientId: string;
  clientSecret: string;
  scope: string;
}

/** Creates a tenant and a client allowed `scope` (default: all scopes). */
export async function newTenant(scope?: string, name = 'Test Tenant'): Promise<TestTenant> {
  const box = new SecretBox(SERVICE_ENV.SECRETS_KEY!);
  const tenant = await createTenant(testDb(), name);
  const client = await createClient(testDb(), box, { issuer: SERVICE_ENV.AUTH_ISSUER!, audience: AUDIENCE }, { tenantId: tenant.id, name: 'tests', scope });
  return { tenantId: tenant.id, clientId: client.client_id, clientSecret: client.client_secret, scope: client.scope };
}

/**
 * Requests an access token with client_secret_basic (of the suite's issuer, or of `opts.issuer`).
 * @throws when the issuer does not answer 200
 */
export async function tokenFor(t: Omit<TestTenant, 'tenantId' | 'scope'>, opts: { scope?: string; audience?: string; issuer?: string } = {}): Promise<string> {
  const form: Record<string, string> = { grant_type: 'client_credentials', audience: opts.audience ?? AUDIENCE };
  if (opts.scope) form.scope = opts.scope;
  const res = await request(opts.issuer ?? AUTH_URL)
    .post('/oauth/token')
    .auth(t.clientId, t.clientSecret)
    .type('form')
    .send(form);
  if (res.status !== 200) throw new Error(`token request failed: ${res.status} ${JSON.stringify(res.body)}`);
  return res.body.access_token as string;
}

/**
 * A supertest agent on the API sending `Authorization: Bearer <token>` with every request.
 * @param base the API's URL: the suite's by default, or an extra instance's
 */
export function apiAs(token: string, base = API_URL) {
  const agent = request(base);
  const auth = (r: request.Test) => r.set('Authorization', `Bearer ${token}`);
  return {
    get: (path: string) => auth(agent.get(path)),
    post: (path: string, body?: object) => (body === undefined ? auth(agent.post(path)) : auth(agent.post(path)).send(body)),
    patch: (path: string, body: object) => auth(agent.patch(path)).send(body),
    put: (path: string, body: object) => auth(agent.put(path)).send(body),
    delete: (path: string) => auth(agent.delete(path)),
  };
}

/** A tenant, its token, and an API agent for it. */
export async function signedInTenant(scope?: string) {
  const tenant = await newTenant(scope);
  const token = await tokenFor(tenant);
  return { tenant, token, api: apiAs(token) };
}

/** Creates an organisation and a customer of the agent's tenant; returns their ids. */
export async function seedParties(api: ReturnType<typeof apiAs>): Promise<{ organisationId: string; customerId: string }> {
  const org = await api.post('/organisations', { name: 'Northwind Utilities' }).expect(201);
  const cus = await api.post('/customers', { kind: 'individual', first_name: 'Ada', last_name: 'Lovelace' }).expect(201);
  return { organisationId: org.body.id, customerId: cus.body.id };
}

/** An operator client of the platform (docs/api.md section 12): no tenant; its requests name one. */
export async function newOperator(scope?: string): Promise<TestTenant & { tenantId: '' }> {
  const box = new SecretBox(SERVICE_ENV.SECRETS_KEY!);
  const client = await createClient(testDb(), box, { issuer: SERVICE_ENV.AUTH_ISSUER!, audience: AUDIENCE }, { operator: true, name: 'operator tests', scope });
  return { tenantId: '', clientId: client.client_id, clientSecret: client.client_secret, scope: client.scope };
}

/** A supertest agent for an operator's token acting for `tenantId` (`Tenant-Id`, omitted when undefined). */
export function operatorAs(token: string, tenantId: string | undefined) {
  const agent = request(API_URL);
  const auth = (r: request.Test) => {
    r.set('Authorization', `Bearer ${token}`);
    return tenantId === undefined ? r : r.set('Tenant-Id', tenantId);
  };
  return {
    get: (path: string) => auth(agent.get(path)),
    post: (path: string, body?: object) => (body === undefined ? auth(agent.post(path)) : auth(agent.post(path)).send(body)),
    patch: (path: string, body: object) => auth(agent.patch(path)).send(body),
    delete: (path: string) => auth(agent.delete(path)),
  };
}
