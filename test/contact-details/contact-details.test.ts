/**
 * Contact details as objects (docs/api.md section 10): list, create, retrieve, PATCH/PUT, soft
 * DELETE under `/customers/{id}/contact_details`; values validated (e-mail, E.164 telephone
 * numbers read in the customer's region, structured addresses); one primary per type; the
 * customer's embedded `contact_details` are the same objects; events; bad input is a 4xx naming
 * the field and changes nothing.
 */
import { afterAll, beforeAll, describe, expect, test } from '@jest/globals';
import { closeHarness, signedInTenant } from '../support/harness.js';
import { eventTypesFor } from '../support/debts.js';

afterAll(closeHarness);

let me: Awaited<ReturnType<typeof signedInTenant>>;
let other: Awaited<ReturnType<typeof signedInTenant>>;

beforeAll(async () => {
  [me, other] = await Promise.all([signedInTenant(), signedInTenant()]);
});

async function newCustomer(api = me.api, body: Record<string, unknown> = {}) {
  return (await api.post('/customers', { full_name: 'Ada Lovelace', ...body }).expect(201)).body;
}

const base = (customerId: string) => `/customers/${customerId}/contact_details`;

describe('create, retrieve, list', () => {
  test('an e-mail detail with defaults, then retrievable, listed and embedded in the customer as the same object', async () => {
    const cus = await newCustomer();
    const res = await me.api.post(base(cus.id), { type: 'email', value: 'ada@example.com', primary: true, metadata: { crm: '1' } }).expect(201);
    expect(res.body).toEqual({
      id: expect.stringMatching(/^cd_[0-9A-Za-z]{24}$/),
      object: 'contact_detail',
      livemode: true,
      customer: cus.id,
      type: 'email',
      value: 'ada@example.com',
      primary: true,
      usage: null,
      source: 'client',
      status: 'unverified',
      metadata: { crm: '1' },
      created_at: expect.any(String),
      updated_at: expect.any(String),
    });
    expect((await me.api.get(`${base(cus.id)}/${res.body.id}`).expect(200)).body).toEqual(res.body);
    const list = await me.api.get(base(cus.id)).expect(200);
    expect(list.body.data).toEqual([res.body]);
    expect(list.headers['x-total-count']).toBe('1');
    expect((await me.api.get(`/customers/${cus.id}`).expect(200)).body.contact_details).toEqual([res.body]);
    expect(await eventTypesFor(me.tenant.tenantId, res.body.id)).toEqual(['customer_contact_detail.created']);
  });

  test('contact_details given at customer create become objects, listed and retrievable; kind defaults to individual', async () => {
    const cus = await newCustomer(me.api, {
      contact_details: [
        { type: 'email', value: 'a@example.com', primary: true, usage: 'permanent' },
        { type: 'fax_number', value: '020 7946 0018', source: 'customer', status: 'verified' },
      ],
    });
    expect(cus.kind).toBe('individual');
    expect(cus.contact_details).toHaveLength(2);
    expect(cus.contact_details[1]).toMatchObject({
      object: 'contact_detail',
      type: 'fax_number',
      value: '+442079460018',
      source: 'customer',
      status: 'verified',
      primary: false,
    });
    for (const cd of cus.contact_details) expect((await me.api.get(`${base(cus.id)}/${cd.id}`).expect(200)).body).toEqual(cd);
    expect((await me.api.get(base(cus.id)).expect(200)).body.data.map((c: { id: string }) => c.id)).toEqual([
      cus.contact_details[1].id,
      cus.contact_details[0].id,
    ]);
    expect(await eventTypesFor(me.tenant.tenantId, cus.id)).toEqual(['customer.created']);
    expect(await eventTypesFor(me.tenant.tenantId, cus.contact_details[0].id)).toEqual(['customer_contact_detail.created']);
  });

  test('a structured address: missing parts are null', async () => {
    const cus = await newCustomer();
    const res = await me.api
      .post(base(cus.id), { type: 'address', value: { line_1: '1 High St', city: 'London', postal_code: 'N1 1AA', country: 'GB' }, usage: 'billing' })
      .expect(201);
    expect(res.body.value).toEqual({ line_1: '1 High St', line_2: null, city: 'London', county: null, postal_code: 'N1 1AA', country: 'GB' });
  });

  test.each([
    ['07400 123456', null, '+447400123456'],
    ['+44 20 7946 0018', 'pl-PL', '+442079460018'],
    ['601 234 567', 'pl-PL', '+48601234567'],
    ['(415) 555-2671', 'en-US', '+14155552671'],
    ['020 7946 0018', 'fr', '+442079460018'],
  ])('telephone %s with locale %s is stored as %s', async (value, locale, e164) => {
    const cus = await newCustomer(me.api, { preferred_locale: locale });
    const res = await me.api.post(base(cus.id), { type: 'mobile_number', value }).expect(201);
    expect(res.body.value).toBe(e164);
  });
});

