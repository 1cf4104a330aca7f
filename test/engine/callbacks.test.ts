/**
 * Inbound messages and receipts (docs/api.md sections 12 and 13) over real sockets: the SMS
 * stand-in's signed delivery receipts and inbound SMS reach the API's callbacks (a wrong
 * signature is 401 and changes nothing; a replayed receipt changes nothing); an email bounce
 * through the local mail server marks the contact detail undeliverable and, with none left, the
 * debt `contact_failed`. The operator classifies an inbound communication (the debt `queried`,
 * by `operator:<client id>`; a tenant token is 403) and marks a detail undeliverable. Strategies
 * naming an unknown channel or template are 400 naming the field. A plan made while the engine
 * works a debt is `arranging` until its first instalment is due, then `paying`.
 */
import request from 'supertest';
import { signParams, type SignatureMethod } from '@dms/channels';
import { afterAll, beforeAll, describe, expect, test } from '@jest/globals';
import { closeHarness, newOperator, operatorAs, signedInTenant, testDb, tokenFor } from '../support/harness.js';
import { eventually } from '../support/eventually.js';
import { communicationsOf, customerWith, debtRow, engineRig, offsetToLondon, preparedDebt, statusBecomes, type EngineRig } from './support.js';

type Tenant = Awaited<ReturnType<typeof signedInTenant>>;
let rig: EngineRig;
let t: Tenant;
let ops: ReturnType<typeof operatorAs>;
let operatorId: string;
let smsOrg: string;
let emailOrg: string;

beforeAll(async () => {
  rig = await engineRig();
  t = await signedInTenant();
  const operator = await newOperator();
  operatorId = operator.clientId;
  ops = operatorAs(await tokenFor(operator), t.tenant.tenantId);
  const org = (steps: unknown[]) => t.api.post('/organisations', { name: 'Callbacks Ltd', configurations: { collection_strategy: { steps } } }).expect(201);
  smsOrg = (await org([{ day: 0, delivery_method: 'sms', template: 'default-sms-reminder' }])).body.id;
  emailOrg = (await org([{ day: 0, delivery_method: 'email', template: 'default-email-first' }])).body.id;
  await rig.worker([t.tenant.tenantId], offsetToLondon(12));
});

afterAll(async () => {
  await rig?.stop();
  await closeHarness();
});

const eventCount = async (type: string, objectId: string) =>
  Number((await testDb()('events').where({ tenant_id: t.tenant.tenantId, type }).whereRaw(`data->'object'->>'id' = ?`, [objectId]).count({ n: '*' }))[0]!.n);

async function until<T>(read: () => Promise<T>, ok: (v: T) => boolean, what: string): Promise<T> {
  const { v } = await eventually(
    async () => {
      const v = await read();
      if (!ok(v)) throw new Error(`not yet: ${JSON.stringify(v)}`);
      return { v };
    },
    what,
    60_000,
  );
  return v;
}

describe('SMS', () => {
  let debt: string;
  let outbound: { id: string; provider_reference: string };

  beforeAll(async () => {
    debt = await preparedDebt(t.api, smsOrg, await customerWith(t.api, [{ type: 'mobile_number', value: '+447911123456' }]));
    await statusBecomes(debt, 'contacted');
    outbound = (await communicationsOf(debt))[0];
  });

  test('the signed delivery receipt marks the SMS delivered, once; a replay or a wrong signature changes nothing', async () => {
    const row = await until(
      () => testDb()('communications').where({ id: outbound.id }).first(),
      (r) => r.status === 'delivered',
      'delivered',
    );
    expect(row).toMatchObject({ provider: 'vonage', delivery_method: 'sms', direction: 'outbound' });
    const kept = (await (await fetch(`${rig.channels.sms.url}/_standin/messages`)).json()) as Array<{
      clientRef: string;
      receipts: Array<{ params: Record<string, string> }>;
    }>;
    const unsigned = kept.find((m) => m.clientRef === outbound.id)!.receipts[0]!.params;
    // The same receipt again, signed afresh as the provider would retry it.
    const params = signParams(unsigned, rig.env.SMS_SIGNATURE_SECRET!, rig.env.SMS_SIGNATURE_METHOD as SignatureMethod);
    const replay = await request(rig.callbacks.url).post('/callbacks/sms/receipts').send(params).expect(200);
    expect(replay.body).toMatchObject({ recorded: false });
    const forged = await request(rig.callbacks.url)
      .post('/callbacks/sms/receipts')
      .send({ ...params, status: 'failed', 'err-code': '1' })
      .expect(401);
    expect(forged.body.code).toBe('invalid_token');
    expect((await testDb()('communications').where({ id: outbound.id }).first()).status).toBe('delivered');
    expect(await eventCount('communication.delivered', outbound.id)).toBe(1);
  });

  test('an inbound SMS becomes an inbound communication and establishes contact; the operator classifies it as a query', async () => {
    await fetch(`${rig.channels.sms.url}/_standin/inbound`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ from: '447911123456', text: 'Why do I owe this?' }),
    });
    await statusBecomes(debt, 'contact_established');
    const inbound = (await communicationsOf(debt)).find((c) => c.direction === 'inbound');
    expect(inbound).toMatchObject({ status: 'received', delivery_method: 'sms', body: 'Why do I owe this?', provider: 'vonage' });
    const listed = await t.api.get(`/communications/search?query=${encodeURIComponent('direction:inbound')}`).expect(200);
    expect(listed.body.data.map((c: { id: string }) => c.id)).toEqual([inbound.id]);

    // A tenant token on an operator route is 403 and changes nothing.
    await t.api.post(`/operator/communications/${inbound.id}/classify`, { as: 'query' }).expect(403);
    expect((await debtRow(debt)).status).toBe('contact_established');
    // An outbound communication is not classified.
    await ops.post(`/operator/communications/${outbound.id}/classify`, { as: 'query' }).expect(409);
    expect((await ops.post(`/operator/communications/${inbound.id}/classify`, { as: 'maybe' }).expect(400)).body.param).toBe('as');
    const classified = await ops.post(`/operator/communications/${inbound.id}/classify`, { as: 'query', reason: 'asks why' }).expect(200);
    expect(classified.body).toMatchObject({ id: inbound.id, classification: 'query' });
    expect(await debtRow(debt)).toMatchObject({ status: 'queried', status_whodunnit: `operator:${operatorId}`, status_reason: 'asks why' });
  });
});

