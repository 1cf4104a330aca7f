/**
 * `PATCH` and `DELETE /debts/{id}` (docs/api.md sections 5 and 6): both only while `initializing`
 * (409 afterwards); a new customer or organisation must be the tenant's; a deleted debt leaves
 * retrieval, lists and counts; events `debt.updated` and `debt.deleted`.
 */
import { afterAll, beforeAll, describe, expect, test } from '@jest/globals';
import { closeHarness, seedParties, signedInTenant, testDb } from '../support/harness.js';
import { createDebt, debtIn, eventTypesFor, retrieved, type Parties } from '../support/debts.js';

afterAll(closeHarness);

let me: Awaited<ReturnType<typeof signedInTenant>>;
let other: Awaited<ReturnType<typeof signedInTenant>>;
let mine: Parties;
let theirs: Parties;

beforeAll(async () => {
  [me, other] = await Promise.all([signedInTenant(), signedInTenant()]);
  [mine, theirs] = await Promise.all([seedParties(me.api), seedParties(other.api)]);
});

describe('PATCH /debts/{id}', () => {
  test('replaces given fields (breakdown as a whole), merges metadata, records debt.updated', async () => {
    const debt = await createDebt(me.api, mine, {
      account_number: 'A-1',
      tags: ['old'],
      metadata: { a: '1', b: '2' },
      breakdown: { principal: 100, interest: 5, fees: 1 },
    });
    const res = await me.api
      .patch(`/debts/${debt.id}`, {
        account_number: 'A-2',
        tags: ['new', 'vip'],
        breakdown: { principal: 2000, fees: 50 },
        metadata: { b: '', c: '3' },
        currency: 'EUR',
      })
      .expect(200);
    expect(res.body).toMatchObject({
      id: debt.id,
      account_number: 'A-2',
      tags: ['new', 'vip'],
      currency: 'EUR',
      metadata: { a: '1', c: '3' },
      status: { value: 'initializing' },
      summary: { amount_total: 2050, amount_paid: 0, amount_remaining: 2050, breakdown: { principal: 2000, interest: 0, fees: 50 } },
    });
    expect(res.body.metadata).not.toHaveProperty('b');
    expect(await retrieved(me.api, `/debts/${debt.id}`)).toEqual(res.body);
    expect(await eventTypesFor(me.tenant.tenantId, debt.id)).toEqual(['debt.created', 'debt.updated']);
  });

  test('moves the debt to another customer and organisation of the tenant', async () => {
    const debt = await createDebt(me.api, mine);
    const next = await seedParties(me.api);
    const res = await me.api.patch(`/debts/${debt.id}`, { customer_id: next.customerId, organisation_id: next.organisationId }).expect(200);
    expect(res.body).toMatchObject({ customer: next.customerId, organisation: next.organisationId });
  });

  test.each([
    ['customer_id', () => theirs.customerId],
    ['organisation_id', () => theirs.organisationId],
  ])("another tenant's %s is 404 naming it, and nothing changes", async (param, id) => {
    const debt = await createDebt(me.api, mine);
    const res = await me.api.patch(`/debts/${debt.id}`, { [param]: id(), account_number: 'changed' }).expect(404);
    expect(res.body).toMatchObject({ code: 'resource_missing', param });
    expect(await retrieved(me.api, `/debts/${debt.id}`)).toEqual(debt);
  });

  test.each([
    [{ status: 'paid' }, 'status'],
    [{ summary: {} }, 'summary'],
    [{ currency: 'JPY' }, 'currency'],
    [{ breakdown: { interest: 5 } }, 'breakdown.principal'],
    [{ breakdown: { principal: 0 } }, 'breakdown.principal'],
    [{ breakdown: { principal: 1.5 } }, 'breakdown.principal'],
    [{ tags: ['a', 'a'] }, 'tags'],
    [{ start_at: 'yesterday' }, 'start_at'],
    [{}, 'body'],
  ])('rejects %j with 400 naming %s', async (body, param) => {
    const debt = await createDebt(me.api, mine);
    const res = await me.api.patch(`/debts/${debt.id}`, body).expect(400);
    expect(res.body).toMatchObject({ code: 'validation_failed', param });
    expect(await retrieved(me.api, `/debts/${debt.id}`)).toEqual(debt);
  });

  test('is 409 invalid_state_transition once the debt left initializing, and nothing changes', async () => {
    const id = await debtIn(me.api, mine, 'prepared');
    const before = (await me.api.get(`/debts/${id}`).expect(200)).body;
    const res = await me.api.patch(`/debts/${id}`, { account_number: 'late' }).expect(409);
    expect(res.body).toMatchObject({ type: 'conflict', code: 'invalid_state_transition' });
    expect((await me.api.get(`/debts/${id}`).expect(200)).body).toEqual(before);
  });

  test("another tenant's debt is 404", async () => {
    const debt = await createDebt(other.api, theirs);
    await me.api.patch(`/debts/${debt.id}`, { account_number: 'x' }).expect(404);
    expect(await retrieved(other.api, `/debts/${debt.id}`)).toEqual(debt);
  });
});

describe('DELETE /debts/{id}', () => {
  test('moves an initializing debt to deleted: gone from retrieval, lists and counts; debt.deleted recorded', async () => {
    const { api, tenant } = await signedInTenant();
    const parties = await seedParties(api);
    const keep = await createDebt(api, parties);
    const gone = await createDebt(api, parties);
    const res = await api.delete(`/debts/${gone.id}`).expect(200);
    expect(res.body).toEqual({ id: gone.id, object: 'debt', livemode: true, deleted: true });
    await api.get(`/debts/${gone.id}`).expect(404);
    const list = await api.get('/debts').expect(200);
    expect(list.body.data.map((d: { id: string }) => d.id)).toEqual([keep.id]);
    expect(list.headers['x-total-count']).toBe('1');
    await api.delete(`/debts/${gone.id}`).expect(404);
    await api.post(`/debts/${gone.id}/ready`).expect(404);
    const row = await testDb()('debts').where({ id: gone.id }).first('status');
    expect(row.status).toBe('deleted');
    expect(await eventTypesFor(tenant.tenantId, gone.id)).toEqual(['debt.created', 'debt.deleted']);
  });

  test('is 409 once the debt left initializing, and the debt stays', async () => {
    const id = await debtIn(me.api, mine, 'prepared');
    const res = await me.api.delete(`/debts/${id}`).expect(409);
    expect(res.body.code).toBe('invalid_state_transition');
    expect((await me.api.get(`/debts/${id}`).expect(200)).body.status.value).toBe('prepared');
  });

  test("another tenant's debt is 404 and stays", async () => {
    const debt = await createDebt(other.api, theirs);
    await me.api.delete(`/debts/${debt.id}`).expect(404);
    await other.api.get(`/debts/${debt.id}`).expect(200);
  });

  test('needs debts:write', async () => {
    const debt = await createDebt(me.api, mine);
    const { api } = await signedInTenant('debts:read');
    await api.delete(`/debts/${debt.id}`).expect(403);
    await api.patch(`/debts/${debt.id}`, { account_number: 'x' }).expect(403);
  });
});
