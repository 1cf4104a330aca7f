/**
 * Updates in the public API's style (docs/api.md section 10): `PUT` on every path that takes
 * `PATCH`, with the same meaning (given fields replaced, others kept) and the same validation;
 * `Idempotency-Key` covers `PUT`; `PATCH /tenants/me`; webhook create takes `enabled`; customer
 * `kind` is optional.
 */
import { afterAll, beforeAll, describe, expect, test } from '@jest/globals';
import request from 'supertest';
import { API_URL, closeHarness, seedParties, signedInTenant, testDb } from '../support/harness.js';
import { createDebt, retrieved } from '../support/debts.js';

afterAll(closeHarness);

let me: Awaited<ReturnType<typeof signedInTenant>>;
type Json = Record<string, any>;

beforeAll(async () => {
  me = await signedInTenant();
});

/** For each PATCH path: a fresh object's path, a valid change, what it must show, a bad body and its param. */
async function cases(): Promise<Array<{ path: string; change: Json; shows: Json; bad: Json; param: string }>> {
  const parties = await seedParties(me.api);
  const debt = await createDebt(me.api, parties);
  const hook = (await me.api.post('/webhooks', { url: 'https://hooks.example.com/put', enabled_events: ['*'] }).expect(201)).body;
  const cus = (await me.api.post('/customers', { full_name: 'Ada', contact_details: [{ type: 'email', value: 'p@example.com' }] }).expect(201)).body;
  return [
    {
      path: `/organisations/${parties.organisationId}`,
      change: { customer_facing_name: 'NW' },
      shows: { name: 'Northwind Utilities', customer_facing_name: 'NW' },
      bad: { name: '' },
      param: 'name',
    },
    {
      path: `/customers/${parties.customerId}`,
      change: { preferred_locale: 'en-GB' },
      shows: { first_name: 'Ada', preferred_locale: 'en-GB' },
      bad: { kind: 'robot' },
      param: 'kind',
    },
    {
      path: `/debts/${debt.id}`,
      change: { account_number: 'PUT-1' },
      shows: { account_number: 'PUT-1', currency: 'GBP' },
      bad: { currency: 'XXX' },
      param: 'currency',
    },
    {
      path: `/webhooks/${hook.id}`,
      change: { enabled: false },
      shows: { enabled: false, url: 'https://hooks.example.com/put' },
      bad: { enabled_events: [] },
      param: 'enabled_events',
    },
    {
      path: '/tenants/me',
      change: { description: 'Collections' },
      shows: { name: 'Test Tenant', description: 'Collections' },
      bad: { name: 42 },
      param: 'name',
    },
    {
      path: `/customers/${cus.id}/contact_details/${cus.contact_details[0].id}`,
      change: { usage: 'work' },
      shows: { usage: 'work', value: 'p@example.com' },
      bad: { usage: 'home' },
      param: 'usage',
    },
  ];
}

