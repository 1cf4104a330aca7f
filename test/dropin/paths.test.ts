/**
 * Paths of the public API beside ours (docs/api.md section 15): `/payment-plans` (list, retrieve,
 * create with `debt_id`, and the actions), `/debts/{id}/contact-details`,
 * `/organisations/{id}/payments` and its search, `/organisations/{id}/contact_details`
 * (test/dropin/organisation-contact-details.test.ts); each the tenant's own (404 otherwise) and in OpenAPI.
 */
import { afterAll, beforeAll, expect, test } from '@jest/globals';
import request from 'supertest';
import { API_URL, closeHarness, seedParties, signedInTenant } from '../support/harness.js';
import { createDebt, type Parties } from '../support/debts.js';

let main: Awaited<ReturnType<typeof signedInTenant>>;
let other: Awaited<ReturnType<typeof signedInTenant>>;
let parties: Parties;
const start = new Date(Date.now() + 86_400_000).toISOString().slice(0, 10);

beforeAll(async () => {
  [main, other] = await Promise.all([signedInTenant(), signedInTenant()]);
  parties = await seedParties(main.api);
});
afterAll(closeHarness);

test('/payment-plans: create with debt_id, list, retrieve, delay and cancel, as /payment_plans', async () => {
  const debt = await createDebt(main.api, parties);
  await main.api.post(`/debts/${debt.id}/ready`).expect(200);
  const plan = (await main.api.post('/payment-plans', { debt_id: debt.id, frequency: 'weekly', start_on: start, instalment_count: 2 }).expect(201)).body;
  expect(plan).toMatchObject({ object: 'payment_plan', debt: debt.id, status: 'active' });
  expect((await main.api.get('/payment-plans').expect(200)).body.data.map((p: { id: string }) => p.id)).toEqual([plan.id]);
  expect((await main.api.get(`/payment-plans/${plan.id}`).query({ 'expand[]': 'debt' }).expect(200)).body.debt.id).toBe(debt.id);
  expect((await main.api.get(`/payment_plans/${plan.id}`).expect(200)).body.id).toBe(plan.id);
  await main.api.patch(`/payment-plans/${plan.id}/delay`, { days: 2 }).expect(200);
  expect((await main.api.post(`/payment-plans/${plan.id}/cancel`).expect(200)).body.status).toBe('canceled');
  // The same body on ours, and the bad inputs of each.
  expect((await main.api.post('/payment_plans', { debt_id: debt.id, frequency: 'weekly', start_on: start, instalment_count: 2 }).expect(201)).body.status).toBe(
    'active',
  );
  expect((await main.api.post('/payment-plans', { frequency: 'weekly', start_on: start, instalment_count: 2 }).expect(400)).body.param).toBe('debt_id');
  const foreign = await other.api.post('/payment-plans', { debt_id: debt.id, frequency: 'weekly', start_on: start, instalment_count: 2 }).expect(404);
  expect(foreign.body.code).toBe('resource_missing');
  await other.api.get(`/payment-plans/${plan.id}`).expect(404);
});

test("/debts/{id}/contact-details: the debt's customer's contact details", async () => {
  const debt = await createDebt(main.api, parties);
  const added = (await main.api.post(`/debts/${debt.id}/contact-details`, { type: 'email', value: 'ada@example.com', primary: true }).expect(201)).body;
  expect(added).toMatchObject({ object: 'contact_detail', type: 'email', value: 'ada@example.com' });
  const viaDebt = (await main.api.get(`/debts/${debt.id}/contact-details`).expect(200)).body.data;
  const viaCustomer = (await main.api.get(`/customers/${parties.customerId}/contact_details`).expect(200)).body.data;
  expect(viaDebt).toEqual(viaCustomer);
  expect(viaDebt.map((d: { id: string }) => d.id)).toContain(added.id);
  await other.api.get(`/debts/${debt.id}/contact-details`).expect(404);
  await other.api.post(`/debts/${debt.id}/contact-details`, { type: 'email', value: 'x@example.com' }).expect(404);
});

test('/organisations/{id}/payments and its search: the payments of that organisation only', async () => {
  const second = (await main.api.post('/organisations', { name: 'Second' }).expect(201)).body.id;
  const mine = await createDebt(main.api, parties);
  const theirs = await createDebt(main.api, { ...parties, organisationId: second });
  for (const d of [mine, theirs]) await main.api.post(`/debts/${d.id}/ready`).expect(200);
  const a = (await main.api.post(`/debts/${mine.id}/payments`, { amount: 100, currency: 'GBP' }).expect(201)).body.id;
  const b = (await main.api.post(`/debts/${mine.id}/payments`, { amount: 250, currency: 'GBP', status: 'pending' }).expect(201)).body.id;
  await main.api.post(`/debts/${theirs.id}/payments`, { amount: 100, currency: 'GBP' }).expect(201);
  const list = await main.api.get(`/organisations/${parties.organisationId}/payments`).expect(200);
  expect(list.body.data.map((p: { id: string }) => p.id)).toEqual([b, a]);
  expect(list.headers['x-total-count']).toBe('2');
  const page = await main.api.get(`/organisations/${parties.organisationId}/payments`).query({ limit: 1 }).expect(200);
  expect(page.body.data.map((p: { id: string }) => p.id)).toEqual([b]);
  expect(page.headers.link).toContain('rel="next"');
  const found = (await main.api.get(`/organisations/${parties.organisationId}/payments/search`).query({ query: 'status:pending' }).expect(200)).body.data;
  expect(found.map((p: { id: string }) => p.id)).toEqual([b]);
  const listed = (await main.api.get(`/organisations/${parties.organisationId}/payments`).query({ query: 'amount>=200' }).expect(200)).body.data;
  expect(listed.map((p: { id: string }) => p.id)).toEqual([b]);
  await other.api.get(`/organisations/${parties.organisationId}/payments`).expect(404);
  expect((await main.api.get(`/organisations/${parties.organisationId}/payments/search`).query({ query: 'colour:red' }).expect(400)).body.code).toBe(
    'invalid_search_query',
  );
});

test('OpenAPI documents the aliases and the public paths', async () => {
  const doc = (await request(API_URL).get('/openapi.json').expect(200)).body;
  for (const path of [
    '/payment-plans',
    '/payment-plans/{id}',
    '/payment-plans/{id}/cancel',
    '/debts/{debtId}/contact-details',
    '/organisations/{organisationId}/payments',
    '/organisations/{organisationId}/payments/search',
    '/organisations/{organisationId}/contact_details',
    '/organisations/{organisationId}/contact_details/{id}',
  ]) {
    expect(Object.keys(doc.paths)).toContain(path);
  }
  expect(doc.paths['/payment-plans'].get.description).toMatch(/Alias of `GET \/payment_plans`/);
  expect(doc.paths['/payment-plans'].post.operationId).toBe('createPaymentPlanForDebtViaAlias');
});