describe('bad input is a 4xx naming the field, and changes nothing', () => {
  test.each([
    [{ type: 'email', value: 'not-an-email' }, 'value'],
    [{ type: 'phone_number', value: '+4400000' }, 'value'],
    [{ type: 'phone_number', value: 'call me' }, 'value'],
    [{ type: 'fax', value: '1' }, 'type'],
    [{ type: 'address', value: '1 High St' }, 'value'],
    [{ type: 'address', value: { city: 'London' } }, 'value.line_1'],
    [{ type: 'address', value: { line_1: 'x', country: 'United Kingdom' } }, 'value.country'],
    [{ type: 'address', value: { line_1: 'x', country: 'ZZ' } }, 'value.country'],
    [{ type: 'address', value: { line_1: 'x', country: 'EU' } }, 'value.country'],
    [{ type: 'email', value: 'a@b.co', usage: 'personal' }, 'usage'],
    [{ type: 'email', value: 'a@b.co', status: 'deleted' }, 'status'],
    [{ type: 'email', value: 'a@b.co', source: 'robot' }, 'source'],
    [{ type: 'email', value: 'a@b.co', extra: 1 }, 'extra'],
    [{ value: 'a@b.co' }, 'type'],
  ])('create %j -> 400 on %s', async (body, param) => {
    const cus = await newCustomer();
    const res = await me.api.post(base(cus.id), body).expect(400);
    expect(res.body).toMatchObject({ code: 'validation_failed', param });
    expect((await me.api.get(base(cus.id)).expect(200)).body.data).toEqual([]);
  });

  test('a bad entry at customer create names it and creates nothing', async () => {
    const res = await me.api
      .post('/customers', {
        full_name: 'X',
        contact_details: [
          { type: 'email', value: 'a@b.co' },
          { type: 'mobile_number', value: '123' },
        ],
      })
      .expect(400);
    expect(res.body).toMatchObject({ code: 'validation_failed', param: 'contact_details[1].value' });
    expect((await me.api.get('/customers/search').query({ query: 'email:a@b.co' }).expect(200)).body.data).toEqual([]);
  });

  test.each([
    [{ value: 'not-an-email' }, 'value'],
    [{ type: 'phone_number' }, 'type'],
    [{ status: 'deleted' }, 'status'],
    [{}, 'body'],
  ])('update %j -> 400 on %s, unchanged', async (body, param) => {
    const cus = await newCustomer();
    const cd = (await me.api.post(base(cus.id), { type: 'email', value: 'a@example.com' }).expect(201)).body;
    expect((await me.api.patch(`${base(cus.id)}/${cd.id}`, body).expect(400)).body).toMatchObject({ code: 'validation_failed', param });
    expect((await me.api.put(`${base(cus.id)}/${cd.id}`, body).expect(400)).body.param).toBe(param);
    expect((await me.api.get(`${base(cus.id)}/${cd.id}`).expect(200)).body).toEqual(cd);
  });

  test("another tenant's customer or detail is 404; a detail under another customer is 404", async () => {
    const theirs = await newCustomer(other.api, { contact_details: [{ type: 'email', value: 't@example.com' }] });
    const cd = theirs.contact_details[0];
    await me.api.get(base(theirs.id)).expect(404);
    await me.api.post(base(theirs.id), { type: 'email', value: 'x@example.com' }).expect(404);
    await me.api.get(`${base(theirs.id)}/${cd.id}`).expect(404);
    await me.api.patch(`${base(theirs.id)}/${cd.id}`, { usage: 'work' }).expect(404);
    await me.api.delete(`${base(theirs.id)}/${cd.id}`).expect(404);
    const mine = await newCustomer();
    await other.api.get(`${base(mine.id)}/${cd.id}`).expect(404);
    expect((await other.api.get(`${base(theirs.id)}/${cd.id}`).expect(200)).body).toEqual(cd);
  });

  test('scopes: customers:read reads, customers:write writes', async () => {
    const cus = await newCustomer();
    const { api } = await signedInTenant('customers:read');
    await api.post(base(cus.id), { type: 'email', value: 'a@b.co' }).expect(403);
  });
});

