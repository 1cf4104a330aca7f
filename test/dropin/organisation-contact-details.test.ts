/**
 * `/organisations/{id}/contact_details` (docs/api.md section 15) over HTTP: create, list (newest
 * first, counted, narrowed by `query`), retrieve, update by `PATCH` and `PUT`; values checked and
 * normalised as a customer's (400 naming `value`, nothing written); one primary per type (a new
 * primary demotes the old, with its event); each write with its events; another tenant's
 * organisation, or a detail of another organisation, is 404; the scopes are the organisations'.
 */
import { afterAll, beforeAll, describe, expect, test } from '@jest/globals';
import { apiAs, closeHarness, signedInTenant, testDb, tokenFor } from '../support/harness.js';
import { eventTypesFor } from '../support/debts.js';

let main: Awaited<ReturnType<typeof signedInTenant>>;
let other: Awaited<ReturnType<typeof signedInTenant>>;

beforeAll(async () => {
  [main, other] = await Promise.all([signedInTenant(), signedInTenant()]);
});
afterAll(closeHarness);

const newOrg = async () => (await main.api.post('/organisations', { name: 'Northwind Utilities' }).expect(201)).body.id as string;
const rows = (org: string) => testDb()('organisation_contact_details').where({ organisation_id: org }).orderBy('seq');

describe('create, list, retrieve, update', () => {
  test('each kind of value, stored normalised; listed newest first with its total; retrieved as listed', async () => {
    const org = await newOrg();
    const path = `/organisations/${org}/contact_details`;
    const email = (await main.api.post(path, { type: 'email', value: 'help@northwind.example', primary: true, metadata: { team: 'care' } }).expect(201)).body;
    expect(email).toEqual({
      id: expect.stringMatching(/^ocd_[0-9A-Za-z]{24}$/),
      object: 'organisation_contact_detail',
      livemode: true,
      organisation: org,
      type: 'email',
      value: 'help@northwind.example',
      primary: true,
      usage: null,
      metadata: { team: 'care' },
      created_at: expect.any(String),
      updated_at: expect.any(String),
    });
    const phone = (await main.api.post(path, { type: 'phone_number', value: '020 7946 0000', usage: 'work' }).expect(201)).body;
    expect(phone).toMatchObject({ type: 'phone_number', value: '+442079460000', usage: 'work', primary: false });
    const address = (await main.api.post(path, { type: 'address', value: { line_1: '1 High Street', postal_code: 'AB1 2CD', country: 'GB' } }).expect(201))
      .body;
    expect(address.value).toEqual({ line_1: '1 High Street', line_2: null, city: null, county: null, postal_code: 'AB1 2CD', country: 'GB' });

    const list = await main.api.get(path).expect(200);
    expect(list.body.data.map((d: { id: string }) => d.id)).toEqual([address.id, phone.id, email.id]);
    expect(list.headers['x-total-count']).toBe('3');
    const page = await main.api.get(path).query({ limit: 2 }).expect(200);
    expect(page.body.data).toHaveLength(2);
    expect(page.headers.link).toContain('rel="next"');
    const found = await main.api.get(path).query({ query: "metadata['team']:care" }).expect(200);
    expect(found.body.data.map((d: { id: string }) => d.id)).toEqual([email.id]);
    expect(found.headers['x-total-count']).toBe('1');
    expect((await main.api.get(`${path}/${phone.id}`).expect(200)).body).toEqual(list.body.data[1]);
    expect(await eventTypesFor(main.tenant.tenantId, email.id)).toEqual(['organisation_contact_detail.created']);
  });

  test('PATCH and PUT change the given fields, metadata merging; a new primary demotes the old with its event', async () => {
    const org = await newOrg();
    const path = `/organisations/${org}/contact_details`;
    const first = (await main.api.post(path, { type: 'email', value: 'a@northwind.example', primary: true, metadata: { a: '1' } }).expect(201)).body;
    const second = (await main.api.post(path, { type: 'email', value: 'b@northwind.example' }).expect(201)).body;
    const patched = (await main.api.patch(`${path}/${second.id}`, { primary: true, value: 'c@northwind.example', metadata: { b: '2' } }).expect(200)).body;
    expect(patched).toMatchObject({ id: second.id, value: 'c@northwind.example', primary: true, metadata: { b: '2' } });
    expect((await main.api.get(`${path}/${first.id}`).expect(200)).body.primary).toBe(false);
    expect(await eventTypesFor(main.tenant.tenantId, first.id)).toEqual(['organisation_contact_detail.created', 'organisation_contact_detail.updated']);
    const put = (await main.api.put(`${path}/${first.id}`, { usage: 'billing', metadata: { c: '3' } }).expect(200)).body;
    expect(put).toMatchObject({ usage: 'billing', metadata: { a: '1', c: '3' }, value: 'a@northwind.example' });
    // A new primary on create demotes too.
    const third = (await main.api.post(path, { type: 'email', value: 'd@northwind.example', primary: true }).expect(201)).body;
    expect((await rows(org)).filter((r: { primary: boolean }) => r.primary).map((r: { id: string }) => r.id)).toEqual([third.id]);
  });
});

