/**
 * `POST /customers/{id}/portal_links` (docs/api.md section 18): a tenant's link for its own
 * letters; the token is in the answer only (its hash is stored), the link opens the portal's
 * verification; bad input is a 400 or 404 naming the field with nothing stored; another tenant's
 * customer is 404; an organisation with the portal off is 409.
 */
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, expect, test } from '@jest/globals';
import request from 'supertest';
import { buildPortal } from '@dms/portal/app';
import { createLogger } from '@dms/logger';
import { hashToken } from '@dms/domain/portal';
import { closeHarness, seedParties, signedInTenant, testDb } from '../support/harness.js';
import { createDebt } from '../support/debts.js';

let me: Awaited<ReturnType<typeof signedInTenant>>;
let other: Awaited<ReturnType<typeof signedInTenant>>;
let parties: Awaited<ReturnType<typeof seedParties>>;
let debtId: string;
let server: Server;
let portal: ReturnType<typeof buildPortal>;

beforeAll(async () => {
  [me, other] = await Promise.all([signedInTenant(), signedInTenant()]);
  parties = await seedParties(me.api);
  debtId = (await createDebt(me.api, parties)).id as string;
  portal = buildPortal({
    db: testDb(),
    log: createLogger('portal', 'silent'),
    databaseUrl: process.env.TEST_DATABASE_URL!,
    baseUrl: 'http://localhost',
    sessionSecret: 's',
  });
  server = createServer(portal);
  await new Promise<void>((ok) => server.listen(0, '127.0.0.1', ok));
});

afterAll(async () => {
  await new Promise((ok) => server?.close(ok));
  await portal?.close();
  await closeHarness();
});

const linksOf = async (customerId: string) => Number((await testDb()('portal_links').where({ customer_id: customerId }).count({ n: '*' }))[0]!.n);

test('a link for a debt: the token only in the answer, the link bound and working', async () => {
  const res = await me.api.post(`/customers/${parties.customerId}/portal_links`, { debt: debtId, expires_in_days: 7 }).expect(201);
  expect(res.body).toMatchObject({ object: 'portal_link', customer: parties.customerId, debt: debtId, id: expect.stringMatching(/^pln_/) });
  const token = /^http:\/\/localhost:3005\/l\/([A-Za-z0-9_-]{43})$/.exec(res.body.url)?.[1];
  expect(token).toBeDefined();
  const days = (Date.parse(res.body.expires_at) - Date.parse(res.body.created_at)) / 86_400_000;
  expect(days).toBeCloseTo(7, 3);
  const row = await testDb()('portal_links').where({ id: res.body.id }).first();
  expect(row.token_hash).toEqual(hashToken(token!));
  expect(JSON.stringify(row)).not.toContain(token);
  const base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  expect((await request(base).get(`/l/${token}`).expect(303)).headers.location).toBe('/verify');
});

test('without a debt it lasts the default 30 days', async () => {
  const res = await me.api.post(`/customers/${parties.customerId}/portal_links`, {}).expect(201);
  expect(res.body.debt).toBeNull();
  expect((Date.parse(res.body.expires_at) - Date.parse(res.body.created_at)) / 86_400_000).toBeCloseTo(30, 3);
});

test('bad input names the field and stores nothing', async () => {
  const before = await linksOf(parties.customerId);
  for (const [body, param] of [
    [{ expires_in_days: 0 }, 'expires_in_days'],
    [{ expires_in_days: 91 }, 'expires_in_days'],
    [{ debt: 'not-an-id' }, 'debt'],
    [{ colour: 'red' }, 'colour'],
  ] as const) {
    const res = await me.api.post(`/customers/${parties.customerId}/portal_links`, body).expect(400);
    expect(JSON.stringify(res.body)).toContain(param);
  }
  // Another customer's debt is not this customer's.
  const bob = (await me.api.post('/customers', { kind: 'individual', first_name: 'Bob', last_name: 'Other' }).expect(201)).body.id as string;
  const missing = await me.api.post(`/customers/${bob}/portal_links`, { debt: debtId }).expect(404);
  expect(missing.body).toMatchObject({ code: 'resource_missing', param: 'debt' });
  expect(await linksOf(parties.customerId)).toBe(before);
  expect(await linksOf(bob)).toBe(0);
});

test("another tenant's customer is 404; the portal turned off is 409", async () => {
  await other.api.post(`/customers/${parties.customerId}/portal_links`, {}).expect(404);
  await me.api.patch(`/organisations/${parties.organisationId}`, { configurations: { portal: { enabled: false } } }).expect(200);
  const off = await me.api.post(`/customers/${parties.customerId}/portal_links`, { debt: debtId }).expect(409);
  expect(off.body.param).toBe('debt');
});
