/**
 * `PATCH /organisations/{id}` (docs/api.md section 5): given fields replace, metadata merges, unknown
 * fields and bad values are 400 naming the field, other tenants' organisations are 404, and each
 * update records `organisation.updated`.
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

async function newOrganisation(api = me.api) {
  return (await api.post('/organisations', { name: 'Northwind', customer_facing_name: 'NW', metadata: { region: 'north', team: 'a' } }).expect(201)).body;
}

describe('PATCH /organisations/{id}', () => {
  test('replaces given fields, keeps the others, merges metadata and removes keys set to ""', async () => {
    const org = await newOrganisation();
    const res = await me.api.patch(`/organisations/${org.id}`, { name: 'Northwind Ltd', metadata: { team: '', tier: 'gold' } }).expect(200);
    expect(res.body).toMatchObject({
      id: org.id,
      object: 'organisation',
      name: 'Northwind Ltd',
      customer_facing_name: 'NW',
      metadata: { region: 'north', tier: 'gold' },
    });
    expect(res.body.metadata).not.toHaveProperty('team');
    expect(Date.parse(res.body.updated_at)).toBeGreaterThanOrEqual(Date.parse(org.updated_at));
    expect(res.body.created_at).toBe(org.created_at);
    const again = await me.api.get(`/organisations/${org.id}`).expect(200);
    expect(again.body).toEqual(res.body);
    expect(await eventTypesFor(me.tenant.tenantId, org.id)).toEqual(['organisation.created', 'organisation.updated']);
  });

  test('customer_facing_name can be cleared with null', async () => {
    const org = await newOrganisation();
    const res = await me.api.patch(`/organisations/${org.id}`, { customer_facing_name: null }).expect(200);
    expect(res.body.customer_facing_name).toBeNull();
  });

  test.each([
    [{ colour: 'red' }, 'colour'],
    [{ name: '' }, 'name'],
    [{ name: 42 }, 'name'],
    [{ metadata: { k: 1 } }, 'metadata.k'],
    [{}, 'body'],
  ])('rejects %j with 400 naming %s, changing nothing', async (body, param) => {
    const org = await newOrganisation();
    const res = await me.api.patch(`/organisations/${org.id}`, body).expect(400);
    expect(res.body).toMatchObject({ object: 'error', code: 'validation_failed', param });
    expect((await me.api.get(`/organisations/${org.id}`).expect(200)).body).toEqual(org);
    expect(await eventTypesFor(me.tenant.tenantId, org.id)).toEqual(['organisation.created']);
  });

  test('a merge that would exceed 50 metadata keys is 400 on metadata', async () => {
    const org = await newOrganisation();
    const many = Object.fromEntries(Array.from({ length: 49 }, (_, i) => [`k${i}`, 'v']));
    const res = await me.api.patch(`/organisations/${org.id}`, { metadata: many }).expect(400);
    expect(res.body).toMatchObject({ code: 'validation_failed', param: 'metadata' });
  });

  test("another tenant's organisation is 404 and unchanged", async () => {
    const theirs = await newOrganisation(other.api);
    const res = await me.api.patch(`/organisations/${theirs.id}`, { name: 'Mine now' }).expect(404);
    expect(res.body.code).toBe('resource_missing');
    const stored = await testDb()('organisations').where({ id: theirs.id }).first('name');
    expect(stored.name).toBe('Northwind');
  });

  test('needs organisations:write', async () => {
    const org = await newOrganisation();
    const { api } = await signedInTenant('organisations:read');
    await api.patch(`/organisations/${org.id}`, { name: 'x' }).expect(403);
  });
});
