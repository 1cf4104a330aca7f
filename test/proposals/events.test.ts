/**
 * The declared events (OpenAPI `x-events`, docs/api.md section 7) of deciding proposals (section
 * 20): the tenant's and the operator's accept and decline each record a non-empty subset of what
 * they declare, and the proposal's own event is among them.
 */
import request from 'supertest';
import { afterAll, beforeAll, expect, test } from '@jest/globals';
import { createProposal } from '@dms/domain/proposals';
import { API_URL, closeHarness, newOperator, operatorAs, seedParties, signedInTenant, testDb, tokenFor } from '../support/harness.js';
import { createDebt } from '../support/debts.js';
import { eventCheck, expectChecked } from '../openapi/event-check.js';
import { statementBody } from '../circumstances/support.js';

type Json = Record<string, any>;

let doc: Json;
beforeAll(async () => {
  doc = (await request(API_URL).get('/openapi.json').expect(200)).body;
});
afterAll(closeHarness);

test('accepting and declining proposals record only declared events', async () => {
  const { api, tenant } = await signedInTenant();
  const parties = await seedParties(api);
  const ops = operatorAs(await tokenFor(await newOperator()), tenant.tenantId);
  const { run, results } = await eventCheck(api, doc);
  const startOn = new Date(Date.now() + 7 * 86_400_000).toISOString().slice(0, 10);
  const propose = async () => {
    const debt = await createDebt(api, parties);
    await api.post(`/debts/${debt.id}/ready`).expect(200);
    const iae = (await api.post(`/debts/${debt.id}/income_and_expenditures`, statementBody()).expect(201)).body.id;
    const terms = { instalment_amount: 500, frequency: 'weekly', start_on: startOn, income_and_expenditure: iae };
    return (await createProposal(testDb(), tenant.tenantId, debt.id, terms, `customer:${parties.customerId}`)).id;
  };

  const decisions: [string, string, (id: string) => request.Test][] = [
    ['/proposals/{id}/accept', 'proposal.accepted', (id) => api.post(`/proposals/${id}/accept`)],
    ['/proposals/{id}/decline', 'proposal.declined', (id) => api.post(`/proposals/${id}/decline`, { reason: 'Too long' })],
    ['/operator/proposals/{id}/accept', 'proposal.accepted', (id) => ops.post(`/operator/proposals/${id}/accept`)],
    ['/operator/proposals/{id}/decline', 'proposal.declined', (id) => ops.post(`/operator/proposals/${id}/decline`, { reason: 'Too long' })],
  ];
  for (const [path, event, send] of decisions) {
    const id = await propose();
    await run('post', path, send(id));
    const types = (await api.get('/events?limit=10').expect(200)).body.data.filter((e: Json) => e.data.object.id === id).map((e: Json) => e.type);
    expect([path, types]).toEqual([path, [event, 'proposal.created']]);
  }
  expectChecked(results, 'proposals');
});
