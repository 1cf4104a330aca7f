/**
 * The test helpers that simulate customers and providers (docs/api.md section 15) over HTTP, on
 * communications the real collection engine sent (a worker over the local mail stand-in): an
 * inbound reply is an inbound communication with the effects of a real one (`contact_established`),
 * a bounce marks the contact detail `undeliverable` and, with none left, the debt `contact_failed`,
 * as the provider's callback does. A live token gets 404 `route_not_found` on both; another mode's
 * objects are 404 `resource_missing`; refusals change nothing.
 */
import { afterAll, beforeAll, describe, expect, test } from '@jest/globals';
import { closeHarness, testDb } from '../support/harness.js';
import { communicationsOf, customerWith, debtRow, engineRig, offsetToLondon, preparedDebt, statusBecomes, type EngineRig } from '../engine/support.js';
import { bothModes, type Mode } from './support.js';

let rig: EngineRig;
let live: Mode;
let testMode: Mode;
const orgs: { live: string; test: string } = { live: '', test: '' };

beforeAll(async () => {
  rig = await engineRig();
  ({ live, test: testMode } = await bothModes());
  const steps = [{ day: 0, delivery_method: 'email', template: 'default-email-first' }];
  for (const [key, m] of [['live', live] as const, ['test', testMode] as const])
    orgs[key] = (await m.api.post('/organisations', { name: 'Simulate Ltd', configurations: { collection_strategy: { steps } } }).expect(201)).body.id;
  await rig.worker([live.tenant.tenantId, testMode.tenant.tenantId], offsetToLondon(12));
});

afterAll(async () => {
  await rig?.stop();
  await closeHarness();
});

/** A debt of `mode` the engine has written to (one email sent to `emails`' first); with its outbound communication. */
async function contactedDebt(mode: Mode, key: 'live' | 'test', emails = ['ann@example.org']) {
  const customer = await customerWith(
    mode.api,
    emails.map((value) => ({ type: 'email', value })),
  );
  const debt = await preparedDebt(mode.api, orgs[key], customer);
  await statusBecomes(debt, 'contacted');
  const [sent] = await communicationsOf(debt);
  expect(sent).toMatchObject({ direction: 'outbound', delivery_method: 'email', status: 'sent' });
  return { debt, customer, sent: sent as { id: string; contact_detail_id: string } };
}

const events = async (tenantId: string, objectId: string) =>
  (await testDb()('events').where({ tenant_id: tenantId }).whereRaw(`data->'object'->>'id' = ?`, [objectId]).orderBy('seq').select('type')).map(
    (r: { type: string }) => r.type,
  );

describe('POST /test_helpers/debts/{id}/inbound', () => {
  test('records an inbound communication as a real reply does, and establishes contact', async () => {
    const { debt, sent } = await contactedDebt(testMode, 'test');
    const res = await testMode.api
      .post(`/test_helpers/debts/${debt}/inbound`, { text: 'I can pay next week.', subject: 'Re: your account' })
      .query({ 'expand[]': 'contact_detail' })
      .expect(201);
    expect(res.body).toMatchObject({
      object: 'communication',
      livemode: false,
      direction: 'inbound',
      delivery_method: 'email',
      status: 'received',
      debt,
      subject: 'Re: your account',
      contact_detail: { id: sent.contact_detail_id, object: 'contact_detail', livemode: false },
    });
    expect(await debtRow(debt)).toMatchObject({ status: 'contact_established' });
    expect(await events(testMode.tenant.tenantId, res.body.id)).toEqual(['communication.received']);
    expect(await events(testMode.tenant.tenantId, debt)).toContain('debt.contact_established');
    // It is listed as every reply is.
    const listed = (await testMode.api.get(`/debts/${debt}/communications`).expect(200)).body.data.map((c: { id: string }) => c.id);
    expect(listed).toContain(res.body.id);
  });

  test('takes no body at all; a bad field is 400 naming it; another mode’s debt is 404; nothing changes', async () => {
    const { debt } = await contactedDebt(testMode, 'test');
    const bad = await testMode.api.post(`/test_helpers/debts/${debt}/inbound`, { delivery_method: 'letter' }).expect(400);
    expect(bad.body).toMatchObject({ code: 'validation_failed', param: 'delivery_method' });
    const unknown = await testMode.api.post(`/test_helpers/debts/${debt}/inbound`, { mood: 'cross' }).expect(400);
    expect(unknown.body.code).toBe('validation_failed');
    const liveOne = await contactedDebt(live, 'live', ['bob@example.org']);
    expect((await testMode.api.post(`/test_helpers/debts/${liveOne.debt}/inbound`).expect(404)).body.code).toBe('resource_missing');
    expect((await communicationsOf(debt)).length).toBe(1);
    expect((await communicationsOf(liveOne.debt)).length).toBe(1);
    expect((await debtRow(liveOne.debt)).status).toBe('contacted');
    const ok = await testMode.api.post(`/test_helpers/debts/${debt}/inbound`).expect(201);
    expect(ok.body).toMatchObject({ direction: 'inbound', body: 'Test reply' });
  });
});

