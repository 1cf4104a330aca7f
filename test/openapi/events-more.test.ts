/**
 * The declared events (OpenAPI `x-events`, docs/api.md section 7) of the operations the core chain
 * of events.test.ts does not reach: money (invoices, payment updates, refunds, plans and their
 * schedule changes, settlement), templates, imports, webhook tests, organisation contact details,
 * income and expenditure statements, the operator's operations, and the test helpers. Each request's new events must be a non-empty
 * subset of its declaration; a `/payment-plans` alias declares exactly what its `/payment_plans`
 * operation declares.
 */
import request from 'supertest';
import { afterAll, beforeAll, expect, test } from '@jest/globals';
import { API_URL, closeHarness, newOperator, operatorAs, signedInTenant, tokenFor } from '../support/harness.js';
import { bothModes } from '../test-mode/support.js';
import { eventCheck, expectChecked } from './event-check.js';
import { statementBody } from '../circumstances/support.js';

type Json = Record<string, any>;

let doc: Json;
beforeAll(async () => {
  doc = (await request(API_URL).get('/openapi.json').expect(200)).body;
});
afterAll(closeHarness);

const inDays = (n: number) => new Date(Date.now() + n * 86_400_000).toISOString().slice(0, 10);

test('the /payment-plans aliases declare what their /payment_plans operations declare', () => {
  const aliases = Object.keys(doc.paths as Record<string, Json>).filter((p) => p.startsWith('/payment-plans'));
  expect(aliases.length).toBeGreaterThan(0);
  for (const path of aliases)
    for (const [method, op] of Object.entries(doc.paths[path] as Json))
      expect([method, path, op['x-events']]).toEqual([method, path, doc.paths[path.replace('/payment-plans', '/payment_plans')][method]['x-events']]);
});

test('money, plans, templates, imports, webhooks, organisation contact details and statements record only declared events', async () => {
  const { api } = await signedInTenant();
  const { run, results } = await eventCheck(api, doc);
  const org = (await api.post('/organisations', { name: 'Events Money Ltd' }).expect(201)).body;
  const cus = (await api.post('/customers', { full_name: 'Bea Events', contact_details: [{ type: 'email', value: 'bea@example.com' }] }).expect(201)).body;
  const newDebt = async (principal: number, ready = true) => {
    const d = (await api.post('/debts', { customer_id: cus.id, organisation_id: org.id, currency: 'GBP', breakdown: { principal } }).expect(201)).body;
    if (ready) await api.post(`/debts/${d.id}/ready`).expect(200);
    return d.id as string;
  };
  const debt = await newDebt(100_000, false);
  await run('put', '/debts/{id}', api.put(`/debts/${debt}`, { account_number: 'EVM-1' }));
  await api.post(`/debts/${debt}/ready`).expect(200);
  await run('put', '/customers/{id}', api.put(`/customers/${cus.id}`, { full_name: 'Bea Eventful' }));
  const detail = await run('post', '/debts/{debtId}/contact-details', api.post(`/debts/${debt}/contact-details`, { type: 'email', value: 'bea2@example.com' }));
  await run('put', '/customers/{customerId}/contact_details/{id}', api.put(`/customers/${cus.id}/contact_details/${detail.id}`, { metadata: { k: 'v' } }));
  const invoice = await run(
    'post',
    '/debts/{debtId}/invoices',
    api.post(`/debts/${debt}/invoices`, { reference: 'INV-EV', line_items: [{ kind: 'fee', amount: 1_000 }] }),
  );
  await run('patch', '/debts/{debtId}/invoices/{id}', api.patch(`/debts/${debt}/invoices/${invoice.id}`, { description: 'Water' }));
  await run('put', '/debts/{debtId}/invoices/{id}', api.put(`/debts/${debt}/invoices/${invoice.id}`, { metadata: { k: 'v' } }));
  const pay = (await api.post(`/debts/${debt}/payments`, { amount: 5_000, currency: 'GBP', status: 'pending' }).expect(201)).body;
  await run('patch', '/debts/{debtId}/payments/{id}', api.patch(`/debts/${debt}/payments/${pay.id}`, { metadata: { k: 'v' } }));
  await run('put', '/debts/{debtId}/payments/{id}', api.put(`/debts/${debt}/payments/${pay.id}`, { status: 'succeeded' }));
  await run('post', '/debts/{debtId}/payments/{id}/refund', api.post(`/debts/${debt}/payments/${pay.id}/refund`, { amount: 1_000 }));

  const plan = await run(
    'post',
    '/debts/{debtId}/payment_plans',
    api.post(`/debts/${debt}/payment_plans`, { frequency: 'weekly', start_on: inDays(3), instalment_count: 4 }),
  );
  // Each schedule change, under both spellings of the path (section 15's aliases).
  for (const base of ['/payment_plans', '/payment-plans']) {
    for (const [method, days] of [
      ['patch', 2],
      ['put', 1],
    ] as const)
      await run(method, `${base}/{id}/delay`, api[method](`${base}/${plan.id}/delay`, { days }));
    for (const [method, count] of [
      ['patch', 3],
      ['put', 2],
    ] as const)
      await run(
        method,
        `${base}/{id}/reschedule`,
        api[method](`${base}/${plan.id}/reschedule`, { frequency: 'monthly', start_on: inDays(6), instalment_count: count }),
      );
  }
  await run('post', '/payment_plans/{id}/cancel', api.post(`/payment_plans/${plan.id}/cancel`));
  const second = await newDebt(20_000);
  const other = await run(
    'post',
    '/payment_plans',
    api.post('/payment_plans', { debt_id: second, frequency: 'monthly', start_on: inDays(2), instalment_count: 2 }),
  );
  await run('post', '/payment-plans/{id}/cancel', api.post(`/payment-plans/${other.id}/cancel`));
  const third = await newDebt(30_000);
  await run('post', '/payment-plans', api.post('/payment-plans', { debt_id: third, frequency: 'weekly', start_on: inDays(1), instalment_count: 3 }));
  await run('post', '/debts/{id}/settle', api.post(`/debts/${third}/settle`));

  const template = { name: 'Events reminder', delivery_method: 'email', subject: 'Hello', body: 'Please get in touch.' };
  const made = await run('post', '/communication_templates', api.post('/communication_templates', template));
  await run('patch', '/communication_templates/{id}', api.patch(`/communication_templates/${made.id}`, { subject: 'Hello again' }));
  await run('put', '/communication_templates/{id}', api.put(`/communication_templates/${made.id}`, { body: 'Please call us.' }));

  await run(
    'post',
    '/imports',
    api
      .post('/imports')
      .field('type', 'placement')
      .field('organisation_id', org.id)
      .attach('file', Buffer.from([0, 159, 146, 150]), 'bad.csv'),
  );

  const hook = (await api.post('/webhooks', { url: 'https://hooks.example.com/events', enabled_events: ['debt.created'] }).expect(201)).body;
  await run('post', '/webhooks/{id}/test', api.post(`/webhooks/${hook.id}/test`));

  const orgDetail = await run(
    'post',
    '/organisations/{organisationId}/contact_details',
    api.post(`/organisations/${org.id}/contact_details`, { type: 'email', value: 'billing@example.com' }),
  );
  await run(
    'patch',
    '/organisations/{organisationId}/contact_details/{id}',
    api.patch(`/organisations/${org.id}/contact_details/${orgDetail.id}`, { metadata: { k: 'v' } }),
  );
  await run(
    'put',
    '/organisations/{organisationId}/contact_details/{id}',
    api.put(`/organisations/${org.id}/contact_details/${orgDetail.id}`, { usage: 'billing' }),
  );
  const statement = statementBody({ income: { earnings: { amount: 1_000, frequency: 'weekly' } } });
  await run('post', '/debts/{debtId}/income_and_expenditures', api.post(`/debts/${debt}/income_and_expenditures`, statement));
  expectChecked(results, 'money');
});