describe('PUT on every PATCH path', () => {
  test('the OpenAPI document has a replaceX PUT beside every updateX PATCH, with the same body', async () => {
    const doc = (await request(API_URL).get('/openapi.json').expect(200)).body;
    const patches = Object.entries(doc.paths as Record<string, Json>).filter(([, ops]) => ops.patch);
    expect(patches.map(([p]) => p).sort()).toEqual(
      [
        '/customers/{customerId}/contact_details/{id}',
        '/customers/{id}',
        '/debts/{id}',
        '/organisations/{id}',
        '/tenants/me',
        '/webhooks/{id}',
        // docs/api.md sections 8 and 9
        '/debts/{debtId}/invoices/{id}',
        '/debts/{debtId}/payments/{id}',
        '/payment_plans/{id}/delay',
        '/payment_plans/{id}/reschedule',
        // docs/api.md section 19: the customer's time to pay
        '/payment_plans/{id}/delay_next',
        '/payment_plans/{id}/change_day',
        '/payment-plans/{id}/delay_next',
        '/payment-plans/{id}/change_day',
        // docs/api.md section 13
        '/communication_templates/{id}',
        // docs/api.md section 15: the public API's aliases
        '/payment-plans/{id}/delay',
        '/payment-plans/{id}/reschedule',
        '/organisations/{organisationId}/contact_details/{id}',
      ].sort(),
    );
    for (const [path, ops] of patches) {
      const patchId: string = ops.patch.operationId;
      const expected = patchId.startsWith('update') ? patchId.replace(/^update/, 'replace') : `replace${patchId[0]!.toUpperCase()}${patchId.slice(1)}`;
      expect([path, ops.put?.operationId]).toEqual([path, expected]);
      expect(ops.put.requestBody).toEqual(ops.patch.requestBody);
      expect(ops.put.parameters).toContainEqual({ $ref: '#/components/parameters/IdempotencyKey' });
    }
  });

  test('PUT changes the given fields and keeps the others, as PATCH does; bad bodies are 400 naming the field and change nothing', async () => {
    for (const c of await cases()) {
      const before = (await me.api.get(c.path).expect(200)).body;
      const bad = await me.api.put(c.path, c.bad);
      expect([c.path, bad.status, bad.body.code, bad.body.param]).toEqual([c.path, 400, 'validation_failed', c.param]);
      expect([c.path, (await me.api.get(c.path).expect(200)).body]).toEqual([c.path, before]);
      const put = await me.api.put(c.path, c.change);
      expect([c.path, put.status]).toEqual([c.path, 200]);
      expect(put.body).toMatchObject(c.shows);
      expect(await retrieved(me.api, c.path)).toEqual(put.body);
      // PATCH with the same body gives the same object (updated_at aside).
      const patched = (await me.api.patch(c.path, c.change).expect(200)).body;
      expect({ ...patched, updated_at: 0 }).toEqual({ ...put.body, updated_at: 0 });
    }
  });

  test("PUT on a debt that left initializing is 409 like PATCH; another tenant's object is 404", async () => {
    const parties = await seedParties(me.api);
    const debt = await createDebt(me.api, parties);
    await me.api.post(`/debts/${debt.id}/ready`).expect(200);
    expect((await me.api.put(`/debts/${debt.id}`, { account_number: 'x' }).expect(409)).body.code).toBe('invalid_state_transition');
    const other = await signedInTenant();
    await other.api.put(`/organisations/${parties.organisationId}`, { name: 'x' }).expect(404);
    await other.api.put(`/debts/${debt.id}`, { account_number: 'x' }).expect(404);
  });

  test('PUT needs the write scope', async () => {
    const parties = await seedParties(me.api);
    const { api } = await signedInTenant('debts:read');
    expect((await api.put(`/debts/${(await createDebt(me.api, parties)).id}`, { account_number: 'x' }).expect(403)).body.code).toBe('insufficient_scope');
    const reader = await signedInTenant('organisations:read');
    expect((await reader.api.put('/organisations/org_000000000000000000000000', { name: 'x' }).expect(403)).body.code).toBe('insufficient_scope');
  });

  test('Idempotency-Key covers PUT: the same key and body replays, another body is 422', async () => {
    const parties = await seedParties(me.api);
    const path = `/organisations/${parties.organisationId}`;
    const first = await me.api.put(path, { name: 'Idem 1' }).set('Idempotency-Key', 'put-key-1').expect(200);
    await me.api.patch(path, { name: 'Changed since' }).expect(200);
    const again = await me.api.put(path, { name: 'Idem 1' }).set('Idempotency-Key', 'put-key-1').expect(200);
    expect(again.headers['idempotent-replayed']).toBe('true');
    expect(again.body).toEqual(first.body);
    expect((await me.api.put(path, { name: 'Idem 2' }).set('Idempotency-Key', 'put-key-1').expect(422)).body.code).toBe('idempotency_key_reused');
    expect((await me.api.get(path).expect(200)).body.name).toBe('Changed since');
  });
});

describe('PATCH /tenants/me', () => {
  test('sets name and description (null clears it) with organisations:write; unknown fields are 400', async () => {
    const t = await signedInTenant('organisations:write');
    const res = await t.api.patch('/tenants/me', { name: 'Acme Collections', description: 'Our UK book' }).expect(200);
    expect(res.body).toMatchObject({ id: t.tenant.tenantId, object: 'tenant', name: 'Acme Collections', description: 'Our UK book' });
    expect((await t.api.get('/tenants/me').expect(200)).body).toEqual(res.body);
    expect((await t.api.patch('/tenants/me', { description: null }).expect(200)).body).toMatchObject({ name: 'Acme Collections', description: null });
    for (const [body, param] of [
      [{ id: 'ten_x' }, 'id'],
      [{}, 'body'],
      [{ name: '' }, 'name'],
      [{ description: 'x'.repeat(1001) }, 'description'],
    ] as const) {
      expect((await t.api.patch('/tenants/me', body).expect(400)).body).toMatchObject({ code: 'validation_failed', param });
    }
    const row = await testDb()('tenants').where({ id: t.tenant.tenantId }).first();
    expect(row).toMatchObject({ name: 'Acme Collections', description: null });
  });
});

describe('webhook create takes enabled; customer kind is optional', () => {
  test('enabled defaults to true, false is kept, a non-boolean is 400 on enabled', async () => {
    const on = (await me.api.post('/webhooks', { url: 'https://hooks.example.com/on', enabled_events: ['*'] }).expect(201)).body;
    const off = (await me.api.post('/webhooks', { url: 'https://hooks.example.com/off', enabled_events: ['*'], enabled: false }).expect(201)).body;
    expect([on.enabled, off.enabled]).toEqual([true, false]);
    expect((await me.api.get(`/webhooks/${off.id}`).expect(200)).body.enabled).toBe(false);
    expect((await me.api.post('/webhooks', { url: 'https://hooks.example.com/x', enabled_events: ['*'], enabled: 'no' }).expect(400)).body.param).toBe(
      'enabled',
    );
  });

  test('a customer without kind is an individual; kind company is kept; a bad kind is 400', async () => {
    expect((await me.api.post('/customers', { full_name: 'No Kind' }).expect(201)).body.kind).toBe('individual');
    expect((await me.api.post('/customers', { kind: 'company', full_name: 'Acme' }).expect(201)).body.kind).toBe('company');
    expect((await me.api.post('/customers', { kind: 'robot', full_name: 'R' }).expect(400)).body.param).toBe('kind');
  });
});
