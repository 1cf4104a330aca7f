/**
 * Bodies where none or only some are accepted: an operation without a body (a DELETE, a lifecycle
 * action without one) takes nothing but `{}`, a DELETE's body is read and checked (invalid JSON,
 * over 1 MiB), rules between fields are the schema's (`line_items` or `breakdown`; exactly one of
 * `instalment_amount` and `instalment_count`) with errors naming the field, and a webhook URL on
 * port 0 is refused. Nothing is changed by a refused request.
 */
import request from 'supertest';
import { afterAll, describe, expect, test } from '@jest/globals';
import { API_URL, closeHarness, seedParties, signedInTenant } from '../support/harness.js';

afterAll(closeHarness);

type Api = Awaited<ReturnType<typeof signedInTenant>>['api'];

async function customer(api: Api): Promise<string> {
  return (await api.post('/customers', { full_name: 'Grace Hopper' }).expect(201)).body.id as string;
}

describe('operations without a body', () => {
  test('DELETE refuses an array, a field, invalid JSON, a body over 1 MiB and another media type; nothing is deleted', async () => {
    const { api, token } = await signedInTenant();
    const id = await customer(api);
    const del = () => request(API_URL).delete(`/customers/${id}`).set('Authorization', `Bearer ${token}`);

    const array = await del().send([1]).expect(400);
    expect(array.body).toMatchObject({ code: 'validation_failed', param: 'body' });
    const field = await del().send({ force: true }).expect(400);
    expect(field.body).toMatchObject({ code: 'validation_failed', param: 'force' });
    expect(field.body.message).toBe('force is not a recognised field');
    const invalid = await del().set('Content-Type', 'application/json').send('{"a":').expect(400);
    expect(invalid.body.code).toBe('invalid_json');
    const big = await del()
      .set('Content-Type', 'application/json')
      .send(JSON.stringify({ a: 'x'.repeat(1024 * 1024) }))
      .expect(413);
    expect(big.body.code).toBe('body_too_large');
    const text = await del().set('Content-Type', 'text/plain').send('please').expect(415);
    expect(text.body.code).toBe('unsupported_media_type');

    await api.get(`/customers/${id}`).expect(200);
    // No body, or an empty object (as some clients always send), deletes.
    await del().send({}).expect(200);
  });

  test('a POST without a body refuses a field or an array, and runs with none or `{}`', async () => {
    const { api } = await signedInTenant();
    const hook = await api.post('/webhooks', { url: 'https://93.184.216.34/hook', enabled_events: ['*'] }).expect(201);
    const array = await api.post(`/webhooks/${hook.body.id}/rotate_secret`, [] as unknown as object).expect(400);
    expect(array.body).toMatchObject({ code: 'validation_failed', param: 'body' });
    const field = await api.post(`/webhooks/${hook.body.id}/rotate_secret`, { secret: 'mine' }).expect(400);
    expect(field.body).toMatchObject({ code: 'validation_failed', param: 'secret' });
    await api.post(`/webhooks/${hook.body.id}/rotate_secret`, {}).expect(200);
    await api.post(`/webhooks/${hook.body.id}/rotate_secret`).expect(200);
  });
});

describe('rules between fields are in the schemas', () => {
  test('line_items or breakdown, not both: 400 naming line_items, nothing created', async () => {
    const { api } = await signedInTenant();
    const parties = await seedParties(api);
    const base = { customer_id: parties.customerId, organisation_id: parties.organisationId, currency: 'GBP' };
    const both = await api.post('/debts', { ...base, breakdown: { principal: 100 }, line_items: [{ kind: 'debt', amount: 100 }] }).expect(400);
    expect(both.body).toMatchObject({ code: 'validation_failed', param: 'line_items', message: 'line_items cannot be given with breakdown' });
    expect((await api.get('/debts').expect(200)).body.data).toEqual([]);

    const doc = (await request(API_URL).get('/openapi.json').expect(200)).body;
    expect(doc.components.schemas.DebtCreate.not).toEqual({ required: ['breakdown', 'line_items'] });
    expect(doc.components.schemas.PaymentPlanCreate.oneOf).toEqual([{ required: ['instalment_amount'] }, { required: ['instalment_count'] }]);
  });

  test('exactly one of instalment_amount and instalment_count: both or neither is a 400 naming them', async () => {
    const { api } = await signedInTenant();
    const parties = await seedParties(api);
    const debt = await api
      .post('/debts', { customer_id: parties.customerId, organisation_id: parties.organisationId, currency: 'GBP', breakdown: { principal: 1200 } })
      .expect(201);
    await api.post(`/debts/${debt.body.id}/ready`).expect(200);
    const plan = (terms: object) => api.post(`/debts/${debt.body.id}/payment_plans`, { frequency: 'monthly', start_on: '2999-01-01', ...terms });
    for (const terms of [{}, { instalment_amount: 100, instalment_count: 12 }]) {
      const res = await plan(terms).expect(400);
      expect(res.body).toMatchObject({
        code: 'validation_failed',
        param: 'instalment_amount',
        message: 'give exactly one of instalment_amount or instalment_count',
      });
      expect(res.body.errors).toHaveLength(1);
    }
    // Another field's error is still reported beside the rule's.
    const two = await plan({ frequency: 'daily' }).expect(400);
    expect(two.body.errors.map((e: { param: string }) => e.param).sort()).toEqual(['frequency', 'instalment_amount']);
    await plan({ instalment_count: 12 }).expect(201);
  });
});

test('a webhook URL on port 0 is refused at create and update', async () => {
  const { api } = await signedInTenant();
  const zero = await api.post('/webhooks', { url: 'https://93.184.216.34:0/hook', enabled_events: ['*'] }).expect(400);
  expect(zero.body).toMatchObject({ param: 'url' });
  expect(zero.body.message).toMatch(/port 0/);
  const hook = await api.post('/webhooks', { url: 'https://93.184.216.34:8443/hook', enabled_events: ['*'] }).expect(201);
  const update = await api.patch(`/webhooks/${hook.body.id}`, { url: 'https://93.184.216.34:0/hook' }).expect(400);
  expect(update.body).toMatchObject({ param: 'url' });
});
