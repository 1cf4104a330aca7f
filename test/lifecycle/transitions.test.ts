/**
 * The debt lifecycle table of docs/api.md section 6, driven over HTTP: every allowed move gives the
 * next status with `status.reason` and `status.updated_at` set and records `debt.<status>`; from
 * every status, a forbidden move is 409 `invalid_state_transition` and changes nothing.
 */
import { afterAll, beforeAll, describe, expect, test } from '@jest/globals';
import { closeHarness, seedParties, signedInTenant } from '../support/harness.js';
import { createDebt, debtIn, eventTypesFor, type Parties, type Status } from '../support/debts.js';

afterAll(closeHarness);

let me: Awaited<ReturnType<typeof signedInTenant>>;
let other: Awaited<ReturnType<typeof signedInTenant>>;
let parties: Parties;

beforeAll(async () => {
  [me, other] = await Promise.all([signedInTenant(), signedInTenant()]);
  parties = await seedParties(me.api);
});

/** Every allowed move: [from, action, to]. */
const ALLOWED: Array<[Status, string, Status]> = [
  ['initializing', 'ready', 'prepared'],
  ['prepared', 'pause', 'paused'],
  ['resumed', 'pause', 'paused'],
  ['paused', 'resume', 'resumed'],
  ['prepared', 'dispute', 'disputed'],
  ['resumed', 'dispute', 'disputed'],
  ['paused', 'dispute', 'disputed'],
  ['disputed', 'resolve-dispute', 'resumed'],
  ['prepared', 'settle', 'settled'],
  ['resumed', 'settle', 'settled'],
  ['paused', 'settle', 'settled'],
  ['initializing', 'withdraw', 'withdrawn'],
  ['prepared', 'withdraw', 'withdrawn'],
  ['paused', 'withdraw', 'withdrawn'],
  ['resumed', 'withdraw', 'withdrawn'],
  ['disputed', 'withdraw', 'withdrawn'],
];

describe('allowed moves', () => {
  test.each(ALLOWED)('%s --%s--> %s', async (from, action, to) => {
    const id = await debtIn(me.api, parties, from);
    const before = (await me.api.get(`/debts/${id}`).expect(200)).body;
    const res = await me.api.post(`/debts/${id}/${action}`, { reason: `because ${action}` }).expect(200);
    expect(res.body).toMatchObject({ id, object: 'debt', status: { value: to, reason: `because ${action}` } });
    expect(Date.parse(res.body.status.updated_at)).toBeGreaterThanOrEqual(Date.parse(before.status.updated_at));
    expect((await me.api.get(`/debts/${id}`).expect(200)).body.status).toEqual(res.body.status);
    const events = await eventTypesFor(me.tenant.tenantId, id);
    expect(events[events.length - 1]).toBe(`debt.${to}`);
  });

  test('reason is optional: no body, or an empty object, stores null', async () => {
    const id = await debtIn(me.api, parties, 'initializing');
    const ready = await me.api.post(`/debts/${id}/ready`).expect(200);
    expect(ready.body.status).toMatchObject({ value: 'prepared', reason: null });
    const paused = await me.api.post(`/debts/${id}/pause`, {}).expect(200);
    expect(paused.body.status).toMatchObject({ value: 'paused', reason: null });
  });
});

/** From every status, one move the table forbids. */
const FORBIDDEN: Array<[Status, string]> = [
  ['initializing', 'pause'],
  ['initializing', 'settle'],
  ['prepared', 'ready'],
  ['prepared', 'resume'],
  ['paused', 'pause'],
  ['resumed', 'resume'],
  ['resumed', 'resolve-dispute'],
  ['disputed', 'settle'],
  ['disputed', 'pause'],
  ['settled', 'withdraw'],
  ['paid', 'withdraw'],
  ['paid', 'dispute'],
  ['withdrawn', 'withdraw'],
  ['withdrawn', 'ready'],
];

describe('forbidden moves', () => {
  test.each(FORBIDDEN)('%s --%s--> 409, nothing changes', async (from, action) => {
    const id = await debtIn(me.api, parties, from);
    const before = (await me.api.get(`/debts/${id}`).expect(200)).body;
    const eventsBefore = await eventTypesFor(me.tenant.tenantId, id);
    const res = await me.api.post(`/debts/${id}/${action}`, { reason: 'try' }).expect(409);
    expect(res.body).toMatchObject({ object: 'error', type: 'conflict', code: 'invalid_state_transition' });
    expect(res.body.message).toContain(`'${from}'`);
    expect((await me.api.get(`/debts/${id}`).expect(200)).body).toEqual(before);
    expect(await eventTypesFor(me.tenant.tenantId, id)).toEqual(eventsBefore);
  });

  test('a deleted debt is gone: every action is 404', async () => {
    const id = await debtIn(me.api, parties, 'deleted');
    for (const action of ['ready', 'withdraw']) await me.api.post(`/debts/${id}/${action}`).expect(404);
  });
});

describe('requests', () => {
  test('unknown body fields and bad reasons are 400 naming the field', async () => {
    const id = (await createDebt(me.api, parties)).id;
    expect((await me.api.post(`/debts/${id}/ready`, { because: 'x' }).expect(400)).body).toMatchObject({ code: 'validation_failed', param: 'because' });
    expect((await me.api.post(`/debts/${id}/ready`, { reason: '' }).expect(400)).body.param).toBe('reason');
    expect((await me.api.post(`/debts/${id}/ready`, { reason: 'x'.repeat(501) }).expect(400)).body.param).toBe('reason');
    expect((await me.api.get(`/debts/${id}`).expect(200)).body.status.value).toBe('initializing');
  });

  test('an unknown action is 404', async () => {
    const id = (await createDebt(me.api, parties)).id;
    await me.api.post(`/debts/${id}/explode`).expect(404);
  });

  test("another tenant's debt is 404 for every action", async () => {
    const theirs = await createDebt(other.api, await seedParties(other.api));
    for (const action of ['ready', 'pause', 'resume', 'dispute', 'resolve-dispute', 'settle', 'withdraw']) {
      const res = await me.api.post(`/debts/${theirs.id}/${action}`).expect(404);
      expect(res.body.code).toBe('resource_missing');
    }
    expect((await other.api.get(`/debts/${theirs.id}`).expect(200)).body.status.value).toBe('initializing');
  });

  test('needs debts:write', async () => {
    const id = (await createDebt(me.api, parties)).id;
    const { api } = await signedInTenant('debts:read');
    await api.post(`/debts/${id}/ready`).expect(403);
  });
});
