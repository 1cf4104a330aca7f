/**
 * The event types an operation declares (OpenAPI `x-events`, docs/api.md section 7) are the ones it
 * records: a chain of requests over the core resources, each followed by the tenant's new events,
 * which must be a non-empty subset of the operation's `x-events` (none for an operation declaring
 * none). A wrong or missing declaration of these operations fails here, and so does an operation
 * of the document that declares events but is in no entry of checked-operations.ts (each
 * declared-events test runs exactly its entry).
 */
import request from 'supertest';
import { afterAll, beforeAll, expect, test } from '@jest/globals';
import { API_URL, closeHarness, signedInTenant } from '../support/harness.js';
import { CHECKED_OPERATIONS } from './checked-operations.js';
import { eventCheck, expectChecked } from './event-check.js';

type Json = Record<string, any>;

let doc: Json;
beforeAll(async () => {
  doc = (await request(API_URL).get('/openapi.json').expect(200)).body;
});
afterAll(closeHarness);

test('each request records only events its operation declares in x-events, and at least one when it declares any', async () => {
  const { api } = await signedInTenant();
  const check = await eventCheck(api, doc);
  const { results } = check;
  /** Sends one request of the documented operation `method path` and records what it emitted. */
  const run = (method: 'post' | 'patch' | 'put' | 'delete', path: string, url: string, body?: object): Promise<Json> =>
    check.run(method, path, method === 'delete' ? api.delete(url) : api[method](url, body ?? {}));

  const org = await run('post', '/organisations', '/organisations', { name: 'Events Ltd' });
  await run('patch', '/organisations/{id}', `/organisations/${org.id}`, { name: 'Events plc' });
  await run('put', '/organisations/{id}', `/organisations/${org.id}`, { industry: 'water' });
  const cus = await run('post', '/customers', '/customers', { full_name: 'Ada Events', contact_details: [{ type: 'email', value: 'ada@example.com' }] });
  await run('patch', '/customers/{id}', `/customers/${cus.id}`, { full_name: 'Ada Eventful' });
  const detail = await run('post', '/customers/{customerId}/contact_details', `/customers/${cus.id}/contact_details`, {
    type: 'mobile_number',
    value: '+447911123456',
  });
  await run('patch', '/customers/{customerId}/contact_details/{id}', `/customers/${cus.id}/contact_details/${detail.id}`, { metadata: { k: 'v' } });
  await run('delete', '/customers/{customerId}/contact_details/{id}', `/customers/${cus.id}/contact_details/${detail.id}`);
  const debt = await run('post', '/debts', '/debts', { customer_id: cus.id, organisation_id: org.id, currency: 'GBP', breakdown: { principal: 10_000 } });
  await run('patch', '/debts/{id}', `/debts/${debt.id}`, { account_number: 'EV-1' });
  await run('post', '/debts/{debtId}/line_items', `/debts/${debt.id}/line_items`, { kind: 'fee', amount: 500 });
  await run('post', '/debts/{id}/ready', `/debts/${debt.id}/ready`);
  await run('post', '/debts/{id}/pause', `/debts/${debt.id}/pause`);
  await run('post', '/debts/{id}/resume', `/debts/${debt.id}/resume`);
  await run('post', '/debts/{id}/dispute', `/debts/${debt.id}/dispute`);
  await run('post', '/debts/{id}/resolve-dispute', `/debts/${debt.id}/resolve-dispute`);
  await run('post', '/debts/{debtId}/payments', `/debts/${debt.id}/payments`, { amount: 1_000, currency: 'GBP' });
  await run('post', '/debts/{id}/withdraw', `/debts/${debt.id}/withdraw`);
  const other = await run('post', '/debts', '/debts', { customer_id: cus.id, organisation_id: org.id, currency: 'GBP', breakdown: { principal: 100 } });
  await run('delete', '/debts/{id}', `/debts/${other.id}`);
  const hook = await run('post', '/webhooks', '/webhooks', { url: 'https://hooks.example.com/events', enabled_events: ['debt.created'] });
  await run('patch', '/webhooks/{id}', `/webhooks/${hook.id}`, { enabled: false });
  const gone = await run('post', '/customers', '/customers', { full_name: 'Gone' });
  await run('delete', '/customers/{id}', `/customers/${gone.id}`);

  expectChecked(results, 'core');
});

test('every operation that declares events in x-events is checked by one of the declared-events tests', () => {
  const declaring = Object.entries(doc.paths as Record<string, Json>).flatMap(([path, ops]) =>
    Object.entries(ops as Json)
      .filter(([, op]) => (op as Json)['x-events']?.length)
      .map(([method]) => `${method} ${path}`),
  );
  expect(declaring.length).toBeGreaterThan(50);
  const checked = new Set<string>(Object.values(CHECKED_OPERATIONS).flat());
  expect(declaring.filter((op) => !checked.has(op))).toEqual([]);
  // And each listed operation is one of the document's.
  expect([...checked].filter((op) => !doc.paths[op.split(' ')[1]!]?.[op.split(' ')[0]!])).toEqual([]);
});