test("the operator's operations and the test helpers record only declared events", async () => {
  const { test: mode } = await bothModes();
  const { api } = mode;
  const { run, results } = await eventCheck(api, doc);
  const ops = operatorAs(await tokenFor(await newOperator()), mode.tenant.tenantId);
  const org = (await api.post('/organisations', { name: 'Events Ops Ltd', configurations: { payouts: { fee_basis_points: 100 } } }).expect(201)).body;
  const cus = (await api.post('/customers', { full_name: 'Cy Events', contact_details: [{ type: 'email', value: 'cy@example.com' }] }).expect(201)).body;
  const debt = (await api.post('/debts', { customer_id: cus.id, organisation_id: org.id, currency: 'GBP', breakdown: { principal: 50_000 } }).expect(201)).body
    .id as string;
  await api.post(`/debts/${debt}/ready`).expect(200);

  const inbound = await run('post', '/test_helpers/debts/{id}/inbound', api.post(`/test_helpers/debts/${debt}/inbound`, { text: 'Who are you?' }));
  await run('post', '/operator/communications/{id}/classify', ops.post(`/operator/communications/${inbound.id}/classify`, { as: 'query' }));
  await run('post', '/operator/debts/{id}/status', ops.post(`/operator/debts/${debt}/status`, { status: 'follow_up_required', reason: 'Checked by phone' }));
  const [email] = (await api.get(`/customers/${cus.id}/contact_details`).expect(200)).body.data as Json[];
  await run('post', '/operator/contact_details/{id}/undeliverable', ops.post(`/operator/contact_details/${email!.id}/undeliverable`));

  const pending = (await api.post(`/debts/${debt}/payments`, { amount: 2_000, currency: 'GBP', status: 'pending' }).expect(201)).body;
  await run('post', '/test_helpers/payments/{id}/fail', api.post(`/test_helpers/payments/${pending.id}/fail`));
  await api.post(`/debts/${debt}/payments`, { amount: 10_000, currency: 'GBP' }).expect(201);
  const payouts = (await run('post', '/operator/payouts/run', ops.post('/operator/payouts/run', { organisation_id: org.id }))).payouts as string[];
  await run('post', '/operator/payouts/{id}/status', ops.post(`/operator/payouts/${payouts[0]}/status`, { status: 'in_transit' }));
  expectChecked(results, 'operator');
});