describe('primary, update and delete', () => {
  test('a new primary demotes the old one of its type (and records its update), not other types', async () => {
    const cus = await newCustomer(me.api, {
      contact_details: [
        { type: 'email', value: 'old@example.com', primary: true },
        { type: 'mobile_number', value: '+447400000001', primary: true },
      ],
    });
    const [oldEmail, mobile] = cus.contact_details;
    const fresh = (await me.api.post(base(cus.id), { type: 'email', value: 'new@example.com', primary: true }).expect(201)).body;
    const after = (await me.api.get(`/customers/${cus.id}`).expect(200)).body.contact_details;
    expect(after.map((c: { id: string; primary: boolean }) => [c.id, c.primary])).toEqual([
      [oldEmail.id, false],
      [mobile.id, true],
      [fresh.id, true],
    ]);
    expect(await eventTypesFor(me.tenant.tenantId, oldEmail.id)).toEqual(['customer_contact_detail.created', 'customer_contact_detail.updated']);
    // Promoting by update demotes too.
    await me.api.patch(`${base(cus.id)}/${oldEmail.id}`, { primary: true }).expect(200);
    expect((await me.api.get(`${base(cus.id)}/${fresh.id}`).expect(200)).body.primary).toBe(false);
  });

  test('concurrent primaries of one type leave exactly one', async () => {
    const cus = await newCustomer();
    await Promise.all(Array.from({ length: 6 }, (_, i) => me.api.post(base(cus.id), { type: 'email', value: `p${i}@example.com`, primary: true }).expect(201)));
    const list = (await me.api.get(base(cus.id)).expect(200)).body.data;
    expect(list.filter((c: { primary: boolean }) => c.primary)).toHaveLength(1);
  });

  test('PATCH and PUT replace given fields, merge metadata, normalise a new number, record updated', async () => {
    const cus = await newCustomer(me.api, { preferred_locale: 'en-GB' });
    const cd = (await me.api.post(base(cus.id), { type: 'phone_number', value: '+442079460001', metadata: { a: '1' } }).expect(201)).body;
    const patched = (await me.api.patch(`${base(cus.id)}/${cd.id}`, { usage: 'work', metadata: { b: '2' } }).expect(200)).body;
    expect(patched).toMatchObject({ usage: 'work', status: 'unverified', value: '+442079460001', metadata: { a: '1', b: '2' } });
    const put = (await me.api.put(`${base(cus.id)}/${cd.id}`, { value: '020 7946 0002', status: 'verified' }).expect(200)).body;
    expect(put).toMatchObject({ usage: 'work', status: 'verified', value: '+442079460002', metadata: { a: '1', b: '2' } });
    expect(await eventTypesFor(me.tenant.tenantId, cd.id)).toEqual([
      'customer_contact_detail.created',
      'customer_contact_detail.updated',
      'customer_contact_detail.updated',
    ]);
  });

  test('DELETE is soft: status deleted, gone from list and customer, still retrievable; then 409 on change', async () => {
    const cus = await newCustomer(me.api, {
      contact_details: [
        { type: 'email', value: 'keep@example.com' },
        { type: 'email', value: 'gone@example.com', primary: true },
      ],
    });
    const [keep, gone] = cus.contact_details;
    const res = await me.api.delete(`${base(cus.id)}/${gone.id}`).expect(200);
    expect(res.body).toMatchObject({ id: gone.id, object: 'contact_detail', status: 'deleted', primary: false });
    expect((await me.api.get(`${base(cus.id)}/${gone.id}`).expect(200)).body).toEqual(res.body);
    const list = await me.api.get(base(cus.id)).expect(200);
    expect(list.body.data.map((c: { id: string }) => c.id)).toEqual([keep.id]);
    expect(list.headers['x-total-count']).toBe('1');
    expect((await me.api.get(`/customers/${cus.id}`).expect(200)).body.contact_details.map((c: { id: string }) => c.id)).toEqual([keep.id]);
    expect((await me.api.get('/customers/search').query({ query: 'email:gone@example.com' }).expect(200)).body.data).toEqual([]);
    expect((await me.api.delete(`${base(cus.id)}/${gone.id}`).expect(409)).body.code).toBe('invalid_state_transition');
    await me.api.patch(`${base(cus.id)}/${gone.id}`, { usage: 'work' }).expect(409);
    expect(await eventTypesFor(me.tenant.tenantId, gone.id)).toEqual(['customer_contact_detail.created', 'customer_contact_detail.deleted']);
  });

  test('a customer update with contact_details keeps equal entries (same ids), deletes the rest, creates new ones', async () => {
    const cus = await newCustomer(me.api, {
      contact_details: [
        { type: 'email', value: 'a@example.com', primary: true },
        { type: 'email', value: 'b@example.com' },
      ],
    });
    const [a, b] = cus.contact_details;
    const res = await me.api
      .put(`/customers/${cus.id}`, {
        contact_details: [
          { type: 'email', value: 'a@example.com', usage: 'work' },
          { type: 'mobile_number', value: '07400 000002', primary: true },
        ],
      })
      .expect(200);
    expect(res.body.contact_details).toMatchObject([
      { id: a.id, value: 'a@example.com', primary: false, usage: 'work' },
      { type: 'mobile_number', value: '+447400000002', primary: true },
    ]);
    expect((await me.api.get(`${base(cus.id)}/${b.id}`).expect(200)).body.status).toBe('deleted');
    expect(await eventTypesFor(me.tenant.tenantId, cus.id)).toEqual(['customer.created', 'customer.updated']);
  });
});