test('racing primaries: every create succeeds and exactly one detail of the type stays primary', async () => {
  const org = await newOrg();
  const answers = await Promise.all(
    [1, 2, 3, 4].map((n) => main.api.post(`/organisations/${org}/contact_details`, { type: 'email', value: `p${n}@northwind.example`, primary: true })),
  );
  expect(answers.map((r) => r.status)).toEqual([201, 201, 201, 201]);
  expect((await rows(org)).filter((r: { primary: boolean }) => r.primary)).toHaveLength(1);
});

describe('bad input and other owners change nothing', () => {
  test.each([
    [{ type: 'email', value: 'not-an-email' }, 'value'],
    [{ type: 'phone_number', value: '12' }, 'value'],
    [{ type: 'address', value: { city: 'Leeds' } }, 'value.line_1'],
    [{ type: 'pigeon', value: 'x' }, 'type'],
    [{ type: 'email', value: 'a@b.example', status: 'verified' }, undefined],
  ])('create %j is 400 (naming %s)', async (body, param) => {
    const org = await newOrg();
    const res = await main.api.post(`/organisations/${org}/contact_details`, body).expect(400);
    expect(res.body.code).toBe('validation_failed');
    if (param) expect(res.body.param).toBe(param);
    expect(await rows(org)).toEqual([]);
  });

  test("a value of the stored type's wrong shape on update is 400 naming value; an empty update is 400", async () => {
    const org = await newOrg();
    const path = `/organisations/${org}/contact_details`;
    const phone = (await main.api.post(path, { type: 'mobile_number', value: '+447911123456' }).expect(201)).body;
    const before = await rows(org);
    expect((await main.api.patch(`${path}/${phone.id}`, { value: 'call me' }).expect(400)).body).toMatchObject({ code: 'validation_failed', param: 'value' });
    expect((await main.api.patch(`${path}/${phone.id}`, {}).expect(400)).body.code).toBe('validation_failed');
    expect(await rows(org)).toEqual(before);
    expect(await eventTypesFor(main.tenant.tenantId, phone.id)).toEqual(['organisation_contact_detail.created']);
  });

  test("another tenant's organisation is 404 on every operation; a detail under another organisation is 404", async () => {
    const org = await newOrg();
    const path = `/organisations/${org}/contact_details`;
    const detail = (await main.api.post(path, { type: 'email', value: 'x@northwind.example' }).expect(201)).body;
    for (const res of [
      await other.api.get(path),
      await other.api.post(path, { type: 'email', value: 'y@example.com' }),
      await other.api.get(`${path}/${detail.id}`),
      await other.api.patch(`${path}/${detail.id}`, { usage: 'work' }),
    ])
      expect([res.status, res.body.code]).toEqual([404, 'resource_missing']);
    const second = await newOrg();
    await main.api.get(`/organisations/${second}/contact_details/${detail.id}`).expect(404);
    await main.api.patch(`/organisations/${second}/contact_details/${detail.id}`, { usage: 'work' }).expect(404);
    expect(await rows(org)).toHaveLength(1);
    expect((await rows(org))[0].usage).toBeNull();
  });

  test('needs organisations:read to read and organisations:write to write', async () => {
    const org = await newOrg();
    const path = `/organisations/${org}/contact_details`;
    const detail = (await main.api.post(path, { type: 'email', value: 'x@northwind.example' }).expect(201)).body;
    const reader = apiAs(await tokenFor(main.tenant, { scope: 'organisations:read' }));
    expect((await reader.get(`${path}/${detail.id}`).expect(200)).body.id).toBe(detail.id);
    expect((await reader.post(path, { type: 'email', value: 'y@northwind.example' }).expect(403)).body.code).toBe('insufficient_scope');
    expect((await reader.patch(`${path}/${detail.id}`, { usage: 'work' }).expect(403)).body.code).toBe('insufficient_scope');
    const stranger = apiAs(await tokenFor(main.tenant, { scope: 'debts:read' }));
    expect((await stranger.get(path).expect(403)).body.code).toBe('insufficient_scope');
    expect(await rows(org)).toHaveLength(1);
  });
});