describe('POST /test_helpers/communications/{id}/bounce', () => {
  test('the only detail bounces: undeliverable, then the debt is contact_failed, as the provider callback does', async () => {
    const { debt, sent } = await contactedDebt(testMode, 'test');
    const res = await testMode.api.post(`/test_helpers/communications/${sent.id}/bounce`, { reason: '5.1.1 no such user' }).expect(200);
    expect(res.body).toMatchObject({ id: sent.id, object: 'communication', status: 'bounced', status_reason: '5.1.1 no such user', livemode: false });
    expect((await testDb()('customer_contact_details').where({ id: sent.contact_detail_id }).first()).status).toBe('undeliverable');
    expect(await debtRow(debt)).toMatchObject({ status: 'contact_failed' });
    expect(await events(testMode.tenant.tenantId, sent.id)).toEqual(['communication.created', 'communication.sent', 'communication.failed']);
    expect(await events(testMode.tenant.tenantId, sent.contact_detail_id)).toContain('customer_contact_detail.updated');
    expect(await events(testMode.tenant.tenantId, debt)).toContain('debt.contact_failed');

    // Bouncing it again is 409 and changes nothing.
    const again = await testMode.api.post(`/test_helpers/communications/${sent.id}/bounce`).expect(409);
    expect(again.body.code).toBe('invalid_state_transition');
    expect(await events(testMode.tenant.tenantId, sent.id)).toHaveLength(3);
  });

  test('with another usable detail left the debt stays contacted', async () => {
    const { debt, sent } = await contactedDebt(testMode, 'test', ['first@example.org', 'second@example.org']);
    await testMode.api.post(`/test_helpers/communications/${sent.id}/bounce`).expect(200);
    expect((await testDb()('customer_contact_details').where({ id: sent.contact_detail_id }).first()).status).toBe('undeliverable');
    expect((await debtRow(debt)).status).toBe('contacted');
  });

  test('an inbound communication is 409; another mode’s communication is 404; nothing changes', async () => {
    const { debt, sent } = await contactedDebt(testMode, 'test');
    const reply = (await testMode.api.post(`/test_helpers/debts/${debt}/inbound`).expect(201)).body;
    expect((await testMode.api.post(`/test_helpers/communications/${reply.id}/bounce`).expect(409)).body.code).toBe('invalid_state_transition');
    const liveOne = await contactedDebt(live, 'live', ['carol@example.org']);
    expect((await testMode.api.post(`/test_helpers/communications/${liveOne.sent.id}/bounce`).expect(404)).body.code).toBe('resource_missing');
    expect((await testDb()('communications').where({ id: liveOne.sent.id }).first()).status).toBe('sent');
    expect((await testDb()('communications').where({ id: sent.id }).first()).status).toBe('sent');
  });
});

test('a live token gets 404 route_not_found on both helpers, as for a path that does not exist; nothing changes', async () => {
  const { debt, sent } = await contactedDebt(live, 'live', ['dan@example.org']);
  for (const path of [`/test_helpers/debts/${debt}/inbound`, `/test_helpers/communications/${sent.id}/bounce`]) {
    const res = await live.api.post(path, {}).expect(404);
    expect(res.body).toMatchObject({ object: 'error', code: 'route_not_found' });
  }
  expect((await communicationsOf(debt)).map((c: { status: string }) => c.status)).toEqual(['sent']);
  expect((await debtRow(debt)).status).toBe('contacted');
  expect((await testDb()('customer_contact_details').where({ id: sent.contact_detail_id }).first()).status).toBe('unverified');
});
