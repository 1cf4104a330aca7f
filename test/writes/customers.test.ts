/**
 * `PATCH` and `DELETE /customers/{id}` (docs/api.md section 5): updates replace given fields and
 * merge metadata; a delete is soft (the row stays for its debts) but the customer leaves
 * retrieval, lists, counts and search; events `customer.updated` and `customer.deleted`.
 */
import { afterAll, beforeAll, describe, expect, test } from '@jest/globals';
import { closeHarness, signedInTenant, testDb } from '../support/harness.js';
import { eventTypesFor } from '../support/debts.js';

afterAll(closeHarness);

let me: Awaited<ReturnType<typeof signedInTenant>>;
let other: Awaited<ReturnType<typeof signedInTenant>>;

beforeAll(async () => {
  [me, other] = await Promise.all([signedInTenant(), signedInTenant()]);
});

async function newCustomer(api = me.api, body: Record<string, unknown> = {}) {
  const res = await api
    .post('/customers', {
      kind: 'individual',
      first_name: 'Ada',
      last_name: 'Lovelace',
      contact_details: [{ type: 'email', value: 'ada@example.com', primary: true }],
      metadata: { source: 'import' },
      ...body,
    })
    .expect(201);
  return res.body;
}

describe('PATCH /customers/{id}', () => {
  test('replaces given fields and contact details as a whole, and merges metadata', async () => {
    const cus = await newCustomer();
    const res = await me.api
      .patch(`/customers/${cus.id}`, {
        preferred_locale: 'en-GB',
        contact_details: [{ type: 'phone_number', value: '+441234567890' }],
        metadata: { segment: 'b' },
      })
      .expect(200);
    expect(res.body).toMatchObject({
      id: cus.id,
      object: 'customer',
      first_name: 'Ada',
      full_name: 'Ada Lovelace',
      preferred_locale: 'en-GB',
      contact_details: [{ type: 'phone_number', value: '+441234567890', primary: false, usage: null }],
      metadata: { source: 'import', segment: 'b' },
    });
    expect(await eventTypesFor(me.tenant.tenantId, cus.id)).toEqual(['customer.created', 'customer.updated']);
  });

  test('a derived full name follows new first and last names; an explicit one stays', async () => {
    const derived = await newCustomer();
    const renamed = await me.api.patch(`/customers/${derived.id}`, { last_name: 'King' }).expect(200);
    expect(renamed.body.full_name).toBe('Ada King');
    const explicit = await newCustomer(me.api, { full_name: 'Augusta Ada King' });
    const kept = await me.api.patch(`/customers/${explicit.id}`, { first_name: 'Augusta' }).expect(200);
    expect(kept.body.full_name).toBe('Augusta Ada King');
  });

  test('removing the last name source is 400 on full_name', async () => {
    const company = await newCustomer(me.api, { kind: 'company', full_name: 'Acme Ltd', first_name: null, last_name: null });
    const res = await me.api.patch(`/customers/${company.id}`, { full_name: null }).expect(400);
    expect(res.body).toMatchObject({ code: 'validation_failed', param: 'full_name' });
  });

  test.each([
    [{ nickname: 'Ada' }, 'nickname'],
    [{ kind: 'robot' }, 'kind'],
    [{ date_of_birth: '1815-13-10' }, 'date_of_birth'],
    [{ contact_details: [{ type: 'email', value: 'not-an-email' }] }, 'contact_details[0].value'],
    [{ contact_details: [{ type: 'fax', value: '1' }] }, 'contact_details[0].type'],
  ])('rejects %j with 400 naming %s, changing nothing', async (body, param) => {
    const cus = await newCustomer();
    const res = await me.api.patch(`/customers/${cus.id}`, body).expect(400);
    expect(res.body).toMatchObject({ code: 'validation_failed', param });
    expect((await me.api.get(`/customers/${cus.id}`).expect(200)).body).toEqual(cus);
  });

  test('several problems are all listed in errors[]', async () => {
    const cus = await newCustomer();
    const res = await me.api.patch(`/customers/${cus.id}`, { kind: 'robot', preferred_locale: 'english', extra: 1 }).expect(400);
    expect(res.body.errors.map((e: { param: string }) => e.param).sort()).toEqual(['extra', 'kind', 'preferred_locale']);
  });

  test("another tenant's customer is 404 and unchanged", async () => {
    const theirs = await newCustomer(other.api);
    await me.api.patch(`/customers/${theirs.id}`, { first_name: 'Eve' }).expect(404);
    expect((await other.api.get(`/customers/${theirs.id}`).expect(200)).body).toEqual(theirs);
  });
});

describe('DELETE /customers/{id}', () => {
  test('answers the deleted stub, hides the customer everywhere, keeps the row, records customer.deleted', async () => {
    const { api, tenant } = await signedInTenant();
    const keep = await newCustomer(api);
    const gone = await newCustomer(api, { full_name: 'Gone Person', contact_details: [{ type: 'email', value: 'gone@example.com' }] });
    expect((await api.get('/customers').expect(200)).headers['x-total-count']).toBe('2');

    const res = await api.delete(`/customers/${gone.id}`).expect(200);
    expect(res.body).toEqual({ id: gone.id, object: 'customer', livemode: true, deleted: true });

    await api.get(`/customers/${gone.id}`).expect(404);
    const list = await api.get('/customers').expect(200);
    expect(list.body.data.map((c: { id: string }) => c.id)).toEqual([keep.id]);
    expect(list.headers['x-total-count']).toBe('1');
    const search = await api.get('/customers/search').query({ query: 'email:gone@example.com' }).expect(200);
    expect(search.body.data).toEqual([]);
    await api.patch(`/customers/${gone.id}`, { first_name: 'Back' }).expect(404);
    await api.delete(`/customers/${gone.id}`).expect(404);

    const row = await testDb()('customers').where({ id: gone.id }).first('deleted_at');
    expect(row.deleted_at).toBeInstanceOf(Date);
    expect(await eventTypesFor(tenant.tenantId, gone.id)).toEqual(['customer.created', 'customer.deleted']);
  });

  test("another tenant's customer is 404 and stays", async () => {
    const theirs = await newCustomer(other.api);
    await me.api.delete(`/customers/${theirs.id}`).expect(404);
    await other.api.get(`/customers/${theirs.id}`).expect(200);
  });

  test('needs customers:write', async () => {
    const cus = await newCustomer();
    const { api } = await signedInTenant('customers:read');
    await api.delete(`/customers/${cus.id}`).expect(403);
  });
});