describe('email bounces and undeliverable details', () => {
  test('a bounce through the local mail server marks the detail undeliverable; with none left the debt is contact_failed', async () => {
    const customer = await customerWith(t.api, [{ type: 'email', value: 'nobody@example.org' }]);
    const debt = await preparedDebt(t.api, emailOrg, customer);
    await statusBecomes(debt, 'contacted');
    const [com] = await communicationsOf(debt);
    const mails = (await (await fetch(`${rig.channels.mail.webUrl}/api/messages?limit=200`)).json()) as Array<{ id: string; messageId: string }>;
    const mail = mails.find((m) => m.messageId === com.provider_reference)!;
    const bounced = await fetch(`${rig.channels.mail.webUrl}/api/messages/${encodeURIComponent(mail.id)}/bounce`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: '{}',
    });
    expect(bounced.status).toBeLessThan(300);
    await statusBecomes(debt, 'contact_failed');
    expect((await testDb()('communications').where({ id: com.id }).first()).status).toBe('bounced');
    expect((await testDb()('customer_contact_details').where({ id: com.contact_detail_id }).first()).status).toBe('undeliverable');
  });

  test('the inbound-mail endpoint refuses a wrong secret with 401', async () => {
    const res = await request(rig.callbacks.url)
      .post('/callbacks/email')
      .set('Authorization', 'Bearer wrong')
      .set('Content-Type', 'message/rfc822')
      .send('Subject: x\r\n\r\nhi');
    expect(res.status).toBe(401);
  });

  test("the operator marks a contacted debt's only detail undeliverable: the debt is contact_failed by operator:<client id>; a tenant token is 403", async () => {
    const customer = await customerWith(t.api, [{ type: 'email', value: 'ops@example.org' }]);
    const debt = await preparedDebt(t.api, emailOrg, customer);
    await statusBecomes(debt, 'contacted');
    const [com] = await communicationsOf(debt);
    await t.api.post(`/operator/contact_details/${com.contact_detail_id}/undeliverable`).expect(403);
    const res = await ops.post(`/operator/contact_details/${com.contact_detail_id}/undeliverable`).expect(200);
    expect(res.body).toMatchObject({ id: com.contact_detail_id, status: 'undeliverable' });
    expect(await debtRow(debt)).toMatchObject({ status: 'contact_failed', status_whodunnit: `operator:${operatorId}` });
  });
});

describe('strategies and plans', () => {
  test('a step with an unknown channel or template, or a template of another channel, is 400 naming the field; nothing changes', async () => {
    const org = (await t.api.post('/organisations', { name: 'Strict Ltd' }).expect(201)).body.id;
    const cases: Array<[unknown, string]> = [
      [{ day: 0, delivery_method: 'fax', template: 'default-email-first' }, 'configurations.collection_strategy.steps[0].delivery_method'],
      [{ day: 0, delivery_method: 'email', template: 'no-such-template' }, 'configurations.collection_strategy.steps[0].template'],
      [{ day: 0, delivery_method: 'sms', template: 'default-email-first' }, 'configurations.collection_strategy.steps[0].template'],
    ];
    for (const [step, param] of cases) {
      const res = await t.api.patch(`/organisations/${org}`, { configurations: { collection_strategy: { steps: [step] } } }).expect(400);
      expect(res.body).toMatchObject({ code: 'validation_failed', param });
    }
    expect((await t.api.get(`/organisations/${org}`).expect(200)).body.configurations).toEqual({});
  });

  test('a payment establishes contact; a plan proposed before its first instalment is arranging, then paying once it is due', async () => {
    const paid = await preparedDebt(t.api, emailOrg, await customerWith(t.api, [{ type: 'email', value: 'payer@example.org' }]));
    await statusBecomes(paid, 'contacted');
    await t.api.post(`/debts/${paid}/payments`, { amount: 1000, currency: 'GBP' }).expect(201);
    expect((await debtRow(paid)).status).toBe('contact_established');

    const debt = await preparedDebt(t.api, emailOrg, await customerWith(t.api, [{ type: 'email', value: 'planner@example.org' }]));
    await statusBecomes(debt, 'contacted');
    const startOn = new Date(Date.now() + 5 * 86_400_000).toISOString().slice(0, 10);
    await t.api.post(`/debts/${debt}/payment_plans`, { frequency: 'weekly', start_on: startOn, instalment_count: 2 }).expect(201);
    expect((await debtRow(debt)).status).toBe('arranging');
    await rig.worker([t.tenant.tenantId], offsetToLondon(12, 6));
    await statusBecomes(debt, 'paying');
    expect((await debtRow(debt)).status_whodunnit).toBe('system');
  });
});
